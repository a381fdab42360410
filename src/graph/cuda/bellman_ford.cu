// Data-driven Bellman-Ford: a persistent cooperative grid relaxes the
// out-edges of every node in the current frontier; nodes whose key drops join
// the next frontier (once, by stamp). One grid.sync per iteration and no host
// round trip: the loop ends inside the kernel when a frontier is empty.
#include <cooperative_groups.h>

#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(kThreads)
    bellman_ford_kernel(DeviceSearch s, NodeId* queue0, NodeId* queue1, unsigned* sizes, unsigned* stamp,
                        unsigned long long* relaxed_total) {
  cg::grid_group grid = cg::this_grid();
  const int lane = threadIdx.x % kWarp;
  const unsigned stride = gridDim.x * blockDim.x;
  unsigned long long relaxed = 0;
  // sizes[it % 3] is read in iteration it, written in it - 1, zeroed in it + 1.
  for (unsigned it = 0;; ++it) {
    NodeId* current = (it & 1) ? queue1 : queue0;
    NodeId* next = (it & 1) ? queue0 : queue1;
    const unsigned count = *reinterpret_cast<volatile unsigned*>(&sizes[it % 3]);
    if (count == 0) break;  // the same value in every thread: all leave together
    const Weight bound = target_bound(s);
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x - lane); base < count; base += stride) {
      const unsigned i = base + lane;
      const bool has = i < count;
      const NodeId u = has ? current[i] : 0;
      const Key from = has ? load_key(&s.keys[u]) : kNoKey;
      RowOffset k = has ? s.row_offsets[u] : 0;
      const RowOffset end = has ? s.row_offsets[u + 1] : 0;
      while (__any_sync(0xffffffffu, k < end)) {
        bool push = false;
        NodeId v = 0;
        if (k < end) {
          ++relaxed;
          if (relax(s, from, k, bound, v)) push = atomicExch(&stamp[v], it + 1) != it + 1;
          ++k;
        }
        warp_push(push, v, next, &sizes[(it + 1) % 3]);
      }
    }
    if (grid.thread_rank() == 0) sizes[(it + 2) % 3] = 0;
    grid.sync();
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (lane == 0) atomicAdd(relaxed_total, relaxed);
}

}  // namespace

void run_bellman_ford(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream) {
  static const int blocks = co_resident_blocks(reinterpret_cast<const void*>(bellman_ford_kernel), 0);
  TRELLIS_CUDA_CHECK(
      cudaMemcpyAsync(&work.counters[0], &source_count, sizeof source_count, cudaMemcpyHostToDevice, stream));
  DeviceSearch s = search;
  NodeId* queue0 = work.queue[0];
  NodeId* queue1 = work.queue[1];
  unsigned* sizes = work.counters;
  unsigned* stamp = work.stamp;
  unsigned long long* relaxed = work.relaxed;
  void* args[] = {&s, &queue0, &queue1, &sizes, &stamp, &relaxed};
  TRELLIS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(bellman_ford_kernel), blocks, kThreads,
                                                 args, 0, stream));
}

}  // namespace trellis::graph::cuda
