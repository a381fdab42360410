// Shortest paths on every backend and algorithm against reference Dijkstra:
// distances bitwise, parents (hence paths) identical, reached counts equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sssp_parity.hpp"
#include "support/backends.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::graph {
namespace {

struct Combo {
  Backend backend;
  SsspAlgorithm algorithm;
};

std::string combo_name(const Combo& c) {
  std::string name = std::string(to_string(c.backend)) + "_" + std::string(to_string(c.algorithm));
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

void PrintTo(const Combo& c, std::ostream* out) { *out << combo_name(c); }

const std::vector<Combo>& combos() {
  static const std::vector<Combo> all{{Backend::cpu, SsspAlgorithm::delta_stepping},
                                      {Backend::cuda, SsspAlgorithm::bellman_ford},
                                      {Backend::cuda, SsspAlgorithm::delta_stepping},
                                      {Backend::cuda, SsspAlgorithm::spfa}};
  return all;
}

// The path follows real edges, starts at a source, and its weights add up to
// the target's distance exactly as the search added them.
void expect_valid_path(const Graph& graph, const SsspQuery& query, const SsspResult& result, NodeId target) {
  std::vector<NodeId> path = path_to(result, target);
  if (result.distance[target] == kUnreachable) {
    EXPECT_TRUE(path.empty());
    return;
  }
  ASSERT_FALSE(path.empty());
  EXPECT_NE(std::find(query.sources.begin(), query.sources.end(), path.front()), query.sources.end());
  EXPECT_EQ(path.back(), target);
  Weight d = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const NodeId u = path[i - 1], v = path[i];
    Weight best = kUnreachable;
    for (RowOffset k = graph.csr.row_offsets[u]; k < graph.csr.row_offsets[u + 1]; ++k) {
      if (graph.csr.col_indices[k] != v) continue;
      const Weight w = query.node_cost.empty() ? graph.csr.values[k] : graph.csr.values[k] + query.node_cost[v];
      if (d + w == result.distance[v]) best = d + w;
    }
    ASSERT_NE(best, kUnreachable) << "no tight edge " << u << " -> " << v;
    d = best;
  }
  EXPECT_EQ(d, result.distance[target]);
}

// ---- Parity on the seed's lattice sizes ------------------------------------

class SeedLatticeParity : public ::testing::TestWithParam<std::tuple<Combo, std::string>> {};

TEST_P(SeedLatticeParity, CornerToCornerAndFullSearchMatchDijkstra) {
  const auto& [combo, preset_name] = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  const LatticePreset& preset = lattice_preset(preset_name);
  const Graph graph = routing_lattice(preset.spec);
  const NodeId corner = lattice_node(preset.spec, 0, 0, 0);
  const NodeId far_corner =
      lattice_node(preset.spec, preset.spec.width - 1, preset.spec.height - 1, preset.spec.layers - 1);
  ShortestPaths engine(graph, {combo.backend, combo.algorithm});

  SsspQuery to_corner{{corner}, far_corner, {}};
  SsspResult expected = reference_run(graph, to_corner);
  ASSERT_NE(expected.distance[far_corner], kUnreachable);
  SsspResult actual = engine.run(to_corner);
  expect_same_result(expected, actual, "corner to corner");
  expect_valid_path(graph, to_corner, actual, far_corner);
  EXPECT_GT(actual.edges_relaxed, 0);

  SsspQuery everything{{far_corner}, -1, {}};
  expect_same_result(reference_run(graph, everything), engine.run(everything), "single source, all nodes");
}

INSTANTIATE_TEST_SUITE_P(Sizes, SeedLatticeParity,
                         ::testing::Combine(::testing::ValuesIn(combos()),
                                            ::testing::Values("seed-2k", "seed-8k", "seed-30k", "seed-60k", "seed-180k",
                                                              "seed-401k")),
                         [](const auto& param_info) {
                           std::string preset = std::get<1>(param_info.param);
                           for (char& ch : preset) {
                             if (ch == '-') ch = '_';
                           }
                           return combo_name(std::get<0>(param_info.param)) + "_" + preset;
                         });

// ---- Parity on random graphs with ties, zeros, duplicates, loops -----------

class RandomGraphParity : public ::testing::TestWithParam<std::tuple<Combo, int>> {};

TEST_P(RandomGraphParity, MatchesDijkstra) {
  const auto& [combo, kind] = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const NodeId n = kind == 0 ? 50 : kind == 1 ? 3000 : 20000;
    const Graph graph = random_graph(n, 4LL * n, seed * 31 + kind, /*tie_weights=*/seed % 2 == 1);
    ShortestPaths engine(graph, {combo.backend, combo.algorithm});
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<NodeId> node(0, n - 1);
    const std::string where = "seed " + std::to_string(seed);
    SsspQuery full{{node(rng)}, -1, {}};
    expect_same_result(reference_run(graph, full), engine.run(full), where + " full");
    SsspQuery targeted{{node(rng)}, node(rng), {}};
    SsspResult t = engine.run(targeted);
    expect_same_result(reference_run(graph, targeted), t, where + " targeted");
    expect_valid_path(graph, targeted, t, targeted.target);
    SsspQuery multi{{node(rng), node(rng), node(rng), node(rng)}, node(rng), {}};
    multi.sources.push_back(multi.sources.front());  // a repeated source is harmless
    expect_same_result(reference_run(graph, multi), engine.run(multi), where + " multi-source");
    std::vector<Weight> cost(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> c(0, 4);
    for (Weight& x : cost) x = 0.25f * static_cast<float>(c(rng));
    SsspQuery costly{{node(rng)}, -1, cost};
    SsspResult with_cost = engine.run(costly);
    expect_same_result(reference_run(graph, costly), with_cost, where + " node costs");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, RandomGraphParity, ::testing::Combine(::testing::ValuesIn(combos()), ::testing::Values(0, 1, 2)),
    [](const auto& param_info) {
      const int kind = std::get<1>(param_info.param);
      return combo_name(std::get<0>(param_info.param)) + (kind == 0 ? "_tiny" : kind == 1 ? "_small" : "_medium");
    });

// Sparse graphs whose nodes have at most one to five out-edges, built on a
// chain through every node (so a search is as many rounds deep as the graph
// has nodes), with ties, zero weights and duplicate edges among them.
class LowDegreeParity : public ::testing::TestWithParam<std::tuple<Combo, int>> {};

TEST_P(LowDegreeParity, MatchesDijkstra) {
  const auto& [combo, max_degree] = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed * 7 + static_cast<std::uint64_t>(max_degree));
    const NodeId n = seed % 2 == 0 ? 40 : 2500;
    std::uniform_int_distribution<NodeId> node(0, n - 1);
    std::uniform_int_distribution<int> degree(0, max_degree);
    const float ties[] = {0.0f, 1.0f, 1.0f, 2.0f, 3.0f};
    std::uniform_int_distribution<int> tie(0, 4);
    std::vector<NodeId> tails, heads;
    std::vector<Weight> weights;
    for (NodeId u = 0; u < n; ++u) {
      // Every node but the last has its successor among its edges, so most
      // of the graph is reached along long chains.
      const int d = u + 1 < n ? std::max(1, degree(rng)) : degree(rng);
      for (int e = 0; e < d; ++e) {
        NodeId v = e == 0 && u + 1 < n ? u + 1 : node(rng);
        if (e > 0 && e % 2 == 0) v = heads.back();  // a duplicate of the edge before, any weight
        tails.push_back(u);
        heads.push_back(v);
        weights.push_back(ties[tie(rng)]);
      }
    }
    const Graph graph = graph_from_edges(n, tails, heads, weights);
    ShortestPaths engine(graph, {combo.backend, combo.algorithm});
    const std::string where = "seed " + std::to_string(seed);
    SsspQuery full{{0}, -1, {}};
    expect_same_result(reference_run(graph, full), engine.run(full), where + " full");
    SsspQuery targeted{{node(rng), node(rng)}, node(rng), {}};
    SsspResult t = engine.run(targeted);
    expect_same_result(reference_run(graph, targeted), t, where + " targeted");
    expect_valid_path(graph, targeted, t, targeted.target);
  }
}

