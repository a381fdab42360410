// Bellman-Ford by pull sweeps, for small graphs of bounded in-degree (the
// seed's 2,000-node lattice): a block of 1,024 threads per search, every
// node owned by one thread, which keeps the node's in-edges (tail and
// weight) in registers and its label in shared memory. A sweep recomputes
// each label as the least of itself and fl(label of tail + weight) over the
// in-edges, and a block barrier ends it; the search ends after a sweep that
// changed nothing.
//
// Why not push: the push kernel's hop is a chain of dependent shared-memory
// loads, atomics and ballots for one searching warp (about 800 cycles a
// pass over 32 frontier nodes, NOTES.md). A sweep has no atomics and no
// lists: its loads come from registers' addresses, all issue at once, and
// every warp of the block works, so a hop costs a sweep's issue time.
//
// Exactness: labels only fall, every label is the fold of some path, and a
// sweep that wrote nothing read only the labels that stand at its end, so
// they are the least fixed point of d[v] = min over u of fl(d[u] + w(u, v)),
// which is Dijkstra's result (block_solver.cu). Reads racing writes of the
// same sweep see the old label or the new one, both paths' folds: the
// labels are block-scope relaxed atomics (sssp_device.cuh), so that the
// memory model defines those races.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

constexpr int kSweepThreads = 1024;
// Nodes a thread owns (node v belongs to thread v % 1024, slot v / 1024, so
// that a warp's lanes read neighbouring labels from different banks), and
// in-edge slots a node, as compiled.
constexpr std::array<int, 3> kSlotChoices = {1, 2, 4};
static_assert(kSlotChoices.back() * kSweepThreads == kSweepMaxNodes);
constexpr std::array<int, 4> kEdgeChoices = {3, 4, 6, 8};

template <int kSlots, int kEdges>
__global__ void __launch_bounds__(kSweepThreads)
    sweep_bellman_ford(BlockBatch b, const std::uint16_t* tails, const Weight* weights) {
  constexpr int kWidth = kSlots * kSweepThreads;
  constexpr int kSlotsAtOnce = kSlots * kEdges <= 16 ? kSlots : 1;
  // kWidth labels and one more that stays +inf: the padding edges' tail.
  extern __shared__ Weight labels[];
  const unsigned q = blockIdx.x;
  const auto t = static_cast<NodeId>(threadIdx.x);
  const NodeId n = b.nodes;
  const Weight infinity = __int_as_float(0x7f800000);
  const Weight* cost = b.cost_offsets[q] >= 0 ? b.node_costs + b.cost_offsets[q] : nullptr;

  std::uint16_t tail[kSlots][kEdges];
  Weight weight[kSlots][kEdges];
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const NodeId v = s * kSweepThreads + t;
    // The edge weight every backend uses: fl(w + cost[v]), or w alone.
    const Weight head_cost = cost != nullptr && v < n ? __ldg(&cost[v]) : 0.0f;
#pragma unroll
    for (int j = 0; j < kEdges; ++j) {
      tail[s][j] = __ldg(&tails[j * kWidth + v]);
      const Weight w = __ldg(&weights[j * kWidth + v]);
      weight[s][j] = cost != nullptr ? w + head_cost : w;
    }
  }
  for (NodeId i = t; i <= kWidth; i += kSweepThreads) labels[i] = infinity;
  __syncthreads();
  for (unsigned i = b.source_offsets[q] + threadIdx.x; i < b.source_offsets[q + 1]; i += kSweepThreads) {
    labels[b.sources[i]] = 0.0f;
  }
  __syncthreads();

  Weight mine[kSlots];
#pragma unroll
  for (int s = 0; s < kSlots; ++s) mine[s] = labels[s * kSweepThreads + t];
  unsigned sweeps = 0;
  bool changed = false;
  do {
    changed = false;
    // A group's loads first, so that they wait together; the whole sweep
    // is one group unless its loaded labels would spill registers (4 x 6).
#pragma unroll
    for (int first = 0; first < kSlots; first += kSlotsAtOnce) {
      Weight tail_label[kSlotsAtOnce][kEdges];
#pragma unroll
      for (int s = 0; s < kSlotsAtOnce; ++s) {
#pragma unroll
        for (int j = 0; j < kEdges; ++j) tail_label[s][j] = shared_load(labels[tail[first + s][j]]);
      }
#pragma unroll
      for (int s = 0; s < kSlotsAtOnce; ++s) {
        Weight best = mine[first + s];
#pragma unroll
        for (int j = 0; j < kEdges; ++j) best = fminf(best, tail_label[s][j] + weight[first + s][j]);
        const bool lowered = best < mine[first + s];
        shared_store_if(lowered, labels[(first + s) * kSweepThreads + t], best);
        mine[first + s] = best;
        changed = changed || lowered;
      }
    }
    ++sweeps;
  } while (__syncthreads_or(changed) != 0);

