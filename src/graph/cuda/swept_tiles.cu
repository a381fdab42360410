// Bellman-Ford on a tiled graph by pull sweeps inside each tile: one block
// a tile, every block resident at once (a cooperative launch), no
// device-wide barrier once it runs.
//
// A block is 1,024 threads, or 512 where there are more tiles than
// multiprocessors (two tiles share each one: a tile of half the nodes has
// half the edges to issue a sweep, and two of them keep the multiprocessor
// busy; four tiles a multiprocessor were tried too: bench/results/NOTES.md,
// "Swept tiles").
//
// In a block:
// - The worker warps (all but the last two) sweep the tile as sweep_solver.cu
//   sweeps a small graph:
//   each worker thread owns up to four of the tile's nodes, keeps their
//   in-edges from the tile in registers, and recomputes their labels
//   (kPullsPerSweep times a sweep) from those edges and from the node's
//   mail (the least offer other tiles made it); a barrier of the workers
//   ends the sweep. A node whose label dropped and that has edges to other
//   tiles gets a bit in the block's send bitmap. Workers touch shared
//   memory only. Every shared word that one warp changes while others read
//   it (the labels, the mail, the flags) is a block-scope relaxed atomic
//   (sssp_device.cuh).
// - Two courier warps do everything that waits on global memory. The
//   sender sends the flagged nodes' labels along their edges into other
//   tiles (atomicMin on the head's global offer, and the head's inbox bit
//   when that lowered it). The receiver takes this tile's inbox bits and
//   their offers into the mail, wakes the workers when mail lowered, and
//   keeps the tile's token (below). Apart, neither waits for the other's
//   round trips to L2: a label's hand-over from one tile to the next is a
//   send and a take, where one courier doing both made it wait for a whole
//   pass of the other's work on each side (bench/results/NOTES.md, "A
//   sender and a receiver"). The warp the workers give up leaves every
//   seed lattice's tiles at the same nodes a worker thread, so no sweep is
//   longer.
//
// Why: in the queue-driven tiles (tiled_bellman_ford.cu) a hop inside a
// tile was a chain of about 20 dependent shared-memory operations of one
// warp; a sweep moves every label of the tile one hop at the cost of the
// workers' issue time for the tile's edges. The sends wait on
// L2 several times over, which is why the workers do not make them.
//
// Termination is tiled_bellman_ford.cu's: `pending` counts busy tiles plus
// inbox bits not yet taken (a sender adds its lowered offers before setting
// their bits, and gives back at its release the bits it found already set).
// The receiver holds its tile's token from its sources or the first mail it
// takes until the workers are idle after a sweep that saw all mail, the
// send bitmap is empty and the sender is not sending; then it gives back
// the token, the bits it took and the sender's repeats. An idle receiver
// that reads pending == 0 knows every tile is idle and nothing is in
// flight: the labels are the least fixed point.
#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <vector>

#include "../tiling.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

namespace cg = cooperative_groups;

// Block sizes compiled: 1,024 threads (30 worker warps, the sender and the
// receiver), or 512 (14 and the two) where two tiles share a multiprocessor.
constexpr int workers_of(int threads) { return threads - 2 * kWarp; }
constexpr unsigned kAll = 0xffffffffu;
// Nodes a worker owns and in-edge slots a node, as compiled (the registers
// allow 4 x 4 at most, as in sweep_solver.cu with the courier's needs).
constexpr std::array<int, 3> kSlotChoices = {1, 2, 4};
constexpr std::array<int, 3> kEdgeChoices = {4, 6, 8};
// Pulls a worker makes between the workers' barriers. A label moves one
// hop a pull where its path crosses from one thread's nodes to another's
// (the second pull reads what the first wrote), and a pull costs less than
// the barrier and the flags around it. Three balances the lattices of
// every size timed (bench/results/NOTES.md, "Several pulls a sweep"); more
// pulls are also more work for the tiles off the critical path, which
// share the multiprocessors.
constexpr int kPullsPerSweep = 3;

