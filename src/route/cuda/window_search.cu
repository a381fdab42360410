// WindowSearch on the device: one thread block a query. A block numbers its
// window locally (grid nodes and via sites of the box on every plane, the
// midpoints of the box's grid edges, the net's pins, pads and stubs),
// prices those nodes from the counts as Negotiation::fill_costs does, runs
// label-correcting rounds over a queue of improved nodes, band by band of
// estimates (distance plus a lower bound on the rest, A*'s order), until
// nothing that may lie on a shortest path to the target improves (any
// order of relaxations reaches the least fixed point of the Bellman
// equations, Dijkstra's distances, there), counts hops breadth-first over
// the tight edges, and walks the parity rule's parents back from the
// target. Hops are counted after the distances, not carried beside them:
// where float rounding absorbs a step, a shorter distance can come with
// more hops, and a pair relaxed together is then no fixed point. The
// window's arrays sit in shared memory where they fit, else in global.
#include <cuda/atomic>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "../router/window_search.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device_array.hpp"

namespace trellis::route::router_detail {
namespace {

constexpr int kThreads = 512;
// Dynamic shared memory a block may take for its window's arrays; a window
// that needs more keeps them in global memory.
constexpr long long kSharedScratch = 200 * 1024;
constexpr unsigned long long kUnset = ~0ull;
constexpr unsigned long long kNoHops = 0xffffffffull;  // the low word of a key before its hops are known
// A blocked node's cost: no search enters it.
constexpr float kBlockedCost = -1.0f;

// The lattice as the kernel reads it (device pointers).
struct LatticeView {
  int rows, columns, layers, kinds, groups;
  int via_base, pad_base, pin_base, stub_base, mid_base, node_count;
  float via_cost;
  float pour_cost;
  const int* pour_net;           // per grid node (Lattice::pour_net), nullptr where no pour counts
  int stencil_reach;             // the largest row or column offset of any claim stencil
  const long long* out_offsets;  // forward CSR
  const int* heads;
  const float* out_weights;
  const long long* in_offsets;  // its transpose
  const int* tails;
  const float* in_weights;
  const int* owner;           // [group * node_count + node]
  const int* mid_grid;        // per midpoint: its grid node * 2 + which edge
  const int* edge_mids;       // per grid node: two midpoints or -1
  const int* extras_offsets;  // per net: its pins, pads and stubs, sorted
  const int* extras;
  const int* stub_grid;  // per stub: its grid node
  const int* stub_claims_offsets;
  const int* stub_claims;
  const int* stencil_offsets;  // [group * 4 + kind]: wire-grid, wire-via, via-grid, via-via
  const int2* stencils;        // (column, row)
  const int* kinds_at_slot_offsets;
  const int* kinds_at_slot;
  const int* kind_slots_offsets;
  const int* kind_slots;
  const int* kinds_meeting_offsets;
  const int* kinds_meeting;
};

struct CountsView {
  const int* uses;
  const int* claims;
  const int* near;  // [group * pad_base + node]
  const float* history;
};

struct QuerySpec {
  int net, group, row0, row1, column0, column1, target;
  float target_column, target_row;  // the target's position in grid steps from column 0, row 0
  int sources_begin, sources_end, uses_begin, uses_end, claims_begin, claims_end;
  long long scratch;  // byte offset of the query's local arrays in global memory; -1: in shared memory
};

// What a block reports: the target's key and where its path went.
struct QueryResult {
  unsigned long long key;
  int path_begin;
  int path_length;
};

enum StencilKind { kWireGrid = 0, kWireVia = 1, kViaGrid = 2, kViaVia = 3 };

__device__ __forceinline__ unsigned long long pack(float distance, unsigned hops) {
  return (static_cast<unsigned long long>(__float_as_uint(distance)) << 32) | hops;
}
__device__ __forceinline__ float distance_of(unsigned long long key) {
  return key == kUnset ? INFINITY : __uint_as_float(static_cast<unsigned>(key >> 32));
}
__device__ __forceinline__ unsigned hops_of(unsigned long long key) { return static_cast<unsigned>(key); }

__device__ __forceinline__ unsigned long long load_relaxed(unsigned long long* key) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_block>(*key).load(cuda::memory_order_relaxed);
}

// PathFinder's price, with the host's float operations (no contraction).
__device__ __forceinline__ float congestion_cost(float base, float others, float history, float present) {
  const float penalty = __fadd_rn(1.0f, __fmul_rn(present, others));
  return __fadd_rn(__fmul_rn(base, __fsub_rn(penalty, 1.0f)), __fmul_rn(history, penalty));
}

// Where value sits in sorted[begin, end), -1 when absent.
__device__ int position_of(const int* sorted, int begin, int end, int value) {
  int low = begin;
  int high = end;
  while (low < high) {
    const int mid = low + (high - low) / 2;
    if (sorted[mid] < value)
      low = mid + 1;
    else
      high = mid;
  }
  return low < end && sorted[low] == value ? low - begin : -1;
}

__device__ bool contains(const int* sorted, int begin, int end, int value) {
  return position_of(sorted, begin, end, value) >= 0;
}

// A query's window and its local numbering.
struct Window {
  const LatticeView& lattice;
  const QuerySpec& query;
  int box_rows, box_columns, plane_size, planes;
  int box;        // grid nodes and via sites in the box
  int grid_box;   // of them grid nodes
  int mids_base;  // two per grid node of the box
  int extras_base, extras_begin, extras_end;
  int locals;

  __device__ Window(const LatticeView& l, const QuerySpec& q) : lattice(l), query(q) {
    box_rows = q.row1 - q.row0 + 1;
    box_columns = q.column1 - q.column0 + 1;
    plane_size = box_rows * box_columns;
    planes = l.layers + l.kinds;
    box = planes * plane_size;
    grid_box = l.layers * plane_size;
    mids_base = box;
    extras_base = box + 2 * grid_box;
    extras_begin = l.extras_offsets[q.net];
    extras_end = l.extras_offsets[q.net + 1];
    locals = extras_base + (extras_end - extras_begin);
  }

