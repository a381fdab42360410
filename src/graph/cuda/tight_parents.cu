// Parents by the parity rule (sssp.hpp), on the device, for K searches whose
// distances are final: one block per search runs the reference's
// breadth-first search over tight edges from the sources, level by level
// with __syncthreads between levels. A node reached on level h takes the
// smallest tight in-neighbour from level h - 1.
//
// Why not count hops during the search, in the labels: float addition is
// only weakly monotone. A stale label (a larger distance with fewer hops)
// can round to the same candidate as the final one, fl(a + w) == fl(b + w)
// with a > b once w dwarfs their difference (a router's 1e9 blocking costs
// do), so hop counts kept during a search need not be breadth-first depths
// of the final tight-edge graph.
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::graph::cuda {
namespace {

constexpr int kBfsThreads = 1024;
constexpr std::int32_t kNoLevel = -1;
constexpr NodeId kParentUnset = 0x7fffffff;

__device__ inline Weight distance_of(Key key) { return key == kNoKey ? __int_as_float(0x7f800000) : key_distance(key); }

__global__ void __launch_bounds__(kBfsThreads) tight_bfs(TightParents t) {
  __shared__ unsigned next_count;
  __shared__ unsigned count;
  const unsigned q = blockIdx.x;
  const std::int64_t n = t.nodes;
  const Key* keys = t.keys + q * n;
  std::int32_t* level = t.level + q * n;
  NodeId* parent = t.parent + q * n;
  NodeId* current = t.queues + q * 2 * n;
  NodeId* next = current + n;
  const Weight* cost = t.cost_offsets[q] >= 0 ? t.node_costs + t.cost_offsets[q] : nullptr;
  const NodeId target = t.targets[q];
  // Nodes beyond the target's distance were not settled: they take no part
  // (the host reports them unreachable).
  const Weight limit = target >= 0 ? distance_of(keys[target]) : __int_as_float(0x7f800000);

  for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) {
    level[v] = kNoLevel;
    parent[v] = kParentUnset;
  }
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (unsigned i = t.source_offsets[q] + threadIdx.x; i < t.source_offsets[q + 1]; i += blockDim.x) {
    const NodeId s = t.sources[i];
    if (atomicCAS(&level[s], kNoLevel, 0) == kNoLevel) current[atomicAdd(&count, 1u)] = s;
  }
  __syncthreads();

  for (std::int32_t h = 1; count > 0; ++h) {
    if (t.stop_at_target && target >= 0 && __ldcg(&level[target]) != kNoLevel) break;
    if (threadIdx.x == 0) next_count = 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
      const NodeId u = current[i];
      const Weight from = key_distance(keys[u]);
      for (RowOffset k = t.row_offsets[u]; k < t.row_offsets[u + 1]; ++k) {
        const NodeId v = __ldg(&t.heads[k]);
        const Weight to = distance_of(keys[v]);
        if (!(to <= limit)) continue;
        const Weight w = __ldg(&t.weights[k]);
        if (from + (cost == nullptr ? w : w + __ldg(&cost[v])) != to) continue;
        const std::int32_t was = atomicCAS(&level[v], kNoLevel, h);
        if (was == kNoLevel) next[atomicAdd(&next_count, 1u)] = v;
        if (was == kNoLevel || was == h) atomicMin(&parent[v], u);
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) count = next_count;
    NodeId* swap = current;
    current = next;
    next = swap;
    __syncthreads();
  }
  for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) {
    if (__ldcg(&parent[v]) == kParentUnset) parent[v] = kNoParent;
  }
}

// Path lengths: the target's level + 1, or 0 where it was not reached.
__global__ void path_lengths(TightParents t, unsigned queries, unsigned* lengths) {
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < queries; q += gridDim.x * blockDim.x) {
    const NodeId target = t.targets[q];
    const std::int32_t h = target >= 0 ? t.level[q * std::int64_t{t.nodes} + target] : kNoLevel;
    lengths[q] = h == kNoLevel ? 0u : static_cast<unsigned>(h) + 1u;
  }
}

// Walks each target's parents back to a source, filling its path from the end.
__global__ void trace_paths(TightParents t, unsigned queries, const unsigned* offsets, const unsigned* lengths,
                            NodeId* paths) {
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < queries; q += gridDim.x * blockDim.x) {
    const NodeId* parent = t.parent + q * std::int64_t{t.nodes};
    NodeId v = t.targets[q];
    for (unsigned i = lengths[q]; i > 0; --i) {
      paths[offsets[q] + i - 1] = v;
      v = parent[v];
    }
  }
}

}  // namespace

void run_tight_parents(const TightParents& t, unsigned queries, Stream stream) {
  if (queries == 0) return;
  TRELLIS_LAUNCH(tight_bfs, queries, kBfsThreads, 0, stream, t);
}

void launch_path_lengths(const TightParents& t, unsigned queries, unsigned* lengths, Stream stream) {
  TRELLIS_LAUNCH(path_lengths, (queries + 255) / 256, 256, 0, stream, t, queries, lengths);
}

void launch_trace_paths(const TightParents& t, unsigned queries, const unsigned* offsets, const unsigned* lengths,
                        NodeId* paths, Stream stream) {
  TRELLIS_LAUNCH(trace_paths, (queries + 127) / 128, 128, 0, stream, t, queries, offsets, lengths, paths);
}

}  // namespace trellis::graph::cuda