// The workers' own barrier (id 1), and the same with an OR of `value`.
template <int kWorkers>
__device__ void workers_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kWorkers) : "memory");
}
template <int kWorkers>
__device__ bool workers_or(bool value) {
  unsigned result;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, 1, %2, p;\n selp.u32 %0, 1, 0, q;\n}"
               : "=r"(result)
               : "r"(value ? 1u : 0u), "n"(kWorkers)
               : "memory");
  return result != 0;
}

// Words the block's warps coordinate through.
struct Control {
  unsigned dirty;         // set by the receiver after it lowered mail; taken by worker 0 at a sweep's end
  unsigned workers_idle;  // 1 while the workers wait for mail
  unsigned done;          // set by the receiver: the search is over
  unsigned sending;       // 1 while the sender holds taken bits not yet sent
  unsigned repeats;       // the sender's sends that found their inbox bit set, for the receiver to give back
  Key bound;              // the target's best known label (kNoKey: none yet)
};

// The block's shared memory for tiles of `width` node slots and at most
// `remote` edges to other tiles.
struct TileShare {
  Weight* labels;          // width + 1: +inf where not reached; the last stays +inf (the padding edges' tail)
  Key* mail;               // width: the least offer taken from other tiles
  unsigned* send_bits;     // width / 32: nodes whose label goes to other tiles
  NodeId* list;            // width: the sender's list of nodes to send
  NodeId* inbox_list;      // width: the receiver's list of nodes with mail
  unsigned* remote_first;  // width + 1: a node's edges to other tiles in remote_heads
  NodeId* remote_heads;    // tiled ids
  Weight* remote_weights;  // with the head's cost added
  Control* control;
};

__host__ __device__ std::size_t tile_share_bytes(int width, unsigned remote) {
  const auto w = static_cast<std::size_t>(width);
  return (w + 1) * sizeof(Weight) + w * sizeof(Key) + (w / 32) * sizeof(unsigned) + 2 * w * sizeof(NodeId) +
         (w + 1) * sizeof(unsigned) + remote * (sizeof(NodeId) + sizeof(Weight)) + sizeof(Control);
}

__device__ TileShare carve(unsigned char* base, int width, unsigned remote) {
  TileShare t;
  auto* words = reinterpret_cast<unsigned*>(base);
  t.labels = reinterpret_cast<Weight*>(words);
  t.mail = words + width + 1;
  t.send_bits = t.mail + width;
  t.list = reinterpret_cast<NodeId*>(t.send_bits + width / 32);
  t.inbox_list = t.list + width;
  t.remote_first = reinterpret_cast<unsigned*>(t.inbox_list + width);
  t.remote_heads = reinterpret_cast<NodeId*>(t.remote_first + width + 1);
  t.remote_weights = reinterpret_cast<Weight*>(t.remote_heads + remote);
  t.control = reinterpret_cast<Control*>(t.remote_weights + remote);
  return t;
}

// Appends the nodes of each lane's word `w` (bits) to list[listed..], in
// order; returns the new length. Warp-uniform.
__device__ unsigned append_bits(unsigned bits, int w, NodeId* list, unsigned listed) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const unsigned count = static_cast<unsigned>(__popc(bits));
  unsigned before = count;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const unsigned other = __shfl_up_sync(kAll, before, offset);
    if (lane >= offset) before += other;
  }
  unsigned at = listed + before - count;
  for (; bits != 0; bits &= bits - 1) list[at++] = w * 32 + __ffs(static_cast<int>(bits)) - 1;
  return listed + __shfl_sync(kAll, before, kWarp - 1);
}

