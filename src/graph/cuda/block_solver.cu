// Bellman-Ford searches solved inside one thread block or one thread-block
// cluster each, the labels in shared memory and the rounds separated by a
// warp, block or cluster barrier instead of a grid-wide one. (A cluster
// barrier is no cheap one: a round's wait there is close to a grid-wide
// barrier's, bench/results/NOTES.md, "Bellman-Ford inside a block or a
// thread-block cluster". What a cluster buys is the labels' latency.)
// Graphs of at most 4,096 nodes and in-degree 8 do not come here: pull
// sweeps (sweep_solver.cu) solve them faster. Four regimes, by what fits
// shared memory (plan_blocks):
// - whole graph in one block (whole_graph_bellman_ford): labels, frontier
//   and CSR all in shared memory, one warp searching;
// - labels in one block (block_bellman_ford<true>): labels and frontier
//   bitmaps in shared memory, the CSR read from L2;
// - labels in a cluster of 2 to 16 blocks (cluster_bellman_ford): each
//   block holds a share of the labels, other blocks' shares reached through
//   the cluster's distributed shared memory; up to about 850,000 nodes;
// - labels in global memory, one block a search (block_bellman_ford<false>):
//   batches on graphs larger than that.
// A batch of K searches runs as K blocks or K clusters in one launch. Any
// order of relaxations reaches the same labels: the least fixed point of
// d[v] = min over u of fl(d[u] + w(u, v)), which is what Dijkstra computes.
#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>

#include "../kernels.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kBlockThreads = 1024;
constexpr int kWarpsPerBlock = kBlockThreads / kWarp;
// Nodes per summary word (32 words of 32 bits), and the run of ids a block
// owns at a time.
constexpr int kRunShift = 10;
constexpr NodeId kRun = NodeId{1} << kRunShift;
constexpr std::array<int, 5> kClusterBlocks = {1, 2, 4, 8, 16};
// Edges of a node relaxed at once: their loads and atomics overlap.
constexpr int kEdgesAtOnce = 4;

// Counters a block keeps in shared memory: improvements by round % 3 and
// the list's length by round % 2.
constexpr int kCounters = 5;

// A cluster block's shared memory for `chunk` nodes and a node list of `listed`
// entries: labels, frontier words, summary words, counters, the list.
std::size_t cluster_shared_bytes(NodeId chunk, NodeId listed) {
  const std::size_t words = static_cast<std::size_t>(chunk) / 32;
  return (static_cast<std::size_t>(chunk) + words + words / 32 + kCounters + static_cast<std::size_t>(listed)) *
         sizeof(unsigned);
}

// The one-block kernel's shared memory: labels and two frontier bitmaps.
std::size_t block_shared_bytes(NodeId nodes) {
  const std::size_t words = (static_cast<std::size_t>(nodes) + 31) / 32;
  return static_cast<std::size_t>(nodes) * sizeof(Key) + 2 * words * sizeof(unsigned);
}

// The whole-graph kernel's shared memory: per node a label, a stamp and an
// offset (one more offset at the end), two lists of max(nodes, edges)
// entries, per edge a head and a weight, and a scratch word.
std::size_t whole_graph_shared_bytes(NodeId nodes, RowOffset edges) {
  const std::size_t room = std::max<std::size_t>(static_cast<std::size_t>(nodes), static_cast<std::size_t>(edges));
  return (3 * static_cast<std::size_t>(nodes) + 2 + 2 * room + 2 * static_cast<std::size_t>(edges)) * sizeof(unsigned);
}

// Where a block's shared arrays start.
struct BlockShare {
  Key* keys;
  unsigned* words;
  unsigned* summary;
  unsigned* improvements;  // [3]: blocks that lowered a label, by round % 3
  unsigned* listed;        // [2]: the list's length, by round % 2
  NodeId* list;            // local ids of the nodes claimed this round
};

__device__ BlockShare share_of(unsigned* shared, NodeId chunk) {
  unsigned* const words = shared + chunk;
  unsigned* const summary = words + chunk / 32;
  unsigned* const improvements = summary + chunk / kRun;
  return {shared, words, summary, improvements, improvements + 3, reinterpret_cast<NodeId*>(improvements + kCounters)};
}

