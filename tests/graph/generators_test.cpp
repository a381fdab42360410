#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"

namespace trellis::graph {
namespace {

// Edge count of an obstacle-free lattice, by counting each kind of edge
// separately (independent of how the generator walks the nodes).
std::int64_t expected_lattice_edges(std::int64_t w, std::int64_t h, std::int64_t layers, bool both_directions,
                                    bool any_layer_vias) {
  std::int64_t edges = 0;
  for (std::int64_t l = 0; l < layers; ++l) {
    const bool horizontal = both_directions || l % 2 == 0;
    const bool vertical = both_directions || l % 2 == 1;
    if (horizontal) edges += 2 * (w - 1) * h;
    if (vertical) edges += 2 * w * (h - 1);
  }
  const std::int64_t layer_pairs = any_layer_vias ? layers * (layers - 1) / 2 : layers - 1;
  return edges + 2 * layer_pairs * w * h;
}

struct Edge {
  NodeId tail;
  NodeId head;
  Weight weight;
};

std::vector<Edge> edges_of(const Graph& graph) {
  std::vector<Edge> edges;
  for (NodeId u = 0; u < graph.node_count(); ++u) {
    for (RowOffset k = graph.csr.row_offsets[u]; k < graph.csr.row_offsets[u + 1]; ++k) {
      edges.push_back({u, graph.csr.col_indices[k], graph.csr.values[k]});
    }
  }
  return edges;
}

std::int32_t out_degree(const Graph& graph, NodeId u) {
  return static_cast<std::int32_t>(graph.csr.row_offsets[u + 1] - graph.csr.row_offsets[u]);
}

// Every edge u -> v of weight w has exactly one v -> u, also of weight w.
void expect_symmetric(const Graph& graph) {
  std::map<std::pair<NodeId, NodeId>, std::vector<Weight>> by_pair;
  for (const Edge& e : edges_of(graph)) by_pair[{e.tail, e.head}].push_back(e.weight);
  for (const auto& [pair, weights] : by_pair) {
    auto reverse = by_pair.find({pair.second, pair.first});
    ASSERT_NE(reverse, by_pair.end()) << pair.first << " -> " << pair.second << " has no reverse";
    EXPECT_EQ(reverse->second, weights) << pair.first << " <-> " << pair.second;
  }
}

bool graphs_identical(const Graph& a, const Graph& b) {
  return a.csr.rows == b.csr.rows && a.csr.row_offsets == b.csr.row_offsets && a.csr.col_indices == b.csr.col_indices &&
         a.csr.values == b.csr.values;
}

LatticeSpec lattice(std::int32_t w, std::int32_t h, std::int32_t layers) {
  LatticeSpec spec;
  spec.width = w;
  spec.height = h;
  spec.layers = layers;
  return spec;
}

// ---------------------------------------------------------------- lattice

class LatticeEdgeCount : public ::testing::TestWithParam<std::tuple<int, int, int, bool, bool>> {};

TEST_P(LatticeEdgeCount, MatchesFormula) {
  auto [w, h, layers, both, any] = GetParam();
  LatticeSpec spec = lattice(w, h, layers);
  spec.both_directions = both;
  spec.any_layer_vias = any;
  const Graph graph = routing_lattice(spec);
  const std::int64_t expected = expected_lattice_edges(w, h, layers, both, any);
  EXPECT_EQ(graph.node_count(), w * h * layers);
  EXPECT_EQ(graph.edge_count(), expected);
  EXPECT_EQ(lattice_edge_count(spec), expected);
  EXPECT_NO_THROW(graph.validate());
}

INSTANTIATE_TEST_SUITE_P(Shapes, LatticeEdgeCount,
                         ::testing::Values(std::make_tuple(7, 5, 1, false, false),
                                           std::make_tuple(7, 5, 2, false, false),
                                           std::make_tuple(7, 5, 4, false, false),
                                           std::make_tuple(7, 5, 4, true, false), std::make_tuple(7, 5, 4, false, true),
                                           std::make_tuple(7, 5, 5, true, true), std::make_tuple(1, 9, 3, false, false),
                                           std::make_tuple(9, 1, 3, true, true), std::make_tuple(1, 1, 6, false, true),
                                           std::make_tuple(1, 1, 1, true, true)));

TEST(LatticeEdgeCount, HandCountedSmallCase) {
  // 3 x 2, two layers: layer 0 horizontal 2 rows x 2 steps x 2 ways = 8,
  // layer 1 vertical 3 columns x 1 step x 2 ways = 6, vias 6 x 2 = 12.
  EXPECT_EQ(routing_lattice(lattice(3, 2, 2)).edge_count(), 26);
}

TEST(Lattice, NodeIdsAndCoordinates) {
  const LatticeSpec spec = lattice(5, 4, 3);
  const Graph graph = routing_lattice(spec);
  ASSERT_TRUE(graph.coordinates.has_value());
  const NodeCoordinates& c = *graph.coordinates;
  for (std::int32_t l = 0; l < 3; ++l) {
    for (std::int32_t y = 0; y < 4; ++y) {
      for (std::int32_t x = 0; x < 5; ++x) {
        const NodeId id = lattice_node(spec, x, y, l);
        EXPECT_EQ(id, x + 5 * (y + 4 * l));
        EXPECT_EQ(c.x[id], x);
        EXPECT_EQ(c.y[id], y);
        EXPECT_EQ(c.layer[id], l);
      }
    }
  }
  EXPECT_THROW(lattice_node(spec, 5, 0, 0), UsageError);
  EXPECT_THROW(lattice_node(spec, 0, -1, 0), UsageError);
  EXPECT_THROW(lattice_node(spec, 0, 0, 3), UsageError);
}

TEST(Lattice, EveryEdgeHasItsReverseWithTheSameWeight) {
  for (bool both : {false, true}) {
    for (bool any : {false, true}) {
      LatticeSpec spec = lattice(6, 5, 4);
      spec.both_directions = both;
      spec.any_layer_vias = any;
      spec.track_cost = 1.5f;
      spec.via_cost = 2.25f;
      spec.obstacle_fraction = 0.2;
      SCOPED_TRACE(testing::Message() << "both=" << both << " any=" << any);
      expect_symmetric(routing_lattice(spec));
    }
  }
}

TEST(Lattice, TracksFollowEachLayersPreferredDirection) {
  LatticeSpec spec = lattice(6, 5, 4);
  spec.track_cost = 1.5f;
  const Graph graph = routing_lattice(spec);
  const NodeCoordinates& c = *graph.coordinates;
  std::int64_t tracks = 0;
  for (const Edge& e : edges_of(graph)) {
    if (c.layer[e.tail] != c.layer[e.head]) continue;
    ++tracks;
    const int dx = std::abs(c.x[e.tail] - c.x[e.head]);
    const int dy = std::abs(c.y[e.tail] - c.y[e.head]);
    EXPECT_EQ(e.weight, 1.5f);
    if (c.layer[e.tail] % 2 == 0) {
      EXPECT_TRUE(dx == 1 && dy == 0) << "layer " << c.layer[e.tail] << " is horizontal";
    } else {
      EXPECT_TRUE(dx == 0 && dy == 1) << "layer " << c.layer[e.tail] << " is vertical";
    }
  }
  EXPECT_EQ(tracks, 2 * (2 * 5 * 5) + 2 * (2 * 6 * 4));
}

TEST(Lattice, BothDirectionsGivesEveryLayerBothKindsOfTrack) {
  LatticeSpec spec = lattice(4, 4, 3);
  spec.both_directions = true;
  const Graph graph = routing_lattice(spec);
  const NodeCoordinates& c = *graph.coordinates;
  std::set<std::pair<int, bool>> seen;  // (layer, horizontal)
  for (const Edge& e : edges_of(graph)) {
    if (c.layer[e.tail] != c.layer[e.head]) continue;
    const int dx = std::abs(c.x[e.tail] - c.x[e.head]);
    const int dy = std::abs(c.y[e.tail] - c.y[e.head]);
    ASSERT_EQ(dx + dy, 1);
    seen.insert({c.layer[e.tail], dx == 1});
  }
  EXPECT_EQ(seen.size(), 6u);
  // An interior node has all four tracks and two vias (middle layer).
  EXPECT_EQ(out_degree(graph, lattice_node(spec, 1, 2, 1)), 6);
}

TEST(Lattice, AdjacentLayerViasJoinTheSameXYAtViaCost) {
  LatticeSpec spec = lattice(3, 3, 4);
  spec.via_cost = 2.5f;
  const Graph graph = routing_lattice(spec);
  const NodeCoordinates& c = *graph.coordinates;
  std::int64_t vias = 0;
  for (const Edge& e : edges_of(graph)) {
    if (c.layer[e.tail] == c.layer[e.head]) continue;
    ++vias;
    EXPECT_EQ(c.x[e.tail], c.x[e.head]);
    EXPECT_EQ(c.y[e.tail], c.y[e.head]);
    EXPECT_EQ(std::abs(c.layer[e.tail] - c.layer[e.head]), 1);
    EXPECT_EQ(e.weight, 2.5f);
  }
  EXPECT_EQ(vias, 2 * 3 * 9);
}

TEST(Lattice, AnyLayerViasCostViaCostPerLayerCrossed) {
  LatticeSpec spec = lattice(2, 2, 5);
  spec.via_cost = 0.75f;
  spec.any_layer_vias = true;
  const Graph graph = routing_lattice(spec);
  const NodeCoordinates& c = *graph.coordinates;
  std::map<std::pair<int, int>, Weight> via_weight;  // (from layer, to layer) at (1, 0)
  for (const Edge& e : edges_of(graph)) {
    if (c.layer[e.tail] == c.layer[e.head]) continue;
    EXPECT_EQ(c.x[e.tail], c.x[e.head]);
    EXPECT_EQ(c.y[e.tail], c.y[e.head]);
    EXPECT_EQ(e.weight, 0.75f * static_cast<float>(std::abs(c.layer[e.tail] - c.layer[e.head])));
    if (c.x[e.tail] == 1 && c.y[e.tail] == 0) via_weight[{c.layer[e.tail], c.layer[e.head]}] = e.weight;
  }
  EXPECT_EQ(via_weight.size(), 20u);  // every ordered pair of 5 layers
  EXPECT_EQ((via_weight[{0, 4}]), 3.0f);
  EXPECT_EQ((via_weight[{3, 1}]), 1.5f);
}

TEST(Lattice, EdgesOfANodeComeInTheDocumentedOrder) {
  LatticeSpec spec = lattice(5, 4, 4);
  spec.both_directions = true;
  spec.any_layer_vias = true;
  spec.track_cost = 1;
  spec.via_cost = 10;
  const Graph graph = routing_lattice(spec);
  // Interior node on layer 2: vias to 0 and 1, four tracks, via to 3.
  const NodeId u = lattice_node(spec, 2, 1, 2);
  const std::vector<NodeId> expected_heads = {lattice_node(spec, 2, 1, 0), lattice_node(spec, 2, 1, 1),
                                              lattice_node(spec, 2, 0, 2), lattice_node(spec, 1, 1, 2),
                                              lattice_node(spec, 3, 1, 2), lattice_node(spec, 2, 2, 2),
                                              lattice_node(spec, 2, 1, 3)};
  const std::vector<Weight> expected_weights = {20, 10, 1, 1, 1, 1, 10};
  const auto begin = graph.csr.row_offsets[u];
  const auto end = graph.csr.row_offsets[u + 1];
  EXPECT_EQ(std::vector<NodeId>(graph.csr.col_indices.begin() + begin, graph.csr.col_indices.begin() + end),
            expected_heads);
  EXPECT_EQ(std::vector<Weight>(graph.csr.values.begin() + begin, graph.csr.values.begin() + end), expected_weights);
  for (NodeId v = 0; v < graph.node_count(); ++v) {
    EXPECT_TRUE(std::is_sorted(graph.csr.col_indices.begin() + graph.csr.row_offsets[v],
                               graph.csr.col_indices.begin() + graph.csr.row_offsets[v + 1]));
  }
}

TEST(Lattice, ObstaclesLoseEveryEdgeAndNoOtherEdgeGoes) {
  LatticeSpec spec = lattice(12, 10, 3);
  spec.both_directions = true;
  spec.any_layer_vias = true;
  spec.obstacle_fraction = 0.1;
  spec.seed = 7;
  const Graph blocked = routing_lattice(spec);
  LatticeSpec open = spec;
  open.obstacle_fraction = 0;
  const Graph full = routing_lattice(open);

  std::vector<bool> has_in_edge(blocked.node_count(), false);
  for (const Edge& e : edges_of(blocked)) has_in_edge[e.head] = true;
  std::set<NodeId> obstacles;
  for (NodeId u = 0; u < blocked.node_count(); ++u) {
    if (out_degree(blocked, u) == 0) {
      EXPECT_FALSE(has_in_edge[u]) << "node " << u << " has no edges out but some in";
      obstacles.insert(u);
    }
  }
  // 360 nodes, 6 kept free: round(0.1 * 354) = 35 obstacles.
  EXPECT_EQ(obstacles.size(), 35u);
  // Exactly the full lattice's edges that touch no obstacle remain, in order.
  std::vector<Edge> expected;
  for (const Edge& e : edges_of(full)) {
    if (!obstacles.contains(e.tail) && !obstacles.contains(e.head)) expected.push_back(e);
  }
  const std::vector<Edge> actual = edges_of(blocked);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t k = 0; k < actual.size(); ++k) {
    EXPECT_EQ(actual[k].tail, expected[k].tail);
    EXPECT_EQ(actual[k].head, expected[k].head);
    EXPECT_EQ(actual[k].weight, expected[k].weight);
  }
  EXPECT_EQ(lattice_edge_count(spec), blocked.edge_count());
  EXPECT_NO_THROW(blocked.validate());
}

TEST(Lattice, CornersStayFreeOnEveryLayer) {
  // With nearly every node blocked, the vias between the kept-free corners
  // still exist: both of their ends are never obstacles.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    LatticeSpec spec = lattice(5, 4, 4);
    spec.obstacle_fraction = 0.95;
    spec.seed = seed;
    const Graph graph = routing_lattice(spec);
    for (std::int32_t l = 0; l + 1 < spec.layers; ++l) {
      for (auto [x, y] : {std::pair{0, 0}, std::pair{4, 3}}) {
        const NodeId u = lattice_node(spec, x, y, l);
        const NodeId above = lattice_node(spec, x, y, l + 1);
        const auto row =
            std::span(graph.csr.col_indices)
                .subspan(graph.csr.row_offsets[u], graph.csr.row_offsets[u + 1] - graph.csr.row_offsets[u]);
        EXPECT_NE(std::find(row.begin(), row.end(), above), row.end())
            << "seed " << seed << ": via (" << x << ", " << y << ") layer " << l << " -> " << l + 1;
      }
    }
    // 80 nodes, 8 kept free: round(0.95 * 72) = 68 obstacles, so at most
    // 12 nodes keep any edge.
    std::int32_t with_edges = 0;
    for (NodeId u = 0; u < graph.node_count(); ++u) with_edges += out_degree(graph, u) > 0 ? 1 : 0;
    EXPECT_LE(with_edges, 12);
    EXPECT_GE(with_edges, 8);
  }
}