#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const NodeId v = s * kSweepThreads + t;
    if (v < n) b.keys[static_cast<std::int64_t>(q) * n + v] = mine[s] == infinity ? kNoKey : make_key(mine[s]);
  }
  // Every sweep reads every edge.
  if (threadIdx.x == 0) atomicAdd(&b.relaxed[q], static_cast<unsigned long long>(sweeps) * b.edges);
}

using SweepKernel = void (*)(BlockBatch, const std::uint16_t*, const Weight*);

// By slot and edge choice; none where the edges would not fit in registers
// (4 x 8 spills at 64 registers, the most 1,024 threads may have).
constexpr std::array<std::array<SweepKernel, kEdgeChoices.size()>, kSlotChoices.size()> kKernels = {{
    {sweep_bellman_ford<1, 3>, sweep_bellman_ford<1, 4>, sweep_bellman_ford<1, 6>, sweep_bellman_ford<1, 8>},
    {sweep_bellman_ford<2, 3>, sweep_bellman_ford<2, 4>, sweep_bellman_ford<2, 6>, sweep_bellman_ford<2, 8>},
    {sweep_bellman_ford<4, 3>, sweep_bellman_ford<4, 4>, sweep_bellman_ford<4, 6>, nullptr},
}};

SweepKernel kernel_of(int slots, int edges) {
  const auto slot = std::find(kSlotChoices.begin(), kSlotChoices.end(), slots) - kSlotChoices.begin();
  const auto edge = std::find(kEdgeChoices.begin(), kEdgeChoices.end(), edges) - kEdgeChoices.begin();
  return kKernels.at(static_cast<std::size_t>(slot)).at(static_cast<std::size_t>(edge));
}

}  // namespace

std::optional<SweepLayout> make_sweep_layout(const CsrView<Weight>& g, Stream stream) {
  const NodeId n = g.rows;
  const auto slots = std::find_if(kSlotChoices.begin(), kSlotChoices.end(),
                                  [&](int s) { return static_cast<NodeId>(s) * kSweepThreads >= n; });
  if (n == 0 || g.nnz == 0 || slots == kSlotChoices.end()) return std::nullopt;
  std::vector<int> in_degree(static_cast<std::size_t>(n), 0);
  for (RowOffset k = 0; k < g.nnz; ++k) ++in_degree[static_cast<std::size_t>(g.col_indices[k])];
  const int most = *std::max_element(in_degree.begin(), in_degree.end());
  const auto edges = std::find_if(kEdgeChoices.begin(), kEdgeChoices.end(), [&](int e) { return e >= most; });
  if (edges == kEdgeChoices.end() || kernel_of(*slots, *edges) == nullptr) return std::nullopt;

  SweepLayout layout;
  layout.slots = *slots;
  layout.edges_per_node = *edges;
  const std::size_t width = static_cast<std::size_t>(layout.slots) * kSweepThreads;
  // Padding edges come from label `width`, which stays +inf, with weight 0.
  std::vector<std::uint16_t> tails(width * static_cast<std::size_t>(layout.edges_per_node),
                                   static_cast<std::uint16_t>(width));
  std::vector<Weight> weights(tails.size(), 0.0f);
  std::fill(in_degree.begin(), in_degree.end(), 0);
  for (NodeId u = 0; u < n; ++u) {
    for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
      const auto v = static_cast<std::size_t>(g.col_indices[k]);
      const std::size_t slot = static_cast<std::size_t>(in_degree[v]++) * width + v;
      tails[slot] = static_cast<std::uint16_t>(u);
      weights[slot] = g.values[k];
    }
  }
  layout.tails = DeviceArray<std::uint16_t>::from_host(tails, stream);
  layout.weights = DeviceArray<Weight>::from_host(weights, stream);
  device::synchronize(stream);  // the host vectors go out of scope
  return layout;
}

void run_sweep_batch(const SweepLayout& layout, const BlockBatch& batch, unsigned queries, Stream stream) {
  if (queries == 0) return;
  const std::size_t shared_bytes = (static_cast<std::size_t>(layout.slots) * kSweepThreads + 1) * sizeof(Weight);
  const SweepKernel kernel = kernel_of(layout.slots, layout.edges_per_node);
  TRELLIS_LAUNCH(kernel, queries, kSweepThreads, shared_bytes, stream, batch, layout.tails.data(),
                 layout.weights.data());
}

}  // namespace trellis::graph::cuda