// Global id <-> (owner block, local id) for a cluster of 2^block_shift blocks.
struct Ownership {
  int block_shift;
  __device__ unsigned owner(NodeId v) const {
    return static_cast<unsigned>(v >> kRunShift) & ((1u << block_shift) - 1);
  }
  __device__ NodeId local(NodeId v) const { return ((v >> kRunShift >> block_shift) << kRunShift) | (v & (kRun - 1)); }
  __device__ NodeId global(unsigned rank, NodeId local) const {
    return ((((local >> kRunShift) << block_shift) | static_cast<NodeId>(rank)) << kRunShift) | (local & (kRun - 1));
  }
};

// Puts local node `local` of a block into its frontier (the block's own
// share or another's, mapped into the cluster's shared window). Neither
// atomic's result is waited for. A scan takes a summary bit before the
// words under it, so a bit set in a word is found: its summary bit is set
// after the word's, by this push or an earlier one, or the word is yet to
// be exchanged by a scan that took the summary bit.
__device__ void push(unsigned* words, unsigned* summary, NodeId local) {
  atomicOr(&words[local >> 5], 1u << (local & 31));
  atomicOr(&summary[local >> 10], 1u << ((local >> 5) & 31));
}

// Graphs that fit one block's shared memory whole: the block copies the
// graph in, then one warp searches alone, so that a round ends at a warp
// barrier instead of a block one and no round waits on another warp. The
// frontier is a list: round r relaxes the edges of its list's nodes, 32 at a
// time, and appends every node whose label it lowers to the next list
// (stamp[v] = the round v was last appended for; two lanes lowering one node
// in the same step may both append it, which only repeats work, so a list
// has room for an entry per edge). A node lowered after it was relaxed is
// appended again, so every node's edges are relaxed after its last
// lowering, which is what the fixed point needs. The number of rounds is
// the hop depth of the search; a round is one node's relaxation per 32
// frontier nodes.
__global__ void __launch_bounds__(kBlockThreads) whole_graph_bellman_ford(BlockBatch b) {
  extern __shared__ unsigned shared[];
  const unsigned q = blockIdx.x;
  const NodeId n = b.nodes;
  const auto m = static_cast<NodeId>(b.edges);
  const NodeId room = max(n, m);
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  Key* const keys = shared;
  unsigned* const stamp = keys + n;
  NodeId* const lists = reinterpret_cast<NodeId*>(stamp + n);  // [2][room], by round % 2
  unsigned* const offsets = reinterpret_cast<unsigned*>(lists + 2 * room);
  NodeId* const heads = reinterpret_cast<NodeId*>(offsets + n + 1);
  Weight* const weights = reinterpret_cast<Weight*>(heads + m);
  Key* const scratch = reinterpret_cast<Key*>(weights + m);  // stays kNoKey
  const Weight* cost = b.cost_offsets[q] >= 0 ? b.node_costs + b.cost_offsets[q] : nullptr;

  if (threadIdx.x == 0) *scratch = kNoKey;
    // The copies unrolled: their loads leave together rather than one L2 wait
    // an iteration.
#pragma unroll 4
  for (NodeId u = threadIdx.x; u <= n; u += kBlockThreads) {
    offsets[u] = static_cast<unsigned>(b.row_offsets[u]);
    if (u < n) {
      keys[u] = kNoKey;
      stamp[u] = ~0u;
    }
  }
#pragma unroll 4
  for (NodeId k = threadIdx.x; k < m; k += kBlockThreads) {
    const NodeId head = __ldg(&b.heads[k]);
    const Weight weight = __ldg(&b.weights[k]);
    heads[k] = head;
    weights[k] = cost == nullptr ? weight : weight + __ldg(&cost[head]);
  }
  __syncthreads();
  // Sources are distinct (the host removes duplicates): the first list.
  const unsigned first_source = b.source_offsets[q];
  const auto sources = static_cast<NodeId>(b.source_offsets[q + 1] - first_source);
  for (NodeId i = threadIdx.x; i < sources; i += kBlockThreads) {
    const NodeId s = b.sources[first_source + i];
    lists[i] = s;
    keys[s] = make_key(0.0f);
    stamp[s] = 0;
  }
  __syncthreads();

  unsigned long long relaxed = 0;
  if (threadIdx.x < kWarp) {
    constexpr unsigned kAll = 0xffffffffu;
    const NodeId target = b.targets[q];
    NodeId count = sources;
    for (unsigned round = 0; count > 0; ++round) {
      const NodeId* const current = lists + (round % 2) * room;
      NodeId* const next = lists + ((round + 1) % 2) * room;
      NodeId appended = 0;
      const Weight bound = target >= 0 ? key_distance(shared_load(keys[target])) : __int_as_float(0x7f800000);
      for (NodeId base = 0; base < count; base += kWarp) {
        const bool has = base + lane < count;
        const NodeId u = has ? current[base + lane] : 0;
        const Weight from = has ? key_distance(shared_load(keys[u])) : 0.0f;
        auto k = has ? static_cast<NodeId>(offsets[u]) : 0;
        const auto end = has ? static_cast<NodeId>(offsets[u + 1]) : 0;
        while (__any_sync(kAll, k < end)) {
          // A node's edges side by side, and no branch around an atomic or
          // a stamp (a lane without an edge there takes the largest key to
          // a scratch word): each level of loads, atomics and stamps issues
          // at once, so a step waits on each level once, not once an edge.
          NodeId v[kEdgesAtOnce];
          Key key[kEdgesAtOnce];
          bool lower[kEdgesAtOnce];
#pragma unroll
          for (int j = 0; j < kEdgesAtOnce; ++j) {
            const bool edge = k + j < end;
            relaxed += edge ? 1 : 0;
            v[j] = edge ? heads[k + j] : 0;
            const Weight candidate = from + (edge ? weights[k + j] : 0.0f);
            key[j] = make_key(candidate);
            lower[j] = edge && !(candidate > bound);  // not `<=`: an unreached target's bound is NaN
          }
          unsigned stamped[kEdgesAtOnce];  // read beside the atomics: they do not touch stamps
#pragma unroll
          for (int j = 0; j < kEdgesAtOnce; ++j) stamped[j] = shared_load(stamp[v[j]]);
          Key old[kEdgesAtOnce];
#pragma unroll
          for (int j = 0; j < kEdgesAtOnce; ++j) {
            old[j] = atomicMin(lower[j] ? &keys[v[j]] : scratch, lower[j] ? key[j] : kNoKey);
          }
          unsigned appending[kEdgesAtOnce];
#pragma unroll
          for (int j = 0; j < kEdgesAtOnce; ++j) {
            lower[j] = lower[j] && old[j] > key[j] && stamped[j] != round + 1;
            appending[j] = __ballot_sync(kAll, lower[j]);
          }
#pragma unroll
          for (int j = 0; j < kEdgesAtOnce; ++j) {
            if (lower[j]) {
              shared_set(stamp[v[j]], round + 1);  // two lanes may stamp one node in a step
              next[appended + __popc(appending[j] & ((1u << lane) - 1))] = v[j];
            }
            appended += __popc(appending[j]);
          }
          k += kEdgesAtOnce;
          __syncwarp();  // this step's stamps and labels before the next step reads them
        }
      }
      __syncwarp();
      count = appended;
    }
  }
  __syncthreads();
  for (NodeId v = threadIdx.x; v < n; v += kBlockThreads) b.keys[static_cast<std::int64_t>(q) * n + v] = keys[v];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (lane == 0) atomicAdd(&b.relaxed[q], relaxed);
}

