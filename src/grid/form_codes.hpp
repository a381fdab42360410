// Forms turned into the plain data the kernels read (form_stencils.hpp).
#pragma once

#include <vector>

#include "form_stencils.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid::detail {

// Throws UsageError for forms the kernels cannot take: more than kMaxTerms
// terms, more than kMaxChainAtoms atoms in a chain, an axis outside the
// mesh, a non-finite scale.
std::vector<TermCode> term_codes(const BilinearForm& form, int dim);
// A linear form's terms: the test chain, the coefficient slot (or -1 for the
// constant `scale`), an empty trial chain.
std::vector<TermCode> term_codes(const LinearForm& form, int dim);

// 1 for nodes some marker selects, 0 elsewhere. Throws UsageError on a
// marker that selects nothing or names a node outside the mesh.
std::vector<std::uint8_t> constrained_nodes(const Mesh& mesh, const std::vector<Marker>& dirichlet);

// A mesh's spacing arrays in T on the host, and the view that points at
// them (axes beyond the mesh's dimension have one node and weight 1).
template <typename T>
struct HostMeshArrays {
  std::vector<T> h[3];
  std::vector<T> hhalf[3];
  MeshView<T> view;

  explicit HostMeshArrays(const Mesh& mesh);
  HostMeshArrays(const HostMeshArrays&) = delete;
  HostMeshArrays& operator=(const HostMeshArrays&) = delete;
};

extern template struct HostMeshArrays<float>;
extern template struct HostMeshArrays<double>;

}  // namespace trellis::grid::detail
