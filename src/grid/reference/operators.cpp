// One atom along one axis, node by node. The oracle.
#include "../atom_weights.hpp"
#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
void apply_one_atom(AtomKind kind, const T* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                    const T* u, T* out) {
  for (std::int32_t node = 0; node < nodes; ++node) {
    const std::int32_t i = (node / stride) % extent;
    const AtomWeights<T> w = atom_weights<T>(kind, spacings, i);
    T value = w.self * u[node];
    const std::int32_t j = i + w.offset;
    if (j >= 0 && j < extent) value += w.neighbour * u[node + w.offset * stride];
    out[node] = value;
  }
}

}  // namespace

void apply_atom(AtomKind kind, const float* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                const float* u, float* out, Stream) {
  apply_one_atom(kind, spacings, extent, stride, nodes, u, out);
}
void apply_atom(AtomKind kind, const double* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                const double* u, double* out, Stream) {
  apply_one_atom(kind, spacings, extent, stride, nodes, u, out);
}

}  // namespace trellis::grid::reference