INSTANTIATE_TEST_SUITE_P(Degrees, LowDegreeParity,
                         ::testing::Combine(::testing::ValuesIn(combos()), ::testing::Values(1, 2, 3, 5)),
                         [](const auto& param_info) {
                           return combo_name(std::get<0>(param_info.param)) + "_degree_" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

LatticeSpec lattice_spec(std::int32_t width, std::int32_t height, std::int32_t layers, double obstacles,
                         std::uint64_t seed) {
  LatticeSpec spec;
  spec.width = width;
  spec.height = height;
  spec.layers = layers;
  spec.obstacle_fraction = obstacles;
  spec.seed = seed;
  return spec;
}

// Single searches on graphs too large for one block's shared memory (on
// cuda, Bellman-Ford cuts them into tiles, a block each, that hand labels
// across their borders): a lattice with obstacles (tiles by coordinates), a
// random graph with every awkward part (tiles by runs of ids, most edges
// crossing tiles), a long chain whose search is as deep as the graph, and a
// graph whose coordinates make one tile too large for a block.
class LargeGraphParity : public ::testing::TestWithParam<std::tuple<Combo, int>> {};

Graph large_graph(int kind) {
  if (kind == 0) return routing_lattice(lattice_spec(170, 130, 4, 0.15, 12));  // 88,400 nodes
  if (kind == 1) return random_graph(90000, 4LL * 90000, 77, /*tie_weights=*/true);
  if (kind == 3) {
    // Every node at one (x, y): one tile would hold the whole graph, more
    // than a block's shared memory, so the engine searches it otherwise.
    Graph graph = random_graph(120000, 3LL * 120000, 78, /*tie_weights=*/false);
    const auto n = static_cast<std::size_t>(graph.node_count());
    graph.coordinates = NodeCoordinates{std::vector<std::int32_t>(n, 4), std::vector<std::int32_t>(n, 7),
                                        std::vector<std::int32_t>(n, 0)};
    return graph;
  }
  const NodeId n = 70000;
  std::mt19937_64 rng(41);
  std::uniform_int_distribution<NodeId> node(0, n - 1);
  const float ties[] = {0.0f, 1.0f, 1.0f, 2.0f};
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  for (NodeId u = 0; u + 1 < n; ++u) {
    tails.push_back(u);
    heads.push_back(u + 1);
    weights.push_back(ties[u % 4]);
    if (u % 5 == 0) {  // a shortcut that is rarely shorter
      tails.push_back(u);
      heads.push_back(node(rng));
      weights.push_back(5000.0f);
    }
  }
  return graph_from_edges(n, tails, heads, weights);
}

std::string large_graph_name(int kind) {
  switch (kind) {
    case 0:
      return "_lattice";
    case 1:
      return "_random";
    case 2:
      return "_chain";
    default:
      return "_one_cell";
  }
}

TEST_P(LargeGraphParity, MatchesDijkstra) {
  const auto& [combo, kind] = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  const Graph graph = large_graph(kind);
  const NodeId n = graph.node_count();
  ShortestPaths engine(graph, {combo.backend, combo.algorithm});
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 100);
  std::uniform_int_distribution<NodeId> node(0, n - 1);
  for (int round = 0; round < 2; ++round) {
    const std::string where = "round " + std::to_string(round);
    SsspQuery full{{kind == 2 ? 0 : node(rng)}, -1, {}};
    expect_same_result(reference_run(graph, full), engine.run(full), where + " full");
    SsspQuery targeted{{node(rng)}, node(rng), {}};
    if (kind == 2) targeted = {{node(rng) / 4}, n - 1 - node(rng) / 4, {}};
    SsspResult t = engine.run(targeted);
    expect_same_result(reference_run(graph, targeted), t, where + " targeted");
    expect_valid_path(graph, targeted, t, targeted.target);
    SsspQuery multi{{node(rng), node(rng), node(rng), node(rng), node(rng)}, node(rng), {}};
    expect_same_result(reference_run(graph, multi), engine.run(multi), where + " multi-source");
    std::vector<Weight> cost(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> c(0, 4);
    for (Weight& x : cost) x = 0.5f * static_cast<float>(c(rng));
    SsspQuery costly{{node(rng)}, round == 0 ? -1 : node(rng), cost};
    SsspResult with_cost = engine.run(costly);
    expect_same_result(reference_run(graph, costly), with_cost, where + " node costs");
    SsspQuery source_is_target{{targeted.target}, targeted.target, {}};
    expect_same_result(reference_run(graph, source_is_target), engine.run(source_is_target),
                       where + " source is the target");
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, LargeGraphParity,
                         ::testing::Combine(::testing::ValuesIn(combos()), ::testing::Values(0, 1, 2, 3)),
                         [](const auto& param_info) {
                           const int kind = std::get<1>(param_info.param);
                           return combo_name(std::get<0>(param_info.param)) + large_graph_name(kind);
                         });

// ---- Batches ---------------------------------------------------------------

class BatchParity : public ::testing::TestWithParam<Combo> {};

// Batched queries with node costs and source sets on a graph of `spec`,
// against separate reference runs.
void expect_batch_matches_reference(const Combo& combo, const LatticeSpec& spec, int queries_wanted) {
  const Graph graph = routing_lattice(spec);
  const NodeId n = graph.node_count();
  std::mt19937_64 rng(spec.seed);
  std::uniform_int_distribution<NodeId> node(0, n - 1);
  std::uniform_int_distribution<int> cost(0, 5);
  std::vector<std::vector<Weight>> costs(static_cast<std::size_t>(queries_wanted));
  std::vector<SsspQuery> queries;
  for (int q = 0; q < queries_wanted; ++q) {
    SsspQuery query{{node(rng)}, q % 2 == 0 ? -1 : node(rng), {}};
    if (q % 3 == 1) query.sources.insert(query.sources.end(), {node(rng), node(rng)});
    if (q % 2 == 1) {
      costs[q].resize(static_cast<std::size_t>(n));
      for (Weight& x : costs[q]) x = 0.5f * static_cast<float>(cost(rng));
      query.node_cost = costs[q];
    }
    queries.push_back(query);
  }
  ShortestPaths engine(graph, {combo.backend, combo.algorithm});
  std::vector<SsspResult> batch = engine.run_batch(queries);
  ASSERT_EQ(batch.size(), queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    expect_same_result(reference_run(graph, queries[q]), batch[q], "query " + std::to_string(q));
  }
}

// On cuda, each size below takes another of the batch's regimes.
TEST_P(BatchParity, BatchOnAGraphThatFitsOneBlockWhole) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  expect_batch_matches_reference(GetParam(), lattice_spec(30, 20, 3, 0.1, 2), 9);  // 1,800 nodes: pull sweeps
}

TEST_P(BatchParity, BatchEqualsSeparateReferenceRuns) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  expect_batch_matches_reference(GetParam(), lattice_spec(40, 30, 4, 0.1, 9), 17);  // 4,800 nodes: labels in one block
}

TEST_P(BatchParity, BatchOnAGraphLargerThanOneBlock) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  expect_batch_matches_reference(GetParam(), lattice_spec(200, 100, 3, 0.05, 4), 6);  // 60,000 nodes: a cluster
}

