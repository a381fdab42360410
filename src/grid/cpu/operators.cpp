// One atom along one axis with OpenMP. Nodes are visited as (outer, i, inner)
// with node = inner + stride * (i + extent * outer): the weights are computed
// once per i and the inner loop runs over contiguous memory. The arithmetic
// per node is the reference's.
#include <cstdint>

#include "../atom_weights.hpp"
#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

template <typename T>
void apply_one_atom(AtomKind kind, const T* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                    const T* __restrict u, T* __restrict out) {
  const std::int64_t line = static_cast<std::int64_t>(extent) * stride;
  const std::int64_t outers = line == 0 ? 0 : nodes / line;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t outer = 0; outer < outers; ++outer) {
    for (std::int32_t i = 0; i < extent; ++i) {
      const AtomWeights<T> w = atom_weights<T>(kind, spacings, i);
      const std::int32_t j = i + w.offset;
      const bool has_neighbour = j >= 0 && j < extent;
      const std::int64_t first = stride * (i + extent * outer);
      const std::int64_t neighbour_shift = static_cast<std::int64_t>(w.offset) * stride;
      for (std::int64_t node = first; node < first + stride; ++node) {
        T value = w.self * u[node];
        if (has_neighbour) value += w.neighbour * u[node + neighbour_shift];
        out[node] = value;
      }
    }
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

}  // namespace trellis::grid::cpu
