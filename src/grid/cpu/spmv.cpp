// OpenMP CSR SpMV. Each thread takes a contiguous block of rows holding an
// equal share of (entries + rows), so one long row or many empty rows do not
// unbalance the threads. Per row the arithmetic is the reference's, in the
// same order, so results match it bitwise.
#include <omp.h>

#include <algorithm>

#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

// First row r with row_offsets[r] + r >= work: the cost of rows before r.
std::int32_t row_at_work(const RowOffset* row_offsets, std::int32_t rows, RowOffset work) {
  std::int32_t lo = 0;
  std::int32_t hi = rows;
  while (lo < hi) {
    std::int32_t mid = lo + (hi - lo) / 2;
    if (row_offsets[mid] + mid < work)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <typename T>
void spmv_rows(T alpha, const CsrView<T>& a, const T* x, T beta, T* y) {
  const RowOffset total_work = a.nnz + a.rows;
#pragma omp parallel
  {
    const RowOffset threads = omp_get_num_threads();
    const RowOffset thread = omp_get_thread_num();
    const std::int32_t first = row_at_work(a.row_offsets, a.rows, total_work * thread / threads);
    const std::int32_t last = row_at_work(a.row_offsets, a.rows, total_work * (thread + 1) / threads);
    for (std::int32_t row = first; row < last; ++row) {
      T sum = 0;
      for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) sum += a.values[k] * x[a.col_indices[k]];
      y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
  }
}

}  // namespace

void spmv(float alpha, const CsrView<float>& a, const float* x, float beta, float* y, Stream) {
  spmv_rows(alpha, a, x, beta, y);
}
void spmv(double alpha, const CsrView<double>& a, const double* x, double beta, double* y, Stream) {
  spmv_rows(alpha, a, x, beta, y);
}

}  // namespace trellis::grid::cpu