  __device__ int local_in_box(int plane, int row, int column) const {
    if (row < query.row0 || row > query.row1 || column < query.column0 || column > query.column1) return -1;
    return (plane * box_rows + row - query.row0) * box_columns + column - query.column0;
  }

  // The local index of a lattice node, -1 outside the window.
  __device__ int local_of(int node) const {
    const int grid_size = lattice.rows * lattice.columns;
    if (node < lattice.via_base) {
      const int rest = node % grid_size;
      return local_in_box(node / grid_size, rest / lattice.columns, rest % lattice.columns);
    }
    if (node < lattice.pad_base) {
      const int site = node - lattice.via_base;
      const int rest = site % grid_size;
      return local_in_box(lattice.layers + site / grid_size, rest / lattice.columns, rest % lattice.columns);
    }
    if (node < lattice.mid_base) {
      const int at = position_of(lattice.extras, extras_begin, extras_end, node);
      return at < 0 ? -1 : extras_base + at;
    }
    const int edge = lattice.mid_grid[node - lattice.mid_base];
    const int grid = local_of(edge >> 1);
    return grid < 0 ? -1 : mids_base + 2 * grid + (edge & 1);
  }

  // The lattice node of a local index, -1 for a midpoint the lattice lacks.
  __device__ int node_of(int local) const {
    if (local < box) {
      const int plane = local / plane_size;
      const int rest = local % plane_size;
      const int row = query.row0 + rest / box_columns;
      const int column = query.column0 + rest % box_columns;
      const int in_plane = row * lattice.columns + column;
      const int grid_size = lattice.rows * lattice.columns;
      return plane < lattice.layers ? plane * grid_size + in_plane
                                    : lattice.via_base + (plane - lattice.layers) * grid_size + in_plane;
    }
    if (local < extras_base) {
      const int grid_local = (local - mids_base) / 2;
      return lattice.edge_mids[2 * node_of(grid_local) + (local - mids_base) % 2];
    }
    return lattice.extras[extras_begin + local - extras_base];
  }