TEST_P(BatchParity, BatchOnAGraphLargerThanACluster) {
  if (GetParam().backend != Backend::cuda) GTEST_SKIP() << "sized for the cuda engine's global-memory path";
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  // 910,000 nodes: more labels than 16 blocks' shared memory holds.
  expect_batch_matches_reference(GetParam(), lattice_spec(700, 650, 2, 0.02, 6), 3);
}

// Small graphs of every in-degree bound and size the cuda engine's pull
// sweeps are compiled for (in-degree 3, 4, 6, 8 on one to four nodes a
// thread of 1,024), and beyond them (in-degree 9, and a hub of 300, which
// take the push kernels): chains for depth, random in-edges with ties, zero
// weights, duplicates and self-loops, a node nobody reaches.
// run_batch_on_device: the same bits as run_batch (masking, parents,
// reached), with node costs from the host or from device memory; other
// backends refuse it, and run_batch refuses device costs.
TEST_P(BatchParity, ResultsLeftOnTheDeviceEqualHostResults) {
  const Graph graph = routing_lattice(lattice_spec(40, 30, 3, 0.1, 6));
  const NodeId n = graph.node_count();
  std::vector<Weight> cost(static_cast<std::size_t>(n));
  std::mt19937_64 rng(6);
  for (Weight& c : cost) c = 0.25f * static_cast<float>(rng() % 9);
  std::vector<SsspQuery> queries;
  for (NodeId q = 0; q < 7; ++q) {
    SsspQuery query{{(q * 331) % n}, q % 2 == 0 ? -1 : (q * 977 + 5) % n, {}};
    if (q % 3 != 0) query.node_cost = cost;
    queries.push_back(query);
  }
  if (GetParam().backend != Backend::cuda) {
    ShortestPaths engine(graph, {GetParam().backend, GetParam().algorithm});
    Weight distance = 0;
    NodeId parent = 0;
    EXPECT_THROW(engine.run_batch_on_device(queries, &distance, &parent), UsageError);
    SsspQuery on_device = queries[1];
    on_device.node_cost_on_device = true;
    EXPECT_THROW(engine.run(on_device), UsageError);
    return;
  }
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  ShortestPaths engine(graph, {GetParam().backend, GetParam().algorithm});
  const std::vector<SsspResult> host = engine.run_batch(queries);
  const DeviceArray<Weight> device_cost = DeviceArray<Weight>::from_host(cost);
  for (bool costs_on_device : {false, true}) {
    SCOPED_TRACE(costs_on_device ? "costs on the device" : "costs on the host");
    std::vector<SsspQuery> asked = queries;
    for (SsspQuery& query : asked) {
      if (costs_on_device && !query.node_cost.empty()) {
        query.node_cost = {device_cost.data(), device_cost.size()};
        query.node_cost_on_device = true;
      }
    }
    DeviceArray<Weight> distances(queries.size() * static_cast<std::size_t>(n));
    DeviceArray<NodeId> parents(distances.size());
    const std::vector<SsspResult> device = engine.run_batch_on_device(asked, distances.data(), parents.data());
    const std::vector<Weight> all_distances = distances.to_host();
    const std::vector<NodeId> all_parents = parents.to_host();
    ASSERT_EQ(device.size(), host.size());
    for (std::size_t q = 0; q < host.size(); ++q) {
      SsspResult got = device[q];
      EXPECT_TRUE(got.distance.empty() && got.parent.empty());
      got.distance.assign(all_distances.begin() + static_cast<std::ptrdiff_t>(q * n),
                          all_distances.begin() + static_cast<std::ptrdiff_t>((q + 1) * n));
      got.parent.assign(all_parents.begin() + static_cast<std::ptrdiff_t>(q * n),
                        all_parents.begin() + static_cast<std::ptrdiff_t>((q + 1) * n));
      expect_same_result(host[q], got, "query " + std::to_string(q));
    }
  }
  std::vector<Weight> bad = cost;
  bad[123] = -0.5f;
  const DeviceArray<Weight> device_bad = DeviceArray<Weight>::from_host(bad);
  SsspQuery query{{0}, -1, {device_bad.data(), device_bad.size()}, true};
  DeviceArray<Weight> distances(static_cast<std::size_t>(n));
  DeviceArray<NodeId> parents(static_cast<std::size_t>(n));
  try {
    engine.run_batch_on_device({&query, 1}, distances.data(), parents.data());
    ADD_FAILURE() << "a negative device cost was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("node 123"), std::string::npos) << error.what();
  }
  EXPECT_THROW(engine.run(query), UsageError);  // the host entry points read costs on the host
}