// A cluster per search. Ownership: nodes go to blocks in runs of 1,024 ids,
// round robin, so that a wavefront crossing one layer of a lattice (a
// contiguous id range) is spread over every block, not left to the one that
// owns the layer. Frontier: one bit per node in its owner block (a word per
// 32 nodes, and a summary bit per word so that a round skips empty
// stretches). A round has two phases: warps claim the set words with atomic
// exchanges and list their nodes in shared memory; then every thread of the
// block takes listed nodes and relaxes their out-edges, loading a node's
// edges together (they come from L2, and a hop's latency is what a
// corner-to-corner search pays for). A cluster barrier ends the round.
__global__ void __launch_bounds__(kBlockThreads) cluster_bellman_ford(BlockBatch b, NodeId chunk, NodeId capacity) {
  extern __shared__ unsigned shared[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned blocks = cluster.num_blocks();
  const Ownership own{__ffs(static_cast<int>(blocks)) - 1};
  const unsigned q = blockIdx.x / blocks;
  const NodeId n = b.nodes;
  const BlockShare mine = share_of(shared, chunk);
  const NodeId summaries = chunk / kRun;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;

  for (NodeId i = threadIdx.x; i < chunk; i += kBlockThreads) mine.keys[i] = kNoKey;
  for (NodeId i = threadIdx.x; i < chunk / 32 + summaries + kCounters; i += kBlockThreads) mine.words[i] = 0;
  __syncthreads();
  for (unsigned i = b.source_offsets[q] + threadIdx.x; i < b.source_offsets[q + 1]; i += kBlockThreads) {
    const NodeId s = b.sources[i];
    if (own.owner(s) == rank) {
      mine.keys[own.local(s)] = make_key(0.0f);
      push(mine.words, mine.summary, own.local(s));
    }
  }
  cluster.sync();  // every block's share is set before anyone writes into it

  const NodeId target = b.targets[q];
  const volatile Key* target_key =
      target >= 0 ? cluster.map_shared_rank(mine.keys, own.owner(target)) + own.local(target) : nullptr;
  const Weight* cost = b.cost_offsets[q] >= 0 ? b.node_costs + b.cost_offsets[q] : nullptr;
  unsigned long long relaxed = 0;
  for (unsigned round = 0;; ++round) {
    bool improved = false;
    // Phase 1: claim the frontier's words and list their nodes.
    for (NodeId s = warp; s < summaries; s += kWarpsPerBlock) {
      unsigned claimed = 0;
      if (lane == 0 && shared_load(mine.summary[s]) != 0) {
        claimed = atomicExch(&mine.summary[s], 0u);
      }
      claimed = __shfl_sync(0xffffffffu, claimed, 0);
      if (claimed == 0) continue;
      const NodeId word = s * 32 + lane;
      unsigned bits = (claimed >> lane) & 1u ? atomicExch(&mine.words[word], 0u) : 0u;
      // One atomic per warp for the list's room.
      const int count = __popc(bits);
      int before = count;
#pragma unroll
      for (int offset = 1; offset < kWarp; offset *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, before, offset);
        if (lane >= offset) before += other;
      }
      unsigned base = 0;
      if (lane == kWarp - 1) base = atomicAdd(&mine.listed[round % 2], static_cast<unsigned>(before));
      base = __shfl_sync(0xffffffffu, base, kWarp - 1);
      unsigned slot = base + static_cast<unsigned>(before - count);
      for (; bits != 0; bits &= bits - 1, ++slot) {
        const NodeId local = word * 32 + __ffs(bits) - 1;
        if (slot < static_cast<unsigned>(capacity)) {
          mine.list[slot] = local;
        } else {  // no room this round: back into the frontier for the next
          push(mine.words, mine.summary, local);
          improved = true;
        }
      }
    }
    __syncthreads();
    const Weight bound = target_key != nullptr ? key_distance(*target_key) : __int_as_float(0x7f800000);
    const NodeId listed = min(static_cast<NodeId>(mine.listed[round % 2]), capacity);
    // The next round's length was last read before this round began.
    if (threadIdx.x == 0) mine.listed[(round + 1) % 2] = 0;
    // Phase 2: relax the listed nodes' out-edges.
    for (NodeId i = threadIdx.x; i < listed; i += kBlockThreads) {
      const NodeId local = mine.list[i];
      const NodeId u = own.global(rank, local);
      const Weight from = key_distance(shared_load(mine.keys[local]));
      const RowOffset end = __ldg(&b.row_offsets[u + 1]);
      for (RowOffset k = __ldg(&b.row_offsets[u]); k < end; k += kEdgesAtOnce) {
        // Loads, then atomics, then pushes, each kEdgesAtOnce side by side:
        // three waits a node instead of three an edge.
        NodeId heads[kEdgesAtOnce];
        Weight weights[kEdgesAtOnce];
        Key keys[kEdgesAtOnce];
        Key* labels[kEdgesAtOnce];
#pragma unroll
        for (int j = 0; j < kEdgesAtOnce; ++j) {
          if (k + j < end) {
            heads[j] = __ldg(&b.heads[k + j]);
            weights[j] = __ldg(&b.weights[k + j]);
          }
        }
#pragma unroll
        for (int j = 0; j < kEdgesAtOnce; ++j) {
          labels[j] = nullptr;
          if (k + j >= end) continue;
          ++relaxed;
          const Weight candidate = from + (cost == nullptr ? weights[j] : weights[j] + __ldg(&cost[heads[j]]));
          if (candidate > bound) continue;
          keys[j] = make_key(candidate);
          const unsigned owner = own.owner(heads[j]);
          labels[j] = (owner == rank ? mine.keys : cluster.map_shared_rank(mine.keys, owner)) + own.local(heads[j]);
        }
        Key olds[kEdgesAtOnce];
#pragma unroll
        for (int j = 0; j < kEdgesAtOnce; ++j) olds[j] = labels[j] != nullptr ? atomicMin(labels[j], keys[j]) : 0u;
#pragma unroll
        for (int j = 0; j < kEdgesAtOnce; ++j) {
          if (labels[j] == nullptr || olds[j] <= keys[j]) continue;
          const unsigned owner = own.owner(heads[j]);
          if (owner == rank) {
            push(mine.words, mine.summary, own.local(heads[j]));
          } else {
            push(cluster.map_shared_rank(mine.words, owner), cluster.map_shared_rank(mine.summary, owner),
                 own.local(heads[j]));
          }
          improved = true;
        }
      }
    }
    if (blocks == 1) {  // a block's own barrier decides
      if (__syncthreads_or(improved) == 0) break;
      continue;
    }
    // Round r counts into improvements[r % 3] of every block. The slot
    // round r + 1 counts into was last read after the barrier of round
    // r - 2, so it can be cleared now, before this round's barrier.
    if (threadIdx.x == 0) mine.improvements[(round + 1) % 3] = 0;
    if (__syncthreads_or(improved) != 0 && threadIdx.x < blocks) {
      atomicAdd(cluster.map_shared_rank(mine.improvements, threadIdx.x) + round % 3, 1u);
    }
    cluster.sync();
    if (shared_load(mine.improvements[round % 3]) == 0) break;
  }
  // Past the last barrier nobody reads another block's share: a block may
  // leave.
  for (NodeId local = threadIdx.x; local < chunk; local += kBlockThreads) {
    const NodeId v = own.global(rank, local);
    if (v < n) b.keys[static_cast<std::int64_t>(q) * n + v] = mine.keys[local];
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (lane == 0) atomicAdd(&b.relaxed[q], relaxed);
}

// One block per search, a thread per frontier word, its nodes in turn; the
// labels and both bitmaps in shared memory when they fit one block, else in
// global memory.
template <bool kSharedKeys>
__global__ void __launch_bounds__(kBlockThreads) block_bellman_ford(BlockBatch b) {
  extern __shared__ Key shared[];
  const unsigned q = blockIdx.x;
  const std::int64_t n = b.nodes;
  const std::int64_t words = (n + 31) / 32;
  Key* keys = kSharedKeys ? shared : b.keys + q * n;
  unsigned* current = kSharedKeys ? reinterpret_cast<unsigned*>(shared + n) : b.frontier_bits + q * 2 * words;
  unsigned* next = current + words;

  for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) keys[v] = kNoKey;
  for (std::int64_t w = threadIdx.x; w < 2 * words; w += blockDim.x) current[w] = 0;
  __syncthreads();
  for (unsigned i = b.source_offsets[q] + threadIdx.x; i < b.source_offsets[q + 1]; i += blockDim.x) {
    const NodeId s = b.sources[i];
    keys[s] = make_key(0.0f);
    atomicOr(&current[s >> 5], 1u << (s & 31));
  }
  __syncthreads();

  const NodeId target = b.targets[q];
  const Weight* cost = b.cost_offsets[q] >= 0 ? b.node_costs + b.cost_offsets[q] : nullptr;
  unsigned long long relaxed = 0;
  while (true) {
    const Weight bound = target >= 0 ? key_distance(kSharedKeys ? shared_load(keys[target]) : load_key(&keys[target]))
                                     : __int_as_float(0x7f800000);
    bool improved = false;
    for (std::int64_t w = threadIdx.x; w < words; w += blockDim.x) {
      // Global bitmaps change under other threads' atomics: read them from L2.
      unsigned bits = kSharedKeys ? current[w] : __ldcg(&current[w]);
      if (bits == 0) continue;
      current[w] = 0;
      while (bits != 0) {
        const NodeId u = static_cast<NodeId>(w * 32 + __ffs(bits) - 1);
        bits &= bits - 1;
        const Key from = kSharedKeys ? shared_load(keys[u]) : load_key(&keys[u]);
        for (RowOffset k = b.row_offsets[u]; k < b.row_offsets[u + 1]; ++k) {
          const NodeId v = __ldg(&b.heads[k]);
          const Weight w_uv = __ldg(&b.weights[k]);
          const Weight candidate = key_distance(from) + (cost == nullptr ? w_uv : w_uv + __ldg(&cost[v]));
          ++relaxed;
          if (candidate > bound) continue;
          const Key key = make_key(candidate);
          const Key old = kSharedKeys ? shared_load(keys[v]) : load_key(&keys[v]);
          if (key < old && atomicMin(&keys[v], key) > key) {
            atomicOr(&next[v >> 5], 1u << (v & 31));
            improved = true;
          }
        }
      }
    }
    if (__syncthreads_or(improved) == 0) break;
    unsigned* swap = current;
    current = next;
    next = swap;
  }

  if (kSharedKeys) {
    for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) b.keys[q * n + v] = keys[v];
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (threadIdx.x % kWarp == 0) atomicAdd(&b.relaxed[q], relaxed);
}