  __device__ bool holds_grid_node(int node) const {
    const int rest = node % (lattice.rows * lattice.columns);
    const int row = rest / lattice.columns;
    const int column = rest % lattice.columns;
    return row >= query.row0 && row <= query.row1 && column >= query.column0 && column <= query.column1;
  }
};

// A block's arrays, carved from its scratch bytes.
struct Scratch {
  unsigned long long* keys;  // per local: distance bits, then hops (kNoHops: none yet)
  float* cost;               // per local
  int* own;                  // per box node: 1 own use, 2 own claim
  int* near_adjust;          // per box node: the net's own uses near it, negated
  int* queue[2];             // by round parity: the nodes to expand
  unsigned* queued[2];       // by round parity: bitmaps of the queues
  unsigned* far;             // bitmap: improved beyond the threshold, expanded in a later band
  int words;
};

__host__ __device__ inline long long scratch_bytes(long long locals, long long box) {
  const long long words = (locals + 31) / 32;
  return ((locals * 8 + locals * 4 + 2 * box * 4 + 2 * locals * 4 + 3 * words * 4) + 15) / 16 * 16;
}

__device__ Scratch carve(unsigned char* base, int locals, int box) {
  Scratch s;
  s.keys = reinterpret_cast<unsigned long long*>(base);
  s.cost = reinterpret_cast<float*>(s.keys + locals);
  s.own = reinterpret_cast<int*>(s.cost + locals);
  s.near_adjust = s.own + box;
  s.queue[0] = s.near_adjust + box;
  s.queue[1] = s.queue[0] + locals;
  s.words = (locals + 31) / 32;
  s.queued[0] = reinterpret_cast<unsigned*>(s.queue[1] + locals);
  s.queued[1] = s.queued[0] + s.words;
  s.far = s.queued[1] + s.words;
  return s;
}

// Calls visit(v) for the grid nodes and via sites whose room holds u (the
// host's Negotiation::for_each_watcher).
template <class Visit>
__device__ void for_each_watcher(const LatticeView& l, int group, int u, Visit&& visit) {
  const int grid_size = l.rows * l.columns;
  const bool via = u >= l.via_base;
  const int at = via ? u - l.via_base : u;
  const int row = at % grid_size / l.columns;
  const int column = at % l.columns;
  const auto around = [&](int kind, auto&& node_at) {
    const int* offsets = l.stencil_offsets + group * 4 + kind;
    for (int i = offsets[0]; i < offsets[1]; ++i) {
      const int r = row - l.stencils[i].y;
      const int c = column - l.stencils[i].x;
      if (r < 0 || c < 0 || r >= l.rows || c >= l.columns) continue;
      const int v = node_at(r, c);
      if (v != u) visit(v);
    }
  };
  if (!via) {
    const int slot = u / grid_size;
    around(kWireGrid, [&](int r, int c) { return (slot * l.rows + r) * l.columns + c; });
    for (int k = l.kinds_at_slot_offsets[slot]; k < l.kinds_at_slot_offsets[slot + 1]; ++k) {
      const int kind = l.kinds_at_slot[k];
      around(kViaGrid, [&](int r, int c) { return l.via_base + (kind * l.rows + r) * l.columns + c; });
    }
  } else {
    const int kind = at / grid_size;
    for (int k = l.kind_slots_offsets[kind]; k < l.kind_slots_offsets[kind + 1]; ++k) {
      const int slot = l.kind_slots[k];
      around(kWireVia, [&](int r, int c) { return (slot * l.rows + r) * l.columns + c; });
    }
    for (int k = l.kinds_meeting_offsets[kind]; k < l.kinds_meeting_offsets[kind + 1]; ++k) {
      const int other = l.kinds_meeting[k];
      around(kViaVia, [&](int r, int c) { return l.via_base + (other * l.rows + r) * l.columns + c; });
    }
  }
}

// A lower bound on the cost from a local node to the target: its straight
// distance in grid steps for a grid node or via site, 0 for the others.
// Every edge costs at least the distance between its ends' positions in
// grid steps (a grid step 1 or more, half of it to a midpoint, a stub its
// length from the pin's position, a via and the way in and out of a pad
// nothing), and no node costs less than nothing, so no path is shorter.
__device__ __forceinline__ float distance_to_target(const QuerySpec& q, const Window& w, int local) {
  if (local >= w.box) return 0.0f;
  const int rest = local % w.plane_size;
  const float rows = static_cast<float>(q.row0 + rest / w.box_columns) - q.target_row;
  const float columns = static_cast<float>(q.column0 + rest % w.box_columns) - q.target_column;
  return sqrtf(rows * rows + columns * columns);
}

// Nodes whose distance plus distance_to_target exceeds the target's
// distance so far by this factor are not expanded: no path through them
// is a shortest path to the target. The factor covers the rounding of the
// float sums along a path (relative error under 2^-24 a step, so well
// under this for paths of fewer than 10,000 steps) and of the bound.
constexpr float kBoundSlack = 1.0f + 1.0f / 1024.0f;

// The width of a band of estimates expanded together (grid steps).
constexpr float kBandWidth = 8.0f;

// The cost of entering a local node (Negotiation::fill_costs).
__device__ float local_cost(const LatticeView& l, const CountsView& counts, const QuerySpec& q, const Window& w,
                            const Scratch& s, const int* pool, int local, float present, bool forbid,
                            float via_premium) {
  const int node = w.node_of(local);
  if (node < 0) return kBlockedCost;
  const int who = l.owner[static_cast<long long>(q.group) * l.node_count + node];
  const bool allowed = who == -1 || who == q.net;
  if (local < w.box) {
    const int others_count = counts.uses[node] + counts.claims[node] - (s.own[local] != 0 ? 1 : 0) +
                             counts.near[static_cast<long long>(q.group) * l.pad_base + node] + s.near_adjust[local];
    const float others = static_cast<float>(others_count);
    const float base = local < w.grid_box ? 1.0f : l.via_cost;
    float cost = congestion_cost(base, others, counts.history[node], present);
    // Another net's pour (the host adds 0 elsewhere, which changes no price).
    if (l.pour_net != nullptr && local < w.grid_box) {
      const int pour = l.pour_net[node];
      if (pour != kNoPour && pour != q.net) cost = __fadd_rn(cost, l.pour_cost);
    }
    if (local >= w.grid_box && via_premium != 0.0f) cost = __fadd_rn(cost, via_premium);
    return allowed && !(forbid && others > 0) ? cost : kBlockedCost;
  }
  if (local < w.extras_base) {  // a midpoint: conflicts only where a stub claims its edge
    if (!allowed) return kBlockedCost;
    const int count = counts.uses[node] + counts.claims[node];
    const bool own = count > 0 && (contains(pool, q.uses_begin, q.uses_end, node) ||
                                   contains(pool, q.claims_begin, q.claims_end, node));
    const float others = static_cast<float>(count - (own ? 1 : 0));
    if (forbid && others > 0) return kBlockedCost;
    return congestion_cost(1.0f, others, counts.history[node], present);
  }
  if (node < l.stub_base) return 0.0f;  // the net's own pins and pads
  if (!w.holds_grid_node(l.stub_grid[node - l.stub_base])) return kBlockedCost;
  if (!allowed) return kBlockedCost;
  int others_count = 0;
  const int stub = node - l.stub_base;
  for (int i = l.stub_claims_offsets[stub]; i < l.stub_claims_offsets[stub + 1]; ++i) {
    const int near = l.stub_claims[i];
    others_count += counts.uses[near] - (contains(pool, q.uses_begin, q.uses_end, near) ? 1 : 0);
  }
  const float others = static_cast<float>(others_count);
  if (forbid && others > 0) return kBlockedCost;
  return congestion_cost(0.0f, others, counts.history[node], present);
}

__global__ void __launch_bounds__(kThreads)
    search_windows(LatticeView l, CountsView counts, const QuerySpec* queries, const int* pool,
                   unsigned char* scratch_base, float present, int forbid, float via_premium, QueryResult* results,
                   int* paths, int* path_fill) {
  const QuerySpec& q = queries[blockIdx.x];
  const Window w(l, q);
  extern __shared__ __align__(16) unsigned char shared_scratch[];
  const Scratch s = carve(q.scratch < 0 ? shared_scratch : scratch_base + q.scratch, w.locals, w.box);
  __shared__ int lengths[3];  // queue lengths by round % 3
  __shared__ int target_local;
  __shared__ float threshold;     // the band's upper end: nodes of larger estimate wait in s.far
  __shared__ unsigned next_band;  // the least estimate waiting, as float bits (non-negative floats order as bits)

  // Clean slate, the net's own copper marked, its near uses taken out.
  for (int i = threadIdx.x; i < w.locals; i += blockDim.x) s.keys[i] = kUnset;
  for (int i = threadIdx.x; i < w.box; i += blockDim.x) {
    s.own[i] = 0;
    s.near_adjust[i] = 0;
  }
  for (int i = threadIdx.x; i < 3 * s.words; i += blockDim.x) s.queued[0][i] = 0;
  if (threadIdx.x == 0) {
    lengths[0] = lengths[1] = lengths[2] = 0;
    target_local = w.local_of(q.target);
  }
  __syncthreads();
  for (int i = q.claims_begin + static_cast<int>(threadIdx.x); i < q.claims_end; i += blockDim.x) {
    const int local = w.local_of(pool[i]);
    if (local >= 0 && local < w.box) s.own[local] = 2;
  }
  for (int i = q.uses_begin + static_cast<int>(threadIdx.x); i < q.uses_end; i += blockDim.x) {
    const int u = pool[i];
    if (u >= l.pad_base) continue;  // stubs: not in the near counts
    // Copper farther from the box than any stencil reaches watches nothing in it.
    const int at = (u >= l.via_base ? u - l.via_base : u) % (l.rows * l.columns);
    const int row = at / l.columns;
    const int column = at % l.columns;
    if (row < q.row0 - l.stencil_reach || row > q.row1 + l.stencil_reach || column < q.column0 - l.stencil_reach ||
        column > q.column1 + l.stencil_reach) {
      continue;
    }
    const int local = w.local_of(u);
    if (local >= 0) s.own[local] = 1;
    for_each_watcher(l, q.group, u, [&](int v) {
      const int near_local = w.local_of(v);
      if (near_local >= 0) atomicSub(&s.near_adjust[near_local], 1);
    });
  }
  // Stubs among the own uses are not marked: a stub's cost looks them up in the pool.
  __syncthreads();
  const bool forbid_conflicts = forbid != 0;
  for (int i = threadIdx.x; i < w.locals; i += blockDim.x) {
    s.cost[i] = local_cost(l, counts, q, w, s, pool, i, present, forbid_conflicts, via_premium);
  }
  __syncthreads();

  // Distances: label-correcting rounds over a queue of the nodes whose
  // distance fell in the round before (a bit per node keeps each queued
  // once), nothing expanded beyond the target's distance so far.
  const auto push = [&](int round, int v) {
    const unsigned mask = 1u << (v % 32);
    if ((atomicOr(&s.queued[round % 2][v / 32], mask) & mask) == 0) {
      s.queue[round % 2][atomicAdd(&lengths[round % 3], 1)] = v;
    }
  };
  // Rounds over the queues until one leaves nothing queued: expand(round,
  // u) for each node u queued for the round, which queues others for the
  // next with push(round + 1, v).
  const auto expand_rounds = [&](auto&& expand) {
    for (int round = 0;; ++round) {
      if (threadIdx.x == 0) lengths[(round + 2) % 3] = 0;
      const int count = lengths[round % 3];
      for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int u = s.queue[round % 2][i];
        atomicAnd(&s.queued[round % 2][u / 32], ~(1u << (u % 32)));
        expand(round, u);
      }
      __syncthreads();
      if (lengths[(round + 1) % 3] == 0) break;
    }
  };
  for (int i = q.sources_begin + static_cast<int>(threadIdx.x); i < q.sources_end; i += blockDim.x) {
    const int local = w.local_of(pool[i]);
    if (local < 0) continue;
    atomicMin(&s.keys[local], 0ull);
    push(0, local);
  }
  __syncthreads();
  for (int i = q.sources_begin + static_cast<int>(threadIdx.x); i < q.sources_end; i += blockDim.x) {
    const int source = pool[i];
    if (w.local_of(source) >= 0) continue;  // a source outside the window: its edges into it, once
    for (long long e = l.out_offsets[source]; e < l.out_offsets[source + 1]; ++e) {
      const int v = w.local_of(l.heads[e]);
      if (v < 0 || s.cost[v] == kBlockedCost) continue;
      const unsigned long long key = pack(__fadd_rn(0.0f, __fadd_rn(l.out_weights[e], s.cost[v])), 0);
      if (key < atomicMin(&s.keys[v], key)) push(0, v);
    }
  }
  __syncthreads();
  // Bands (near-far): a node is expanded only while its estimate (its
  // distance plus distance_to_target) is within the band; one improved to
  // an estimate beyond it waits in s.far. When the band's rounds leave
  // nothing queued, the next band starts at the least estimate waiting.
  // Nodes go roughly in A*'s order, so the target's distance is found
  // early and bounds the rest. Only nodes that may lie on a shortest path
  // to the target are expanded or relaxed (the others keep labels above
  // their distances, which no tight chain from a source to the target can
  // pass: the hop count and the parents below see the same shortest
  // paths); the labels of the rest reach the least fixed point, as any
  // order of relaxations does.
  if (threadIdx.x == 0) threshold = kBandWidth;
  __syncthreads();
  for (;;) {
    expand_rounds([&](int round, int u) {
      const float d = distance_of(load_relaxed(&s.keys[u]));
      const float bound = target_local >= 0 ? distance_of(load_relaxed(&s.keys[target_local])) : INFINITY;
      if (d > bound) return;  // nothing through it reaches the target as cheaply
      const float limit = bound * kBoundSlack;
      if (d + distance_to_target(q, w, u) > limit) return;
      const int node = w.node_of(u);
      for (long long e = l.out_offsets[node]; e < l.out_offsets[node + 1]; ++e) {
        const int v = w.local_of(l.heads[e]);
        if (v < 0) continue;
        const float c = s.cost[v];
        if (c == kBlockedCost) continue;
        const float reached = __fadd_rn(d, __fadd_rn(l.out_weights[e], c));
        const float estimate = reached + distance_to_target(q, w, v);
        if (reached > bound || estimate > limit) continue;
        const unsigned long long candidate = pack(reached, 0);
        if (candidate >= load_relaxed(&s.keys[v])) continue;
        if (candidate < atomicMin(&s.keys[v], candidate)) {
          if (estimate <= threshold)
            push(round + 1, v);
          else
            atomicOr(&s.far[v / 32], 1u << (v % 32));
        }
      }
    });
    // The next band: from the least estimate waiting that may still lead
    // to the target.
    if (threadIdx.x == 0) next_band = __float_as_uint(INFINITY);
    __syncthreads();
    const float bound = target_local >= 0 ? distance_of(s.keys[target_local]) : INFINITY;
    const float limit = bound * kBoundSlack;
    for (int word = threadIdx.x; word < s.words; word += blockDim.x) {
      unsigned bits = s.far[word];
      while (bits != 0) {
        const int v = word * 32 + __ffs(bits) - 1;
        bits &= bits - 1;
        const float d = distance_of(s.keys[v]);
        const float estimate = d + distance_to_target(q, w, v);
        if (d > bound || estimate > limit)
          s.far[word] &= ~(1u << (v % 32));  // no shortest path to the target through it
        else
          atomicMin(&next_band, __float_as_uint(estimate));
      }
    }
    __syncthreads();
    if (next_band == __float_as_uint(INFINITY)) break;
    if (threadIdx.x == 0) {
      threshold = __uint_as_float(next_band) + kBandWidth;
      lengths[0] = lengths[1] = lengths[2] = 0;
    }
    __syncthreads();
    for (int word = threadIdx.x; word < s.words; word += blockDim.x) {
      unsigned bits = s.far[word];
      while (bits != 0) {
        const int v = word * 32 + __ffs(bits) - 1;
        bits &= bits - 1;
        if (distance_of(s.keys[v]) + distance_to_target(q, w, v) <= threshold) {
          s.far[word] &= ~(1u << (v % 32));
          push(0, v);
        }
      }
    }
    __syncthreads();
  }