TEST_P(BatchParity, SmallGraphsOfEveryInDegree) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam().backend);
  const float ties[] = {0.0f, 0.5f, 1.0f, 1.0f, 3.0f};
  for (const NodeId n : {700, 1800, 3500}) {
    for (const int in_degree : {3, 4, 6, 8, 9, 300}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(n * 1000 + in_degree));
      std::uniform_int_distribution<NodeId> node(0, n - 2);  // node n - 1 has no in-edge
      std::uniform_int_distribution<int> tie(0, 4);
      std::vector<NodeId> tails, heads;
      std::vector<Weight> weights;
      const auto add = [&](NodeId u, NodeId v) {
        tails.push_back(u);
        heads.push_back(v);
        weights.push_back(ties[tie(rng)]);
      };
      for (NodeId v = 1; v + 1 < n; ++v) add(v - 1, v);
      // The bound reached at one node; the others take up to three more.
      const int hub_edges = std::min(in_degree, static_cast<int>(n) - 2) - 1;
      for (int e = 0; e < hub_edges; ++e) add(node(rng), n / 2);
      std::uniform_int_distribution<int> more(0, std::min(in_degree, 4) - 1);
      for (NodeId v = 0; v + 1 < n; ++v) {
        if (v == n / 2) continue;
        const int extra = more(rng);
        for (int e = 0; e < extra; ++e) add(e == 1 ? v : node(rng), v);  // e == 1: a self-loop
      }
      const Graph graph = graph_from_edges(n, tails, heads, weights);
      std::vector<SsspQuery> queries;
      std::vector<Weight> cost(static_cast<std::size_t>(n));
      for (Weight& x : cost) x = 0.25f * static_cast<float>(tie(rng));
      queries.push_back({{0}, -1, {}});
      queries.push_back({{node(rng), node(rng)}, node(rng), {}});
      queries.push_back({{node(rng)}, n - 1, cost});
      queries.push_back({{node(rng)}, -1, cost});
      ShortestPaths engine(graph, {GetParam().backend, GetParam().algorithm});
      const std::vector<SsspResult> batch = engine.run_batch(queries);
      ASSERT_EQ(batch.size(), queries.size());
      for (std::size_t q = 0; q < queries.size(); ++q) {
        expect_same_result(
            reference_run(graph, queries[q]), batch[q],
            "n " + std::to_string(n) + ", in-degree " + std::to_string(in_degree) + ", query " + std::to_string(q));
      }
      // One query alone takes the same kernels on cuda's Bellman-Ford.
      expect_same_result(reference_run(graph, queries[1]), engine.run(queries[1]),
                         "n " + std::to_string(n) + ", in-degree " + std::to_string(in_degree) + ", alone");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Combos, BatchParity, ::testing::ValuesIn(combos()),
                         [](const auto& param_info) { return combo_name(param_info.param); });

