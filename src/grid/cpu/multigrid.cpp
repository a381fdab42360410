// OpenMP multigrid kernels. Residual, smoothing step and xpay do the
// reference's arithmetic row by row (bitwise equal to it). The Galerkin
// product is Gustavson's row-by-row SpGEMM, C[I] = sum over R[I][i] of
// R[I][i] * (A[i] P): rows are independent, a symbolic pass counts each
// row's columns and a numeric pass sums into a per-thread dense accumulator;
// its sums run in another order than the reference's, so C equals it to
// rounding.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "../kernels.hpp"
#include "../multigrid_rows.hpp"

namespace trellis::grid::cpu {
namespace {

template <typename T>
void residual_of(const CsrView<T>& a, const T* b, const T* x, T* r) {
#pragma omp parallel for schedule(static) if (a.rows >= detail::kSerialRows)
  for (std::int32_t row = 0; row < a.rows; ++row) r[row] = detail::residual_row(a, b, x, row);
}

template <typename T>
void smoothing_step_of(std::int32_t n, double alpha, double beta, const T* inverse_diagonal, const T* r, T* d, T* x) {
  const T a = static_cast<T>(alpha);
  const T c = static_cast<T>(beta);
#pragma omp parallel for simd schedule(static) if (n >= detail::kSerialRows)
  for (std::int32_t i = 0; i < n; ++i) detail::smoothing_entry(a, c, inverse_diagonal, r, d, x, i);
}

template <typename T>
void xpay_of(std::int32_t n, const T* z, double beta, T* p) {
  const T c = static_cast<T>(beta);
#pragma omp parallel for simd schedule(static) if (n >= detail::kSerialRows)
  for (std::int32_t i = 0; i < n; ++i) p[i] = z[i] + c * p[i];
}

// Visits every (J, R[I][i] * A[i][j] * P[j][J]) of coarse row I.
template <typename T, typename Visit>
void visit_row(const CsrView<T>& r, const CsrView<T>& a, const CsrView<T>& p, std::int32_t row, Visit visit) {
  for (RowOffset kr = r.row_offsets[row]; kr < r.row_offsets[row + 1]; ++kr) {
    const std::int32_t i = r.col_indices[kr];
    for (RowOffset ka = a.row_offsets[i]; ka < a.row_offsets[i + 1]; ++ka) {
      const double ra = static_cast<double>(r.values[kr]) * a.values[ka];
      const std::int32_t j = a.col_indices[ka];
      for (RowOffset kp = p.row_offsets[j]; kp < p.row_offsets[j + 1]; ++kp) {
        visit(p.col_indices[kp], ra * p.values[kp]);
      }
    }
  }
}

template <typename T>
CsrMatrix<T> galerkin_of(const CsrView<T>& r, const CsrView<T>& a, const CsrView<T>& p) {
  CsrMatrix<T> c;
  c.rows = r.rows;
  c.cols = p.cols;
  c.row_offsets.assign(static_cast<std::size_t>(c.rows) + 1, 0);
  const auto width = static_cast<std::size_t>(p.cols);
  const bool parallel = c.rows >= detail::kSerialRows / 8;  // rows of the product cost about 8 fine rows
#pragma omp parallel if (parallel)
  {
    std::vector<std::int32_t> seen(width, -1);
#pragma omp for schedule(dynamic, 256)
    for (std::int32_t row = 0; row < c.rows; ++row) {
      RowOffset count = 0;
      visit_row(r, a, p, row, [&](std::int32_t col, double) {
        if (seen[static_cast<std::size_t>(col)] != row) seen[static_cast<std::size_t>(col)] = row, ++count;
      });
      c.row_offsets[static_cast<std::size_t>(row) + 1] = count;
    }
  }
  for (std::int32_t row = 0; row < c.rows; ++row) c.row_offsets[row + 1] += c.row_offsets[row];
  c.col_indices.resize(static_cast<std::size_t>(c.row_offsets.back()));
  c.values.resize(c.col_indices.size());
#pragma omp parallel if (parallel)
  {
    std::vector<double> sums(width, 0.0);
    std::vector<std::uint8_t> touched(width, 0);
#pragma omp for schedule(dynamic, 256)
    for (std::int32_t row = 0; row < c.rows; ++row) {
      ColumnIndex* cols = c.col_indices.data() + c.row_offsets[row];
      std::int32_t count = 0;
      visit_row(r, a, p, row, [&](std::int32_t col, double value) {
        const auto at = static_cast<std::size_t>(col);
        if (!touched[at]) touched[at] = 1, cols[count++] = col;
        sums[at] += value;
      });
      std::sort(cols, cols + count);
      T* values = c.values.data() + c.row_offsets[row];
      for (std::int32_t k = 0; k < count; ++k) {
        const auto at = static_cast<std::size_t>(cols[k]);
        values[k] = static_cast<T>(sums[at]);
        sums[at] = 0;
        touched[at] = 0;
      }
    }
  }
  return c;
}

}  // namespace

TRELLIS_GRID_DEFINE_MULTIGRID_KERNELS(float)
TRELLIS_GRID_DEFINE_MULTIGRID_KERNELS(double)

}  // namespace trellis::grid::cpu
