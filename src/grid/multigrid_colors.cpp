// See multigrid_colors.hpp.
#include "multigrid_colors.hpp"

#include "multigrid_rows.hpp"

namespace trellis::grid::detail {

template <typename T>
void relax_colour(const CsrView<T>& a, const T* b, std::int32_t nx, std::int32_t ny, std::int32_t colour, T weight,
                  const T* inverse_diagonal, T* x, Backend backend) {
  const bool parallel = backend != Backend::reference && a.rows >= kSerialRows;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int32_t i = 0; i < a.rows; ++i) {
    if (node_colour(i, nx, ny) == colour) x[i] += weight * (inverse_diagonal[i] * residual_row(a, b, x, i));
  }
}

template void relax_colour<float>(const CsrView<float>&, const float*, std::int32_t, std::int32_t, std::int32_t, float,
                                  const float*, float*, Backend);
template void relax_colour<double>(const CsrView<double>&, const double*, std::int32_t, std::int32_t, std::int32_t,
                                   double, const double*, double*, Backend);

}  // namespace trellis::grid::detail
