// One atom along one axis on the GPU: a grid-stride loop over nodes, one
// thread per node. Products and the sum are rounded like the reference's
// (no fused multiply-add), so results match it bitwise.
#include <cstdint>

#include "../atom_weights.hpp"
#include "../kernels.hpp"
#include "rounding.cuh"
#include "trellis/core/cuda_check.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;  // more nodes: the grid-stride loop covers them

template <typename T>
__global__ void __launch_bounds__(kThreads)
    apply_atom_kernel(AtomKind kind, const T* __restrict__ spacings, std::int32_t extent, std::int32_t stride,
                      std::int32_t nodes, const T* __restrict__ u, T* __restrict__ out) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < nodes; n += step) {
    const auto node = static_cast<std::int32_t>(n);
    const std::int32_t i = (node / stride) % extent;
    const AtomWeights<T> w = atom_weights<T>(kind, spacings, i);
    T value = mul_rn(w.self, u[node]);
    const std::int32_t j = i + w.offset;
    if (j >= 0 && j < extent) value = add_rn(value, mul_rn(w.neighbour, u[node + w.offset * stride]));
    out[node] = value;
  }
}

template <typename T>
void launch(AtomKind kind, const T* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes, const T* u,
            T* out, Stream stream) {
  if (nodes <= 0) return;
  const std::int64_t wanted = (static_cast<std::int64_t>(nodes) + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  TRELLIS_LAUNCH(apply_atom_kernel<T>, blocks, kThreads, 0, stream, kind, spacings, extent, stride, nodes, u, out);
}

}  // namespace

void apply_atom(AtomKind kind, const float* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                const float* u, float* out, Stream stream) {
  launch(kind, spacings, extent, stride, nodes, u, out, stream);
}
void apply_atom(AtomKind kind, const double* spacings, std::int32_t extent, std::int32_t stride, std::int32_t nodes,
                const double* u, double* out, Stream stream) {
  launch(kind, spacings, extent, stride, nodes, u, out, stream);
}

}  // namespace trellis::grid::cuda
