// Public shortest-path entry: argument checks, backend and algorithm
// resolution, the one backend switch, and the shared finishing steps.
#include "trellis/graph/sssp.hpp"

#include <fmt/format.h>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <exception>
#include <optional>

#include "kernels.hpp"
#include "vulkan/kernels.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/pinned_array.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::graph {

std::string_view to_string(SsspAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case SsspAlgorithm::automatic:
      return "auto";
    case SsspAlgorithm::dijkstra:
      return "dijkstra";
    case SsspAlgorithm::bellman_ford:
      return "bellman-ford";
    case SsspAlgorithm::delta_stepping:
      return "delta-stepping";
    case SsspAlgorithm::spfa:
      return "spfa";
  }
  return "unknown";
}

SsspAlgorithm parse_sssp_algorithm(std::string_view name) {
  for (auto a : {SsspAlgorithm::automatic, SsspAlgorithm::dijkstra, SsspAlgorithm::bellman_ford,
                 SsspAlgorithm::delta_stepping, SsspAlgorithm::spfa}) {
    if (name == to_string(a)) return a;
  }
  throw UsageError(fmt::format(
      "unknown shortest-path algorithm '{}' (expected auto, dijkstra, bellman-ford, delta-stepping or spfa)", name));
}

namespace {

SsspAlgorithm resolve_algorithm(Backend backend, SsspAlgorithm requested, NodeId nodes) {
  if (requested == SsspAlgorithm::automatic) {
    switch (backend) {
      case Backend::reference:
        return SsspAlgorithm::dijkstra;
      case Backend::cpu:
        return SsspAlgorithm::delta_stepping;
      case Backend::cuda:
        // Bellman-Ford up to the sizes whose labels fit one cluster's shared
        // memory (one block, or a tiled search), SPFA beyond, where the
        // tiles may no longer fit (bench/results/sssp-2026-11-30h.md times
        // the algorithms on both sides).
        return cuda::fits_one_cluster(nodes) ? SsspAlgorithm::bellman_ford : SsspAlgorithm::spfa;
      case Backend::vulkan:
        return SsspAlgorithm::bellman_ford;
      case Backend::automatic:
        break;
    }
  }
  const bool available =
      (backend == Backend::reference && requested == SsspAlgorithm::dijkstra) ||
      (backend == Backend::cpu && requested == SsspAlgorithm::delta_stepping) ||
      (backend == Backend::cuda && (requested == SsspAlgorithm::bellman_ford ||
                                    requested == SsspAlgorithm::delta_stepping || requested == SsspAlgorithm::spfa)) ||
      (backend == Backend::vulkan && requested == SsspAlgorithm::bellman_ford);
  if (!available) {
    throw UsageError(
        fmt::format("the {} backend has no {} (reference: dijkstra; cpu: delta-stepping; "
                    "cuda: bellman-ford, delta-stepping, spfa; vulkan: bellman-ford)",
                    to_string(backend), to_string(requested)));
  }
  return requested;
}

void check_query(const Graph& graph, const SsspQuery& query) {
  const NodeId n = graph.node_count();
  if (query.sources.empty()) throw UsageError("a shortest-path query needs at least one source");
  for (NodeId s : query.sources) {
    if (s < 0 || s >= n) throw UsageError(fmt::format("source {} is outside the graph's nodes 0..{}", s, n - 1));
  }
  if (query.target < -1 || query.target >= n) {
    throw UsageError(fmt::format("target {} is outside the graph's nodes 0..{}", query.target, n - 1));
  }
  if (!query.node_cost.empty()) {
    if (query.node_cost.size() != static_cast<std::size_t>(n)) {
      throw UsageError(fmt::format("node cost array has {} entries for {} nodes", query.node_cost.size(), n));
    }
    if (query.node_cost_on_device) return;  // its values are checked on the device
    if (query.node_cost_vouched) return;
    // One branch-free pass over the bits (it vectorises; a router checks a
    // graph-sized array per search): infinity or NaN, or a sign bit on
    // anything but zero. Then the first bad entry, when there is one.
    std::uint32_t any_bad = 0;
    for (const Weight c : query.node_cost) {
      const auto b = std::bit_cast<std::uint32_t>(c);
      any_bad |=
          static_cast<std::uint32_t>((b & 0x7fffffffu) >= 0x7f800000u) | static_cast<std::uint32_t>(b > 0x80000000u);
    }
    if (any_bad != 0) {
      const auto bad = [](Weight c) { return !(c >= 0) || c == kUnreachable; };
      const auto v = static_cast<std::size_t>(std::find_if(query.node_cost.begin(), query.node_cost.end(), bad) -
                                              query.node_cost.begin());
      throw UsageError(fmt::format("node cost {} of node {} is not finite and non-negative", query.node_cost[v], v));
    }
  }
}

// The host entry points read node costs on the host.
void refuse_device_costs(std::span<const SsspQuery> queries) {
  for (const SsspQuery& q : queries) {
    if (q.node_cost_on_device && !q.node_cost.empty()) {
      throw UsageError("node costs in device memory need ShortestPaths::run_batch_on_device (a cuda engine)");
    }
  }
}

SearchSpec spec_of(const SsspQuery& query) {
  return {query.sources, query.target, query.node_cost, query.node_cost_on_device};
}

// Threads side_by_side() runs `count` queries on.
int side_by_side_threads(std::size_t count) {
  return static_cast<int>(std::min<std::size_t>(count, static_cast<std::size_t>(omp_get_max_threads())));
}

// Runs body(q, thread) for q in [0, count), one query a thread at a time. An
// exception stays with its query; the first in query order is rethrown once
// all have run.
template <typename Body>
void side_by_side(std::size_t count, Body&& body) {
  const int threads = side_by_side_threads(count);
  std::vector<std::exception_ptr> errors(count);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (std::size_t q = 0; q < count; ++q) {
    try {
      body(q, omp_get_thread_num());
    } catch (...) {
      errors[q] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace

struct ShortestPaths::Impl {
  const Graph& graph;
  Backend backend;
  SsspAlgorithm algorithm;
  Weight delta;
  bool parents;
  std::optional<cuda::GraphOnDevice> device;
  std::unique_ptr<vulkan::GraphOnDevice> vulkan_graph;        // vulkan: the graph, uploaded once
  std::vector<std::unique_ptr<cpu::TargetedSearch>> scratch;  // cpu paths(): one per thread, made on first use
  std::optional<CsrMatrix<Weight>> reversed;                  // cpu paths(): the in-edges, made on first use
  // cuda run_batch(): where a batch's distances and parents land, kept and
  // grown from call to call (page-locked: one copy at the link's full rate).
  PinnedArray<Weight> staged_distances;
  PinnedArray<NodeId> staged_parents;

  // The searches whose distances land on the host: reference, cpu, and
  // vulkan (its engine returns them); parents are traced here for all three.
  SsspResult run_on_host(const SsspQuery& query) const {
    const CsrView<Weight> g = graph.csr.view();
    const SearchSpec search = spec_of(query);
    SsspResult result;
    result.backend = backend;
    result.algorithm = algorithm;
    result.distance.resize(static_cast<std::size_t>(graph.node_count()));
    SteadyTimer timer;
    result.edges_relaxed = vulkan_graph ? vulkan_graph->search(search, result.distance)
                           : algorithm == SsspAlgorithm::dijkstra
                               ? reference::dijkstra(g, search, result.distance)
                               : cpu::delta_stepping(g, search, delta, result.distance);
    result.solve_ms = timer.elapsed_ms();
    result.reached = mask_unsettled(query.target, result.distance);
    if (parents) {
      result.parent.resize(result.distance.size());
      reference::tight_edge_parents(g, search, result.distance, result.parent);
    }
    return result;
  }
};

ShortestPaths::ShortestPaths(const Graph& graph, const SsspOptions& options) {
  const Backend backend = resolve_with_vulkan(options.backend);
  const SsspAlgorithm algorithm = resolve_algorithm(backend, options.algorithm, graph.node_count());
  if (!(options.delta >= 0) || std::isinf(options.delta)) {
    throw UsageError(fmt::format("delta must be finite and non-negative (0 picks one), got {}", options.delta));
  }
  const Weight delta = options.delta > 0 ? options.delta : default_delta(graph.csr.view());
  impl_ = std::unique_ptr<Impl>(
      new Impl{graph, backend, algorithm, delta, options.parents, std::nullopt, nullptr, {}, std::nullopt, {}, {}});
  if (backend == Backend::cuda) impl_->device.emplace(graph.csr, graph.coordinates ? &*graph.coordinates : nullptr);
  if (backend == Backend::vulkan) impl_->vulkan_graph = std::make_unique<vulkan::GraphOnDevice>(graph.csr);
}

ShortestPaths::~ShortestPaths() = default;

Backend ShortestPaths::backend() const noexcept { return impl_->backend; }
SsspAlgorithm ShortestPaths::algorithm() const noexcept { return impl_->algorithm; }

SsspResult ShortestPaths::run(const SsspQuery& query) { return std::move(run_batch({&query, 1}).front()); }

std::vector<SsspResult> ShortestPaths::run_batch(std::span<const SsspQuery> queries) {
  refuse_device_costs(queries);
  for (const SsspQuery& q : queries) check_query(impl_->graph, q);
  std::vector<SsspResult> results;
  results.reserve(queries.size());
  if (impl_->backend == Backend::cpu && queries.size() > 1 && impl_->graph.csr.view().nnz < cpu::kEdgesForAllCores) {
    // Searches too small to split among the cores run side by side instead,
    // one a thread.
    results.resize(queries.size());
    side_by_side(queries.size(), [&](std::size_t q, int) { results[q] = impl_->run_on_host(queries[q]); });
    return results;
  }
  if (impl_->backend != Backend::cuda) {
    for (const SsspQuery& q : queries) results.push_back(impl_->run_on_host(q));
    return results;
  }
  std::vector<SearchSpec> searches;
  for (const SsspQuery& q : queries) searches.push_back(spec_of(q));
  results.resize(queries.size());
  const auto n = static_cast<std::size_t>(impl_->graph.node_count());
  const Weight* const distances = impl_->staged_distances.grow_to(std::max<std::size_t>(queries.size() * n, 1));
  const NodeId* const parents =
      impl_->parents ? impl_->staged_parents.grow_to(std::max<std::size_t>(queries.size() * n, 1)) : nullptr;
  impl_->device->search(impl_->algorithm, impl_->delta, searches, impl_->parents, results,
                        impl_->staged_distances.data(), impl_->staged_parents.data());
  // A search a thread: for a large batch, the result arrays' first touch and
  // copies are most of the call's time.
  side_by_side(queries.size(), [&](std::size_t i, int) {
    SsspResult& result = results[i];
    result.backend = Backend::cuda;
    result.algorithm = impl_->algorithm;
    result.distance.assign(distances + i * n, distances + (i + 1) * n);
    result.reached = mask_unsettled(queries[i].target, result.distance);
    if (parents != nullptr) {
      result.parent.assign(parents + i * n, parents + (i + 1) * n);
      // Parents of nodes the mask removed are meaningless: clear them too.
      for (std::size_t v = 0; v < n; ++v) {
        if (result.distance[v] == kUnreachable) result.parent[v] = kNoParent;
      }
    }
  });
  return results;
}

std::vector<SsspResult> ShortestPaths::run_batch_on_device(std::span<const SsspQuery> queries, Weight* distances,
                                                           NodeId* parents) {
  if (impl_->backend != Backend::cuda) {
    throw UsageError(fmt::format("results in device memory need the cuda backend; this engine runs on {}",
                                 to_string(impl_->backend)));
  }
  if (!queries.empty() && (distances == nullptr || (impl_->parents && parents == nullptr))) {
    throw UsageError("run_batch_on_device needs device arrays for the distances (and the parents, when asked)");
  }
  for (const SsspQuery& q : queries) {
    check_query(impl_->graph, q);
    if (q.node_cost_on_device && !q.node_cost.empty()) impl_->device->check_device_costs(q.node_cost.data());
  }
  std::vector<SearchSpec> searches;
  for (const SsspQuery& q : queries) searches.push_back(spec_of(q));
  std::vector<SsspResult> results(queries.size());
  impl_->device->search_into_device(impl_->algorithm, impl_->delta, searches, impl_->parents, results, distances,
                                    impl_->parents ? parents : nullptr);
  for (SsspResult& result : results) {
    result.backend = Backend::cuda;
    result.algorithm = impl_->algorithm;
  }
  return results;
}

std::vector<SsspPath> ShortestPaths::paths(std::span<const SsspQuery> queries) {
  refuse_device_costs(queries);
  if (!impl_->parents) throw UsageError("paths need parents: construct with SsspOptions::parents set");
  for (const SsspQuery& q : queries) {
    if (q.target < 0) throw UsageError("a path query needs a target");
  }
  const Graph& graph = impl_->graph;
  std::vector<SsspPath> paths(queries.size());
  if (impl_->backend == Backend::cpu) {
    // Side by side, one query per thread at a time. The checks run there
    // too (a cost array is as large as the graph); the first query's error
    // in query order is the one reported.
    while (impl_->scratch.size() < static_cast<std::size_t>(std::max(side_by_side_threads(queries.size()), 1))) {
      impl_->scratch.push_back(std::make_unique<cpu::TargetedSearch>(graph.node_count()));
    }
    const CsrView<Weight> g = graph.csr.view();
    if (!impl_->reversed) impl_->reversed = cpu::reversed_edges(g);
    const CsrView<Weight> reversed = impl_->reversed->view();
    side_by_side(queries.size(), [&](std::size_t q, int thread) {
      check_query(graph, queries[q]);
      paths[q] = impl_->scratch[static_cast<std::size_t>(thread)]->run(g, reversed, spec_of(queries[q]));
    });
    return paths;
  }
  if (impl_->backend == Backend::cuda) {
    for (const SsspQuery& q : queries) check_query(graph, q);
    std::vector<SearchSpec> searches;
    for (const SsspQuery& q : queries) searches.push_back(spec_of(q));
    impl_->device->search_paths(impl_->algorithm, impl_->delta, searches, paths);
    return paths;
  }
  // The reference: whole results, then the path.
  std::vector<SsspResult> results = run_batch(queries);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    paths[q].distance = results[q].distance[static_cast<std::size_t>(queries[q].target)];
    paths[q].edges_relaxed = results[q].edges_relaxed;
    paths[q].nodes = path_to(results[q], queries[q].target);
  }
  return paths;
}

SsspResult shortest_paths(const Graph& graph, const SsspQuery& query, const SsspOptions& options) {
  return ShortestPaths(graph, options).run(query);
}

std::vector<NodeId> path_to(const SsspResult& result, NodeId target) {
  if (target < 0 || static_cast<std::size_t>(target) >= result.distance.size()) {
    throw UsageError(fmt::format("path target {} is outside the graph", target));
  }
  if (result.parent.empty()) throw UsageError("this result was computed without parents");
  std::vector<NodeId> path;
  if (result.distance[static_cast<std::size_t>(target)] == kUnreachable) return path;
  for (NodeId v = target; v != kNoParent; v = result.parent[static_cast<std::size_t>(v)]) {
    path.push_back(v);
    if (path.size() > result.distance.size()) throw Error("parent pointers form a cycle");
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace trellis::graph
