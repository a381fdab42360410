// The per-row arithmetic of the multigrid kernels, written once: the
// reference loops over it in order, the cpu backend over threads, so both
// give the same bits.
#pragma once

#include "trellis/core/csr.hpp"

namespace trellis::grid::detail {

// Coarse levels are small: below this many rows a parallel region costs
// more than the work (waking threads per call), so cpu runs them serially.
inline constexpr std::int32_t kSerialRows = 16384;

// b[row] - (A x)[row], the products summed in column order.
template <typename T>
T residual_row(const CsrView<T>& a, const T* b, const T* x, std::int32_t row) {
  T sum = 0;
  for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) sum += a.values[k] * x[a.col_indices[k]];
  return b[row] - sum;
}

// d = alpha d + beta D^-1 r and x += d at entry i. alpha 0 (a sweep's
// first Chebyshev step, every Jacobi step) drops the old d unread: a pass
// less on the device, and what a diverged cycle left there cannot return.
template <typename T>
void smoothing_entry(T alpha, T beta, const T* inverse_diagonal, const T* r, T* d, T* x, std::int32_t i) {
  const T kept = alpha == T(0) ? T(0) : alpha * d[i];
  d[i] = kept + beta * (inverse_diagonal[i] * r[i]);
  x[i] += d[i];
}

}  // namespace trellis::grid::detail
