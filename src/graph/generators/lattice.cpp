// The 3-D routing lattice: layers of grid nodes joined by tracks along each
// layer's preferred direction and by vias between layers. Built straight into
// CSR (count degrees, prefix sum, fill), never through triplets, so the
// 40 M-edge presets need only the CSR itself.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "seeded_random.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"

namespace trellis::graph {
namespace {

void validate(const LatticeSpec& spec) {
  if (spec.width <= 0 || spec.height <= 0 || spec.layers <= 0) {
    throw UsageError(fmt::format("lattice width, height and layers must be positive (got {} x {} x {})", spec.width,
                                 spec.height, spec.layers));
  }
  if (spec.node_count() > std::numeric_limits<NodeId>::max()) {
    throw UsageError(fmt::format("a {} x {} x {} lattice has {} nodes, more than the {} that 32-bit ids can name",
                                 spec.width, spec.height, spec.layers, spec.node_count(),
                                 std::numeric_limits<NodeId>::max()));
  }
  auto check_cost = [](float cost, const char* what) {
    if (!std::isfinite(cost) || cost < 0) {
      throw UsageError(fmt::format("lattice {} must be finite and non-negative (got {})", what, cost));
    }
  };
  check_cost(spec.track_cost, "track cost");
  check_cost(spec.via_cost, "via cost");
  // The largest via weight (via_cost * (layers - 1)) must stay finite too.
  check_cost(spec.via_cost * static_cast<float>(spec.layers - 1), "via cost times the layers a via crosses");
  if (!(spec.obstacle_fraction >= 0.0 && spec.obstacle_fraction < 1.0)) {
    throw UsageError(fmt::format("lattice obstacle fraction must be in [0, 1) (got {})", spec.obstacle_fraction));
  }
}

bool is_kept_free(const LatticeSpec& spec, std::int32_t x, std::int32_t y) {
  return (x == 0 && y == 0) || (x == spec.width - 1 && y == spec.height - 1);
}

// One byte per node, 1 = obstacle; empty when there are none. Selection
// sampling (Knuth's Algorithm S) over the candidates in id order picks
// exactly `wanted` of them, each set of that size equally likely, in one pass
// and one draw per candidate.
std::vector<std::uint8_t> draw_obstacles(const LatticeSpec& spec) {
  if (spec.obstacle_fraction == 0.0) return {};
  const std::int64_t nodes = spec.node_count();
  const std::int64_t kept_free_per_layer = (spec.width == 1 && spec.height == 1) ? 1 : 2;
  const std::int64_t candidates = nodes - kept_free_per_layer * spec.layers;
  std::int64_t wanted = std::llround(spec.obstacle_fraction * static_cast<double>(candidates));
  std::vector<std::uint8_t> blocked(static_cast<std::size_t>(nodes), 0);
  detail::SeededEngine engine(spec.seed);
  std::int64_t unseen = candidates;
  for (std::int32_t layer = 0; layer < spec.layers; ++layer) {
    for (std::int32_t y = 0; y < spec.height; ++y) {
      for (std::int32_t x = 0; x < spec.width; ++x) {
        if (wanted == 0) return blocked;
        if (is_kept_free(spec, x, y)) continue;
        if (detail::uniform_below(engine, static_cast<std::uint64_t>(unseen)) < static_cast<std::uint64_t>(wanted)) {
          blocked[static_cast<std::size_t>(lattice_node(spec, x, y, layer))] = 1;
          --wanted;
        }
        --unseen;
      }
    }
  }
  return blocked;
}

// Calls visit(head, weight) for each edge out of (x, y, layer), in the
// documented order (ascending head id). The one definition both the counting
// and the filling pass use, so they cannot disagree.
template <typename Visit>
void for_each_edge(const LatticeSpec& spec, const std::vector<std::uint8_t>& blocked, std::int32_t x, std::int32_t y,
                   std::int32_t layer, Visit&& visit) {
  const NodeId self = lattice_node(spec, x, y, layer);
  auto is_blocked = [&](NodeId node) { return !blocked.empty() && blocked[static_cast<std::size_t>(node)] != 0; };
  if (is_blocked(self)) return;
  const NodeId layer_stride = spec.width * spec.height;
  auto via = [&](std::int32_t other_layer) {
    const NodeId head = self + (other_layer - layer) * layer_stride;
    if (!is_blocked(head)) visit(head, spec.via_cost * static_cast<float>(std::abs(other_layer - layer)));
  };
  auto track = [&](NodeId head) {
    if (!is_blocked(head)) visit(head, spec.track_cost);
  };
  const std::int32_t lowest_via_layer = spec.any_layer_vias ? 0 : std::max(layer - 1, 0);
  const std::int32_t highest_via_layer = spec.any_layer_vias ? spec.layers - 1 : std::min(layer + 1, spec.layers - 1);
  for (std::int32_t other = lowest_via_layer; other < layer; ++other) via(other);
  const bool horizontal = spec.both_directions || layer % 2 == 0;
  const bool vertical = spec.both_directions || layer % 2 == 1;
  if (vertical && y > 0) track(self - spec.width);
  if (horizontal && x > 0) track(self - 1);
  if (horizontal && x < spec.width - 1) track(self + 1);
  if (vertical && y < spec.height - 1) track(self + spec.width);
  for (std::int32_t other = layer + 1; other <= highest_via_layer; ++other) via(other);
}

// Out-degrees as row offsets: offsets[id + 1] = degree of id, then the
// prefix sum turns them into where each row starts.
std::vector<RowOffset> row_offsets(const LatticeSpec& spec, const std::vector<std::uint8_t>& blocked) {
  std::vector<RowOffset> offsets(static_cast<std::size_t>(spec.node_count()) + 1, 0);
  std::size_t id = 0;
  for (std::int32_t layer = 0; layer < spec.layers; ++layer) {
    for (std::int32_t y = 0; y < spec.height; ++y) {
      for (std::int32_t x = 0; x < spec.width; ++x) {
        RowOffset degree = 0;
        for_each_edge(spec, blocked, x, y, layer, [&](NodeId, Weight) { ++degree; });
        offsets[++id] = degree;
      }
    }
  }
  for (std::size_t k = 1; k < offsets.size(); ++k) offsets[k] += offsets[k - 1];
  return offsets;
}

}  // namespace

NodeId lattice_node(const LatticeSpec& spec, std::int32_t x, std::int32_t y, std::int32_t layer) {
  if (x < 0 || x >= spec.width || y < 0 || y >= spec.height || layer < 0 || layer >= spec.layers) {
    throw UsageError(fmt::format("lattice node ({}, {}, layer {}) is outside the {} x {} x {} lattice", x, y, layer,
                                 spec.width, spec.height, spec.layers));
  }
  return static_cast<NodeId>(x + std::int64_t{spec.width} * (y + std::int64_t{spec.height} * layer));
}

std::int64_t lattice_edge_count(const LatticeSpec& spec) {
  validate(spec);
  return row_offsets(spec, draw_obstacles(spec)).back();
}

Graph routing_lattice(const LatticeSpec& spec) {
  validate(spec);
  const std::vector<std::uint8_t> blocked = draw_obstacles(spec);
  const auto nodes = static_cast<NodeId>(spec.node_count());

  Graph graph;
  CsrMatrix<Weight>& csr = graph.csr;
  csr.rows = nodes;
  csr.cols = nodes;
  csr.row_offsets = row_offsets(spec, blocked);
  csr.col_indices.resize(static_cast<std::size_t>(csr.row_offsets.back()));
  csr.values.resize(csr.col_indices.size());

  NodeCoordinates coordinates;
  coordinates.x.resize(static_cast<std::size_t>(nodes));
  coordinates.y.resize(static_cast<std::size_t>(nodes));
  coordinates.layer.resize(static_cast<std::size_t>(nodes));

  std::size_t id = 0;
  std::size_t at = 0;
  for (std::int32_t layer = 0; layer < spec.layers; ++layer) {
    for (std::int32_t y = 0; y < spec.height; ++y) {
      for (std::int32_t x = 0; x < spec.width; ++x, ++id) {
        coordinates.x[id] = x;
        coordinates.y[id] = y;
        coordinates.layer[id] = layer;
        for_each_edge(spec, blocked, x, y, layer, [&](NodeId head, Weight weight) {
          csr.col_indices[at] = head;
          csr.values[at] = weight;
          ++at;
        });
      }
    }
  }
  graph.coordinates = std::move(coordinates);
  return graph;
}

}  // namespace trellis::graph
