// The tiled graph the cuda engine's large searches run on: a renumbering
// that keeps every edge, tiles that start on 32-node boundaries, heads
// encoded as local or remote correctly, and lattice cells kept whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "graph/tiling.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"

namespace trellis::graph {
namespace {

int tile_of(const TiledGraph& t, NodeId tiled) {
  return static_cast<int>(std::upper_bound(t.tile_first.begin(), t.tile_first.end(), tiled) - t.tile_first.begin()) - 1;
}

// Every edge of g appears once in t with its weight, heads decoded.
void expect_same_edges(const Graph& g, const TiledGraph& t) {
  const NodeId n = g.node_count();
  ASSERT_EQ(t.new_of_old.size(), static_cast<std::size_t>(n));
  ASSERT_EQ(t.old_of_new.size(), static_cast<std::size_t>(t.tiled_nodes()));
  ASSERT_EQ(t.tile_first.size(), static_cast<std::size_t>(t.tiles) + 1);
  EXPECT_EQ(t.tile_first.front(), 0);
  NodeId largest = 0;
  for (int i = 0; i < t.tiles; ++i) {
    EXPECT_EQ(t.tile_first[i] % 32, 0);
    EXPECT_LE(t.tile_first[i], t.tile_first[i + 1]);
    largest = std::max(largest, t.tile_first[i + 1] - t.tile_first[i]);
    EXPECT_LE(t.row_offsets[t.tile_first[i + 1]] - t.row_offsets[t.tile_first[i]], t.most_tile_edges);
  }
  EXPECT_EQ(largest, t.largest_tile);
  for (NodeId v = 0; v < n; ++v) {
    const NodeId id = t.new_of_old[static_cast<std::size_t>(v)];
    ASSERT_GE(id, 0);
    ASSERT_LT(id, t.tiled_nodes());
    ASSERT_EQ(t.old_of_new[static_cast<std::size_t>(id)], v);
  }
  NodeId padding = 0;
  for (NodeId id = 0; id < t.tiled_nodes(); ++id) {
    const NodeId v = t.old_of_new[static_cast<std::size_t>(id)];
    if (v < 0) {
      ++padding;
      EXPECT_EQ(t.row_offsets[id], t.row_offsets[id + 1]) << "padding node " << id << " has edges";
      continue;
    }
    const int tile = tile_of(t, id);
    std::vector<std::pair<NodeId, float>> expected, actual;
    for (RowOffset k = g.csr.row_offsets[v]; k < g.csr.row_offsets[v + 1]; ++k) {
      expected.emplace_back(g.csr.col_indices[k], g.csr.values[k]);
    }
    for (RowOffset k = t.row_offsets[id]; k < t.row_offsets[id + 1]; ++k) {
      const std::uint32_t head = t.heads[static_cast<std::size_t>(k)];
      NodeId tiled_head;
      if ((head & kRemoteHead) != 0) {
        tiled_head = static_cast<NodeId>(head & ~kRemoteHead);
        EXPECT_NE(tile_of(t, tiled_head), tile) << "a remote head in the tail's own tile";
      } else {
        tiled_head = t.tile_first[tile] + static_cast<NodeId>(head);
        EXPECT_LT(tiled_head, t.tile_first[tile + 1]) << "a local head outside the tile";
      }
      actual.emplace_back(t.old_of_new[static_cast<std::size_t>(tiled_head)], t.weights[static_cast<std::size_t>(k)]);
    }
    std::sort(expected.begin(), expected.end());
    std::sort(actual.begin(), actual.end());
    ASSERT_EQ(actual, expected) << "edges of node " << v;
  }
  EXPECT_EQ(t.tiled_nodes() - padding, n);
}

TEST(Tiling, LatticeCellsKeepTheirLayersTogether) {
  const LatticeSpec spec{.width = 61, .height = 47, .layers = 4, .obstacle_fraction = 0.1, .seed = 5};
  const Graph g = routing_lattice(spec);
  for (int tiles : {1, 7, 132}) {
    SCOPED_TRACE(tiles);
    const TiledGraph t = tile_graph(g.csr.view(), &*g.coordinates, tiles);
    EXPECT_LE(t.tiles, tiles);
    EXPECT_GE(t.tiles, tiles * 9 / 10);
    expect_same_edges(g, t);
    for (std::int32_t y = 0; y < spec.height; ++y) {
      for (std::int32_t x = 0; x < spec.width; ++x) {
        const int bottom = tile_of(t, t.new_of_old[lattice_node(spec, x, y, 0)]);
        for (std::int32_t layer = 1; layer < spec.layers; ++layer) {
          ASSERT_EQ(tile_of(t, t.new_of_old[lattice_node(spec, x, y, layer)]), bottom) << x << "," << y;
        }
      }
    }
  }
}

TEST(Tiling, GraphsWithoutCoordinatesTakeRunsOfIds) {
  std::mt19937_64 rng(3);
  const NodeId n = 5000;
  std::uniform_int_distribution<NodeId> node(0, n - 1);
  std::vector<NodeId> tails, heads;
  std::vector<Weight> weights;
  for (int e = 0; e < 4 * n; ++e) {
    tails.push_back(node(rng));
    heads.push_back(e % 50 == 0 ? tails.back() : node(rng));  // self-loops too
    weights.push_back(static_cast<Weight>(e % 7));
  }
  const Graph g = graph_from_edges(n, tails, heads, weights);
  for (int tiles : {1, 3, 64, 132}) {
    SCOPED_TRACE(tiles);
    const TiledGraph t = tile_graph(g.csr.view(), nullptr, tiles);
    EXPECT_EQ(t.tiles, tiles);
    expect_same_edges(g, t);
    for (NodeId v = 1; v < n; ++v) {  // increasing ids keep their order
      ASSERT_LT(t.new_of_old[v - 1], t.new_of_old[v]);
    }
  }
}

TEST(Tiling, TinyAndEmptyGraphs) {
  const Graph empty = graph_from_edges(0, {}, {}, {});
  const TiledGraph none = tile_graph(empty.csr.view(), nullptr, 8);
  EXPECT_EQ(none.tiled_nodes(), 0);
  const std::vector<NodeId> tails{0, 1}, heads{1, 2};
  const std::vector<Weight> weights{1.0f, 2.0f};
  const Graph three = graph_from_edges(3, tails, heads, weights);
  const TiledGraph t = tile_graph(three.csr.view(), nullptr, 132);
  EXPECT_EQ(t.tiles, 3);  // never more tiles than nodes
  expect_same_edges(three, t);
  EXPECT_THROW(tile_graph(three.csr.view(), nullptr, 0), Error);
}

}  // namespace
}  // namespace trellis::graph