  // Hops: breadth-first over the tight edges among the nodes no farther than
  // the target, from the sources (the parity rule's fewest hops).
  const unsigned long long target_key = target_local >= 0 ? s.keys[target_local] : kUnset;
  const float reach = distance_of(target_key);
  __syncthreads();
  for (int i = threadIdx.x; i < w.locals; i += blockDim.x) s.keys[i] |= kNoHops;
  if (threadIdx.x == 0) lengths[0] = lengths[1] = lengths[2] = 0;
  __syncthreads();
  const auto reach_tight = [&](int round, float d, long long e, unsigned hops) {
    const int v = w.local_of(l.heads[e]);
    if (v < 0) return;
    const float c = s.cost[v];
    if (c == kBlockedCost) return;
    const unsigned long long key = load_relaxed(&s.keys[v]);
    const float dv = distance_of(key);
    if (dv > reach || __fadd_rn(d, __fadd_rn(l.out_weights[e], c)) != dv) return;
    const unsigned long long with_hops = (key & ~kNoHops) | hops;
    if (atomicCAS(&s.keys[v], key | kNoHops, with_hops) == (key | kNoHops)) push(round, v);
  };
  if (target_key != kUnset) {
    for (int i = q.sources_begin + static_cast<int>(threadIdx.x); i < q.sources_end; i += blockDim.x) {
      const int local = w.local_of(pool[i]);
      if (local >= 0) {
        s.keys[local] = 0;
        push(0, local);
      }
    }
    __syncthreads();
    for (int i = q.sources_begin + static_cast<int>(threadIdx.x); i < q.sources_end; i += blockDim.x) {
      const int source = pool[i];
      if (w.local_of(source) >= 0) continue;
      for (long long e = l.out_offsets[source]; e < l.out_offsets[source + 1]; ++e) reach_tight(1, 0.0f, e, 1);
    }
    __syncthreads();
    expand_rounds([&](int round, int u) {
      const unsigned long long key = load_relaxed(&s.keys[u]);
      if (hops_of(key) != static_cast<unsigned>(round)) return;  // a source's outside neighbour, queued early
      const int node = w.node_of(u);
      for (long long e = l.out_offsets[node]; e < l.out_offsets[node + 1]; ++e) {
        reach_tight(round + 1, distance_of(key), e, static_cast<unsigned>(round) + 1);
      }
    });
  }

