// Bellman-Ford on a tiled graph with no barrier at all once it runs: one
// block a tile, every block resident at once (a cooperative launch). A hop
// inside a tile costs a chain of shared-memory operations; a hop across a
// tile border goes through global memory, handled by a courier warp beside
// the workers so that the workers never wait on it.
//
// In a block:
// - Worker warps take nodes from the tile's queue (a ring in shared
//   memory, first in first out), eight at a time, four lanes a node, and
//   relax their out-edges: a head in the tile takes an atomicMin on its
//   shared label and, when lowered, joins the queue unless it is there
//   already; a head in another tile goes into the block's outbox
//   (head, label).
// - The courier drains the outbox (an atomicMin on the head's global offer;
//   when lowered, a bit in the owner tile's inbox), and empties its own
//   tile's inbox, taking each flagged node's offer into its shared label and
//   queueing the node when that lowered it.
// Termination: `pending` counts busy tiles plus inbox bits not yet taken. A
// sender adds its messages before setting their bits; a tile takes a busy
// token when it starts work or takes mail, and gives it back (with the
// messages it took and the bits it found already set) once every queued
// node has been relaxed and its outbox is empty. pending == 0 therefore
// means no work anywhere and none in flight: the labels are the least fixed
// point, whatever the order of relaxations.
//
// Shared words that one warp changes while others read them (labels, queue
// and outbox slots, the control words) are block-scope relaxed atomics
// (shared_load / shared_set, sssp_device.cuh).
#include <cooperative_groups.h>

#include <algorithm>

#include "../tiling.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

namespace cg = cooperative_groups;

// Worker warps a block: where a tile's edges sit in shared memory a hop is
// a chain of shared-memory operations and more warps beyond 16 only contend
// for the queue; where they are read from L2 more warps hide more of its
// latency (bench/results/NOTES.md, "Tiles, a block each, no device-wide
// barrier").
constexpr int worker_warps(bool edges_in_shared) { return edges_in_shared ? 16 : 31; }
constexpr int kMostWorkerWarps = 31;
// The block: the workers and the courier.
constexpr int tile_threads(bool edges_in_shared) { return (worker_warps(edges_in_shared) + 1) * kWarp; }
constexpr unsigned kOutboxSlots = 2048;  // a power of two
constexpr unsigned long long kEmptySlot = ~0ull;
constexpr unsigned kAll = 0xffffffffu;
constexpr int kLanesPerNode = 4;  // lanes that share a queued node's edges
constexpr int kNodesPerWarp = kWarp / kLanesPerNode;
constexpr int kPollWords = 4;    // inbox words a courier lane loads at once
constexpr int kDrainRounds = 4;  // outbox slots a courier lane takes a pass
constexpr int kDrainSlots = kDrainRounds * kWarp;

// Queue slots for a tile of `nodes`: a power of two with room for every
// node (each is queued at most once at a time) and for the slots taken but
// not yet read.
__host__ __device__ unsigned queue_slots(NodeId nodes) {
  unsigned slots = 1;
  while (slots < static_cast<unsigned>(nodes) + kMostWorkerWarps * kNodesPerWarp) slots *= 2;
  return slots;
}

// Shared words the warps of a block coordinate through. Counters only grow
// (modulo 2^32): queue_tail - queue_done is the number of nodes queued or
// being relaxed.
struct Control {
  unsigned outbox_reserved;  // outbox slots taken by workers
  unsigned outbox_head;      // outbox slots the courier has drained
  unsigned queue_head;       // queue slots taken by workers
  unsigned queue_tail;       // queue slots taken by producers (workers and courier)
  unsigned queue_done;       // queued nodes whose relaxation has finished
  unsigned done;             // set by the courier: the search is over
  Key bound;                 // the target's best known label
  unsigned padding[1];
  Key scratch[kWarp];  // stay kNoKey: a lane's target for atomics that change nothing
};
static_assert(sizeof(Control) % 16 == 0);

struct TileShare {
  Control* control;
  unsigned long long* outbox;  // (label << 32) | tiled head, or kEmptySlot
  Key* labels;
  unsigned* queued;   // 1 while a node is in the queue
  unsigned* queue;    // node + 1, or 0 for a free slot
  unsigned* offsets;  // edges in shared memory only
  std::uint32_t* heads;
  Weight* weights;
};

