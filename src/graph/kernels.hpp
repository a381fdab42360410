// Shortest-path kernels, declared once per backend. Graph pointers live in the
// backend's memory space. A search fills `distance` (kUnreachable where no
// path was found) and reports the relaxations it performed; the shared
// finishing step (sssp_finish.cpp) masks unsettled nodes for targeted queries.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu/radix_heap.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/graph/graph.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::graph {

// One search as the kernels see it: sources, optional target, optional
// per-node cost (empty span: none). Pointers are host pointers, but for
// node_cost with cost_on_device (the cuda engine only).
struct SearchSpec {
  std::span<const NodeId> sources;
  NodeId target = -1;
  std::span<const Weight> node_cost;
  bool cost_on_device = false;
};

// The edge weight as every backend must compute it: fl(w + cost[v]).
// node_cost null: no costs (hot loops keep the pointer in a register).
inline Weight effective_weight(Weight w, const Weight* node_cost, NodeId head) {
  return node_cost == nullptr ? w : w + node_cost[head];
}
inline Weight effective_weight(Weight w, std::span<const Weight> node_cost, NodeId head) {
  return effective_weight(w, node_cost.empty() ? nullptr : node_cost.data(), head);
}

namespace reference {
// Binary-heap Dijkstra, the oracle. With a target, stops once every node at
// distance <= distance[target] is settled.
std::int64_t dijkstra(const CsrView<Weight>& g, const SearchSpec& search, std::span<Weight> distance);
// parent[] by the parity rule: breadth-first over tight edges from the
// sources, each node taking the smallest-id tight in-neighbour on the level
// before its own. Nodes with distance kUnreachable get kNoParent.
void tight_edge_parents(const CsrView<Weight>& g, const SearchSpec& search, std::span<const Weight> distance,
                        std::span<NodeId> parent);
}  // namespace reference

namespace cpu {
// Edges from which a delta-stepping search takes every core. Each bucket
// round ends at barriers, and below about a million edges they cost more
// than the work they split; two to eight threads were never the fastest
// (bench/results/NOTES.md, "cpu delta-stepping").
inline constexpr RowOffset kEdgesForAllCores = 1'000'000;

// OpenMP delta-stepping (after gapbs): thread-local buckets, shared frontier.
// All cores from kEdgesForAllCores edges, else (and inside a parallel
// region) one thread.
std::int64_t delta_stepping(const CsrView<Weight>& g, const SearchSpec& search, Weight delta,
                            std::span<Weight> distance);

// Dijkstra for one targeted query at a time in scratch reused from query to
// query. Nothing is cleared between searches: every entry carries the stamp
// of the search that wrote it, so a search costs what it settles, not the
// graph's size. Parents follow the parity rule, traced only among the
// nodes on tight paths to the target (found backwards from it over the
// reversed edges) and only as far as the target's breadth-first level.
class TargetedSearch {
 public:
  explicit TargetedSearch(NodeId nodes);
  // search.target must be a node of g; reversed is reversed_edges(g).
  SsspPath run(const CsrView<Weight>& g, const CsrView<Weight>& reversed, const SearchSpec& search);

 private:
  // What one search's Dijkstra knows of a node, 8 bytes so that a cache
  // line holds eight nodes' labels: mark is 2 * stamp_ once the node has a
  // distance in this search, 2 * stamp_ + 1 once it is settled; any other
  // mark is a former search's.
  struct Label {
    Weight distance;
    std::uint32_t mark;
  };
  // What the parent tracing knows of a node, valid where its stamps equal
  // stamp_.
  struct Trace {
    std::uint32_t level_stamp;
    std::int32_t level;  // breadth-first level in the tight-edge graph
    NodeId parent;
    std::uint32_t on_tight_path_stamp;  // the node is on a tight path to the target
  };
  std::uint32_t reached_mark() const { return 2 * stamp_; }
  std::uint32_t settled_mark() const { return 2 * stamp_ + 1; }
  bool settled(NodeId v) const { return labels_[static_cast<std::size_t>(v)].mark == settled_mark(); }
  std::int64_t settle(const CsrView<Weight>& g, const SearchSpec& search);
  void mark_tight_paths(const CsrView<Weight>& reversed, const SearchSpec& search);
  void trace_parents(const CsrView<Weight>& g, const CsrView<Weight>& reversed, const SearchSpec& search);

  std::uint32_t stamp_ = 0;  // below 2^31, so that the marks fit 32 bits
  std::vector<Label> labels_;
  std::vector<Trace> traces_;
  RadixHeap heap_;
  std::vector<NodeId> level_, next_level_, marked_;
};

// g with every edge u -> v (weight w) turned into v -> u (weight w): row v
// lists v's in-edges.
CsrMatrix<Weight> reversed_edges(const CsrView<Weight>& g);
}  // namespace cpu