// ---- Mid-size graphs, the ones the device sanitizers search ----------------
//
// Every kind of query, single and batched, on a 40,000-node lattice (on cuda
// a single Bellman-Ford search runs on swept tiles, a batch with the labels
// in one block's shared memory) and a 60,000-node graph whose edges join
// nearby ids, with ties and zero weights (in-degrees above the sweeps' 8 in
// the tiles: queue-driven tiles; a batch in a thread-block cluster). Large
// enough to take those paths, small enough for compute-sanitizer's racecheck
// and memcheck: `--gtest_filter=*MidSizeGraphParity*cuda_bellman_ford*`.
class MidSizeGraphParity : public ::testing::TestWithParam<std::tuple<Combo, int>> {};

Graph nearby_ids_graph(NodeId n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<NodeId> offset(-30, 30);
  const float ties[] = {0.0f, 1.0f, 1.0f, 2.0f, 3.0f};
  std::uniform_int_distribution<int> tie(0, 4);
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  for (NodeId u = 0; u < n; ++u) {
    for (int e = 0; e < 5; ++e) {
      tails.push_back(u);
      heads.push_back(std::clamp<NodeId>(u + offset(rng), 0, n - 1));
      weights.push_back(ties[tie(rng)]);
    }
  }
  return graph_from_edges(n, tails, heads, weights);
}