std::size_t share_bytes(NodeId nodes, RowOffset edges) {
  const auto n = static_cast<std::size_t>(nodes);
  std::size_t bytes = sizeof(Control) + kOutboxSlots * sizeof(unsigned long long) + 2 * n * sizeof(unsigned) +
                      queue_slots(nodes) * sizeof(unsigned);
  if (edges > 0) bytes += (n + 1) * sizeof(unsigned) + static_cast<std::size_t>(edges) * 2 * sizeof(unsigned);
  return bytes;
}

__device__ TileShare carve(unsigned char* base, NodeId nodes, unsigned slots, RowOffset edges) {
  TileShare t;
  t.control = reinterpret_cast<Control*>(base);
  t.outbox = reinterpret_cast<unsigned long long*>(base + sizeof(Control));
  unsigned* words = reinterpret_cast<unsigned*>(t.outbox + kOutboxSlots);
  t.labels = words;
  t.queued = t.labels + nodes;
  t.queue = t.queued + nodes;
  t.offsets = t.queue + slots;
  t.heads = t.offsets + nodes + 1;
  t.weights = reinterpret_cast<Weight*>(t.heads + edges);
  return t;
}

// Puts node l into queue slot `at` (taken from queue_tail), waiting for the
// slot's last reader to have emptied it.
__device__ void enqueue(const TileShare& t, unsigned slots, unsigned at, NodeId l) {
  unsigned& slot = t.queue[at & (slots - 1)];
  while (shared_load(slot) != 0) {
  }
  shared_set(slot, static_cast<unsigned>(l) + 1);
}

