// What the shortest-path tests share: seeded random graphs with the awkward
// parts, and the parity check of a result against reference Dijkstra's
// (include/trellis/graph/sssp.hpp: distances bitwise, parents identical).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "trellis/graph/graph.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::graph {

enum class EdgeWeights {
  reals,          // uniform in [0, 10)
  ties,           // from a small set with repeats, zero among them
  powers_of_two,  // 2^-20 .. 2^20: sums that round
};

// Random graphs with the awkward parts: the weights asked for, duplicate
// edges (sometimes cheaper), self-loops, and a part no source reaches.
inline Graph random_graph(NodeId nodes, std::int64_t edges, std::uint64_t seed, EdgeWeights kind) {
  std::mt19937_64 rng(seed);
  const NodeId reachable = nodes - nodes / 10;  // the last tenth only links among itself
  std::uniform_int_distribution<NodeId> any(0, reachable - 1);
  std::uniform_int_distribution<NodeId> island(reachable, nodes - 1);
  std::uniform_real_distribution<float> real(0.0f, 10.0f);
  std::uniform_real_distribution<float> exponent(-20.0f, 20.0f);
  const float ties[] = {0.0f, 0.5f, 1.0f, 1.0f, 1.5f, 3.0f};
  std::uniform_int_distribution<int> tie(0, 5);
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  for (std::int64_t e = 0; e < edges; ++e) {
    const bool in_island = nodes - reachable > 1 && e % 10 == 0;
    NodeId u = in_island ? island(rng) : any(rng);
    NodeId v = in_island ? island(rng) : any(rng);
    if (e % 97 == 0) v = u;  // self-loop
    Weight w = 0;
    switch (kind) {
      case EdgeWeights::reals:
        w = real(rng);
        break;
      case EdgeWeights::ties:
        w = ties[tie(rng)];
        break;
      case EdgeWeights::powers_of_two:
        w = std::exp2(exponent(rng));
        break;
    }
    tails.push_back(u);
    heads.push_back(v);
    weights.push_back(w);
    if (e % 13 == 0) {  // duplicate edge, sometimes cheaper
      tails.push_back(u);
      heads.push_back(v);
      weights.push_back(w * 0.5f);
    }
  }
  return graph_from_edges(nodes, tails, heads, weights);
}

inline Graph random_graph(NodeId nodes, std::int64_t edges, std::uint64_t seed, bool tie_weights) {
  return random_graph(nodes, edges, seed, tie_weights ? EdgeWeights::ties : EdgeWeights::reals);
}

inline void expect_same_result(const SsspResult& expected, const SsspResult& actual, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(actual.distance.size(), expected.distance.size());
  EXPECT_EQ(actual.reached, expected.reached);
  int reported = 0;
  for (std::size_t v = 0; v < expected.distance.size() && reported < 5; ++v) {
    if (std::bit_cast<std::uint32_t>(actual.distance[v]) != std::bit_cast<std::uint32_t>(expected.distance[v])) {
      ADD_FAILURE() << "node " << v << ": distance " << actual.distance[v] << " vs reference " << expected.distance[v];
      ++reported;
    }
  }
  ASSERT_EQ(actual.parent.size(), expected.parent.size());
  for (std::size_t v = 0; v < expected.parent.size() && reported < 5; ++v) {
    if (actual.parent[v] != expected.parent[v]) {
      ADD_FAILURE() << "node " << v << ": parent " << actual.parent[v] << " vs reference " << expected.parent[v];
      ++reported;
    }
  }
}

inline SsspResult reference_run(const Graph& graph, const SsspQuery& query) {
  return shortest_paths(graph, query, {Backend::reference, SsspAlgorithm::dijkstra});
}

}  // namespace trellis::graph
