// Forms turned into the plain data the kernels read.
#include "form_codes.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trellis/core/error.hpp"

namespace trellis::grid::detail {
namespace {

ChainCode chain_code(const Operator& op) {
  if (op.atoms().size() > static_cast<std::size_t>(kMaxChainAtoms)) {
    throw UsageError(fmt::format("a form operator may chain at most {} elementary operators, this one has {}",
                                 kMaxChainAtoms, op.atoms().size()));
  }
  ChainCode code;
  code.count = static_cast<std::int32_t>(op.atoms().size());
  for (std::int32_t k = 0; k < code.count; ++k) {
    code.kind[k] = op.atoms()[static_cast<std::size_t>(k)].kind;
    code.axis[k] = op.atoms()[static_cast<std::size_t>(k)].axis;
  }
  return code;
}

}  // namespace

std::vector<TermCode> term_codes(const BilinearForm& form, int dim) {
  const std::vector<FormTerm> terms = form.terms(dim);
  if (terms.size() > static_cast<std::size_t>(kMaxTerms)) {
    throw UsageError(fmt::format("a form may have at most {} terms (a gradient counts one per axis), this one has {}",
                                 kMaxTerms, terms.size()));
  }
  std::vector<TermCode> codes;
  for (const FormTerm& term : terms) {
    if (!std::isfinite(term.scale)) throw UsageError("a form term has a non-finite scale");
    TermCode code;
    code.weight = term.weight;
    code.axis = term.axis;
    code.trial = chain_code(term.trial);
    code.test = chain_code(term.test);
    code.coefficient = term.coefficient;
    code.scale = term.scale;
    codes.push_back(code);
  }
  return codes;
}

std::vector<TermCode> term_codes(const LinearForm& form, int dim) {
  if (form.terms().size() > static_cast<std::size_t>(kMaxTerms)) {
    throw UsageError(
        fmt::format("a linear form may have at most {} terms, this one has {}", kMaxTerms, form.terms().size()));
  }
  std::vector<TermCode> codes;
  for (const LinearTerm& term : form.terms()) {
    term.test.check_axes(dim);
    if (term.weight == InnerProduct::plus && (term.axis < 0 || term.axis >= dim)) {
      throw UsageError(fmt::format("inner_plus along axis {} in a {}-D linear form", term.axis, dim));
    }
    if (!std::isfinite(term.scale)) throw UsageError("a linear form term has a non-finite value");
    TermCode code;
    code.weight = term.weight;
    code.axis = term.axis;
    code.test = chain_code(term.test);  // the trial chain stays empty: the "trial" is the coefficient at p
    code.coefficient = term.coefficient;
    code.scale = term.scale;
    codes.push_back(code);
  }
  return codes;
}

std::vector<std::uint8_t> constrained_nodes(const Mesh& mesh, const std::vector<Marker>& dirichlet) {
  const std::int32_t nodes = mesh.nodes();
  std::vector<std::uint8_t> constrained(static_cast<std::size_t>(nodes), 0);
  for (const Marker& marker : dirichlet) {
    if (marker.nodes.empty()) {
      throw UsageError(fmt::format("the constraint marker '{}' selects no nodes", marker.name));
    }
    for (std::int32_t node : marker.nodes) {
      if (node < 0 || node >= nodes) {
        throw UsageError(fmt::format("the constraint marker '{}' names node {}, outside the mesh's {} nodes",
                                     marker.name, node, nodes));
      }
      constrained[static_cast<std::size_t>(node)] = 1;
    }
  }
  return constrained;
}

template <typename T>
HostMeshArrays<T>::HostMeshArrays(const Mesh& mesh) {
  view.dim = mesh.dim();
  for (int a = 0; a < 3; ++a) {
    view.extent[a] = mesh.extent(a);
    view.stride[a] = mesh.stride(a);
    if (a < mesh.dim()) {
      for (double v : mesh.axis(a).spacings()) h[a].push_back(static_cast<T>(v));
      for (double v : mesh.axis(a).half_spacings()) hhalf[a].push_back(static_cast<T>(v));
    } else {
      h[a] = {T(1), T(1)};
      hhalf[a] = {T(1)};
    }
    view.h[a] = h[a].data();
    view.hhalf[a] = hhalf[a].data();
  }
}

template struct HostMeshArrays<float>;
template struct HostMeshArrays<double>;

}  // namespace trellis::grid::detail