template <bool kEdgesInShared>
__global__ void __launch_bounds__(tile_threads(kEdgesInShared)) tiled_bellman_ford(TiledSearch s) {
  constexpr int kWorkers = worker_warps(kEdgesInShared) * kWarp;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const unsigned long long kernel_start = now_ns();
  const NodeId first = s.tile_first[blockIdx.x];
  const NodeId size = s.tile_first[blockIdx.x + 1] - first;
  const NodeId words = size / 32;
  const RowOffset edge_base = s.row_offsets[first];
  const unsigned slots = queue_slots(s.capacity_nodes);
  const TileShare t = carve(shared_bytes, s.capacity_nodes, slots, kEdgesInShared ? s.capacity_edges : 0);
  Control& ctl = *t.control;
  unsigned* const inbox = s.inbox + first / 32;

  // Everything a tile owns starts empty, before any block may write to it.
  for (NodeId l = threadIdx.x; l < size; l += blockDim.x) {
    t.labels[l] = kNoKey;
    t.queued[l] = 0;
    s.offers[first + l] = kNoKey;
  }
  for (unsigned i = threadIdx.x; i < slots; i += blockDim.x) t.queue[i] = 0;
  for (NodeId w = threadIdx.x; w < words; w += blockDim.x) inbox[w] = 0;
  for (unsigned i = threadIdx.x; i < kOutboxSlots; i += blockDim.x) t.outbox[i] = kEmptySlot;
  if (threadIdx.x == 0) {
    ctl = Control{};
    ctl.bound = kNoKey;
    for (Key& word : ctl.scratch) word = kNoKey;
  }
  if constexpr (kEdgesInShared) {
    for (NodeId l = threadIdx.x; l <= size; l += blockDim.x) {
      t.offsets[l] = static_cast<unsigned>(s.row_offsets[first + l] - edge_base);
    }
    const auto edges = static_cast<unsigned>(s.row_offsets[first + size] - edge_base);
#pragma unroll 4
    for (unsigned k = threadIdx.x; k < edges; k += blockDim.x) {
      const std::uint32_t head = __ldg(&s.heads[edge_base + k]);
      Weight weight = __ldg(&s.weights[edge_base + k]);
      if (s.node_cost != nullptr) {
        const NodeId tiled =
            (head & kRemoteHead) != 0 ? static_cast<NodeId>(head & ~kRemoteHead) : first + static_cast<NodeId>(head);
        weight += __ldg(&s.node_cost[s.old_of_new[tiled]]);
      }
      t.heads[k] = head;
      t.weights[k] = weight;
    }
  } else if (s.node_cost != nullptr) {
    for (NodeId l = threadIdx.x; l < size; l += blockDim.x) {
      const NodeId v = s.old_of_new[first + l];
      s.tiled_cost[first + l] = v >= 0 ? s.node_cost[v] : 0.0f;
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < s.source_count; i += blockDim.x) {
    const NodeId g = s.sources[i];
    if (g < first || g >= first + size) continue;
    const NodeId l = g - first;
    t.labels[l] = make_key(0.0f);
    t.queued[l] = 1;
    t.queue[atomicAdd(&ctl.queue_tail, 1u)] = static_cast<unsigned>(l) + 1;
  }
  __syncthreads();
  const bool sourced = ctl.queue_tail > 0;
  const bool owns_target = s.target >= first && s.target < first + size;
  if (threadIdx.x == 0) {
    if (sourced) atomicAdd(s.pending, 1);
    if (owns_target && t.labels[s.target - first] != kNoKey) atomicMin(&s.offers[s.target], t.labels[s.target - first]);
  }
  cg::this_grid().sync();

  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  unsigned relaxed = 0;
  if (threadIdx.x < kWorkers) {
    // ---- Workers ----
    const int group = lane / kLanesPerNode;  // which of the warp's nodes
    const int leader = group * kLanesPerNode;
    while (true) {
      // Take up to kNodesPerWarp queued nodes.
      int taken = 0;
      unsigned at = 0;
      if (lane == 0) {
        while (true) {
          const unsigned head = shared_load(ctl.queue_head);
          const unsigned available = shared_load(ctl.queue_tail) - head;
          if (available == 0) {
            if (shared_load(ctl.done) != 0) {
              taken = -1;
              break;
            }
            continue;
          }
          const unsigned want = min(available, static_cast<unsigned>(kNodesPerWarp));
          if (atomicCAS(&ctl.queue_head, head, head + want) == head) {
            taken = static_cast<int>(want);
            at = head;
            break;
          }
        }
      }
      taken = __shfl_sync(kAll, taken, 0);
      if (taken < 0) break;
      at = __shfl_sync(kAll, at, 0);
      const bool has = group < taken;
      NodeId u = 0;
      Key from_key = 0;
      if (has && lane == leader) {
        unsigned& slot = t.queue[(at + static_cast<unsigned>(group)) & (slots - 1)];
        unsigned entry;
        while ((entry = shared_load(slot)) == 0) {
        }
        shared_set(slot, 0u);
        u = static_cast<NodeId>(entry - 1);
        // Out of the queue before its label is read: a lowering after the
        // read queues the node again.
        atomicExch(&t.queued[u], 0u);
        __threadfence_block();
        from_key = shared_load(t.labels[u]);
      }
      u = __shfl_sync(kAll, u, leader);
      const Weight from = key_distance(__shfl_sync(kAll, from_key, leader));
      const Weight bound = key_distance(shared_load(ctl.bound));  // NaN while the target is unreached
      RowOffset k = 0;
      RowOffset end = 0;
      if (has) {
        if constexpr (kEdgesInShared) {
          k = t.offsets[u];
          end = t.offsets[u + 1];
        } else {
          k = __ldg(&s.row_offsets[first + u]);
          end = __ldg(&s.row_offsets[first + u + 1]);
        }
        k += lane % kLanesPerNode;
      }
      while (__any_sync(kAll, k < end)) {
        const bool edge = k < end;
        std::uint32_t head = 0;
        Weight weight = 0.0f;
        if (edge) {
          if constexpr (kEdgesInShared) {
            head = t.heads[k];
            weight = t.weights[k];
          } else {
            head = __ldg(&s.heads[k]);
            weight = __ldg(&s.weights[k]);
            if (s.node_cost != nullptr) {
              const bool away = (head & kRemoteHead) != 0;
              weight += __ldg(
                  &s.tiled_cost[away ? static_cast<NodeId>(head & ~kRemoteHead) : first + static_cast<NodeId>(head)]);
            }
          }
        }
        relaxed += edge ? 1 : 0;
        const Weight candidate = from + weight;
        const bool wanted = edge && !(candidate > bound);
        const Key key = make_key(candidate);
        const bool remote = wanted && (head & kRemoteHead) != 0;
        const bool local = wanted && !remote;
        head &= ~kRemoteHead;
        const Key old = atomicMin(local ? &t.labels[head] : &ctl.scratch[lane], local ? key : kNoKey);
        const bool queue_it = local && old > key && atomicExch(&t.queued[head], 1u) == 0;
        // Room for this step's queue and outbox entries, one shared atomic
        // each for the warp.
        const unsigned queue_ballot = __ballot_sync(kAll, queue_it);
        const unsigned send_ballot = __ballot_sync(kAll, remote);
        unsigned queue_at = 0;
        unsigned send_at = 0;
        if (lane == 0) {
          if (queue_ballot != 0) queue_at = atomicAdd(&ctl.queue_tail, static_cast<unsigned>(__popc(queue_ballot)));
          if (send_ballot != 0) send_at = atomicAdd(&ctl.outbox_reserved, static_cast<unsigned>(__popc(send_ballot)));
        }
        const unsigned below = (1u << lane) - 1;
        queue_at = __shfl_sync(kAll, queue_at, 0) + static_cast<unsigned>(__popc(queue_ballot & below));
        send_at = __shfl_sync(kAll, send_at, 0) + static_cast<unsigned>(__popc(send_ballot & below));
        if (queue_it) enqueue(t, slots, queue_at, static_cast<NodeId>(head));
        if (remote) {
          while (send_at - shared_load(ctl.outbox_head) >= kOutboxSlots) {
            if (shared_load(ctl.done) != 0) break;  // only after a failure
          }
          shared_set(t.outbox[send_at % kOutboxSlots], (static_cast<unsigned long long>(key) << 32) | head);
        }
        k += kLanesPerNode;
      }
      // Finished: after every queue and outbox slot this warp took.
      __syncwarp();
      if (lane == 0) {
        __threadfence_block();
        atomicAdd(&ctl.queue_done, static_cast<unsigned>(taken));
      }
    }
  } else {
    // ---- Courier ----
    bool busy = sourced;
    unsigned taken_bits = 0;  // inbox bits this lane took since the last release
    unsigned repeats = 0;     // bits this lane's sends found already set
    unsigned head = 0;
    Key published = owns_target ? shared_load(t.labels[s.target - first]) : kNoKey;
    for (unsigned pass = 0;; ++pass) {
      // The outbox: its filled slots from the head on, up to kDrainSlots a
      // pass, their atomics issued together.
      unsigned long long entries[kDrainRounds];
      int drained = kDrainSlots;
#pragma unroll
      for (int j = 0; j < kDrainRounds; ++j) {
        entries[j] = shared_load(t.outbox[(head + j * kWarp + lane) % kOutboxSlots]);
      }
#pragma unroll
      for (int j = kDrainRounds - 1; j >= 0; --j) {
        const unsigned filled = __ballot_sync(kAll, entries[j] != kEmptySlot);
        if (filled != kAll) drained = j * kWarp + __ffs(static_cast<int>(~filled)) - 1;
      }
      if (drained > 0) {
        bool lowered[kDrainRounds];
#pragma unroll
        for (int j = 0; j < kDrainRounds; ++j) {
          const bool mine = j * kWarp + lane < drained;
          const auto tiled = static_cast<unsigned>(entries[j]);
          const auto key = static_cast<Key>(entries[j] >> 32);
          lowered[j] = mine && atomicMin(&s.offers[tiled], key) > key;
          if (mine) shared_set(t.outbox[(head + j * kWarp + lane) % kOutboxSlots], kEmptySlot);
        }
        unsigned senders = 0;
#pragma unroll
        for (int j = 0; j < kDrainRounds; ++j)
          senders += static_cast<unsigned>(__popc(__ballot_sync(kAll, lowered[j])));
        if (senders != 0) {
          if (lane == 0) atomicAdd(s.pending, static_cast<int>(senders));
          __threadfence();  // the count before any of its bits
          __syncwarp();
#pragma unroll
          for (int j = 0; j < kDrainRounds; ++j) {
            if (!lowered[j]) continue;
            const auto tiled = static_cast<unsigned>(entries[j]);
            const unsigned bit = 1u << (tiled % 32);
            repeats += (atomicOr(&s.inbox[tiled / 32], bit) & bit) != 0 ? 1 : 0;
          }
        }
        head += static_cast<unsigned>(drained);
        __syncwarp();
        if (lane == 0) {
          __threadfence_block();  // the slots cleared before the workers may reuse them
          shared_set(ctl.outbox_head, head);
        }
      }

      // The target's best label, read now and used at the end of the pass.
      const Key bound = lane == 0 && s.target >= 0 ? relaxed_load(&s.offers[s.target]) : kNoKey;

      // The inbox: take the flagged nodes' offers into the shared labels,
      // and queue the nodes they lowered. A lane's words are loaded
      // together, so a pass waits on L2 once.
      unsigned took = 0;
      for (NodeId base = 0; base < words; base += kWarp * kPollWords) {
        unsigned polled[kPollWords];
#pragma unroll
        for (int j = 0; j < kPollWords; ++j) {
          const NodeId w = base + j * kWarp + lane;
          polled[j] = w < words ? relaxed_load(&inbox[w]) : 0u;
        }
#pragma unroll
        for (int j = 0; j < kPollWords; ++j) {
          if (polled[j] == 0) continue;
          const NodeId w = base + j * kWarp + lane;
          unsigned bits = atomicExch(&inbox[w], 0u);
          took += static_cast<unsigned>(__popc(bits));
          __threadfence();  // the offers were written before their bits
          for (; bits != 0; bits &= bits - 1) {
            const NodeId l = w * 32 + __ffs(static_cast<int>(bits)) - 1;
            const Key offer = relaxed_load(&s.offers[first + l]);
            if (atomicMin(&t.labels[l], offer) > offer && atomicExch(&t.queued[l], 1u) == 0) {
              enqueue(t, slots, atomicAdd(&ctl.queue_tail, 1u), l);
            }
          }
        }
      }
      if (__any_sync(kAll, took != 0)) {
        if (!busy && lane == 0) atomicAdd(s.pending, 1);
        busy = true;
        taken_bits += took;
      }

      // The target's label: published by its owner, read by every tile.
      if (lane == 0 && s.target >= 0) {
        const Key mine = owns_target ? shared_load(t.labels[s.target - first]) : kNoKey;
        if (mine < published) {
          atomicMin(&s.offers[s.target], mine);
          published = mine;
        }
        shared_set(ctl.bound, min(bound, published));
      }

      // Every queued node relaxed (done read before tail: when they are
      // equal, nothing was queued or being relaxed at the second read) and
      // the outbox drained: the tile's token goes back.
      if (busy) {
        const unsigned finished = shared_load(ctl.queue_done);
        __threadfence_block();
        if (shared_load(ctl.queue_tail) == finished && shared_load(ctl.outbox_reserved) == head) {
          const unsigned returned = __reduce_add_sync(kAll, taken_bits + repeats);
          if (lane == 0) atomicSub(s.pending, static_cast<int>(1 + returned));
          busy = false;
          taken_bits = 0;
          repeats = 0;
        }
      }
      bool finished = false;
      if (!busy && lane == 0) finished = relaxed_load(s.pending) == 0;
      if (lane == 0 && pass % 256 == 255 && (now_ns() - kernel_start > s.timeout_ns || relaxed_load(s.failed) != 0)) {
        atomicExch(s.failed, 1u);
        finished = true;
      }
      if (__shfl_sync(kAll, finished ? 1 : 0, 0) != 0) {
        if (lane == 0) shared_set(ctl.done, 1u);
        break;
      }
    }
  }
  __syncthreads();
  for (NodeId l = threadIdx.x; l < size; l += blockDim.x) {
    const NodeId v = s.old_of_new[first + l];
    if (v >= 0) s.keys[v] = t.labels[l];
  }
  unsigned long long total = relaxed;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) total += __shfl_down_sync(kAll, total, offset);
  if (lane == 0 && total != 0) atomicAdd(s.relaxed, total);
}

}  // namespace