cudaLaunchConfig_t cluster_config(int blocks, std::size_t shared_bytes, unsigned queries, Stream stream,
                                  cudaLaunchAttribute& attribute) {
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(blocks);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(queries * static_cast<unsigned>(blocks));
  config.blockDim = dim3(kBlockThreads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// What a graph allows, worked out once per graph (the device queries and the
// first touch of the kernels cost far more than a search on a small graph):
// its regime, and for clusters the plan for every size that holds its labels
// and that the device can place.
struct GraphPlans {
  BlockPlan single;                                                      // all but clusters
  std::array<std::optional<BlockPlan>, kClusterBlocks.size()> clusters;  // by kClusterBlocks index
  int multiprocessors = 0;
};

GraphPlans find_plans(NodeId nodes, RowOffset edges) {
  int device = 0;
  int optin = 0;
  GraphPlans plans;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&plans.multiprocessors, cudaDevAttrMultiProcessorCount, device));
  const std::array<const void*, 3> shared_users = {reinterpret_cast<const void*>(whole_graph_bellman_ford),
                                                   reinterpret_cast<const void*>(block_bellman_ford<true>),
                                                   reinterpret_cast<const void*>(cluster_bellman_ford)};
  for (const void* kernel : shared_users) {
    TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  }
  TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(cluster_bellman_ford, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const auto budget = static_cast<std::size_t>(optin);
  using Kind = BlockPlan::Kind;
  plans.single = {Kind::labels_in_global, 1, nodes, 0, 0};
  if (edges > 0 && edges <= (RowOffset{1} << 30) && whole_graph_shared_bytes(nodes, edges) <= budget) {
    plans.single = {Kind::whole_graph_in_block, 1, nodes, 0, whole_graph_shared_bytes(nodes, edges)};
    return plans;
  }
  if (block_shared_bytes(nodes) <= budget) {
    plans.single = {Kind::labels_in_block, 1, nodes, 0, block_shared_bytes(nodes)};
    return plans;
  }
  const NodeId runs = (std::max<NodeId>(nodes, 1) + kRun - 1) / kRun;
  for (std::size_t i = 0; i < kClusterBlocks.size(); ++i) {
    const int blocks = kClusterBlocks[i];
    const NodeId chunk = (runs + blocks - 1) / blocks * kRun;
    const std::size_t fixed = cluster_shared_bytes(chunk, 0);
    if (fixed + kRun * sizeof(NodeId) > budget) continue;
    const NodeId capacity = std::min(chunk, static_cast<NodeId>((budget - fixed) / sizeof(NodeId)));
    const std::size_t bytes = cluster_shared_bytes(chunk, capacity);
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config = cluster_config(blocks, bytes, 1, nullptr, attribute);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, cluster_bellman_ford, &config) != cudaSuccess) {
      (void)cudaGetLastError();  // a size this device does not support
      continue;
    }
    if (clusters >= 1) plans.clusters[i] = BlockPlan{Kind::labels_in_cluster, blocks, chunk, capacity, bytes};
  }
  return plans;
}

}  // namespace