TEST_P(MidSizeGraphParity, EveryKindOfQueryMatchesDijkstra) {
  const auto& [combo, kind] = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  const Graph graph = kind == 0 ? routing_lattice(lattice_spec(200, 100, 2, 0.1, 40)) : nearby_ids_graph(60000, 43);
  const NodeId n = graph.node_count();
  ShortestPaths engine(graph, {combo.backend, combo.algorithm});
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 400);
  std::uniform_int_distribution<NodeId> node(0, n - 1);
  std::vector<Weight> cost(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> c(0, 4);
  for (Weight& x : cost) x = 0.5f * static_cast<float>(c(rng));
  std::vector<SsspQuery> queries{{{node(rng)}, -1, {}},
                                 {{node(rng)}, node(rng), {}},
                                 {{node(rng), node(rng), node(rng)}, node(rng), {}},
                                 {{node(rng)}, node(rng), cost}};
  for (std::size_t q = 0; q < queries.size(); ++q) {
    SsspResult result = engine.run(queries[q]);
    expect_same_result(reference_run(graph, queries[q]), result, "query " + std::to_string(q));
    if (queries[q].target >= 0) expect_valid_path(graph, queries[q], result, queries[q].target);
  }
  std::vector<SsspResult> batch = engine.run_batch(queries);
  ASSERT_EQ(batch.size(), queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    expect_same_result(reference_run(graph, queries[q]), batch[q], "batched query " + std::to_string(q));
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, MidSizeGraphParity,
                         ::testing::Combine(::testing::ValuesIn(combos()), ::testing::Values(0, 1)),
                         [](const auto& param_info) {
                           return combo_name(std::get<0>(param_info.param)) +
                                  (std::get<1>(param_info.param) == 0 ? "_lattice_40k" : "_nearby_ids_60k");
                         });

// ---- Queries shaped like an autorouter's ------------------------------------
//
// What the router asks: a lattice with pin nodes hanging off it by tiny and
// zero weights, costs of 1e9 outside a search window (sums there round in
// float), fractional congestion costs inside it, a partly routed net as the
// source set, and batches of every size, including one (a grid-wide search
// on cuda) and many (one block per search, keys in global memory).

struct RouterLikeBoard {
  LatticeSpec spec;
  Graph graph;
  NodeId first_pin = 0;  // pins are the last nodes; pin p hangs off pad p - pins
  NodeId pins = 0;
};

RouterLikeBoard router_like_board() {
  RouterLikeBoard board;
  board.spec.width = 150;
  board.spec.height = 110;
  board.spec.layers = 3;
  board.spec.obstacle_fraction = 0.03;
  board.spec.seed = 21;
  const Graph lattice = routing_lattice(board.spec);
  const NodeId grid = lattice.node_count();
  const NodeId pads = 300;
  board.pins = pads;
  board.first_pin = grid + pads;
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  for (NodeId u = 0; u < grid; ++u) {
    for (RowOffset k = lattice.csr.row_offsets[u]; k < lattice.csr.row_offsets[u + 1]; ++k) {
      tails.push_back(u);
      heads.push_back(lattice.csr.col_indices[k]);
      weights.push_back(lattice.csr.values[k]);
    }
  }
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<NodeId> on_top(0, board.spec.width * board.spec.height - 1);
  for (NodeId p = 0; p < pads; ++p) {
    const NodeId pad = grid + p;
    const NodeId pin = board.first_pin + p;
    for (int stub = 0; stub < 3; ++stub) {  // stubs to the grid, both ways
      const NodeId g = on_top(rng);
      tails.insert(tails.end(), {pad, g});
      heads.insert(heads.end(), {g, pad});
      weights.insert(weights.end(), {1.0f, 1.0f});
    }
    tails.insert(tails.end(), {pad, pin});
    heads.insert(heads.end(), {pin, pad});
    weights.insert(weights.end(), {1.0f / 1024, 0.0f});
  }
  board.graph = graph_from_edges(board.first_pin + pads, tails, heads, weights);
  return board;
}

class RouterLikeParity : public ::testing::TestWithParam<Combo> {};

TEST_P(RouterLikeParity, WindowedCostlyMultiSourceBatchesMatchDijkstra) {
  const Combo combo = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  const RouterLikeBoard board = router_like_board();
  const NodeId n = board.graph.node_count();
  const NodeId plane = board.spec.width * board.spec.height;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> history(0.0f, 20.0f);
  std::uniform_int_distribution<int> kind(0, 9);
  ShortestPaths engine(board.graph, {combo.backend, combo.algorithm});
  for (const int batch_size : {1, 2, 7, 24, 1, 5}) {
    std::vector<std::vector<Weight>> costs(static_cast<std::size_t>(batch_size));
    std::vector<SsspQuery> queries;
    for (int q = 0; q < batch_size; ++q) {
      // A window of the lattice, all layers; everything else costs 1e9.
      std::uniform_int_distribution<int> size(8, 60);
      const int w = size(rng), h = size(rng);
      std::uniform_int_distribution<int> x0(0, board.spec.width - w), y0(0, board.spec.height - h);
      const int left = x0(rng), top = y0(rng);
      auto& cost = costs[static_cast<std::size_t>(q)];
      cost.assign(static_cast<std::size_t>(n), 1e9f);
      std::vector<NodeId> inside;
      for (int layer = 0; layer < board.spec.layers; ++layer) {
        for (int y = top; y < top + h; ++y) {
          for (int x = left; x < left + w; ++x) {
            const NodeId v = x + board.spec.width * (y + board.spec.height * layer);
            const int k = kind(rng);
            cost[static_cast<std::size_t>(v)] = k < 4 ? 0.0f : k < 8 ? history(rng) : 137.25f + history(rng);
            inside.push_back(v);
          }
        }
      }
      for (NodeId p = 0; p < board.pins; ++p) {  // pads whose stubs land inside, and their pins
        const NodeId pad = plane * board.spec.layers + p;
        cost[static_cast<std::size_t>(pad)] = 0.0f;
        cost[static_cast<std::size_t>(board.first_pin) + static_cast<std::size_t>(p)] = 0.0f;
      }
      // The routed part of the net: a walk through the window, plus a pin.
      std::uniform_int_distribution<std::size_t> pick(0, inside.size() - 1);
      std::uniform_int_distribution<NodeId> any_pin(board.first_pin, n - 1);
      SsspQuery query;
      NodeId at = inside[pick(rng)];
      const int steps = 1 + kind(rng) * 4;
      for (int s = 0; s < steps; ++s) {
        query.sources.push_back(at);
        const RowOffset first = board.graph.csr.row_offsets[at], last = board.graph.csr.row_offsets[at + 1];
        if (first == last) break;
        at = board.graph.csr
                 .col_indices[first + static_cast<RowOffset>(rng() % static_cast<std::uint64_t>(last - first))];
      }
      if (q % 3 == 0) query.sources.push_back(any_pin(rng));
      query.target = q % 4 == 1 ? any_pin(rng) : inside[pick(rng)];
      query.node_cost = cost;
      queries.push_back(std::move(query));
    }
    std::vector<SsspResult> batch = engine.run_batch(queries);
    std::vector<SsspPath> paths = engine.paths(queries);
    ASSERT_EQ(batch.size(), queries.size());
    ASSERT_EQ(paths.size(), queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const std::string what = "batch of " + std::to_string(batch_size) + ", query " + std::to_string(q);
      const SsspResult expected = reference_run(board.graph, queries[q]);
      expect_same_result(expected, batch[q], what);
      SCOPED_TRACE(what);
      expect_valid_path(board.graph, queries[q], batch[q], queries[q].target);
      const auto target = static_cast<std::size_t>(queries[q].target);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(paths[q].distance),
                std::bit_cast<std::uint32_t>(expected.distance[target]));
      EXPECT_EQ(paths[q].nodes, path_to(expected, queries[q].target));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Combos, RouterLikeParity, ::testing::ValuesIn(combos()),
                         [](const auto& param_info) { return combo_name(param_info.param); });

// paths() on the awkward random graphs: ties, zero weights, duplicate edges,
// self-loops, unreachable targets, sources that are the target, repeated
// sources, and many queries reusing the same scratch.
class PathsParity : public ::testing::TestWithParam<Combo> {};

TEST_P(PathsParity, PathsEqualThePathsOfWholeReferenceResults) {
  const Combo combo = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const NodeId n = seed <= 2 ? 60 : 5000;
    const Graph graph = random_graph(n, 3LL * n, seed * 7, /*tie_weights=*/seed % 2 == 1);
    ShortestPaths engine(graph, {combo.backend, combo.algorithm});
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<NodeId> node(0, n - 1);
    std::uniform_int_distribution<int> c(0, 3);
    std::vector<std::vector<Weight>> costs(40);
    std::vector<SsspQuery> queries;
    for (int q = 0; q < 40; ++q) {
      SsspQuery query{{node(rng)}, node(rng), {}};
      if (q % 5 == 0) query.target = query.sources.front();
      if (q % 3 == 0) query.sources.insert(query.sources.end(), {node(rng), node(rng), query.sources.front()});
      if (q % 2 == 1) {
        costs[q].resize(static_cast<std::size_t>(n));
        for (Weight& x : costs[q]) x = 0.5f * static_cast<float>(c(rng));
        query.node_cost = costs[q];
      }
      queries.push_back(query);
    }
    const std::vector<SsspPath> paths = engine.paths(queries);
    ASSERT_EQ(paths.size(), queries.size());
    int unreachable = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", query " + std::to_string(q));
      const SsspResult expected = reference_run(graph, queries[q]);
      const auto target = static_cast<std::size_t>(queries[q].target);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(paths[q].distance),
                std::bit_cast<std::uint32_t>(expected.distance[target]));
      EXPECT_EQ(paths[q].nodes, path_to(expected, queries[q].target));
      if (expected.distance[target] == kUnreachable) ++unreachable;
    }
    if (seed > 2) {
      EXPECT_GT(unreachable, 0) << "the island should hold some targets";
    }
  }
}

