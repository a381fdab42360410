#include "tiling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trellis/core/error.hpp"

namespace trellis::graph {
namespace {

// Which tile each node goes to, and how many tiles that makes.
struct Assignment {
  int tiles = 1;
  std::vector<int> tile_of;
};

// Runs of consecutive ids, as even as the count allows.
Assignment by_id(NodeId nodes, int tiles) {
  Assignment a;
  a.tiles = std::max(1, std::min<int>(tiles, std::max<NodeId>(nodes, 1)));
  a.tile_of.resize(static_cast<std::size_t>(nodes));
  for (NodeId v = 0; v < nodes; ++v) {
    a.tile_of[static_cast<std::size_t>(v)] = static_cast<int>(std::int64_t{v} * a.tiles / nodes);
  }
  return a;
}

// A grid of tx x ty cells over the bounding box, tx * ty <= tiles, using at
// least nine tenths of the tiles where the box allows it, with cells as
// close to square as that leaves.
Assignment by_coordinates(const NodeCoordinates& c, NodeId nodes, int tiles) {
  const auto [x_low, x_high] = std::minmax_element(c.x.begin(), c.x.end());
  const auto [y_low, y_high] = std::minmax_element(c.y.begin(), c.y.end());
  const std::int64_t width = std::int64_t{*x_high} - *x_low + 1;
  const std::int64_t height = std::int64_t{*y_high} - *y_low + 1;
  int best_x = 1;
  int best_y = 1;
  double best_score = std::numeric_limits<double>::infinity();
  for (int tx = 1; tx <= tiles; ++tx) {
    const int ty = tiles / tx;
    if (tx > width || ty > height) continue;
    const double used = static_cast<double>(tx) * ty;
    const double aspect = std::abs(std::log((static_cast<double>(width) / tx) / (static_cast<double>(height) / ty)));
    // Leaving tiles unused costs more than a cell a little off square.
    const double score = aspect + (used < 0.9 * tiles ? 4.0 * (1.0 - used / tiles) : 0.0);
    if (score < best_score) {
      best_score = score;
      best_x = tx;
      best_y = ty;
    }
  }
  Assignment a;
  a.tiles = best_x * best_y;
  a.tile_of.resize(static_cast<std::size_t>(nodes));
  for (std::size_t v = 0; v < a.tile_of.size(); ++v) {
    const std::int64_t cx = (std::int64_t{c.x[v]} - *x_low) * best_x / width;
    const std::int64_t cy = (std::int64_t{c.y[v]} - *y_low) * best_y / height;
    a.tile_of[v] = static_cast<int>(cy * best_x + cx);
  }
  return a;
}

}  // namespace

TiledGraph tile_graph(const CsrView<Weight>& g, const NodeCoordinates* coordinates, int tiles) {
  if (tiles < 1) throw Error("a graph cannot be cut into fewer than one tile");
  const NodeId n = g.rows;
  const bool located = coordinates != nullptr && n > 0 && coordinates->x.size() == static_cast<std::size_t>(n);
  const Assignment a = located ? by_coordinates(*coordinates, n, tiles) : by_id(n, tiles);

  TiledGraph t;
  t.tiles = a.tiles;
  std::vector<NodeId> count(static_cast<std::size_t>(a.tiles), 0);
  for (int tile : a.tile_of) ++count[static_cast<std::size_t>(tile)];
  t.tile_first.assign(static_cast<std::size_t>(a.tiles) + 1, 0);
  for (int i = 0; i < a.tiles; ++i) {
    const NodeId padded = (count[static_cast<std::size_t>(i)] + 31) / 32 * 32;
    if (std::int64_t{t.tile_first[i]} + padded > std::numeric_limits<NodeId>::max() / 2) {
      throw Error("the graph is too large to tile");
    }
    t.tile_first[i + 1] = t.tile_first[i] + padded;
    t.largest_tile = std::max(t.largest_tile, padded);
  }
  const NodeId tiled = t.tile_first.back();
  t.old_of_new.assign(static_cast<std::size_t>(tiled), -1);
  t.new_of_old.resize(static_cast<std::size_t>(n));
  std::vector<NodeId> next(t.tile_first.begin(), t.tile_first.end() - 1);
  for (NodeId v = 0; v < n; ++v) {
    const NodeId id = next[static_cast<std::size_t>(a.tile_of[static_cast<std::size_t>(v)])]++;
    t.old_of_new[static_cast<std::size_t>(id)] = v;
    t.new_of_old[static_cast<std::size_t>(v)] = id;
  }

  t.row_offsets.assign(static_cast<std::size_t>(tiled) + 1, 0);
  t.heads.reserve(static_cast<std::size_t>(g.nnz));
  t.weights.reserve(static_cast<std::size_t>(g.nnz));
  for (int tile = 0; tile < a.tiles; ++tile) {
    const NodeId first = t.tile_first[tile];
    const NodeId last = t.tile_first[tile + 1];
    for (NodeId id = first; id < last; ++id) {
      const NodeId v = t.old_of_new[static_cast<std::size_t>(id)];
      if (v >= 0) {
        for (RowOffset k = g.row_offsets[v]; k < g.row_offsets[v + 1]; ++k) {
          const NodeId head = t.new_of_old[static_cast<std::size_t>(g.col_indices[k])];
          const bool local = head >= first && head < last;
          t.heads.push_back(local ? static_cast<std::uint32_t>(head - first)
                                  : kRemoteHead | static_cast<std::uint32_t>(head));
          t.weights.push_back(g.values[k]);
        }
      }
      t.row_offsets[static_cast<std::size_t>(id) + 1] = static_cast<RowOffset>(t.heads.size());
    }
    t.most_tile_edges = std::max(t.most_tile_edges, t.row_offsets[last] - t.row_offsets[first]);
  }
  return t;
}

}  // namespace trellis::graph
