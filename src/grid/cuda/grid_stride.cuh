// Grid-stride loops: a thread's first index and the stride, and how many
// blocks to launch (at most max_blocks; the loops cover the rest).
#pragma once

#include <algorithm>
#include <cstdint>

namespace trellis::grid::cuda {

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

inline unsigned launch_blocks(std::int64_t n, int threads, std::int64_t max_blocks) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, max_blocks));
}

}  // namespace trellis::grid::cuda