TEST(Lattice, SameSeedSameGraphOtherSeedOtherObstacles) {
  LatticeSpec spec = lattice(20, 15, 3);
  spec.obstacle_fraction = 0.25;
  spec.seed = 42;
  const Graph a = routing_lattice(spec);
  const Graph b = routing_lattice(spec);
  EXPECT_TRUE(graphs_identical(a, b));
  spec.seed = 43;
  const Graph c = routing_lattice(spec);
  EXPECT_FALSE(graphs_identical(a, c));
  std::int32_t differing_degrees = 0;
  for (NodeId u = 0; u < a.node_count(); ++u) differing_degrees += (out_degree(a, u) == 0) != (out_degree(c, u) == 0);
  EXPECT_GT(differing_degrees, 50);
}

TEST(Lattice, ZeroFractionDrawsNoObstacles) {
  LatticeSpec spec = lattice(9, 7, 3);
  spec.seed = 99;
  LatticeSpec other = spec;
  other.seed = 100;
  EXPECT_TRUE(graphs_identical(routing_lattice(spec), routing_lattice(other)));
}

TEST(Lattice, InvalidSpecsAreUsageErrors) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto rejects = [](auto change) {
    LatticeSpec spec = lattice(4, 4, 2);
    change(spec);
    EXPECT_THROW(routing_lattice(spec), UsageError);
    EXPECT_THROW(lattice_edge_count(spec), UsageError);
  };
  rejects([](LatticeSpec& s) { s.width = 0; });
  rejects([](LatticeSpec& s) { s.height = -3; });
  rejects([](LatticeSpec& s) { s.layers = 0; });
  rejects([](LatticeSpec& s) {
    s.width = 50000;
    s.height = 50000;
    s.layers = 1;
  });
  rejects([](LatticeSpec& s) {
    s.width = 1 << 16;
    s.height = 1 << 15;
    s.layers = 1;  // exactly 2^31 nodes: one too many
  });
  rejects([](LatticeSpec& s) { s.track_cost = -1; });
  rejects([=](LatticeSpec& s) { s.track_cost = nan; });
  rejects([=](LatticeSpec& s) { s.via_cost = inf; });
  rejects([](LatticeSpec& s) { s.via_cost = -0.5f; });
  rejects([](LatticeSpec& s) {
    s.via_cost = std::numeric_limits<float>::max();
    s.layers = 3;  // a two-layer via would cost infinity
  });
  rejects([](LatticeSpec& s) { s.obstacle_fraction = 1.0; });
  rejects([](LatticeSpec& s) { s.obstacle_fraction = -0.01; });
  rejects([](LatticeSpec& s) { s.obstacle_fraction = std::nan(""); });
  // Zero costs are allowed (the awkward case for shortest paths).
  LatticeSpec zero = lattice(3, 3, 2);
  zero.track_cost = 0;
  zero.via_cost = 0;
  EXPECT_NO_THROW(routing_lattice(zero).validate());
}

