// Delta-stepping as a near-far pile (Davidson et al., IPDPS 2014) in one
// persistent cooperative grid. Improvements below the current bound join the
// next near frontier; the rest go to the far pile (once, by flag). When the
// near frontier empties, the grid finds the smallest distance in the far
// pile, moves the bound to it plus delta, and splits the pile. One grid.sync
// per near step and three per bucket advance; no host round trip. A counter
// is reset only after a grid.sync that follows every thread's read of it.
#include <cooperative_groups.h>

#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

namespace cg = cooperative_groups;

// Counter slots in Workspace::counters.
enum : int { kNear0 = 0, kNear1 = 1, kNear2 = 2, kFar0 = 3, kFar1 = 4, kFarMin = 5 };

struct Piles {
  NodeId* near[2];
  NodeId* far[2];
  unsigned* stamp;
  unsigned* in_far;
  unsigned* counters;
};

__device__ inline unsigned read(const unsigned* p) { return *reinterpret_cast<const volatile unsigned*>(p); }

__global__ void __launch_bounds__(kThreads)
    delta_stepping_kernel(DeviceSearch s, Piles p, Weight delta, unsigned long long* relaxed_total) {
  cg::grid_group grid = cg::this_grid();
  const int lane = threadIdx.x % kWarp;
  const unsigned stride = gridDim.x * blockDim.x;
  const unsigned first = blockIdx.x * blockDim.x + (threadIdx.x - lane);
  unsigned long long relaxed = 0;
  Weight bound = delta;   // the near pile holds distances below bound
  unsigned far_side = 0;  // p.far[far_side] is the live far pile
  unsigned it = 0;        // near iterations so far (stamps and the rotating near counters)
  while (true) {
    // Relax the near frontier until it is empty.
    while (true) {
      NodeId* current = p.near[it & 1];
      NodeId* next = p.near[(it + 1) & 1];
      const unsigned count = read(&p.counters[kNear0 + it % 3]);
      if (count == 0) break;
      const Weight prune = target_bound(s);
      for (unsigned base = first; base < count; base += stride) {
        const unsigned i = base + lane;
        const bool has = i < count;
        const NodeId u = has ? current[i] : 0;
        const Key from = has ? load_key(&s.keys[u]) : kNoKey;
        RowOffset k = has ? s.row_offsets[u] : 0;
        const RowOffset end = has ? s.row_offsets[u + 1] : 0;
        while (__any_sync(0xffffffffu, k < end)) {
          bool to_near = false;
          bool to_far = false;
          NodeId v = 0;
          if (k < end) {
            ++relaxed;
            if (relax(s, from, k, prune, v)) {
              if (key_distance(load_key(&s.keys[v])) < bound) {
                to_near = atomicExch(&p.stamp[v], it + 1) != it + 1;
              } else {
                to_far = atomicExch(&p.in_far[v], 1u) == 0;
              }
            }
            ++k;
          }
          warp_push(to_near, v, next, &p.counters[kNear0 + (it + 1) % 3]);
          warp_push(to_far, v, p.far[far_side], &p.counters[kFar0 + far_side]);
        }
      }
      if (grid.thread_rank() == 0) p.counters[kNear0 + (it + 2) % 3] = 0;
      ++it;
      grid.sync();
    }

    // The near pile is empty: find the far pile's smallest live distance.
    const unsigned far_count = read(&p.counters[kFar0 + far_side]);
    if (far_count == 0) break;
    for (unsigned i = first + lane; i < far_count; i += stride) {
      const Weight d = key_distance(load_key(&s.keys[p.far[far_side][i]]));
      if (d >= bound) atomicMin(&p.counters[kFarMin], __float_as_uint(d));
    }
    grid.sync();
    const unsigned smallest = read(&p.counters[kFarMin]);
    if (smallest == 0xffffffffu) break;  // only stale entries were left
    const Weight d_min = __uint_as_float(smallest);
    // At least the smallest node must fall below the new bound, even where
    // adding delta rounds away.
    bound = fmaxf(d_min + delta, __uint_as_float(smallest + 1));

    // Split the pile: below the bound -> near frontier, the rest -> the other pile.
    NodeId* near = p.near[it & 1];
    const unsigned other = far_side ^ 1;
    for (unsigned base = first; base < far_count; base += stride) {
      const unsigned i = base + lane;
      const bool has = i < far_count;
      const NodeId v = has ? p.far[far_side][i] : 0;
      const Weight d = has ? key_distance(load_key(&s.keys[v])) : 0;
      bool to_near = false;
      bool keep = false;
      if (has && d >= d_min) {  // below d_min: already settled through the near pile
        if (d < bound) {
          p.in_far[v] = 0;
          // Queued for iteration `it` (nothing else is: its frontier was empty).
          to_near = atomicExch(&p.stamp[v], it) != it;
        } else {
          keep = true;
        }
      } else if (has) {
        p.in_far[v] = 0;
      }
      warp_push(to_near, v, near, &p.counters[kNear0 + it % 3]);
      warp_push(keep, v, p.far[other], &p.counters[kFar0 + other]);
    }
    // Every thread has read far_count and smallest: only now may they be reset.
    grid.sync();
    if (grid.thread_rank() == 0) {
      p.counters[kFar0 + far_side] = 0;
      p.counters[kFarMin] = 0xffffffffu;
    }
    far_side = other;
    grid.sync();
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (lane == 0) atomicAdd(relaxed_total, relaxed);
}

}  // namespace

void run_delta_stepping(const DeviceSearch& search, const Workspace& work, unsigned source_count, Weight delta,
                        Stream stream) {
  static const int blocks = co_resident_blocks(reinterpret_cast<const void*>(delta_stepping_kernel), 0);
  const unsigned initial[kFarMin + 1] = {source_count, 0, 0, 0, 0, 0xffffffffu};
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(work.counters, initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  DeviceSearch s = search;
  Piles piles{{work.queue[0], work.queue[1]}, {work.far[0], work.far[1]}, work.stamp, work.in_far, work.counters};
  unsigned long long* relaxed = work.relaxed;
  void* args[] = {&s, &piles, &delta, &relaxed};
  TRELLIS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(delta_stepping_kernel), blocks, kThreads,
                                                 args, 0, stream));
}

}  // namespace trellis::graph::cuda