  // The path: from the target, each step to the tight in-neighbour one hop
  // nearer a source, the smallest id among them (one warp).
  if (threadIdx.x >= 32) return;
  const unsigned lane = threadIdx.x;
  QueryResult result{target_key, 0, 0};
  const unsigned long long final_key = target_key == kUnset ? kUnset : s.keys[target_local];
  if (target_key != kUnset && hops_of(final_key) == hops_of(kNoHops)) {
    result.path_length = -1;  // the target has a distance but no tight path: not a fixed point
  } else if (target_key != kUnset) {
    const int length = static_cast<int>(hops_of(final_key)) + 1;
    int begin = 0;
    if (lane == 0) begin = atomicAdd(path_fill, length);
    begin = __shfl_sync(0xffffffffu, begin, 0);
    result.path_begin = begin;
    result.path_length = length;
    int node = q.target;
    int local = target_local;
    for (int hop = length - 1; hop > 0; --hop) {
      if (lane == 0) paths[begin + hop] = node;
      const float d = distance_of(s.keys[local]);
      const float entering = s.cost[local];
      int best = INT_MAX;
      for (long long e = l.in_offsets[node] + lane; e < l.in_offsets[node + 1]; e += 32) {
        const int u = l.tails[e];
        const int u_local = w.local_of(u);
        unsigned long long key = kUnset;
        if (u_local >= 0)
          key = s.keys[u_local];
        else if (hop == 1 && contains(pool, q.sources_begin, q.sources_end, u))
          key = 0;  // a source outside
        if (key == kUnset || hops_of(key) != static_cast<unsigned>(hop - 1)) continue;
        if (__fadd_rn(distance_of(key), __fadd_rn(l.in_weights[e], entering)) == d) best = min(best, u);
      }
      for (int offset = 16; offset > 0; offset /= 2) best = min(best, __shfl_xor_sync(0xffffffffu, best, offset));
      if (best == INT_MAX) {  // no parent: the keys are not a fixed point
        result.path_length = -1;
        break;
      }
      node = best;
      local = w.local_of(node);
      if (local < 0) local = 0;  // an outside source: hop 0, the loop ends
    }
    if (lane == 0 && result.path_length > 0) paths[begin] = node;
  }
  if (lane == 0) results[blockIdx.x] = result;
}

