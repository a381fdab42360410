// Model matrices from finite-difference stencils on uniform Cartesian grids.
#pragma once

#include <cstdint>

#include "trellis/core/csr.hpp"

namespace trellis::grid {

// The 7-point negative Laplacian on an nx x ny x nz grid of unknowns with
// homogeneous Dirichlet boundaries and unit spacing: 6 on the diagonal, -1
// towards each existing neighbour. Unknown (i, j, k) is row i + nx*(j + ny*k);
// columns are ascending within each row. Throws UsageError when a dimension
// is not positive or the unknowns do not fit 32-bit indices.
template <typename T>
CsrMatrix<T> laplacian_7point(std::int32_t nx, std::int32_t ny, std::int32_t nz);

}  // namespace trellis::grid