// ---------------------------------------------------------------- presets

TEST(LatticePreset, SeedSizesHaveExactNodeCounts) {
  const std::vector<std::pair<std::string, std::int64_t>> sizes = {{"seed-2k", 2000},     {"seed-8k", 8000},
                                                                   {"seed-30k", 30000},   {"seed-60k", 60000},
                                                                   {"seed-180k", 180000}, {"seed-401k", 401800}};
  for (const auto& [name, nodes] : sizes) {
    const LatticeSpec& spec = lattice_preset(name).spec;
    EXPECT_EQ(spec.node_count(), nodes) << name;
    EXPECT_GE(spec.layers, 2) << name;
    EXPECT_LE(spec.layers, 8) << name;
    EXPECT_EQ(spec.obstacle_fraction, 0.0) << name;
    EXPECT_FALSE(spec.any_layer_vias) << name;
    EXPECT_FALSE(spec.both_directions) << name;
  }
  const LatticeSpec& largest = lattice_preset("seed-401k").spec;
  EXPECT_EQ(largest.layers, 8);
  EXPECT_EQ(largest.width * largest.height, 245 * 205);
  EXPECT_EQ(expected_lattice_edges(largest.width, largest.height, 8, false, false), 1503150);
}

TEST(LatticePreset, LargePresetsHaveTheirScale) {
  // Arithmetic on the specs only; building them is for the CLI and benchmarks.
  const LatticeSpec& backplane = lattice_preset("backplane").spec;
  EXPECT_EQ(backplane.layers, 18);
  EXPECT_TRUE(backplane.any_layer_vias);
  EXPECT_NEAR(static_cast<double>(backplane.node_count()), 446000.0, 4460.0);
  const std::int64_t backplane_edges =
      expected_lattice_edges(backplane.width, backplane.height, 18, backplane.both_directions, true);
  EXPECT_GT(backplane_edges, 8'000'000);

  const LatticeSpec& board = lattice_preset("board-1.2m").spec;
  EXPECT_NEAR(static_cast<double>(board.node_count()), 1.2e6, 1.2e4);
  const std::int64_t board_edges =
      expected_lattice_edges(board.width, board.height, board.layers, board.both_directions, board.any_layer_vias);
  EXPECT_NEAR(static_cast<double>(board_edges), 40e6, 2e6);
}