TEST_P(PathsParity, RejectsQueriesWithoutATargetAndBadCosts) {
  const Combo combo = GetParam();
  TRELLIS_SKIP_UNLESS_AVAILABLE(combo.backend);
  const Graph graph = random_graph(50, 150, 3, true);
  ShortestPaths engine(graph, {combo.backend, combo.algorithm});
  std::vector<SsspQuery> untargeted{{{0}, 5, {}}, {{1}, -1, {}}};
  EXPECT_THROW(engine.paths(untargeted), UsageError);
  std::vector<Weight> nan_cost(50, 0.0f);
  nan_cost[7] = std::numeric_limits<float>::quiet_NaN();
  std::vector<SsspQuery> bad_cost{{{0}, 5, {}}, {{1}, 4, nan_cost}};
  EXPECT_THROW(engine.paths(bad_cost), UsageError);
  std::vector<SsspQuery> out_of_range{{{0}, 50, {}}};
  EXPECT_THROW(engine.paths(out_of_range), UsageError);
  ShortestPaths without_parents(graph, {combo.backend, combo.algorithm, 0, /*parents=*/false});
  std::vector<SsspQuery> fine{{{0}, 5, {}}};
  EXPECT_THROW(without_parents.paths(fine), UsageError);
}

INSTANTIATE_TEST_SUITE_P(Combos, PathsParity, ::testing::ValuesIn(combos()),
                         [](const auto& param_info) { return combo_name(param_info.param); });

// ---- The reference itself and the argument checks ---------------------------

TEST(Dijkstra, KnownDistancesAndTheParentRule) {
  // 0 -> 1 (1), 0 -> 2 (1), 1 -> 3 (1), 2 -> 3 (1), 3 -> 4 (0), 4 -> 3 (0), 5 isolated.
  // Node 3 has two tight in-edges at the same hop count: the smaller id wins.
  std::vector<NodeId> tails{0, 0, 2, 1, 3, 4};
  std::vector<NodeId> heads{2, 1, 3, 3, 4, 3};
  std::vector<Weight> weights{1, 1, 1, 1, 0, 0};
  const Graph graph = graph_from_edges(6, tails, heads, weights);
  SsspResult r = reference_run(graph, {{0}, -1, {}});
  EXPECT_EQ(r.distance, (std::vector<Weight>{0, 1, 1, 2, 2, kUnreachable}));
  EXPECT_EQ(r.parent, (std::vector<NodeId>{kNoParent, 0, 0, 1, 3, kNoParent}));
  EXPECT_EQ(r.reached, 5);
  EXPECT_EQ(path_to(r, 4), (std::vector<NodeId>{0, 1, 3, 4}));
  EXPECT_TRUE(path_to(r, 5).empty());
}

TEST(Dijkstra, TargetedSearchReportsOnlySettledNodes) {
  // A path 0 - 1 - 2 - 3 with unit weights: searching 0 -> 1 settles 0 and 1.
  std::vector<NodeId> tails{0, 1, 2};
  std::vector<NodeId> heads{1, 2, 3};
  std::vector<Weight> weights{1, 1, 1};
  const Graph graph = graph_from_edges(4, tails, heads, weights);
  SsspResult r = reference_run(graph, {{0}, 1, {}});
  EXPECT_EQ(r.distance, (std::vector<Weight>{0, 1, kUnreachable, kUnreachable}));
  EXPECT_EQ(r.reached, 2);
}

