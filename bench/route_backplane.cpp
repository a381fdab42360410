#include "route_backplane.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "trellis/core/error.hpp"

namespace trellis::bench {
namespace {

using route::Coord;
using route::Point;

constexpr Coord kMillimetre = route::kNanometresPerMillimetre;
constexpr Coord kWireWidth = kMillimetre / 5;        // 0.2 mm
constexpr Coord kClearance = kMillimetre / 5;        // 0.2 mm
constexpr Coord kPitch = kWireWidth + kClearance;    // the router's default lattice pitch
constexpr Coord kPinDiameter = kMillimetre;          // 1.0 mm
constexpr Coord kViaDiameter = 3 * kMillimetre / 5;  // 0.6 mm
// Pin pitch across a connector: five lattice steps, so with the columns half
// a step off the grid the grid line midway between two columns is 1.0 mm
// from both pads, enough for a wire (0.1 mm half width + 0.2 mm clearance
// from a 0.5 mm pad radius, plus the router's half-step allowance).
constexpr Coord kColumnPitch = 5 * kPitch;  // 2.0 mm
// Pin pitch along a column: the closest that keeps pads clear of each other
// (1.0 mm pads, 0.2 mm clearance), three lattice steps.
constexpr Coord kRowPitch = 3 * kPitch;  // 1.2 mm
// Board edge to the first pin centre: half a step off the grid across (for
// the channels), on the grid along the columns.
constexpr Coord kEdgeToFirstColumn = 11 * kPitch / 2;  // 2.2 mm
constexpr Coord kEdgeToFirstRow = 6 * kPitch;          // 2.4 mm
// The open routing area between the two rows of connectors is at least this tall.
constexpr Coord kLeastRoutingGap = 10 * kPitch;  // 4.0 mm

route::Shape circle(Coord diameter) {
  route::Shape shape;
  shape.kind = route::ShapeKind::circle;
  shape.width = diameter;
  shape.points = {Point{0, 0}};
  return shape;
}

// A circle on layers first to last.
route::Padstack circles(const std::string& name, Coord diameter, int first, int last) {
  route::Padstack padstack;
  padstack.name = name;
  for (int layer = first; layer <= last; ++layer) padstack.shapes.push_back({layer, circle(diameter)});
  return padstack;
}

// Fisher-Yates with the generator's raw output, so the permutation is the
// same whatever the standard library (std::shuffle's algorithm is not fixed).
std::vector<int> permutation(int size, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 generator(seed);
  for (int i = size - 1; i > 0; --i) {
    const auto j = static_cast<int>(generator() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

void check(const BackplaneSpec& spec) {
  if (spec.layers < 1 || spec.layers > 64) {
    throw UsageError(fmt::format("backplane layers must be 1 to 64, got {}", spec.layers));
  }
  if (spec.nets < 1) throw UsageError(fmt::format("backplane nets must be positive, got {}", spec.nets));
  if (spec.connectors_per_edge < 1 || spec.pin_columns < 1 || spec.pin_rows < 1) {
    throw UsageError("backplane connectors, pin columns and pin rows must be positive");
  }
  const std::int64_t positions = std::int64_t{spec.connectors_per_edge} * spec.pin_columns * spec.pin_rows;
  if (positions < spec.nets) {
    throw UsageError(fmt::format("{} connectors of {} x {} pins per edge cannot hold {} nets", spec.connectors_per_edge,
                                 spec.pin_columns, spec.pin_rows, spec.nets));
  }
  if (spec.target_grid_nodes < 1) throw UsageError("backplane target grid nodes must be positive");
  if (spec.facing_connectors && spec.nets % spec.connectors_per_edge != 0) {
    throw UsageError(fmt::format("a backplane of facing connectors needs nets ({}) a multiple of its connectors ({})",
                                 spec.nets, spec.connectors_per_edge));
  }
}

// Top pin (connector-major index over the top row) of bottom pin i. The top
// connectors are numbered from the right, so bottom connector k faces top
// connector connectors - 1 - k.
std::vector<int> top_pins(const BackplaneSpec& spec, int pins_per_connector) {
  if (!spec.facing_connectors) return permutation(spec.nets, spec.seed);
  std::vector<int> top(static_cast<std::size_t>(spec.nets));
  for (int k = 0; k < spec.connectors_per_edge; ++k) {
    const std::vector<int> order = permutation(pins_per_connector, spec.seed + static_cast<std::uint64_t>(k));
    const int facing = spec.connectors_per_edge - 1 - k;
    for (int pin = 0; pin < pins_per_connector; ++pin) {
      top[static_cast<std::size_t>(k) * static_cast<std::size_t>(pins_per_connector) + static_cast<std::size_t>(pin)] =
          facing * pins_per_connector + order[static_cast<std::size_t>(pin)];
    }
  }
  return top;
}

}  // namespace

route::Board backplane_board(const BackplaneSpec& spec) {
  check(spec);
  route::Board board;
  board.name = fmt::format("backplane-{}L-{}nets", spec.layers, spec.nets);
  board.resolution_unit = "um";
  board.resolution_per_unit = 10;
  for (int layer = 0; layer < spec.layers; ++layer) {
    const auto direction = layer % 2 == 0 ? route::LayerDirection::horizontal : route::LayerDirection::vertical;
    board.layers.push_back({fmt::format("L{}", layer + 1), route::LayerType::signal, layer, direction});
  }
  board.rules.width = kWireWidth;
  board.rules.clearance = kClearance;

  board.padstacks.push_back(circles("Pin_1000um", kPinDiameter, 0, spec.layers - 1));
  const int pin_padstack = 0;
  const int via_spans = spec.buried_vias ? spec.layers - 1 : 1;
  for (int first = 0; first < via_spans; ++first) {
    const int last = spec.buried_vias ? first + 1 : spec.layers - 1;
    board.via_padstacks.push_back(static_cast<int>(board.padstacks.size()));
    board.padstacks.push_back(circles(fmt::format("Via[{}-{}]_600um", first, last), kViaDiameter, first, last));
  }

  // One connector image: pin 1 at the origin, columns along +x, rows along
  // +y (away from the board edge once placed), numbered row by row.
  const int pins_per_connector = (spec.nets + spec.connectors_per_edge - 1) / spec.connectors_per_edge;
  route::Image connector;
  connector.name = fmt::format("Backplane_{}x{}", spec.pin_columns, spec.pin_rows);
  for (int pin = 0; pin < pins_per_connector; ++pin) {
    const int column = pin % spec.pin_columns;
    const int row = pin / spec.pin_columns;
    connector.pins.push_back(
        {fmt::format("{}", pin + 1), pin_padstack, Point{column * kColumnPitch, row * kRowPitch}, 0, {}});
  }
  board.images.push_back(std::move(connector));

  // The outline: wide enough for the connectors side by side (one pin pitch
  // between neighbours, as within them), tall enough for both rows of
  // connectors and the routing area, and otherwise as tall as the node
  // target asks.
  const Coord field_width = (std::int64_t{spec.connectors_per_edge} * spec.pin_columns - 1) * kColumnPitch;
  const Coord width = field_width + 2 * kEdgeToFirstColumn;
  const Coord field_depth = (spec.pin_rows - 1) * kRowPitch;
  const Coord least_height = 2 * (kEdgeToFirstRow + field_depth) + kLeastRoutingGap;
  const std::int64_t columns = width / kPitch + 1;
  const auto target_rows = static_cast<std::int64_t>(
      std::llround(static_cast<double>(spec.target_grid_nodes) / static_cast<double>(columns * spec.layers)));
  const Coord height = std::max(least_height, (std::max<std::int64_t>(target_rows, 2) - 1) * kPitch);
  route::Shape outline;
  outline.kind = route::ShapeKind::rect;
  outline.points = {Point{0, 0}, Point{width, height}};
  board.boundary.push_back(std::move(outline));

  // Bottom connectors face up; top ones are turned half a turn, so pin 1 of
  // each sits nearest its edge and the left-most bottom connector faces the
  // right-most top one.
  const Coord connector_width = spec.pin_columns * kColumnPitch;
  for (int k = 0; k < spec.connectors_per_edge; ++k) {
    board.components.push_back({fmt::format("J{}", k + 1),
                                0,
                                Point{kEdgeToFirstColumn + k * connector_width, kEdgeToFirstRow},
                                route::Side::front,
                                0,
                                {}});
  }
  for (int k = 0; k < spec.connectors_per_edge; ++k) {
    board.components.push_back({fmt::format("J{}", spec.connectors_per_edge + k + 1),
                                0,
                                Point{width - kEdgeToFirstColumn - k * connector_width, height - kEdgeToFirstRow},
                                route::Side::front,
                                180,
                                {}});
  }

  const std::vector<int> top_pin = top_pins(spec, pins_per_connector);
  for (int i = 0; i < spec.nets; ++i) {
    const int partner = top_pin[static_cast<std::size_t>(i)];
    route::Net net;
    net.name = fmt::format("BP{:03}", i);
    net.pins.push_back({i / pins_per_connector, i % pins_per_connector});
    net.pins.push_back({spec.connectors_per_edge + partner / pins_per_connector, partner % pins_per_connector});
    board.nets.push_back(std::move(net));
  }
  return board;
}

}  // namespace trellis::bench