// The sender's sends: the nodes whose bits are set in the send bitmap, each
// label along each of its edges to other tiles, a node a lane so that the
// atomics' waits overlap. Returns the edges relaxed.
__device__ unsigned send_flagged(const TiledSearch& s, const TileShare& t, int width, unsigned& repeats) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int words = width / 32;
  unsigned listed = 0;
  for (int base = 0; base < words; base += kWarp) {
    const int w = base + lane;
    const unsigned bits = w < words && shared_load(t.send_bits[w]) != 0 ? atomicExch(&t.send_bits[w], 0u) : 0u;
    listed = append_bits(bits, w, t.list, listed);
  }
  if (listed == 0) return 0;
  __syncwarp();
  __threadfence_block();  // the labels the workers wrote before their bits
  const Key bound_key = shared_load(t.control->bound);
  const Weight bound = key_distance(bound_key);  // NaN while the target is unreached
  unsigned relaxed = 0;
  for (unsigned base = 0; base < listed; base += kWarp) {
    const bool has = base + static_cast<unsigned>(lane) < listed;
    const NodeId l = has ? t.list[base + static_cast<unsigned>(lane)] : 0;
    const Weight label = has ? shared_load(t.labels[l]) : 0.0f;
    unsigned k = has ? t.remote_first[l] : 0;
    const unsigned end = has ? t.remote_first[l + 1] : 0;
    while (__any_sync(kAll, k < end)) {
      bool lowered = false;
      NodeId head = 0;
      if (k < end) {
        head = t.remote_heads[k];
        const Weight candidate = label + t.remote_weights[k];
        const Key key = make_key(candidate);
        ++relaxed;
        lowered = !(candidate > bound) && atomicMin(&s.offers[head], key) > key;
      }
      const unsigned senders = __ballot_sync(kAll, lowered);
      if (senders != 0) {
        if (lane == 0) atomicAdd(s.pending, __popc(senders));
        __threadfence();  // the count before any of its bits
        __syncwarp();
        if (lowered) {
          const unsigned bit = 1u << (head % 32);
          repeats += (atomicOr(&s.inbox[head / 32], bit) & bit) != 0 ? 1 : 0;
        }
      }
      ++k;
    }
  }
  return relaxed;
}