TEST(LatticePreset, NamesAreUniqueAndUnknownNamesAreListed) {
  std::set<std::string> names;
  for (const LatticePreset& preset : lattice_presets()) {
    EXPECT_TRUE(names.insert(preset.name).second) << preset.name;
    EXPECT_FALSE(preset.description.empty()) << preset.name;
    EXPECT_EQ(&lattice_preset(preset.name), &preset);
  }
  EXPECT_EQ(names.size(), 8u);
  try {
    lattice_preset("seed-3k");
    FAIL() << "no such preset";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("seed-3k"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("board-1.2m"), std::string::npos);
  }
}

TEST(LatticePreset, SmallSeedPresetsBuildToTheirFormula) {
  for (const char* name : {"seed-2k", "seed-8k"}) {
    const LatticeSpec& spec = lattice_preset(name).spec;
    const Graph graph = routing_lattice(spec);
    EXPECT_EQ(graph.node_count(), spec.node_count());
    EXPECT_EQ(graph.edge_count(), expected_lattice_edges(spec.width, spec.height, spec.layers, false, false));
    EXPECT_NO_THROW(graph.validate());
  }
}

// ---------------------------------------------------------------- geometric

// The generator's points, redrawn as its header documents them.
std::vector<std::pair<double, double>> documented_points(NodeId n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::pair<double, double>> points;
  for (NodeId i = 0; i < n; ++i) {
    const double x = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    const double y = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    points.emplace_back(x, y);
  }
  return points;
}

