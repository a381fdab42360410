#include "sssp_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "median.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::bench {
namespace {

using graph::Graph;
using graph::LatticeSpec;
using graph::NodeId;
using graph::SsspAlgorithm;
using graph::SsspQuery;
using graph::SsspResult;

struct Contender {
  Backend backend;
  SsspAlgorithm algorithm;
};

std::vector<Contender> contenders(const SsspBenchmarkOptions& options) {
  auto wants = [&](Backend b) {
    return options.backends.empty() ||
           std::find(options.backends.begin(), options.backends.end(), b) != options.backends.end();
  };
  std::vector<Contender> all;
  if (wants(Backend::reference)) all.push_back({Backend::reference, SsspAlgorithm::dijkstra});
  if (wants(Backend::cpu)) all.push_back({Backend::cpu, SsspAlgorithm::delta_stepping});
  if (wants(Backend::cuda) && cuda_usable()) {
    for (auto a : {SsspAlgorithm::bellman_ford, SsspAlgorithm::delta_stepping, SsspAlgorithm::spfa}) {
      all.push_back({Backend::cuda, a});
    }
  }
  // Only when asked for: auto never picks vulkan, and lavapipe (a CPU) would
  // slow every default run.
  const bool vulkan_asked =
      std::find(options.backends.begin(), options.backends.end(), Backend::vulkan) != options.backends.end();
  if (vulkan_asked) all.push_back({Backend::vulkan, SsspAlgorithm::bellman_ford});
  return all;
}

bool same_bits(const std::vector<graph::Weight>& a, const std::vector<graph::Weight>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  }
  return true;
}

std::string contender_name(const Contender& c) {
  return fmt::format("{} {}", to_string(c.backend), graph::to_string(c.algorithm));
}

// Corner (0,0,0) to the opposite corner on the top layer, every contender.
void corner_to_corner(const std::string& preset_name, const SsspBenchmarkOptions& options, Table& table,
                      Progress& progress) {
  const graph::LatticePreset& preset = graph::lattice_preset(preset_name);
  const Graph g = graph::routing_lattice(preset.spec);
  const LatticeSpec& spec = preset.spec;
  SsspQuery query{{graph::lattice_node(spec, 0, 0, 0)},
                  graph::lattice_node(spec, spec.width - 1, spec.height - 1, spec.layers - 1),
                  {}};
  const SsspResult truth = graph::shortest_paths(g, query, {Backend::reference, SsspAlgorithm::dijkstra, 0, false});
  for (const Contender& c : contenders(options)) {
    graph::ShortestPaths engine(g, {c.backend, c.algorithm, 0, false});
    const bool device = c.backend == Backend::cuda || c.backend == Backend::vulkan;
    const int runs = device ? options.repeats : std::max(1, (options.repeats + 9) / 10);
    if (device) engine.run(query);  // warm-up: module load or pipeline creation, first-touch
    std::vector<double> times;
    SsspResult last;
    for (int r = 0; r < runs; ++r) {
      last = engine.run(query);
      times.push_back(last.solve_ms);
    }
    progress.advance();
    const double us = median(times) * 1e3;
    table.add_row({preset_name, std::int64_t{g.node_count()}, std::int64_t{g.edge_count()}, contender_name(c),
                   number(us, 1), last.edges_relaxed, number(static_cast<double>(g.edge_count()) / us * 1e-3, 3),
                   number(truth.distance[query.target], 1),
                   std::string(same_bits(last.distance, truth.distance) ? "yes" : "NO")});
  }
}

// K random (source, target) pairs on one 20,000-node lattice in one call:
// the first call of that size (after a one-query warm-up, so it pays for
// growing the engine's scratch to K searches) and the median of three more,
// what a caller repeating such calls sees.
void batched(const SsspBenchmarkOptions& options, Table& table, Progress& progress) {
  LatticeSpec spec;
  spec.width = 100;
  spec.height = 50;
  spec.layers = 4;  // 20,000 nodes: the region OrthoRoute searches per net at most
  const Graph g = graph::routing_lattice(spec);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<NodeId> node(0, g.node_count() - 1);
  for (const Contender& c : contenders(options)) {
    if (c.backend == Backend::reference) continue;
    graph::ShortestPaths engine(g, {c.backend, c.algorithm, 0, false});
    for (int k : options.batch_sizes) {
      std::vector<SsspQuery> queries;
      for (int q = 0; q < k; ++q) queries.push_back({{node(rng)}, node(rng), {}});
      engine.run_batch(std::span<const SsspQuery>(queries.data(), 1));  // warm-up
      SteadyTimer first_timer;
      std::vector<SsspResult> results = engine.run_batch(queries);
      const double first_ms = first_timer.elapsed_ms();
      std::vector<double> times;
      for (int r = 0; r < 3; ++r) {
        SteadyTimer timer;
        results = engine.run_batch(queries);
        times.push_back(timer.elapsed_ms());
      }
      const double ms = median(times);
      // Spot-check the last query against the reference.
      const SsspResult truth =
          graph::shortest_paths(g, queries.back(), {Backend::reference, SsspAlgorithm::dijkstra, 0, false});
      table.add_row({contender_name(c), std::int64_t{k}, number(first_ms, 2), number(ms, 2), number(k / ms * 1e3, 0),
                     std::string(same_bits(results.back().distance, truth.distance) ? "yes" : "NO")});
      progress.advance();
    }
  }
}

}  // namespace

SsspBenchmarkTables run_sssp_benchmark(const SsspBenchmarkOptions& options) {
  if (options.repeats <= 0) throw UsageError(fmt::format("--repeats must be positive, got {}", options.repeats));
  for (Backend b : options.backends) {
    if (b == Backend::cuda || b == Backend::vulkan) resolve_with_vulkan(b);  // a clear error where it cannot run
  }
  for (int k : options.batch_sizes) {
    if (k <= 0) throw UsageError(fmt::format("batch sizes must be positive, got {}", k));
  }
  const std::vector<std::string> columns{"graph",
                                         "nodes",
                                         "edges",
                                         "backend / algorithm",
                                         "time us (median)",
                                         "edges relaxed",
                                         "GTEPS (graph edges / time)",
                                         "distance",
                                         "bitwise = reference"};
  SsspBenchmarkTables tables{Table(columns),
                             Table({"backend / algorithm", "K queries", "first call ms", "wall ms (median of 3 more)",
                                    "queries / s (median)", "last = reference"}),
                             Table(columns)};
  const std::size_t per_graph = contenders(options).size();
  Progress progress(
      "sssp benchmark",
      per_graph * (options.presets.size() + options.large_presets.size()) + per_graph * options.batch_sizes.size(),
      options.quiet);
  // An empty name (--large "") leaves that table empty.
  for (const std::string& name : options.presets) {
    if (!name.empty()) corner_to_corner(name, options, tables.corner_to_corner, progress);
  }
  if (!options.batch_sizes.empty()) batched(options, tables.batched, progress);
  for (const std::string& name : options.large_presets) {
    if (!name.empty()) corner_to_corner(name, options, tables.large, progress);
  }
  return tables;
}

}  // namespace trellis::bench