template <int kThreads, int kSlots, int kEdges>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    swept_tiles(TiledSearch s, SweptTiles st, unsigned remote) {
  constexpr int kTileThreads = kThreads;
  constexpr int kWorkers = workers_of(kThreads);
  constexpr int kWorkerWarps = kWorkers / kWarp;
  constexpr int kWidth = kSlots * kWorkers;
  constexpr int kSlotsAtOnce = kSlots * kEdges <= 8 ? kSlots : 1;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const TileShare t = carve(shared_bytes, kWidth, remote);
  Control& ctl = *t.control;
  const unsigned long long started = now_ns();
  const NodeId first = s.tile_first[blockIdx.x];
  const NodeId size = s.tile_first[blockIdx.x + 1] - first;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const bool worker = threadIdx.x < kWorkers;
  const Weight infinity = __int_as_float(0x7f800000);

  // Everything the tile owns starts empty, before any block may write to it.
  for (NodeId l = threadIdx.x; l <= kWidth; l += kTileThreads) t.labels[l] = infinity;
  for (NodeId l = threadIdx.x; l < kWidth; l += kTileThreads) t.mail[l] = kNoKey;
  for (NodeId w = threadIdx.x; w < kWidth / 32; w += kTileThreads) t.send_bits[w] = 0;
  for (NodeId l = threadIdx.x; l < size; l += kTileThreads) s.offers[first + l] = kNoKey;
  for (NodeId w = threadIdx.x; w < size / 32; w += kTileThreads) s.inbox[first / 32 + w] = 0;
  // The tile's edges to other tiles, their heads' costs added.
  const unsigned remote_base = st.remote_offsets[first];
  for (NodeId l = threadIdx.x; l <= kWidth; l += kTileThreads) {
    t.remote_first[l] = st.remote_offsets[first + min(l, size)] - remote_base;
  }
  const unsigned remote_edges = st.remote_offsets[first + size] - remote_base;
  for (unsigned k = threadIdx.x; k < remote_edges; k += kTileThreads) {
    const NodeId head = st.remote_heads[remote_base + k];
    const Weight w = st.remote_weights[remote_base + k];
    t.remote_heads[k] = head;
    t.remote_weights[k] = s.node_cost != nullptr ? w + __ldg(&s.node_cost[s.old_of_new[head]]) : w;
  }
  if (threadIdx.x == 0) ctl = Control{0, 0, 0, 0, 0, kNoKey};
  __syncthreads();
  bool sourced = false;
  for (unsigned i = threadIdx.x; i < s.source_count; i += kTileThreads) {
    const NodeId g = s.sources[i];
    if (g < first || g >= first + size) continue;
    const NodeId l = g - first;
    t.labels[l] = 0.0f;
    if (t.remote_first[l + 1] > t.remote_first[l]) atomicOr(&t.send_bits[l / 32], 1u << (l % 32));
    sourced = true;
  }
  sourced = __syncthreads_or(sourced) != 0;
  if (threadIdx.x == 0) {
    if (sourced) atomicAdd(s.pending, 1);
    if (s.target >= first && s.target < first + size && t.labels[s.target - first] == 0.0f) {
      atomicMin(&s.offers[s.target], make_key(0.0f));
    }
  }
  cg::this_grid().sync();

  unsigned long long relaxed = 0;
  if (worker) {
    // ---- Workers ----
    const auto me = static_cast<NodeId>(threadIdx.x);
    const int warp = static_cast<int>(threadIdx.x) / kWarp;
    const NodeId target_local = s.target >= first && s.target < first + size ? s.target - first : -1;
    std::uint16_t tail[kSlots][kEdges];
    Weight weight[kSlots][kEdges];
    unsigned has_remote = 0;  // bit per slot: the node has edges to other tiles
    unsigned own_edges = 0;   // in-edges (not padding) of this thread's nodes
    Weight mine[kSlots];
    const std::size_t tile_base = static_cast<std::size_t>(blockIdx.x) * kEdges * kWidth;
#pragma unroll
    for (int slot = 0; slot < kSlots; ++slot) {
      const NodeId l = slot * kWorkers + me;
      const NodeId old = l < size ? s.old_of_new[first + l] : -1;
      if (t.remote_first[l + 1] > t.remote_first[l]) has_remote |= 1u << slot;
      // The edge weight every backend uses: fl(w + cost[head]), or w alone.
      const Weight head_cost = s.node_cost != nullptr && old >= 0 ? __ldg(&s.node_cost[old]) : 0.0f;
#pragma unroll
      for (int j = 0; j < kEdges; ++j) {
        tail[slot][j] = __ldg(&st.tails[tile_base + j * kWidth + l]);
        own_edges += tail[slot][j] != kWidth ? 1 : 0;
        const Weight w = __ldg(&st.weights[tile_base + j * kWidth + l]);
        weight[slot][j] = s.node_cost != nullptr ? w + head_cost : w;
      }
      mine[slot] = t.labels[l];
    }
    unsigned sweeps = 0;
    while (true) {
      ++sweeps;
      const Weight bound = key_distance(shared_load(ctl.bound));  // NaN while the target is unreached
      unsigned changed = 0;  // bit per slot: this thread's label dropped this sweep
#pragma unroll 1
      for (int pull = 0; pull < kPullsPerSweep; ++pull) {
#pragma unroll
        for (int group = 0; group < kSlots; group += kSlotsAtOnce) {
          // A group's loads first, so that they wait together; the whole sweep
          // is one group unless its loaded labels would spill registers.
          // Other workers may be lowering these labels as they are read
          // (relaxed atomics): the old label or the new one, both folds of
          // paths, and a pull that read the old one is followed by another.
          Weight tail_label[kSlotsAtOnce][kEdges];
          Key mail[kSlotsAtOnce];
#pragma unroll
          for (int i = 0; i < kSlotsAtOnce; ++i) {
#pragma unroll
            for (int j = 0; j < kEdges; ++j) tail_label[i][j] = shared_load(t.labels[tail[group + i][j]]);
            mail[i] = shared_load(t.mail[(group + i) * kWorkers + me]);
          }
#pragma unroll
          for (int i = 0; i < kSlotsAtOnce; ++i) {
            const int slot = group + i;
            // Mail kNoKey reads as NaN, which fminf passes over.
            Weight best = fminf(mine[slot], key_distance(mail[i]));
#pragma unroll
            for (int j = 0; j < kEdges; ++j) best = fminf(best, tail_label[i][j] + weight[slot][j]);
            const bool lowered = best < mine[slot] && !(best > bound);
            shared_store_if(lowered, t.labels[slot * kWorkers + me], best);
            mine[slot] = lowered ? best : mine[slot];
            changed |= lowered ? 1u << slot : 0u;
          }
        }
      }
      if (__any_sync(kAll, (changed & has_remote) != 0)) {
        // Every lane's labels before lane 0 sets their bits.
        __threadfence_block();
        __syncwarp();
#pragma unroll
        for (int slot = 0; slot < kSlots; ++slot) {
          const unsigned flagged = __ballot_sync(kAll, ((changed & has_remote) >> slot) & 1u);
          if (lane == 0 && flagged != 0) atomicOr(&t.send_bits[slot * kWorkerWarps + warp], flagged);
        }
      }
#pragma unroll
      for (int slot = 0; slot < kSlots; ++slot) {  // a constant index: mine stays in registers
        if (slot * kWorkers + me == target_local && ((changed >> slot) & 1u) != 0) {
          atomicMin(&s.offers[s.target], make_key(mine[slot]));
        }
      }
      // Mail lowered since the last sweep began: one more sweep.
      const bool mailed = threadIdx.x == 0 && atomicExch(&ctl.dirty, 0u) != 0;
      if (workers_or<kWorkers>(changed != 0 || mailed)) continue;
      // Idle: worker 0 waits for mail or the end.
      if (threadIdx.x == 0) {
        __threadfence_block();  // the bits of the sweeps before
        shared_set(ctl.workers_idle, 1u);
        while (shared_load(ctl.dirty) == 0 && shared_load(ctl.done) == 0) {
        }
        shared_set(ctl.workers_idle, 0u);
        __threadfence_block();  // before the next sweep takes the dirty flag
      }
      workers_sync<kWorkers>();
      if (shared_load(ctl.done) != 0) break;
    }
#pragma unroll
    for (int slot = 0; slot < kSlots; ++slot) {
      const NodeId l = slot * kWorkers + me;
      if (l >= size) continue;
      const NodeId v = s.old_of_new[first + l];
      if (v >= 0) s.keys[v] = mine[slot] == infinity ? kNoKey : make_key(mine[slot]);
    }
    relaxed = static_cast<unsigned long long>(sweeps) * kPullsPerSweep * own_edges;
  } else if (threadIdx.x < kWorkers + kWarp) {
    // ---- Sender ----
    unsigned repeats = 0;  // bits this lane's sends found already set
    while (true) {
      unsigned flagged = 0;
      for (int w = lane; w < kWidth / 32; w += kWarp) flagged |= shared_load(t.send_bits[w]);
      if (!__any_sync(kAll, flagged != 0)) {
        if (shared_load(ctl.done) != 0) break;
        continue;
      }
      // Sending before any bit is taken: the receiver, reading the bitmap
      // empty and then this flag clear, knows no send is under way.
      if (lane == 0) shared_set(ctl.sending, 1u);
      __threadfence_block();
      __syncwarp();
      relaxed += send_flagged(s, t, kWidth, repeats);
      const unsigned found_set = __reduce_add_sync(kAll, repeats);
      repeats = 0;
      if (lane == 0) {
        if (found_set != 0) atomicAdd(&ctl.repeats, found_set);
        __threadfence();  // the sends and their repeats before the flag clears
        shared_set(ctl.sending, 0u);
      }
      __syncwarp();
    }
  } else {
    // ---- Receiver ----
    const NodeId words = size / 32;
    bool holds = sourced;    // the tile's busy token
    unsigned taken = 0;      // inbox bits this lane took since the last release
    Key published = kNoKey;  // the least bound this receiver wrote
    for (unsigned pass = 0;; ++pass) {
      // This pass's loads from L2 together: the tile's inbox words, the
      // target's label and, when the tile is idle, pending.
      constexpr int kPollWords = (kWidth / 32 + kWarp - 1) / kWarp;
      unsigned polled[kPollWords];
#pragma unroll
      for (int j = 0; j < kPollWords; ++j) {
        const NodeId w = j * kWarp + lane;
        polled[j] = w < words ? relaxed_load(&s.inbox[first / 32 + w]) : 0u;
      }
      const Key bound = lane == 0 && s.target >= 0 ? relaxed_load(&s.offers[s.target]) : kNoKey;
      const bool idle_at_start = !holds;
      const int pending_seen = idle_at_start && lane == 0 ? relaxed_load(s.pending) : 1;

      // The target's best label, every tile's bound.
      if (lane == 0 && bound < published) {
        shared_set(ctl.bound, bound);
        published = bound;
      }

      // The inbox: take the flagged nodes' offers into their mail; wake the
      // workers when that lowered any.
      unsigned took = 0;
      unsigned listed = 0;
      __syncwarp();  // the last pass's reads of the list by other lanes before it is rewritten
#pragma unroll
      for (int j = 0; j < kPollWords; ++j) {
        const NodeId w = j * kWarp + lane;
        const unsigned bits = polled[j] != 0 ? atomicExch(&s.inbox[first / 32 + w], 0u) : 0u;
        took += static_cast<unsigned>(__popc(bits));
        listed = append_bits(bits, w, t.inbox_list, listed);
      }
      bool lowered = false;
      if (listed != 0) {
        __syncwarp();
        __threadfence();  // the offers were written before their bits
        for (unsigned i = static_cast<unsigned>(lane); i < listed; i += kWarp) {
          const NodeId l = t.inbox_list[i];
          const Key offer = relaxed_load(&s.offers[first + l]);
          if (atomicMin(&t.mail[l], offer) > offer) lowered = true;
        }
      }
      if (__any_sync(kAll, lowered)) {
        __threadfence_block();  // the mail before the flag
        if (lane == 0) shared_set(ctl.dirty, 1u);
      }
      taken += took;
      if (__any_sync(kAll, took != 0) && !holds) {
        if (lane == 0) atomicAdd(s.pending, 1);
        holds = true;
      }

      // The token goes back once the workers are idle after a sweep that
      // saw all mail (only this receiver raises dirty), every flagged node
      // has been taken (the bitmap first) and sent (then the sender's flag).
      if (holds) {
        bool idle = shared_load(ctl.dirty) == 0;
        __threadfence_block();
        idle = idle && shared_load(ctl.workers_idle) != 0;
        __threadfence_block();  // the workers' bits before they went idle
        bool unsent = false;
        for (int w = lane; w < kWidth / 32; w += kWarp) unsent = unsent || shared_load(t.send_bits[w]) != 0;
        __threadfence_block();  // the bitmap before the sender's flag
        unsent = unsent || shared_load(ctl.sending) != 0;
        if (idle && !__any_sync(kAll, unsent)) {
          unsigned returned = __reduce_add_sync(kAll, taken);
          if (lane == 0) {
            returned += atomicExch(&ctl.repeats, 0u);
            atomicSub(s.pending, static_cast<int>(1 + returned));
          }
          holds = false;
          taken = 0;
        }
      }
      // Idle all pass long with pending 0 when it began: every tile is idle
      // and nothing is in flight.
      bool finished = false;
      if (!holds && lane == 0) {
        finished = idle_at_start && pending_seen == 0;
        if (pass % 256 == 255 && (now_ns() - started > s.timeout_ns || relaxed_load(s.failed) != 0)) {
          atomicExch(s.failed, 1u);
          finished = true;
        }
      }
      if (__shfl_sync(kAll, finished ? 1 : 0, 0) != 0) {
        if (lane == 0) shared_set(ctl.done, 1u);
        break;
      }
    }
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(kAll, relaxed, offset);
  if (lane == 0 && relaxed != 0) atomicAdd(s.relaxed, relaxed);
}

using SweptKernel = void (*)(TiledSearch, SweptTiles, unsigned);

// By block size, slot and edge choice; none where the edges would not fit
// in registers.
template <int kThreads>
constexpr std::array<std::array<SweptKernel, kEdgeChoices.size()>, kSlotChoices.size()> kKernelsOf = {{
    {swept_tiles<kThreads, 1, 4>, swept_tiles<kThreads, 1, 6>, swept_tiles<kThreads, 1, 8>},
    {swept_tiles<kThreads, 2, 4>, swept_tiles<kThreads, 2, 6>, swept_tiles<kThreads, 2, 8>},
    {swept_tiles<kThreads, 4, 4>, nullptr, nullptr},
}};

SweptKernel kernel_of(int threads, int slots, int edges) {
  const auto slot = std::find(kSlotChoices.begin(), kSlotChoices.end(), slots) - kSlotChoices.begin();
  const auto edge = std::find(kEdgeChoices.begin(), kEdgeChoices.end(), edges) - kEdgeChoices.begin();
  if (slot >= static_cast<long>(kSlotChoices.size()) || edge >= static_cast<long>(kEdgeChoices.size())) return nullptr;
  const auto& kernels = threads == 512 ? kKernelsOf<512> : kKernelsOf<1024>;
  return kernels.at(static_cast<std::size_t>(slot)).at(static_cast<std::size_t>(edge));
}

}  // namespace

