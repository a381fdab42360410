// Operators: atoms and chains, their stencils, and the public apply() switch.
// A chain runs atom by atom through one temporary, ping-ponging with out so
// the last atom writes out itself.
#include "trellis/grid/operators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "atom_weights.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

const char* atom_name(AtomKind kind) {
  switch (kind) {
    case AtomKind::backward_difference:
      return "backward_difference";
    case AtomKind::forward_difference:
      return "forward_difference";
    case AtomKind::backward_jump:
      return "backward_jump";
    case AtomKind::forward_jump:
      return "forward_jump";
    case AtomKind::backward_average:
      return "backward_average";
    case AtomKind::forward_average:
      return "forward_average";
    case AtomKind::backward_shift:
      return "backward_shift";
    case AtomKind::forward_shift:
      return "forward_shift";
  }
  return "unknown";
}

Operator atom_operator(AtomKind kind, int axis) {
  if (axis < 0 || axis > 2) {
    throw UsageError(fmt::format("{}: axis must be 0, 1 or 2, got {}", atom_name(kind), axis));
  }
  return Operator(Atom{kind, static_cast<std::int8_t>(axis)});
}

void check_sizes(const Mesh& mesh, std::size_t u_size, std::size_t out_size) {
  const auto nodes = static_cast<std::size_t>(mesh.nodes());
  if (u_size != nodes || out_size != nodes) {
    throw UsageError(fmt::format("apply: a mesh of {} nodes needs u and out of {} entries, got {} and {}", nodes, nodes,
                                 u_size, out_size));
  }
}

template <typename T>
std::vector<T> spacings_as(const Mesh1D& axis) {
  const std::vector<double> h = axis.spacings();
  return std::vector<T>(h.begin(), h.end());
}

// The chain on host data with one backend's kernel (reference or cpu).
template <typename T, typename AtomKernel>
void apply_chain_on_host(const Operator& op, const Mesh& mesh, const T* u, T* out, AtomKernel apply_atom) {
  const auto& atoms = op.atoms();
  const std::int32_t nodes = mesh.nodes();
  if (atoms.empty()) {
    std::copy(u, u + nodes, out);
    return;
  }
  std::array<std::vector<T>, 3> spacings;
  for (int a = 0; a < mesh.dim(); ++a) spacings[static_cast<std::size_t>(a)] = spacings_as<T>(mesh.axis(a));
  std::vector<T> temporary(atoms.size() > 1 ? static_cast<std::size_t>(nodes) : 0);
  const T* input = u;
  for (std::size_t k = 0; k < atoms.size(); ++k) {
    // Counting back from the last atom, which writes out, buffers alternate.
    T* output = (atoms.size() - 1 - k) % 2 == 0 ? out : temporary.data();
    const int axis = atoms[k].axis;
    apply_atom(atoms[k].kind, spacings[static_cast<std::size_t>(axis)].data(), mesh.extent(axis), mesh.stride(axis),
               nodes, input, output, Stream{nullptr});
    input = output;
  }
}

}  // namespace

void Operator::check_axes(int dim) const {
  for (std::size_t k = 0; k < atoms_.size(); ++k) {
    if (atoms_[k].axis < 0 || atoms_[k].axis >= dim) {
      throw UsageError(fmt::format("operator atom {} ({}) acts along axis {}, but the mesh has {} axis(es)", k,
                                   atom_name(atoms_[k].kind), static_cast<int>(atoms_[k].axis), dim));
    }
  }
}

Operator compose(const Operator& after, const Operator& before) {
  Operator result = before;
  result.atoms_.insert(result.atoms_.end(), after.atoms_.begin(), after.atoms_.end());
  return result;
}

Operator identity() { return Operator(); }
Operator backward_difference(int axis) { return atom_operator(AtomKind::backward_difference, axis); }
Operator forward_difference(int axis) { return atom_operator(AtomKind::forward_difference, axis); }
Operator backward_jump(int axis) { return atom_operator(AtomKind::backward_jump, axis); }
Operator forward_jump(int axis) { return atom_operator(AtomKind::forward_jump, axis); }
Operator backward_average(int axis) { return atom_operator(AtomKind::backward_average, axis); }
Operator forward_average(int axis) { return atom_operator(AtomKind::forward_average, axis); }
Operator backward_shift(int axis) { return atom_operator(AtomKind::backward_shift, axis); }
Operator forward_shift(int axis) { return atom_operator(AtomKind::forward_shift, axis); }