TEST(Sssp, RejectsBadQueries) {
  std::vector<NodeId> tails{0};
  std::vector<NodeId> heads{1};
  std::vector<Weight> weights{1};
  const Graph graph = graph_from_edges(3, tails, heads, weights);
  EXPECT_THROW(reference_run(graph, {{}, -1, {}}), UsageError);
  EXPECT_THROW(reference_run(graph, {{3}, -1, {}}), UsageError);
  EXPECT_THROW(reference_run(graph, {{-1}, -1, {}}), UsageError);
  EXPECT_THROW(reference_run(graph, {{0}, 7, {}}), UsageError);
  std::vector<Weight> short_cost{1, 2};
  EXPECT_THROW(reference_run(graph, {{0}, -1, short_cost}), UsageError);
  std::vector<Weight> negative{0, -1, 0};
  EXPECT_THROW(reference_run(graph, {{0}, -1, negative}), UsageError);
  std::vector<Weight> nan_cost{0, std::numeric_limits<float>::quiet_NaN(), 0};
  EXPECT_THROW(reference_run(graph, {{0}, -1, nan_cost}), UsageError);
  EXPECT_THROW(ShortestPaths(graph, {Backend::reference, SsspAlgorithm::spfa}), UsageError);
  EXPECT_THROW(ShortestPaths(graph, {Backend::cpu, SsspAlgorithm::dijkstra}), UsageError);
  EXPECT_THROW(ShortestPaths(graph, {Backend::cpu, SsspAlgorithm::delta_stepping, -1.0f}), UsageError);
  EXPECT_THROW(parse_sssp_algorithm("a-star"), UsageError);
  EXPECT_EQ(parse_sssp_algorithm("bellman-ford"), SsspAlgorithm::bellman_ford);
}

// A cost array of a million entries: a bad entry anywhere, the last one
// included, is found and named.
TEST(Sssp, ALargeCostArrayIsCheckedEntryByEntry) {
  constexpr NodeId n = 1 << 20;
  std::vector<NodeId> tails{0};
  std::vector<NodeId> heads{1};
  std::vector<Weight> weights{1};
  const Graph graph = graph_from_edges(n, tails, heads, weights);
  ShortestPaths engine(graph, {Backend::cpu, SsspAlgorithm::delta_stepping});
  std::vector<Weight> costs(static_cast<std::size_t>(n), 0.5f);
  const std::vector<SsspQuery> fine{{{0}, 1, costs}};
  EXPECT_EQ(engine.paths(fine).front().distance, 1.5f);
  for (const NodeId at : {NodeId{1}, n / 2 + 3, n - 1}) {
    for (const Weight bad : {-0.25f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      std::vector<Weight> with_bad = costs;
      with_bad[static_cast<std::size_t>(at)] = bad;
      const std::vector<SsspQuery> query{{{0}, 1, with_bad}};
      try {
        engine.paths(query);
        ADD_FAILURE() << "cost " << bad << " at node " << at << " was accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("of node " + std::to_string(at) + " "), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Sssp, VouchedCostsAreCheckedForLengthOnly) {
  // A caller that built its costs vouches for their values: a bad value far
  // from the search is then not looked at (the router's graph-sized arrays),
  // while a wrong length still is.
  std::vector<NodeId> tails{0, 1, 2};
  std::vector<NodeId> heads{1, 2, 3};
  std::vector<Weight> weights{1, 1, 1};
  const Graph graph = graph_from_edges(5, tails, heads, weights);
  ShortestPaths engine(graph, {Backend::cpu, SsspAlgorithm::automatic});
  std::vector<Weight> costs{0, 0.5f, 0.25f, 0, -1};  // node 4 is isolated
  std::vector<SsspQuery> query{{{0}, 3, costs}};
  EXPECT_THROW(engine.paths(query), UsageError);
  query.front().node_cost_vouched = true;
  const SsspPath path = engine.paths(query).front();
  EXPECT_EQ(path.distance, 3.75f);
  EXPECT_EQ(path.nodes, (std::vector<NodeId>{0, 1, 2, 3}));
  const std::vector<Weight> short_costs(4, 0.0f);
  query.front().node_cost = short_costs;
  EXPECT_THROW(engine.paths(query), UsageError);
}

TEST(Sssp, CpuDeltaSteppingCopesWithHugeDistancesAndTinyDelta) {
  // Distances far beyond delta * the bucket window exercise the overflow list.
  std::vector<NodeId> tails{0, 1, 2, 0};
  std::vector<NodeId> heads{1, 2, 3, 3};
  std::vector<Weight> weights{1e30f, 1e-3f, 3e30f, 5e30f};
  const Graph graph = graph_from_edges(4, tails, heads, weights);
  SsspQuery query{{0}, -1, {}};
  SsspResult expected = reference_run(graph, query);
  SsspResult actual = shortest_paths(graph, query, {Backend::cpu, SsspAlgorithm::delta_stepping, 1e-6f});
  expect_same_result(expected, actual, "huge distances");
}

}  // namespace
}  // namespace trellis::graph