// Distances of nodes beyond the target's are not final: report them as
// unreachable, and count what is reached. Returns the reached count.
NodeId mask_unsettled(NodeId target, std::span<Weight> distance);

// A bucket width from the weights when the caller gives none.
Weight default_delta(const CsrView<Weight>& g);

}  // namespace trellis::graph

namespace trellis::graph::cuda {

// Whether a search on this many nodes fits the shared memory of one block
// or one thread-block cluster (then it is solved there, with a block or
// cluster barrier between rounds instead of a grid-wide one).
bool fits_one_cluster(NodeId nodes);

// The graph resident on the device and the scratch its searches reuse.
class GraphOnDevice {
 public:
  // coordinates (may be null; must outlive this object) shape the tiles of
  // single searches on large graphs.
  GraphOnDevice(const CsrMatrix<Weight>& csr, const NodeCoordinates* coordinates);
  ~GraphOnDevice();
  GraphOnDevice(const GraphOnDevice&) = delete;
  GraphOnDevice& operator=(const GraphOnDevice&) = delete;

  // Fills edges_relaxed and solve_ms of results[i] for searches[i], and
  // writes its distances (unmasked: the caller masks) to host_distances[i *
  // n ..] and its parents (when asked) to host_parents[i * n ..], n the
  // graph's nodes: host arrays of searches.size() * n entries, page-locked
  // for a copy at the link's full rate.
  // A batch of several searches, and Bellman-Ford on a graph whose labels
  // fit the shared memory of one block, run one block or cluster per search
  // (block_solver.cu; batches on larger graphs: one block a search with the
  // labels in global memory). One Bellman-Ford search on a larger graph runs
  // on the graph cut into tiles, a block each (tiled_bellman_ford.cu); the
  // rest run the chosen algorithm on the whole device, one search at a time.
  void search(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, bool parents,
              std::span<SsspResult> results, Weight* host_distances, NodeId* host_parents);
  // The same with the results left in device memory: distances and parents
  // (when asked) at distances[i * n ..] and parents[i * n ..], masked beyond
  // each search's target as mask_unsettled masks them (parents there
  // kNoParent), and results[i].reached filled. Returns once they are written.
  void search_into_device(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, bool parents,
                          std::span<SsspResult> results, Weight* distances, NodeId* parents_out);
  // Throws UsageError naming the first node whose cost (n entries in device
  // memory) is negative, NaN or infinite.
  void check_device_costs(const Weight* node_cost);
  // The same searches (each with a target), bringing back only the target's
  // distance, the path to it and the work done.
  void search_paths(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches,
                    std::span<SsspPath> paths);

 private:
  // Where results go: whole results (their work in results, distances and
  // parents when asked in the arrays given, stride entries a search: host
  // arrays, or device arrays with on_device), or paths.
  struct Output {
    bool parents;
    std::span<SsspResult> results;
    std::span<SsspPath> paths;
    Weight* host_distances = nullptr;
    NodeId* host_parents = nullptr;
    std::size_t stride = 0;
    bool on_device = false;
    void set_work(std::size_t q, std::int64_t relaxed, double ms) const;
    Output part(std::size_t q) const;  // entry q alone
  };
  void run(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, const Output& out);
  void search_on_grid(SsspAlgorithm algorithm, Weight delta, const SearchSpec& spec, const Output& out);
  void search_in_blocks(std::span<const SearchSpec> searches, const Output& out);
  // One Bellman-Ford search on the tiled graph; false (nothing done) when
  // the graph's tiles do not fit the device, or with swept_only when they
  // cannot be swept (swept_tiles.cu).
  bool search_tiled(const SearchSpec& spec, const Output& out, bool swept_only);
  // The searches as the kernels read them (device pointers into reused
  // scratch), and their targets on the host.
  struct Uploaded {
    const NodeId* sources = nullptr;
    const unsigned* source_offsets = nullptr;
    const NodeId* device_targets = nullptr;
    const Weight* costs = nullptr;  // the queries' cost arrays, at cost_offsets[q] (-1: none)
    const long long* cost_offsets = nullptr;
    std::vector<NodeId> targets;
  };
  // resident_costs: the one search's costs already on the device (the grid
  // path); nullptr: upload every search's costs.
  Uploaded upload(std::span<const SearchSpec> searches, const Weight* resident_costs);
  void finish(const std::uint32_t* keys, const Uploaded& uploaded, const Output& out);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::graph::cuda