// One block each with the whole graph in it; else one block each with the
// labels in it; else one cluster each, as large as the device can spread
// the K of them over its multiprocessors (16 blocks for one search: a hop's
// work spread widest) and never smaller than the labels need; else one
// block each with the labels in global memory.
BlockPlan plan_blocks(NodeId nodes, RowOffset edges, unsigned queries) {
  struct Made {
    NodeId nodes;
    RowOffset edges;
    GraphPlans plans;
  };
  static std::mutex mutex;
  static std::vector<Made> made;  // a process sees few graphs
  const std::lock_guard lock(mutex);
  auto found =
      std::find_if(made.begin(), made.end(), [&](const Made& m) { return m.nodes == nodes && m.edges == edges; });
  if (found == made.end()) {
    made.push_back({nodes, edges, find_plans(nodes, edges)});
    found = made.end() - 1;
  }
  const GraphPlans& plans = found->plans;
  const NodeId runs = (std::max<NodeId>(nodes, 1) + kRun - 1) / kRun;
  const long long wanted = std::min<long long>(runs, plans.multiprocessors / std::max(1u, queries));
  std::optional<BlockPlan> chosen;
  for (const std::optional<BlockPlan>& plan : plans.clusters) {
    if (!plan) continue;
    if (!chosen || plan->blocks <= wanted) chosen = plan;  // the largest that is wanted, else the smallest there is
  }
  return chosen ? *chosen : plans.single;
}

