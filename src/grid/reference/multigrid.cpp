// Scalar multigrid kernels: one loop each, in index order. The Galerkin
// product is written as its definition, C[I][J] = sum over fine entries
// a_ij of P[i][I] * a_ij * P[j][J] (R = P^T is read only for its size), with
// the sums kept in an ordered map: the oracle the cpu row-by-row product is
// checked against.
#include <map>
#include <utility>

#include "../kernels.hpp"
#include "../multigrid_rows.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
void residual_of(const CsrView<T>& a, const T* b, const T* x, T* r) {
  for (std::int32_t row = 0; row < a.rows; ++row) r[row] = detail::residual_row(a, b, x, row);
}

template <typename T>
void smoothing_step_of(std::int32_t n, double alpha, double beta, const T* inverse_diagonal, const T* r, T* d, T* x) {
  const T a = static_cast<T>(alpha);
  const T c = static_cast<T>(beta);
  for (std::int32_t i = 0; i < n; ++i) detail::smoothing_entry(a, c, inverse_diagonal, r, d, x, i);
}

template <typename T>
void xpay_of(std::int32_t n, const T* z, double beta, T* p) {
  const T c = static_cast<T>(beta);
  for (std::int32_t i = 0; i < n; ++i) p[i] = z[i] + c * p[i];
}

template <typename T>
CsrMatrix<T> galerkin_of(const CsrView<T>& r, const CsrView<T>& a, const CsrView<T>& p) {
  std::map<std::pair<std::int32_t, std::int32_t>, double> sums;
  for (std::int32_t i = 0; i < a.rows; ++i) {
    for (RowOffset k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k) {
      const std::int32_t j = a.col_indices[k];
      for (RowOffset ki = p.row_offsets[i]; ki < p.row_offsets[i + 1]; ++ki) {
        for (RowOffset kj = p.row_offsets[j]; kj < p.row_offsets[j + 1]; ++kj) {
          sums[{p.col_indices[ki], p.col_indices[kj]}] +=
              static_cast<double>(p.values[ki]) * a.values[k] * p.values[kj];
        }
      }
    }
  }
  CsrMatrix<T> c;
  c.rows = r.rows;
  c.cols = p.cols;
  c.row_offsets.assign(static_cast<std::size_t>(c.rows) + 1, 0);
  for (const auto& [position, value] : sums) {
    ++c.row_offsets[static_cast<std::size_t>(position.first) + 1];
    c.col_indices.push_back(position.second);
    c.values.push_back(static_cast<T>(value));
  }
  for (std::int32_t row = 0; row < c.rows; ++row) c.row_offsets[row + 1] += c.row_offsets[row];
  return c;
}

}  // namespace

TRELLIS_GRID_DEFINE_MULTIGRID_KERNELS(float)
TRELLIS_GRID_DEFINE_MULTIGRID_KERNELS(double)

}  // namespace trellis::grid::reference
