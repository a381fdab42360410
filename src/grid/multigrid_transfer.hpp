// The levels of a tensor-mesh multigrid hierarchy and the transfers between
// two of them (multigrid.hpp states the rules).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "trellis/core/csr.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid::detail {

// An axis is halved when its cell count is even and at least 4.
bool can_halve(const Mesh1D& axis);
// The axis with every other point (uniform stays uniform), or itself.
Mesh1D coarsened(const Mesh1D& axis);
// True when some axis of mesh can be halved.
bool can_coarsen(const Mesh& mesh);
// Every axis coarsened.
Mesh coarsened(const Mesh& mesh);

// Fine index i of a 1-D axis interpolated from at most two coarse indices.
struct AxisWeights {
  std::array<std::int32_t, 2> coarse{};
  std::array<double, 2> weight{};
  int count = 0;
};

// One entry per fine node of the axis: the coarse indices it reads and their
// weights (the identity when the axis is not halved).
std::vector<AxisWeights> axis_interpolation(const Mesh1D& fine, bool halved);

// A coarse node is constrained when the fine node at its place is.
std::vector<std::uint8_t> coarse_constraints(const Mesh& fine, const Mesh& coarse,
                                             const std::vector<std::uint8_t>& fine_constrained);

// The indices of the non-zero flags, ascending.
std::vector<std::int32_t> flagged_nodes(const std::vector<std::uint8_t>& flags);

// P: fine nodes x coarse nodes, linear interpolation by coordinates along
// halved axes, without rows of constrained fine nodes or columns of
// constrained coarse nodes.
template <typename T>
CsrMatrix<T> prolongation(const Mesh& fine, const Mesh& coarse, const std::vector<std::uint8_t>& fine_constrained,
                          const std::vector<std::uint8_t>& coarse_constrained);

// The transpose, rows in ascending column order.
template <typename T>
CsrMatrix<T> transposed(const CsrMatrix<T>& a);

}  // namespace trellis::grid::detail
