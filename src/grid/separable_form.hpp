// The 1-D stencil tables of a separable form (form_kernels.hpp), built on the
// host in double from the mesh's spacings with the weights every backend uses.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "form_codes.hpp"
#include "form_kernels.hpp"

namespace trellis::grid::detail {

struct AxisTables {
  std::int32_t reach = 0;
  std::vector<double> constant;  // 5 x extent (offset-major), empty when no constant term acts along the axis
  struct CoefficientTerm {
    std::int32_t slot;
    std::int32_t shift;
    std::vector<double> table;  // (2 x 3) x extent: entry (q, o) of index i at (q * 3 + o) * extent + i
  };
  std::vector<CoefficientTerm> coefficient_terms;
};

// Empty when some term is not separable (a chain of two atoms, operators or
// weight along different axes) or an axis has more than
// kMaxCoefficientTermsPerAxis coefficient terms.
std::optional<std::array<AxisTables, 3>> separable_tables(const HostMeshArrays<double>& mesh,
                                                          const std::vector<TermCode>& terms);

// kConstrainedNode, kNearConstrainedNode and kNearEdgeNode for every node of the mesh.
std::vector<std::uint8_t> separable_flags(const MeshView<double>& mesh, const std::array<AxisTables, 3>& tables,
                                          const std::vector<std::uint8_t>& constrained);

// The form's uniform constant stencil (form_kernels.hpp) when program (its
// tables in T) has no coefficient terms and reaches at most one node along
// each axis, the tables and the half spacings are bitwise the same at every
// interior index, the node numbering is x fastest, and constrained marks
// exactly the boundary nodes; usable is false otherwise. Bitwise, not by
// mesh kind: an equally spaced mesh whose points are rounded (0..1 in 255
// cells) has spacings a few ulps apart, and constant weights there would
// not be the assembled matrix's.
template <typename T>
UniformConstantForm<T> uniform_constant_form(const MeshView<T>& mesh, const SeparableForm<T>& program,
                                             const std::vector<std::uint8_t>& constrained);

// The form's uniform coefficient stencils (form_kernels.hpp) under the same
// conditions, for a program that has coefficient terms (each shifting by at
// most one node); usable is false otherwise, and for programs without
// coefficient terms (uniform_constant_form takes those).
template <typename T>
UniformCoefficientForm<T> uniform_coefficient_form(const MeshView<T>& mesh, const SeparableForm<T>& program,
                                                   const std::vector<std::uint8_t>& constrained);

}  // namespace trellis::grid::detail