TEST(Geometric, EdgesAreExactlyThePairsWithinTheRadius) {
  const NodeId n = 400;
  const double radius = 0.08;
  const Graph graph = random_geometric_graph(n, radius, 11);
  const auto points = documented_points(n, 11);
  std::vector<Edge> expected;
  for (NodeId u = 0; u < n; ++u) {
    for (NodeId v = 0; v < n; ++v) {
      const double dx = points[u].first - points[v].first;
      const double dy = points[u].second - points[v].second;
      if (u != v && dx * dx + dy * dy < radius * radius) {
        expected.push_back({u, v, static_cast<Weight>(std::hypot(dx, dy))});
      }
    }
  }
  const std::vector<Edge> actual = edges_of(graph);
  ASSERT_EQ(actual.size(), expected.size());
  ASSERT_GT(actual.size(), 1000u);  // about n^2 pi r^2 = 3200: not a trivial case
  for (std::size_t k = 0; k < actual.size(); ++k) {
    EXPECT_EQ(actual[k].tail, expected[k].tail);
    EXPECT_EQ(actual[k].head, expected[k].head);
    EXPECT_NEAR(actual[k].weight, expected[k].weight, 1e-6f);
    EXPECT_LT(actual[k].weight, radius);
  }
  expect_symmetric(graph);
  EXPECT_FALSE(graph.coordinates.has_value());
}

