// Random graphs for coverage beyond lattices: random geometric graphs (local,
// planar-ish, like meshes) and R-MAT (skewed degrees, like the web).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "seeded_random.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"

namespace trellis::graph {
namespace {

// Points bucketed into a square grid of cells at least `radius` wide, so all
// of a point's neighbours lie in its own cell or the eight around it.
class CellGrid {
 public:
  CellGrid(const std::vector<double>& x, const std::vector<double>& y, double radius, std::size_t points) {
    // Never more cells than points: a tiny radius must not cost memory.
    const double by_radius = std::floor(1.0 / radius);
    const double by_points = std::ceil(std::sqrt(static_cast<double>(points)));
    side_ = static_cast<std::int64_t>(std::max(1.0, std::min(by_radius, by_points)));
    // Counting sort by cell, stable, so a cell lists its points by id.
    std::vector<std::int64_t> cell_of(points);
    starts_.assign(static_cast<std::size_t>(side_ * side_) + 1, 0);
    for (std::size_t i = 0; i < points; ++i) {
      cell_of[i] = column(x[i]) + side_ * column(y[i]);
      ++starts_[static_cast<std::size_t>(cell_of[i]) + 1];
    }
    for (std::size_t c = 1; c < starts_.size(); ++c) starts_[c] += starts_[c - 1];
    members_.resize(points);
    std::vector<std::int64_t> next(starts_.begin(), starts_.end() - 1);
    for (std::size_t i = 0; i < points; ++i) {
      members_[static_cast<std::size_t>(next[static_cast<std::size_t>(cell_of[i])]++)] = static_cast<NodeId>(i);
    }
  }

  std::int64_t column(double coordinate) const {
    return std::min(static_cast<std::int64_t>(coordinate * static_cast<double>(side_)), side_ - 1);
  }

  // Calls visit(v) for every point in the 3 x 3 cells around (cx, cy).
  template <typename Visit>
  void for_each_nearby(std::int64_t cx, std::int64_t cy, Visit&& visit) const {
    for (std::int64_t ny = std::max<std::int64_t>(cy - 1, 0); ny <= std::min(cy + 1, side_ - 1); ++ny) {
      for (std::int64_t nx = std::max<std::int64_t>(cx - 1, 0); nx <= std::min(cx + 1, side_ - 1); ++nx) {
        const auto cell = static_cast<std::size_t>(nx + side_ * ny);
        for (std::int64_t k = starts_[cell]; k < starts_[cell + 1]; ++k) visit(members_[static_cast<std::size_t>(k)]);
      }
    }
  }

 private:
  std::int64_t side_ = 1;
  std::vector<std::int64_t> starts_;
  std::vector<NodeId> members_;
};

}  // namespace

Graph random_geometric_graph(NodeId nodes, double radius, std::uint64_t seed) {
  if (nodes <= 0) throw UsageError(fmt::format("a random geometric graph needs a positive node count (got {})", nodes));
  if (!std::isfinite(radius) || radius <= 0) {
    throw UsageError(
        fmt::format("the radius of a random geometric graph must be finite and positive (got {})", radius));
  }
  const auto n = static_cast<std::size_t>(nodes);
  std::vector<double> x(n);
  std::vector<double> y(n);
  detail::SeededEngine engine(seed);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = detail::uniform_unit(engine);
    y[i] = detail::uniform_unit(engine);
  }
  const CellGrid grid(x, y, radius, n);
  const double radius_squared = radius * radius;

  Graph graph;
  CsrMatrix<Weight>& csr = graph.csr;
  csr.rows = nodes;
  csr.cols = nodes;
  csr.row_offsets.reserve(n + 1);
  std::vector<NodeId> neighbours;
  for (std::size_t u = 0; u < n; ++u) {
    neighbours.clear();
    grid.for_each_nearby(grid.column(x[u]), grid.column(y[u]), [&](NodeId v) {
      const double dx = x[u] - x[static_cast<std::size_t>(v)];
      const double dy = y[u] - y[static_cast<std::size_t>(v)];
      // dx and dy only change sign the other way round, so both directions
      // agree on membership and on the weight, bit for bit.
      if (static_cast<std::size_t>(v) != u && dx * dx + dy * dy < radius_squared) neighbours.push_back(v);
    });
    std::sort(neighbours.begin(), neighbours.end());
    for (NodeId v : neighbours) {
      const double dx = x[u] - x[static_cast<std::size_t>(v)];
      const double dy = y[u] - y[static_cast<std::size_t>(v)];
      csr.col_indices.push_back(v);
      csr.values.push_back(static_cast<Weight>(std::sqrt(dx * dx + dy * dy)));
    }
    csr.row_offsets.push_back(static_cast<RowOffset>(csr.col_indices.size()));
  }
  return graph;
}

Graph rmat_graph(int scale, int edge_factor, std::uint64_t seed, double a, double b, double c, int max_weight) {
  if (scale < 0 || scale > 30) {
    throw UsageError(fmt::format("R-MAT scale must be in 0..30 so 2^scale node ids fit in 32 bits (got {})", scale));
  }
  if (edge_factor < 1) throw UsageError(fmt::format("R-MAT edge factor must be at least 1 (got {})", edge_factor));
  const bool probabilities_valid =
      std::isfinite(a) && std::isfinite(b) && std::isfinite(c) && a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1.0;
  if (!probabilities_valid) {
    throw UsageError(
        fmt::format("R-MAT probabilities a = {}, b = {}, c = {} must be non-negative with a + b + c <= 1", a, b, c));
  }
  if (max_weight < 1) throw UsageError(fmt::format("R-MAT maximum weight must be at least 1 (got {})", max_weight));

  const auto nodes = static_cast<NodeId>(std::int64_t{1} << scale);
  const std::int64_t edges = std::int64_t{edge_factor} << scale;
  std::vector<NodeId> tails(static_cast<std::size_t>(edges));
  std::vector<NodeId> heads(static_cast<std::size_t>(edges));
  std::vector<Weight> weights(static_cast<std::size_t>(edges));
  detail::SeededEngine engine(seed);
  for (std::size_t e = 0; e < tails.size(); ++e) {
    NodeId tail = 0;
    NodeId head = 0;
    for (int bit = scale - 1; bit >= 0; --bit) {
      const double draw = detail::uniform_unit(engine);
      if (draw < a) continue;  // top-left quadrant: neither bit set
      if (draw < a + b) {
        head |= NodeId{1} << bit;
      } else if (draw < a + b + c) {
        tail |= NodeId{1} << bit;
      } else {
        tail |= NodeId{1} << bit;
        head |= NodeId{1} << bit;
      }
    }
    tails[e] = tail;
    heads[e] = head;
    weights[e] = static_cast<Weight>(1 + detail::uniform_below(engine, static_cast<std::uint64_t>(max_weight)));
  }
  return graph_from_edges(nodes, tails, heads, weights);
}

}  // namespace trellis::graph
