// See multigrid_lines.hpp.
#include "multigrid_lines.hpp"

#include <cmath>

#include "multigrid_rows.hpp"

namespace trellis::grid::detail {
namespace {

// Factors one line (multigrid_lines.hpp); false at a zero or non-finite
// pivot of a free row, whose number goes to bad_row.
template <typename T>
bool factor_line(const CsrView<T>& a, const std::uint8_t* constrained, LineFactors<T>& f, std::int32_t first,
                 std::int32_t& bad_row) {
  T above = 0;  // the previous row's eliminated entry above its diagonal
  for (std::int32_t k = 0; k < f.length; ++k) {
    const std::int32_t row = first + k * f.stride;
    T below = 0, diagonal = 0, beyond = 0;
    for (RowOffset e = a.row_offsets[row]; e < a.row_offsets[row + 1]; ++e) {
      const std::int32_t column = a.col_indices[e];
      if (column == row)
        diagonal += a.values[e];
      else if (k > 0 && column == row - f.stride)
        below += a.values[e];
      else if (k + 1 < f.length && column == row + f.stride)
        beyond += a.values[e];
    }
    const auto at = static_cast<std::size_t>(row);
    if (constrained[at]) {
      f.lower[at] = 0;
      f.upper[at] = 0;
      f.inverse_pivot[at] = 0;
      above = 0;
      continue;
    }
    const T pivot = diagonal - below * above;
    if (pivot == T(0) || !std::isfinite(static_cast<double>(pivot))) {
      bad_row = row;
      return false;
    }
    const T inverse = T(1) / pivot;
    f.lower[at] = below;
    f.upper[at] = beyond * inverse;
    f.inverse_pivot[at] = inverse;
    above = f.upper[at];
  }
  return true;
}

template <typename T>
void solve_line(const LineFactors<T>& f, const T* r, T* e, std::int32_t first) {
  T previous = 0;
  for (std::int32_t k = 0; k < f.length; ++k) {
    const std::int32_t row = first + k * f.stride;
    const auto at = static_cast<std::size_t>(row);
    previous = (r[at] - f.lower[at] * previous) * f.inverse_pivot[at];
    e[at] = previous;
  }
  T next = 0;
  for (std::int32_t k = f.length - 1; k >= 0; --k) {
    const std::int32_t row = first + k * f.stride;
    const auto at = static_cast<std::size_t>(row);
    next = e[at] - f.upper[at] * next;
    e[at] = next;
  }
}

}  // namespace

template <typename T>
LineFactors<T> factor_lines(const CsrView<T>& a, const std::uint8_t* constrained, std::int32_t stride,
                            std::int32_t length, std::int32_t& bad_row) {
  LineFactors<T> f;
  f.stride = stride;
  f.length = length;
  f.lines = a.rows / length;
  const auto n = static_cast<std::size_t>(a.rows);
  f.lower.assign(n, T(0));
  f.upper.assign(n, T(0));
  f.inverse_pivot.assign(n, T(0));
  bad_row = -1;
  for (std::int32_t line = 0; line < f.lines; ++line) {
    if (!factor_line(a, constrained, f, line_start(line, stride, length), bad_row)) break;
  }
  return f;
}

template <typename T>
void solve_lines(const LineFactors<T>& f, const T* r, T* e, Backend backend) {
  if (backend == Backend::reference) {
    for (std::int32_t line = 0; line < f.lines; ++line) solve_line(f, r, e, line_start(line, f.stride, f.length));
    return;
  }
  const bool parallel = static_cast<std::int64_t>(f.lines) * f.length >= kSerialRows;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int32_t line = 0; line < f.lines; ++line) solve_line(f, r, e, line_start(line, f.stride, f.length));
}

template LineFactors<float> factor_lines<float>(const CsrView<float>&, const std::uint8_t*, std::int32_t, std::int32_t,
                                                std::int32_t&);
template LineFactors<double> factor_lines<double>(const CsrView<double>&, const std::uint8_t*, std::int32_t,
                                                  std::int32_t, std::int32_t&);
template void solve_lines<float>(const LineFactors<float>&, const float*, float*, Backend);
template void solve_lines<double>(const LineFactors<double>&, const double*, double*, Backend);

}  // namespace trellis::grid::detail