TEST(Geometric, LargeRadiusIsTheCompleteGraphAndTinyRadiusIsEmpty) {
  EXPECT_EQ(random_geometric_graph(50, 1.5, 3).edge_count(), 50 * 49);
  EXPECT_EQ(random_geometric_graph(50, 1e-9, 3).edge_count(), 0);
  EXPECT_EQ(random_geometric_graph(1, 0.5, 3).edge_count(), 0);
}

TEST(Geometric, SeededAndDeterministic) {
  EXPECT_TRUE(graphs_identical(random_geometric_graph(300, 0.1, 5), random_geometric_graph(300, 0.1, 5)));
  EXPECT_FALSE(graphs_identical(random_geometric_graph(300, 0.1, 5), random_geometric_graph(300, 0.1, 6)));
}

TEST(Geometric, InvalidArgumentsAreUsageErrors) {
  EXPECT_THROW(random_geometric_graph(0, 0.1, 1), UsageError);
  EXPECT_THROW(random_geometric_graph(-5, 0.1, 1), UsageError);
  EXPECT_THROW(random_geometric_graph(10, 0, 1), UsageError);
  EXPECT_THROW(random_geometric_graph(10, -0.1, 1), UsageError);
  EXPECT_THROW(random_geometric_graph(10, std::nan(""), 1), UsageError);
  EXPECT_THROW(random_geometric_graph(10, std::numeric_limits<double>::infinity(), 1), UsageError);
}