// Applies changed counts: uses and claims at nodes, near counts at flat
// indices, each value uploaded beside its index.
__global__ void apply_changes(int* uses, int* claims, const int* nodes, const int* node_values, int node_count,
                              int* near, const int* near_indices, const int* near_values, int near_count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < node_count) {
    uses[nodes[i]] = node_values[2 * i];
    claims[nodes[i]] = node_values[2 * i + 1];
  }
  if (i < near_count) near[near_indices[i]] = near_values[i];
}

template <class T>
DeviceArray<T> upload(const std::vector<T>& host) {
  return DeviceArray<T>::from_host(std::span<const T>(host));
}

// Offsets and entries of a list of lists.
template <class List>
void flatten(const std::vector<List>& lists, std::vector<int>& offsets, std::vector<int>& entries) {
  offsets.assign(1, 0);
  for (const auto& list : lists) {
    entries.insert(entries.end(), list.begin(), list.end());
    offsets.push_back(static_cast<int>(entries.size()));
  }
}

}  // namespace

struct WindowSearch::State {
  const Lattice& lattice;
  DeviceArray<long long> out_offsets, in_offsets;
  DeviceArray<int> heads, tails;
  DeviceArray<float> out_weights, in_weights;
  DeviceArray<int> owner, mid_grid, edge_mids, extras_offsets, extras, stub_grid, stub_claims_offsets, stub_claims;
  DeviceArray<int> stencil_offsets;
  DeviceArray<int2> stencils;
  DeviceArray<int> kinds_at_slot_offsets, kinds_at_slot, kind_slots_offsets, kind_slots, kinds_meeting_offsets,
      kinds_meeting;
  DeviceArray<int> pour_net;
  DeviceArray<int> uses, claims, near;
  DeviceArray<float> history;
  LatticeView view{};
  // Per batch, grown as needed.
  DeviceArray<QuerySpec> queries;
  DeviceArray<int> pool;
  DeviceArray<unsigned char> scratch;
  DeviceArray<QueryResult> results;
  DeviceArray<int> paths;
  DeviceArray<int> change_nodes, change_values, change_near, change_near_values;
  device::OwnedStream stream;

  explicit State(const Lattice& l) : lattice(l) {}
};

namespace {

template <class T>
void reserve(DeviceArray<T>& array, std::size_t count) {
  if (array.size() >= count) return;
  array = DeviceArray<T>(std::max<std::size_t>(count, array.size() * 2));
}

template <class T>
void put(DeviceArray<T>& array, const std::vector<T>& host, Stream stream) {
  if (host.empty()) return;
  reserve(array, host.size());
  device::copy_to_device(array.data(), host.data(), host.size() * sizeof(T), stream);
}

}  // namespace

