#include "trellis/grid/stencil.hpp"

#include <fmt/format.h>

#include <limits>

#include "trellis/core/error.hpp"

namespace trellis::grid {

template <typename T>
CsrMatrix<T> laplacian_7point(std::int32_t nx, std::int32_t ny, std::int32_t nz) {
  if (nx <= 0 || ny <= 0 || nz <= 0) {
    throw UsageError(fmt::format("laplacian_7point: dimensions must be positive, got {}x{}x{}", nx, ny, nz));
  }
  const std::int64_t n = static_cast<std::int64_t>(nx) * ny * nz;
  if (n > std::numeric_limits<std::int32_t>::max()) {
    throw UsageError(fmt::format("laplacian_7point: {}x{}x{} = {} unknowns exceed 32-bit indices", nx, ny, nz, n));
  }
  CsrMatrix<T> a;
  a.rows = a.cols = static_cast<std::int32_t>(n);
  a.row_offsets.resize(static_cast<std::size_t>(n) + 1);
  a.col_indices.reserve(static_cast<std::size_t>(7 * n));
  a.values.reserve(static_cast<std::size_t>(7 * n));
  const std::int64_t plane = static_cast<std::int64_t>(nx) * ny;
  auto add = [&](std::int64_t col, T value) {
    a.col_indices.push_back(static_cast<ColumnIndex>(col));
    a.values.push_back(value);
  };
  std::int64_t row = 0;
  for (std::int32_t k = 0; k < nz; ++k) {
    for (std::int32_t j = 0; j < ny; ++j) {
      for (std::int32_t i = 0; i < nx; ++i, ++row) {
        a.row_offsets[row] = a.nnz();
        if (k > 0) add(row - plane, T(-1));
        if (j > 0) add(row - nx, T(-1));
        if (i > 0) add(row - 1, T(-1));
        add(row, T(6));
        if (i + 1 < nx) add(row + 1, T(-1));
        if (j + 1 < ny) add(row + nx, T(-1));
        if (k + 1 < nz) add(row + plane, T(-1));
      }
    }
  }
  a.row_offsets[n] = a.nnz();
  return a;
}

template CsrMatrix<float> laplacian_7point<float>(std::int32_t, std::int32_t, std::int32_t);
template CsrMatrix<double> laplacian_7point<double>(std::int32_t, std::int32_t, std::int32_t);

}  // namespace trellis::grid