bool fits_one_cluster(NodeId nodes) { return plan_blocks(nodes, 0, 1).kind != BlockPlan::Kind::labels_in_global; }

void run_block_batch(const BlockBatch& batch, unsigned queries, Stream stream) {
  if (queries == 0) return;
  const BlockPlan plan = plan_blocks(batch.nodes, batch.edges, queries);
  switch (plan.kind) {
    case BlockPlan::Kind::whole_graph_in_block:
      TRELLIS_LAUNCH(whole_graph_bellman_ford, queries, kBlockThreads, plan.shared_bytes, stream, batch);
      break;
    case BlockPlan::Kind::labels_in_block:
      TRELLIS_LAUNCH(block_bellman_ford<true>, queries, kBlockThreads, plan.shared_bytes, stream, batch);
      break;
    case BlockPlan::Kind::labels_in_cluster: {
      cudaLaunchAttribute attribute{};
      const cudaLaunchConfig_t config = cluster_config(plan.blocks, plan.shared_bytes, queries, stream, attribute);
      TRELLIS_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_bellman_ford, batch, plan.chunk, plan.capacity));
      break;
    }
    case BlockPlan::Kind::labels_in_global:
      TRELLIS_LAUNCH(block_bellman_ford<false>, queries, kBlockThreads, 0, stream, batch);
      break;
  }
}

}  // namespace trellis::graph::cuda