WindowSearch::WindowSearch(const Lattice& lattice, float via_cost, float pour_cost, const CongestionCounts& counts)
    : state_(std::make_unique<State>(lattice)) {
  State& s = *state_;
  const auto csr = lattice.graph.csr.view();
  const auto n = static_cast<std::size_t>(lattice.node_count);
  // The forward CSR and its transpose (the parity rule's parents are read
  // along in-edges).
  const auto upload_csr = [](const CsrView<graph::Weight>& g, DeviceArray<long long>& offsets, DeviceArray<int>& ends,
                             DeviceArray<float>& weights) {
    offsets = upload(std::vector<long long>(g.row_offsets, g.row_offsets + g.rows + 1));
    ends = upload(std::vector<int>(g.col_indices, g.col_indices + g.nnz));
    weights = upload(std::vector<float>(g.values, g.values + g.nnz));
  };
  upload_csr(csr, s.out_offsets, s.heads, s.out_weights);
  std::vector<std::int32_t> tails(static_cast<std::size_t>(csr.nnz));
  for (std::int32_t u = 0; u < csr.rows; ++u) {
    std::fill(tails.begin() + csr.row_offsets[u], tails.begin() + csr.row_offsets[u + 1], u);
  }
  const CsrMatrix<graph::Weight> reversed = csr_from_triplets<graph::Weight>(
      csr.cols, csr.rows, std::span<const std::int32_t>(csr.col_indices, static_cast<std::size_t>(csr.nnz)), tails,
      std::span<const graph::Weight>(csr.values, static_cast<std::size_t>(csr.nnz)));
  upload_csr(reversed.view(), s.in_offsets, s.tails, s.in_weights);

  std::vector<int> owner;
  owner.reserve(lattice.owner.size() * n);
  for (const auto& group_owner : lattice.owner) owner.insert(owner.end(), group_owner.begin(), group_owner.end());
  s.owner = upload(owner);

  std::vector<int> mid_grid(static_cast<std::size_t>(lattice.node_count - lattice.mid_base), -1);
  std::vector<int> edge_mids(2 * static_cast<std::size_t>(lattice.via_base), -1);
  for (int g = 0; g < lattice.via_base; ++g) {
    for (int which = 0; which < 2; ++which) {
      const int mid = lattice.edge_midpoints[static_cast<std::size_t>(g)][static_cast<std::size_t>(which)];
      edge_mids[2 * static_cast<std::size_t>(g) + static_cast<std::size_t>(which)] = mid;
      if (mid >= 0) mid_grid[static_cast<std::size_t>(mid - lattice.mid_base)] = 2 * g + which;
    }
  }
  s.mid_grid = upload(mid_grid);
  s.edge_mids = upload(edge_mids);

  std::vector<std::vector<int>> net_extras(lattice.net_pins.size());
  for (std::size_t net = 0; net < net_extras.size(); ++net) {
    auto& list = net_extras[net];
    list = lattice.net_pins[net];
    list.insert(list.end(), lattice.net_pads[net].begin(), lattice.net_pads[net].end());
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  std::vector<int> offsets;
  std::vector<int> entries;
  flatten(net_extras, offsets, entries);
  s.extras_offsets = upload(offsets);
  s.extras = upload(entries.empty() ? std::vector<int>{0} : entries);

  std::vector<int> stub_grid;
  std::vector<std::vector<int>> stub_claims;
  for (const Stub& stub : lattice.stubs) {
    stub_grid.push_back(stub.grid_node);
    stub_claims.push_back(stub.claims);
  }
  entries.clear();
  flatten(stub_claims, offsets, entries);
  s.stub_grid = upload(stub_grid.empty() ? std::vector<int>{0} : stub_grid);
  s.stub_claims_offsets = upload(offsets);
  s.stub_claims = upload(entries.empty() ? std::vector<int>{0} : entries);

  std::vector<std::vector<int2>> stencils;
  for (std::size_t g = 0; g < lattice.groups.size(); ++g) {
    for (const auto* kind :
         {&lattice.wire_grid_claims, &lattice.wire_via_claims, &lattice.via_grid_claims, &lattice.via_via_claims}) {
      std::vector<int2> list;
      for (const Offset& o : (*kind)[g]) list.push_back(int2{o.column, o.row});
      stencils.push_back(std::move(list));
    }
  }
  int stencil_reach = 0;
  for (const auto& list : stencils) {
    for (const int2& o : list) stencil_reach = std::max({stencil_reach, std::abs(o.x), std::abs(o.y)});
  }
  std::vector<int2> stencil_entries;
  offsets.assign(1, 0);
  for (const auto& list : stencils) {
    stencil_entries.insert(stencil_entries.end(), list.begin(), list.end());
    offsets.push_back(static_cast<int>(stencil_entries.size()));
  }
  s.stencil_offsets = upload(offsets);
  s.stencils = upload(stencil_entries.empty() ? std::vector<int2>{int2{0, 0}} : stencil_entries);

  const auto upload_lists = [&](const std::vector<std::vector<int>>& lists, DeviceArray<int>& offsets_out,
                                DeviceArray<int>& entries_out) {
    std::vector<int> o;
    std::vector<int> e;
    flatten(lists, o, e);
    offsets_out = upload(o);
    entries_out = upload(e.empty() ? std::vector<int>{0} : e);
  };
  upload_lists(lattice.via_kinds_at_slot, s.kinds_at_slot_offsets, s.kinds_at_slot);
  std::vector<std::vector<int>> kind_slots;
  for (const ViaKind& kind : lattice.via_kinds) kind_slots.push_back(kind.slots);
  upload_lists(kind_slots, s.kind_slots_offsets, s.kind_slots);
  upload_lists(lattice.via_kinds_meeting, s.kinds_meeting_offsets, s.kinds_meeting);

  if (!lattice.pour_net.empty()) s.pour_net = upload(lattice.pour_net);
  s.uses = DeviceArray<int>::from_host(counts.uses);
  s.claims = DeviceArray<int>::from_host(counts.claims);
  std::vector<int> near;
  near.reserve(counts.near_uses.size() * static_cast<std::size_t>(lattice.pad_base));
  for (const auto& group_near : counts.near_uses) near.insert(near.end(), group_near.begin(), group_near.end());
  s.near = upload(near.empty() ? std::vector<int>{0} : near);
  s.history = DeviceArray<float>::from_host(counts.history);

  LatticeView& v = s.view;
  v.rows = lattice.rows;
  v.columns = lattice.columns;
  v.layers = lattice.layers;
  v.kinds = static_cast<int>(lattice.via_kinds.size());
  v.groups = static_cast<int>(lattice.groups.size());
  v.via_base = lattice.via_base;
  v.pad_base = lattice.pad_base;
  v.pin_base = lattice.pin_base;
  v.stub_base = lattice.stub_base;
  v.mid_base = lattice.mid_base;
  v.node_count = lattice.node_count;
  v.via_cost = via_cost;
  v.pour_cost = pour_cost;
  v.pour_net = lattice.pour_net.empty() ? nullptr : s.pour_net.data();
  v.stencil_reach = stencil_reach;
  v.out_offsets = s.out_offsets.data();
  v.heads = s.heads.data();
  v.out_weights = s.out_weights.data();
  v.in_offsets = s.in_offsets.data();
  v.tails = s.tails.data();
  v.in_weights = s.in_weights.data();
  v.owner = s.owner.data();
  v.mid_grid = s.mid_grid.data();
  v.edge_mids = s.edge_mids.data();
  v.extras_offsets = s.extras_offsets.data();
  v.extras = s.extras.data();
  v.stub_grid = s.stub_grid.data();
  v.stub_claims_offsets = s.stub_claims_offsets.data();
  v.stub_claims = s.stub_claims.data();
  v.stencil_offsets = s.stencil_offsets.data();
  v.stencils = s.stencils.data();
  v.kinds_at_slot_offsets = s.kinds_at_slot_offsets.data();
  v.kinds_at_slot = s.kinds_at_slot.data();
  v.kind_slots_offsets = s.kind_slots_offsets.data();
  v.kind_slots = s.kind_slots.data();
  v.kinds_meeting_offsets = s.kinds_meeting_offsets.data();
  v.kinds_meeting = s.kinds_meeting.data();
  TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(search_windows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kSharedScratch)));
  device::synchronize(s.stream.get());
  device::synchronize_device();
}

WindowSearch::~WindowSearch() = default;