// ---------------------------------------------------------------- R-MAT

TEST(Rmat, CountsIdsAndWeights) {
  const Graph graph = rmat_graph(10, 8, 3);
  EXPECT_EQ(graph.node_count(), 1024);
  EXPECT_EQ(graph.edge_count(), 8 * 1024);
  EXPECT_NO_THROW(graph.validate());
  std::set<Weight> weights;
  for (const Edge& e : edges_of(graph)) {
    EXPECT_EQ(e.weight, std::floor(e.weight));
    weights.insert(e.weight);
  }
  EXPECT_EQ(*weights.begin(), 1.0f);
  EXPECT_EQ(*weights.rbegin(), 255.0f);
  EXPECT_GT(weights.size(), 250u);
}

TEST(Rmat, DegreesAreSkewedTowardsLowIds) {
  const Graph graph = rmat_graph(12, 16, 9);
  // Node 0 is in the a-quadrant at every level: the biggest hub.
  std::int32_t max_degree = 0;
  for (NodeId u = 0; u < graph.node_count(); ++u) max_degree = std::max(max_degree, out_degree(graph, u));
  EXPECT_EQ(out_degree(graph, 0), max_degree);
  EXPECT_GT(max_degree, 16 * 20);
  // The tail's top bit is clear with probability a + b = 0.76.
  const auto low_half = static_cast<double>(graph.csr.row_offsets[graph.node_count() / 2]);
  EXPECT_NEAR(low_half / static_cast<double>(graph.edge_count()), 0.76, 0.02);
}

TEST(Rmat, QuadrantConvention) {
  // a: both ids stay 0; b: only the head's bits; c: only the tail's bits.
  for (const Edge& e : edges_of(rmat_graph(5, 2, 1, 1.0, 0.0, 0.0))) EXPECT_TRUE(e.tail == 0 && e.head == 0);
  for (const Edge& e : edges_of(rmat_graph(5, 2, 1, 0.0, 1.0, 0.0))) EXPECT_TRUE(e.tail == 0 && e.head == 31);
  for (const Edge& e : edges_of(rmat_graph(5, 2, 1, 0.0, 0.0, 1.0))) EXPECT_TRUE(e.tail == 31 && e.head == 0);
  for (const Edge& e : edges_of(rmat_graph(5, 2, 1, 0.0, 0.0, 0.0))) EXPECT_TRUE(e.tail == 31 && e.head == 31);
  for (const Edge& e : edges_of(rmat_graph(5, 2, 1, 0.57, 0.19, 0.19, 1))) EXPECT_EQ(e.weight, 1.0f);
  const Graph single = rmat_graph(0, 3, 1);
  EXPECT_EQ(single.node_count(), 1);
  EXPECT_EQ(single.edge_count(), 3);
}

TEST(Rmat, SeededAndDeterministic) {
  EXPECT_TRUE(graphs_identical(rmat_graph(8, 4, 21), rmat_graph(8, 4, 21)));
  EXPECT_FALSE(graphs_identical(rmat_graph(8, 4, 21), rmat_graph(8, 4, 22)));
}