std::optional<SweptTileLayout> make_swept_tiles(const TiledGraph& g, Stream stream) {
  int device = 0;
  int multiprocessors = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // Two tiles a multiprocessor in blocks of 512 threads where there are
  // more tiles than multiprocessors.
  const int threads = g.tiles > multiprocessors ? 512 : 1024;
  const int workers = workers_of(threads);
  const auto slots = std::find_if(kSlotChoices.begin(), kSlotChoices.end(),
                                  [&](int s) { return static_cast<NodeId>(s) * workers >= g.largest_tile; });
  if (g.tiles == 0 || slots == kSlotChoices.end()) return std::nullopt;
  const NodeId tiled = g.tiled_nodes();
  std::vector<int> local_in(static_cast<std::size_t>(tiled), 0);
  std::vector<unsigned> remote_offsets(static_cast<std::size_t>(tiled) + 1, 0);
  unsigned most_remote = 0;  // edges to other tiles of the tile with the most
  for (int tile = 0; tile < g.tiles; ++tile) {
    const NodeId first = g.tile_first[static_cast<std::size_t>(tile)];
    for (NodeId id = first; id < g.tile_first[static_cast<std::size_t>(tile) + 1]; ++id) {
      unsigned remote = 0;
      for (RowOffset k = g.row_offsets[static_cast<std::size_t>(id)];
           k < g.row_offsets[static_cast<std::size_t>(id) + 1]; ++k) {
        const std::uint32_t head = g.heads[static_cast<std::size_t>(k)];
        if ((head & kRemoteHead) != 0) {
          ++remote;
        } else {
          ++local_in[static_cast<std::size_t>(first + static_cast<NodeId>(head))];
        }
      }
      remote_offsets[static_cast<std::size_t>(id) + 1] = remote_offsets[static_cast<std::size_t>(id)] + remote;
    }
    most_remote = std::max(most_remote,
                           remote_offsets[static_cast<std::size_t>(g.tile_first[static_cast<std::size_t>(tile) + 1])] -
                               remote_offsets[static_cast<std::size_t>(first)]);
  }
  const int most = local_in.empty() ? 0 : *std::max_element(local_in.begin(), local_in.end());
  const auto edges = std::find_if(kEdgeChoices.begin(), kEdgeChoices.end(), [&](int e) { return e >= most; });
  if (edges == kEdgeChoices.end() || kernel_of(threads, *slots, *edges) == nullptr) return std::nullopt;

  SweptTileLayout layout;
  layout.threads = threads;
  layout.slots = *slots;
  layout.edges_per_node = *edges;
  layout.most_remote_edges = most_remote;
  layout.shared_bytes = tile_share_bytes(layout.slots * workers, most_remote);
  const std::size_t width = static_cast<std::size_t>(layout.slots) * workers;
  const std::size_t per_tile = width * static_cast<std::size_t>(layout.edges_per_node);
  // Padding edges come from label `width`, which stays +inf, with weight 0.
  std::vector<std::uint16_t> tails(per_tile * static_cast<std::size_t>(g.tiles), static_cast<std::uint16_t>(width));
  std::vector<Weight> weights(tails.size(), 0.0f);
  std::vector<NodeId> remote_heads(remote_offsets.back());
  std::vector<Weight> remote_weights(remote_offsets.back());
  std::fill(local_in.begin(), local_in.end(), 0);
  for (int tile = 0; tile < g.tiles; ++tile) {
    const NodeId first = g.tile_first[static_cast<std::size_t>(tile)];
    for (NodeId id = first; id < g.tile_first[static_cast<std::size_t>(tile) + 1]; ++id) {
      unsigned remote = remote_offsets[static_cast<std::size_t>(id)];
      for (RowOffset k = g.row_offsets[static_cast<std::size_t>(id)];
           k < g.row_offsets[static_cast<std::size_t>(id) + 1]; ++k) {
        const std::uint32_t head = g.heads[static_cast<std::size_t>(k)];
        const Weight w = g.weights[static_cast<std::size_t>(k)];
        if ((head & kRemoteHead) != 0) {
          remote_heads[remote] = static_cast<NodeId>(head & ~kRemoteHead);
          remote_weights[remote] = w;
          ++remote;
        } else {
          const std::size_t h = static_cast<std::size_t>(head);
          const std::size_t slot =
              static_cast<std::size_t>(tile) * per_tile + static_cast<std::size_t>(local_in[first + h]++) * width + h;
          tails[slot] = static_cast<std::uint16_t>(id - first);
          weights[slot] = w;
        }
      }
    }
  }
  layout.tails = DeviceArray<std::uint16_t>::from_host(tails, stream);
  layout.weights = DeviceArray<Weight>::from_host(weights, stream);
  layout.remote_offsets = DeviceArray<unsigned>::from_host(remote_offsets, stream);
  layout.remote_heads = DeviceArray<NodeId>::from_host(remote_heads, stream);
  layout.remote_weights = DeviceArray<Weight>::from_host(remote_weights, stream);
  device::synchronize(stream);  // the host vectors go out of scope

  // Every tile's block resident at once.
  int optin = 0;
  int per_multiprocessor = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (layout.shared_bytes > static_cast<std::size_t>(optin)) return std::nullopt;
  const SweptKernel kernel = kernel_of(threads, layout.slots, layout.edges_per_node);
  TRELLIS_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(layout.shared_bytes)));
  TRELLIS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, layout.shared_bytes));
  if (static_cast<long long>(per_multiprocessor) * multiprocessors < g.tiles) return std::nullopt;
  return layout;
}

void run_swept_tiles(const TiledSearch& search, const SweptTileLayout& layout, int tiles, Stream stream) {
  TiledSearch s = search;
  SweptTiles st{layout.tails.data(), layout.weights.data(), layout.remote_offsets.data(), layout.remote_heads.data(),
                layout.remote_weights.data()};
  unsigned remote = layout.most_remote_edges;
  void* args[] = {&s, &st, &remote};
  const auto kernel = reinterpret_cast<const void*>(kernel_of(layout.threads, layout.slots, layout.edges_per_node));
  TRELLIS_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, tiles, layout.threads, args, layout.shared_bytes, stream));
}

}  // namespace trellis::graph::cuda
