// Shortest paths on a Graph with non-negative float32 weights.
//
// Parity rule. Every backend and algorithm returns the same bits:
// - distance[v] is the least value of the Bellman equations
//   d[v] = min over edges u->v of fl(d[u] + w'(u,v)), d[source] = 0, where
//   w'(u,v) = fl(w(u,v) + cost[v]) when a per-node cost is given, else w(u,v);
//   Dijkstra computes exactly this fixpoint, and so does any label-correcting
//   algorithm, because float addition of a non-negative weight is monotone.
// - Among the tight edges into v (fl(d[u] + w'(u,v)) == d[v]), parent[v] is the
//   u with the fewest hops from a source in the tight-edge graph, ties to the
//   smallest id. That is acyclic even with zero weights, and makes paths
//   identical across algorithms and backends.
// - With a target, the search may stop once the target is settled. Then only
//   nodes with distance <= distance[target] are reported; all others read
//   kUnreachable (not settled), so early stopping cannot leak into results.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/graph/graph.hpp"

namespace trellis::graph {

// Shortest-path algorithms; automatic picks the backend's default.
enum class SsspAlgorithm {
  automatic,       // the backend's default
  dijkstra,        // Dijkstra's algorithm
  bellman_ford,    // Bellman-Ford
  delta_stepping,  // delta-stepping
  spfa             // SPFA (queue-based Bellman-Ford)
};

// The algorithm's name as parse_sssp_algorithm() accepts it.
std::string_view to_string(SsspAlgorithm algorithm) noexcept;
// "auto", "dijkstra", "bellman-ford", "delta-stepping", "spfa"; UsageError otherwise.
SsspAlgorithm parse_sssp_algorithm(std::string_view name);

// parent[] of a source or of a node not reached.
inline constexpr NodeId kNoParent = -1;

// One search: its sources, optional target and optional per-node cost.
struct SsspQuery {
  std::vector<NodeId> sources;        // one or more nodes at distance 0 (a partly routed net)
  NodeId target = -1;                 // >= 0: stop once it is settled
  std::span<const Weight> node_cost;  // empty, or one finite non-negative cost per node
  // node_cost points to device memory (run_batch_on_device only; its values
  // are checked on the device).
  bool node_cost_on_device = false;
  // The caller built node_cost itself and vouches that every entry is finite
  // and non-negative, so its length is checked but not its values: a router
  // that searches small windows of a graph-sized array would otherwise pay a
  // pass over the whole array per search.
  bool node_cost_vouched = false;
};

// How searches run: backend, algorithm and whether parents are kept.
struct SsspOptions {
  Backend backend = Backend::automatic;                // requested; ShortestPaths resolves it
  SsspAlgorithm algorithm = SsspAlgorithm::automatic;  // automatic: the backend's default
  Weight delta = 0;                                    // delta-stepping bucket width; 0 picks one from the weights
  bool parents = true;                                 // compute parent[] (needed for paths)
};

// Distances and parents of one search, and what it cost.
struct SsspResult {
  std::vector<Weight> distance;    // kUnreachable for nodes not reached (or not settled)
  std::vector<NodeId> parent;      // kNoParent for sources and unreached; empty unless asked
  std::int64_t edges_relaxed = 0;  // edge relaxations performed: the work, not the graph size
  NodeId reached = 0;              // nodes with a finite distance
  // Milliseconds of the search itself: steady clock on the host, CUDA events
  // on the device (graph upload and result download excluded).
  double solve_ms = 0;
  Backend backend = Backend::reference;               // the backend that ran
  SsspAlgorithm algorithm = SsspAlgorithm::dijkstra;  // the algorithm that ran
};

// What a targeted query gives when only the path matters (a router's
// thousands of searches): the target's distance and the path to it, exactly
// path_to(run(query), target), without whole-graph arrays.
struct SsspPath {
  Weight distance = kUnreachable;  // the target's; kUnreachable when no path
  std::vector<NodeId> nodes;       // source .. target; empty when unreachable
  std::int64_t edges_relaxed = 0;  // edge relaxations performed
};

// A graph prepared once and searched many times (the graph must outlive this
// object): on cuda it is uploaded at
// construction and stays resident. Construction resolves the backend and the
// algorithm and throws UsageError for an algorithm the backend does not have
// (dijkstra: reference; delta-stepping: cpu; bellman-ford, delta-stepping and
// spfa: cuda) or BackendUnavailable.
class ShortestPaths {
 public:
  // Prepares graph for searches with options (uploaded on cuda).
  explicit ShortestPaths(const Graph& graph, const SsspOptions& options = {});
  ~ShortestPaths();                                         // frees the prepared graph
  ShortestPaths(const ShortestPaths&) = delete;             // not copyable
  ShortestPaths& operator=(const ShortestPaths&) = delete;  // not copy-assignable

  // Throws UsageError for no source, a source or target out of range, or a
  // cost array of the wrong length or with a negative, NaN or infinite cost.
  SsspResult run(const SsspQuery& query);
  // K independent queries in one call (the router's workhorse); on cuda one
  // launch serves them all.
  std::vector<SsspResult> run_batch(std::span<const SsspQuery> queries);
  // run_batch with the results left on the device (cuda engines only, else
  // UsageError): query q's distances go to distances + q * n and, for an
  // engine made with parents, its parents to parents + q * n (device memory
  // of K * n entries the caller owns, n the graph's nodes), masked as
  // run_batch masks them, the same bits. Queries may hold their node_cost in
  // device memory (node_cost_on_device). The results carry the work
  // (edges_relaxed, reached, solve_ms) and empty distance and parent
  // vectors. The engine works on a stream of its own: device inputs must be
  // complete (their writers synchronised) before the call. Returns once the
  // device has finished.
  std::vector<SsspResult> run_batch_on_device(std::span<const SsspQuery> queries, Weight* distances, NodeId* parents);
  // K targeted queries, paths only (UsageError for a query without a target,
  // or an engine made without parents).
  // Work per query follows what the search settles, not the graph's size:
  // on cpu the queries run side by side, each a Dijkstra in scratch reused
  // from query to query; on cuda one launch searches them all and the paths
  // are traced on the device; the reference runs each query whole.
  std::vector<SsspPath> paths(std::span<const SsspQuery> queries);

  // The backend the searches run on (resolved).
  Backend backend() const noexcept;
  // The algorithm the searches use (resolved).
  SsspAlgorithm algorithm() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One query: ShortestPaths(graph, options).run(query).
SsspResult shortest_paths(const Graph& graph, const SsspQuery& query, const SsspOptions& options = {});

// The path source..target following parent[]; empty when target is unreached.
std::vector<NodeId> path_to(const SsspResult& result, NodeId target);

}  // namespace trellis::graph