void WindowSearch::update(const CongestionCounts& counts, const CountChanges& changes) {
  State& s = *state_;
  const Stream stream = s.stream.get();
  std::vector<int> values;
  values.reserve(2 * changes.nodes.size());
  for (const int node : changes.nodes) {
    values.push_back(counts.uses[static_cast<std::size_t>(node)]);
    values.push_back(counts.claims[static_cast<std::size_t>(node)]);
  }
  std::vector<int> near_values;
  near_values.reserve(changes.near.size());
  const auto pad_base = static_cast<std::size_t>(s.lattice.pad_base);
  for (const int at : changes.near) {
    const auto index = static_cast<std::size_t>(at);
    near_values.push_back(counts.near_uses[index / pad_base][index % pad_base]);
  }
  put(s.change_nodes, changes.nodes, stream);
  put(s.change_values, values, stream);
  put(s.change_near, changes.near, stream);
  put(s.change_near_values, near_values, stream);
  const int most = static_cast<int>(std::max(changes.nodes.size(), changes.near.size()));
  if (most > 0) {
    constexpr int kApplyThreads = 256;
    TRELLIS_LAUNCH(apply_changes, (most + kApplyThreads - 1) / kApplyThreads, kApplyThreads, 0, stream, s.uses.data(),
                   s.claims.data(), s.change_nodes.data(), s.change_values.data(),
                   static_cast<int>(changes.nodes.size()), s.near.data(), s.change_near.data(),
                   s.change_near_values.data(), static_cast<int>(changes.near.size()));
  }
  if (changes.history) {
    device::copy_to_device(s.history.data(), counts.history.data(), counts.history.size() * sizeof(float), stream);
  }
  // The host vectors above die here: wait for the copies.
  device::synchronize(stream);
}

std::vector<graph::SsspPath> WindowSearch::paths(std::span<const WindowQuery> queries, float present,
                                                 bool forbid_conflicts, float via_premium) {
  State& s = *state_;
  const Stream stream = s.stream.get();
  std::vector<graph::SsspPath> found(queries.size());
  if (queries.empty()) return found;
  const Lattice& l = s.lattice;
  std::vector<QuerySpec> specs;
  std::vector<int> pool;
  long long scratch = 0;
  long long shared = 0;  // dynamic shared memory of the launch
  long long most_locals = 0;
  for (const WindowQuery& query : queries) {
    QuerySpec spec{};
    spec.net = query.net;
    spec.group = l.group_of_net[static_cast<std::size_t>(query.net)];
    spec.row0 = query.box.row0;
    spec.row1 = query.box.row1;
    spec.column0 = query.box.column0;
    spec.column1 = query.box.column1;
    spec.target = query.target;
    const Point at = l.position[static_cast<std::size_t>(query.target)];
    const auto pitch = static_cast<double>(l.pitch);
    spec.target_column = static_cast<float>(static_cast<double>(at.x - l.origin.x) / pitch);
    spec.target_row = static_cast<float>(static_cast<double>(at.y - l.origin.y) / pitch);
    const auto append = [&](std::span<const int> list, int& begin, int& end) {
      begin = static_cast<int>(pool.size());
      pool.insert(pool.end(), list.begin(), list.end());
      end = static_cast<int>(pool.size());
    };
    append(query.sources, spec.sources_begin, spec.sources_end);
    append(query.own_uses, spec.uses_begin, spec.uses_end);
    append(query.own_claims, spec.claims_begin, spec.claims_end);
    const long long plane = static_cast<long long>(spec.row1 - spec.row0 + 1) * (spec.column1 - spec.column0 + 1);
    const long long box = plane * (l.layers + static_cast<long long>(l.via_kinds.size()));
    const long long extras = static_cast<long long>(l.net_pins[static_cast<std::size_t>(query.net)].size() +
                                                    l.net_pads[static_cast<std::size_t>(query.net)].size());
    const long long locals = box + 2 * plane * l.layers + extras;
    const long long bytes = scratch_bytes(locals, box);
    if (bytes <= kSharedScratch) {
      spec.scratch = -1;
      shared = std::max(shared, bytes);
    } else {
      spec.scratch = scratch;
      scratch += bytes;
    }
    most_locals += locals + 1;
    specs.push_back(spec);
  }
  if (pool.empty()) pool.push_back(0);
  put(s.queries, specs, stream);
  put(s.pool, pool, stream);
  reserve(s.scratch, static_cast<std::size_t>(std::max<long long>(scratch, 16)));
  reserve(s.results, queries.size());
  reserve(s.paths, static_cast<std::size_t>(most_locals) + 1);
  // The path buffer's fill count sits in its last word.
  const std::size_t fill_at = s.paths.size() - 1;
  device::fill_zero(s.paths.data() + fill_at, sizeof(int), stream);
  TRELLIS_LAUNCH(search_windows, static_cast<unsigned>(queries.size()), kThreads, static_cast<std::size_t>(shared),
                 stream, s.view, CountsView{s.uses.data(), s.claims.data(), s.near.data(), s.history.data()},
                 s.queries.data(), s.pool.data(), s.scratch.data(), present, forbid_conflicts ? 1 : 0, via_premium,
                 s.results.data(), s.paths.data(), s.paths.data() + fill_at);
  std::vector<QueryResult> results(queries.size());
  int filled = 0;
  device::copy_to_host(results.data(), s.results.data(), results.size() * sizeof(QueryResult), stream);
  device::copy_to_host(&filled, s.paths.data() + fill_at, sizeof(int), stream);
  device::synchronize(stream);
  std::vector<int> nodes(static_cast<std::size_t>(filled));
  if (filled > 0) {
    device::copy_to_host(nodes.data(), s.paths.data(), nodes.size() * sizeof(int), stream);
    device::synchronize(stream);
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const QueryResult& r = results[q];
    if (r.key == kUnset) continue;
    if (r.path_length <= 0) throw Error("the device path search left a node without a parent on its path");
    found[q].distance = std::bit_cast<float>(static_cast<unsigned>(r.key >> 32));
    found[q].nodes.assign(nodes.begin() + r.path_begin, nodes.begin() + r.path_begin + r.path_length);
  }
  return found;
}

}  // namespace trellis::route::router_detail
