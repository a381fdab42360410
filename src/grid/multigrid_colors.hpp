// Multicolour Gauss-Seidel for the multigrid smoother
// (Smoother::gauss_seidel). A node's colour is the parity of each of its
// indices on the level's tensor mesh: 2, 4 or 8 colours in 1-, 2- and 3-D.
// Two nodes of one colour are two or more steps apart along some axis, so
// no operator that couples a node only to nodes within one step along every
// axis couples them: the forms' stencils and their Galerkin coarse
// operators (which also couple diagonal neighbours, so red-black is not
// enough there). Solving a colour's rows one after another is therefore the
// same as updating all of them from one residual: Gauss-Seidel over the
// colour in any order, by threads, with the same result on every backend
// (cuda updates a level it keeps as Kronecker bands that way, from a whole
// residual). Constrained rows have a zero inverse diagonal, so they do not
// move.
#pragma once

#include <cstdint>

#include "multigrid_smoother.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"

namespace trellis::grid::detail {

// Node i's colour on a mesh of nx x ny x ... nodes (numbered x fastest).
TRELLIS_HOST_DEVICE inline std::int32_t node_colour(std::int32_t i, std::int32_t nx, std::int32_t ny) {
  const std::int32_t rest = i / nx;
  return ((i - rest * nx) & 1) | (((rest % ny) & 1) << 1) | (((rest / ny) & 1) << 2);
}

// One colour of a sweep on a CSR level: on each node i of `colour`,
// x_i += weight * (inverse_diagonal_i * r_i) with r_i = b_i - (A x)_i as
// residual_row forms it (multigrid_rows.hpp). The reference takes the rows
// in order, cpu over threads: a row of the colour reads no other row's
// unknown of it, so the order does not matter. cuda/multigrid.cu repeats it.
template <typename T>
void relax_colour(const CsrView<T>& a, const T* b, std::int32_t nx, std::int32_t ny, std::int32_t colour, T weight,
                  const T* inverse_diagonal, T* x, Backend backend);

}  // namespace trellis::grid::detail