TEST(Rmat, InvalidArgumentsAreUsageErrors) {
  EXPECT_THROW(rmat_graph(-1, 4, 1), UsageError);
  EXPECT_THROW(rmat_graph(31, 4, 1), UsageError);
  EXPECT_THROW(rmat_graph(4, 0, 1), UsageError);
  EXPECT_THROW(rmat_graph(4, 4, 1, 0.6, 0.3, 0.2), UsageError);
  EXPECT_THROW(rmat_graph(4, 4, 1, -0.1, 0.3, 0.2), UsageError);
  EXPECT_THROW(rmat_graph(4, 4, 1, std::nan(""), 0.3, 0.2), UsageError);
  EXPECT_THROW(rmat_graph(4, 4, 1, 0.57, 0.19, 0.19, 0), UsageError);
}

// ---------------------------------------------------------------- stats

TEST(Stats, HandBuiltGraph) {
  // 0 -> 1 (2), 0 -> 2 (0), 1 -> 1 (5, a self-loop), 2 -> 0 (1.5), 3 -> 4 (3);
  // node 4 has an edge in only, node 5 none at all.
  const std::vector<NodeId> tails = {0, 0, 1, 2, 3};
  const std::vector<NodeId> heads = {1, 2, 1, 0, 4};
  const std::vector<Weight> weights = {2, 0, 5, 1.5f, 3};
  const GraphStats stats = graph_stats(graph_from_edges(6, tails, heads, weights));
  EXPECT_EQ(stats.nodes, 6);
  EXPECT_EQ(stats.edges, 5);
  EXPECT_EQ(stats.self_loops, 1);
  EXPECT_EQ(stats.zero_weight_edges, 1);
  EXPECT_EQ(stats.min_out_degree, 0);
  EXPECT_EQ(stats.max_out_degree, 2);
  EXPECT_DOUBLE_EQ(stats.mean_out_degree, 5.0 / 6.0);
  EXPECT_EQ(stats.out_degree_histogram, (std::vector<std::int64_t>{2, 3, 1}));
  EXPECT_EQ(stats.min_weight, 0.0f);
  EXPECT_EQ(stats.max_weight, 5.0f);
  EXPECT_EQ(stats.isolated_nodes, 1);
}

TEST(Stats, EmptyAndEdgelessGraphs) {
  const GraphStats empty = graph_stats(Graph{});
  EXPECT_EQ(empty.nodes, 0);
  EXPECT_EQ(empty.edges, 0);
  EXPECT_TRUE(empty.out_degree_histogram.empty());

  const GraphStats edgeless = graph_stats(graph_from_edges(4, {}, {}, {}));
  EXPECT_EQ(edgeless.isolated_nodes, 4);
  EXPECT_EQ(edgeless.min_out_degree, 0);
  EXPECT_EQ(edgeless.max_out_degree, 0);
  EXPECT_EQ(edgeless.out_degree_histogram, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(edgeless.min_weight, 0.0f);
  EXPECT_EQ(edgeless.max_weight, 0.0f);
}

TEST(Stats, OfALattice) {
  // 4 x 3, two layers, preferred directions: layer 0 rows, layer 1 columns.
  LatticeSpec spec = lattice(4, 3, 2);
  spec.track_cost = 0.5f;
  spec.via_cost = 4;
  const GraphStats stats = graph_stats(routing_lattice(spec));
  EXPECT_EQ(stats.nodes, 24);
  EXPECT_EQ(stats.edges, expected_lattice_edges(4, 3, 2, false, false));
  // Layer 0: ends of a row have 1 track, middles 2; layer 1: ends of a
  // column 1, middle 2. Plus one via each.
  EXPECT_EQ(stats.min_out_degree, 2);
  EXPECT_EQ(stats.max_out_degree, 3);
  EXPECT_EQ(stats.out_degree_histogram, (std::vector<std::int64_t>{0, 0, 6 + 8, 6 + 4}));
  EXPECT_EQ(stats.min_weight, 0.5f);
  EXPECT_EQ(stats.max_weight, 4.0f);
  EXPECT_EQ(stats.self_loops, 0);
  EXPECT_EQ(stats.isolated_nodes, 0);
}

}  // namespace
}  // namespace trellis::graph