std::size_t tiled_shared_bytes(NodeId capacity_nodes, RowOffset capacity_edges, int tiles) {
  int device = 0;
  int optin = 0;
  int multiprocessors = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  const void* kernel = capacity_edges > 0 ? reinterpret_cast<const void*>(tiled_bellman_ford<true>)
                                          : reinterpret_cast<const void*>(tiled_bellman_ford<false>);
  cudaFuncAttributes attributes{};
  TRELLIS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int dynamic = optin - static_cast<int>(attributes.sharedSizeBytes);
  const std::size_t bytes = share_bytes(capacity_nodes, capacity_edges);
  if (bytes > static_cast<std::size_t>(std::max(dynamic, 0))) return 0;
  TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic));
  int per_multiprocessor = 0;
  TRELLIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                                   tile_threads(capacity_edges > 0), bytes));
  return static_cast<long long>(per_multiprocessor) * multiprocessors >= tiles ? bytes : 0;
}

void run_tiled_bellman_ford(const TiledSearch& search, int tiles, Stream stream) {
  TiledSearch s = search;
  void* args[] = {&s};
  const bool in_shared = s.capacity_edges > 0;
  const void* kernel = in_shared ? reinterpret_cast<const void*>(tiled_bellman_ford<true>)
                                 : reinterpret_cast<const void*>(tiled_bellman_ford<false>);
  TRELLIS_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, tiles, tile_threads(in_shared), args,
                                                 share_bytes(s.capacity_nodes, s.capacity_edges), stream));
}

}  // namespace trellis::graph::cuda
