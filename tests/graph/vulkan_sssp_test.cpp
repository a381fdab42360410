// Shortest paths on the vulkan engine (frontier Bellman-Ford) against
// reference Dijkstra under the parity rule of include/trellis/graph/sssp.hpp:
// distances bitwise, parents (hence paths) identical, reached counts equal.
// Graphs are seeded and small enough for a CPU Vulkan device to search in
// milliseconds, with the awkward parts: tied and zero weights, duplicate
// edges, self-loops, unreachable nodes, several sources, node costs,
// targets, and floats whose sums round (weights with many bits).
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sssp_parity.hpp"
#include "support/backends.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::graph {
namespace {

// Parity as the other backends' tests check it, and the engine that ran.
void expect_same_result(const SsspResult& expected, const SsspResult& actual) {
  ::trellis::graph::expect_same_result(expected, actual, "vulkan against reference");
  EXPECT_EQ(actual.backend, Backend::vulkan);
  EXPECT_EQ(actual.algorithm, SsspAlgorithm::bellman_ford);
}

class VulkanSsspIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(VulkanSsspIsEquivalentToRef, SeededRandomGraphs) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto kind = static_cast<EdgeWeights>(seed % 3);
    const NodeId n = static_cast<NodeId>(50 + 331 * seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(n) + " nodes");
    const Graph graph = random_graph(n, 4LL * n, seed * 31, kind);
    ShortestPaths engine(graph, {GetParam(), SsspAlgorithm::automatic});
    ASSERT_EQ(engine.algorithm(), SsspAlgorithm::bellman_ford);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<NodeId> node(0, n - 1);
    SsspQuery query;
    query.sources = {node(rng)};
    if (seed % 4 == 0) query.sources.push_back(node(rng));              // several sources
    if (seed % 4 == 0) query.sources.push_back(query.sources.front());  // repeated
    if (seed % 3 == 1) query.target = node(rng);
    std::vector<Weight> cost;
    if (seed % 2 == 0) {
      std::uniform_real_distribution<float> c(0.0f, 2.0f);
      for (NodeId v = 0; v < n; ++v) cost.push_back(v % 5 == 0 ? 0.0f : c(rng));
      query.node_cost = cost;
    }
    const SsspResult actual = engine.run(query);
    expect_same_result(reference_run(graph, query), actual);
    EXPECT_GT(actual.edges_relaxed, 0);
  }
}

TEST_P(VulkanSsspIsEquivalentToRef, LatticesWithObstacles) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (const auto& [width, height, layers, obstacles] :
       std::vector<std::tuple<int, int, int, double>>{{40, 30, 2, 0.1}, {90, 60, 3, 0.2}, {1, 1, 1, 0.0}}) {
    LatticeSpec spec;
    spec.width = width;
    spec.height = height;
    spec.layers = layers;
    spec.obstacle_fraction = obstacles;
    spec.seed = static_cast<std::uint64_t>(width);
    const Graph graph = routing_lattice(spec);
    SCOPED_TRACE(std::to_string(graph.node_count()) + " lattice nodes");
    SsspQuery query;
    query.sources = {lattice_node(spec, 0, 0, 0)};
    query.target = lattice_node(spec, width - 1, height - 1, layers - 1);
    ShortestPaths engine(graph, {GetParam(), SsspAlgorithm::bellman_ford});
    expect_same_result(reference_run(graph, query), engine.run(query));
    query.target = -1;
    expect_same_result(reference_run(graph, query), engine.run(query));
  }
}

// More sources than one workgroup takes (the first round's list spans
// several), repeated ones among them, with node costs.
TEST_P(VulkanSsspIsEquivalentToRef, ManySourcesSpanSeveralWorkgroups) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Graph graph = random_graph(6000, 24000, 9, EdgeWeights::reals);
  ShortestPaths engine(graph, {GetParam(), SsspAlgorithm::bellman_ford});
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<NodeId> node(0, 5999);
  SsspQuery query;
  for (int k = 0; k < 1100; ++k) query.sources.push_back(node(rng));
  std::vector<Weight> cost(6000);
  std::uniform_real_distribution<float> c(0.0f, 1.0f);
  for (Weight& w : cost) w = c(rng);
  query.node_cost = cost;
  expect_same_result(reference_run(graph, query), engine.run(query));
}

// Hubs with more out-edges than a workgroup's local lists hold, in layers
// of a thousand nodes fully joined to the next: a round's heads overflow the
// shared-memory lists into the next round's list, and many invocations lower
// each node with different candidates.
TEST_P(VulkanSsspIsEquivalentToRef, HeadsBeyondTheLocalListsSpill) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  constexpr NodeId kLayer = 1000;
  constexpr NodeId kLayers = 4;
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<float> w(0.5f, 2.0f);
  for (NodeId v = 0; v < 3 * kLayer; ++v) {  // the source to the whole first layer, twice
    tails.push_back(0);
    heads.push_back(1 + v % kLayer);
    weights.push_back(w(rng));
  }
  for (NodeId layer = 0; layer + 1 < kLayers; ++layer) {
    for (NodeId a = 0; a < kLayer; a += 7) {
      for (NodeId b = 0; b < kLayer; ++b) {
        tails.push_back(1 + layer * kLayer + a);
        heads.push_back(1 + (layer + 1) * kLayer + b);
        weights.push_back(w(rng));
      }
    }
  }
  const Graph graph = graph_from_edges(1 + kLayers * kLayer, tails, heads, weights);
  ShortestPaths engine(graph, {GetParam(), SsspAlgorithm::bellman_ford});
  SsspQuery query;
  query.sources = {0};
  expect_same_result(reference_run(graph, query), engine.run(query));
}

TEST_P(VulkanSsspIsEquivalentToRef, BatchesAndPathsOnOneResidentGraph) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Graph graph = random_graph(2000, 7000, 5, EdgeWeights::ties);
  ShortestPaths engine(graph, {GetParam(), SsspAlgorithm::bellman_ford});
  std::vector<SsspQuery> queries;
  for (NodeId s = 0; s < 8; ++s) {
    SsspQuery q;
    q.sources = {s * 211};
    q.target = 1999 - s * 97;
    queries.push_back(q);
  }
  const std::vector<SsspResult> batch = engine.run_batch(queries);
  const std::vector<SsspPath> paths = engine.paths(queries);
  ASSERT_EQ(batch.size(), queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    SCOPED_TRACE("query " + std::to_string(i));
    const SsspResult expected = reference_run(graph, queries[i]);
    expect_same_result(expected, batch[i]);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(paths[i].distance),
              std::bit_cast<std::uint32_t>(expected.distance[queries[i].target]));
    EXPECT_EQ(paths[i].nodes, path_to(expected, queries[i].target));
  }
}

TEST_P(VulkanSsspIsEquivalentToRef, OtherAlgorithmsAreRefused) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Graph graph = random_graph(20, 60, 1, EdgeWeights::ties);
  for (SsspAlgorithm a : {SsspAlgorithm::dijkstra, SsspAlgorithm::delta_stepping, SsspAlgorithm::spfa}) {
    EXPECT_THROW(ShortestPaths(graph, {GetParam(), a}), UsageError);
  }
}

INSTANTIATE_TEST_SUITE_P(Vulkan, VulkanSsspIsEquivalentToRef, ::testing::Values(Backend::vulkan),
                         testing::backend_test_name);

}  // namespace
}  // namespace trellis::graph