std::vector<StencilEntry> stencil_at(const Mesh& mesh, const Operator& op, std::int32_t node) {
  op.check_axes(mesh.dim());
  if (node < 0 || node >= mesh.nodes()) {
    throw UsageError(fmt::format("stencil_at: node {} is outside 0..{}", node, mesh.nodes() - 1));
  }
  // Entries express out[node] in terms of the input of the atom being
  // expanded; walking the chain from its last atom back to its first ends
  // with entries on u.
  std::vector<StencilEntry> entries{{node, 1.0}};
  std::vector<StencilEntry> expanded;
  const auto& atoms = op.atoms();
  for (auto atom = atoms.rbegin(); atom != atoms.rend(); ++atom) {
    const Mesh1D& axis = mesh.axis(atom->axis);
    const std::int32_t stride = mesh.stride(atom->axis);
    expanded.clear();
    for (const StencilEntry& entry : entries) {
      const std::int32_t i = mesh.multi_index(entry.source)[static_cast<std::size_t>(atom->axis)];
      // atom_weights reads h_i and h_{i+1} only: hand it just those two.
      const double h_window[2] = {axis.spacing(i), axis.spacing(i + 1)};
      const AtomWeights<double> w = atom_weights<double>(atom->kind, h_window, 0);
      if (w.self != 0) expanded.push_back({entry.source, entry.weight * w.self});
      const std::int32_t j = i + w.offset;
      if (j >= 0 && j < axis.nodes() && w.neighbour != 0) {
        expanded.push_back({entry.source + w.offset * stride, entry.weight * w.neighbour});
      }
    }
    std::swap(entries, expanded);
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const StencilEntry& a, const StencilEntry& b) { return a.source < b.source; });
  std::vector<StencilEntry> merged;
  for (const StencilEntry& entry : entries) {
    if (!merged.empty() && merged.back().source == entry.source)
      merged.back().weight += entry.weight;
    else
      merged.push_back(entry);
  }
  std::erase_if(merged, [](const StencilEntry& e) { return e.weight == 0; });
  return merged;
}

template <typename T>
void apply(const Operator& op, const Mesh& mesh, std::span<const T> u, std::span<T> out, Backend backend) {
  op.check_axes(mesh.dim());
  check_sizes(mesh, u.size(), out.size());
  switch (resolve(backend)) {
    case Backend::reference: {
      apply_chain_on_host(op, mesh, u.data(), out.data(), [](auto... args) { reference::apply_atom(args...); });
      return;
    }
    case Backend::cpu: {
      apply_chain_on_host(op, mesh, u.data(), out.data(), [](auto... args) { cpu::apply_atom(args...); });
      return;
    }
    case Backend::cuda: {
      DeviceMesh<T> device_mesh(mesh);
      auto device_u = DeviceArray<T>::from_host(u);
      DeviceArray<T> device_out(out.size());
      apply(op, device_mesh, device_u, device_out);
      device_out.copy_to_host(out);
      device::synchronize(nullptr);
      return;
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("apply: unresolved backend");
}

template <typename T>
void apply(const Operator& op, const DeviceMesh<T>& mesh, const DeviceArray<T>& u, DeviceArray<T>& out, Stream stream) {
  const Mesh& host_mesh = mesh.mesh();
  op.check_axes(host_mesh.dim());
  check_sizes(host_mesh, u.size(), out.size());
  const auto& atoms = op.atoms();
  if (atoms.empty()) {
    out.copy_from(u, stream);
    return;
  }
  // Released at return; cudaFree waits for the kernels still reading it.
  DeviceArray<T> temporary(atoms.size() > 1 ? out.size() : 0);
  const T* input = u.data();
  for (std::size_t k = 0; k < atoms.size(); ++k) {
    T* output = (atoms.size() - 1 - k) % 2 == 0 ? out.data() : temporary.data();
    const int axis = atoms[k].axis;
    cuda::apply_atom(atoms[k].kind, mesh.spacings(axis), host_mesh.extent(axis), host_mesh.stride(axis),
                     host_mesh.nodes(), input, output, stream);
    input = output;
  }
}

template void apply<float>(const Operator&, const Mesh&, std::span<const float>, std::span<float>, Backend);
template void apply<double>(const Operator&, const Mesh&, std::span<const double>, std::span<double>, Backend);
template void apply<float>(const Operator&, const DeviceMesh<float>&, const DeviceArray<float>&, DeviceArray<float>&,
                           Stream);
template void apply<double>(const Operator&, const DeviceMesh<double>&, const DeviceArray<double>&,
                            DeviceArray<double>&, Stream);

}  // namespace trellis::grid
