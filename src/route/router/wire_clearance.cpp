#include "wire_clearance.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trellis::route::router_detail {
namespace {

using geometry::ClearanceType;
using geometry::Primitive;

double box_gap(const Box& a, const Box& b) {
  const double dx = static_cast<double>(std::max<Coord>({0, b.min.x - a.max.x, a.min.x - b.max.x}));
  const double dy = static_cast<double>(std::max<Coord>({0, b.min.y - a.max.y, a.min.y - b.max.y}));
  return std::hypot(dx, dy);
}

// Cells of about this many nanometres hold a few pads' worth of copper.
constexpr Coord kCellSize = 1'000'000;
constexpr double kMostCellsPerLayer = 1 << 20;

}  // namespace

WireClearance::WireClearance(const Board& board, const RoutedCopper& routed)
    : board_(board), rules_(board), of_routed_wire_(routed.wires.size()) {
  const int layers = static_cast<int>(board.layers.size());
  // Everything first with its layer, then the grid around all of it.
  std::vector<std::pair<Obstacle, int>> pending;
  std::vector<int> routed_wire_of;  // per pending entry: its routed wire, -1 for none
  const auto hold = [&](Obstacle o, int layer, int wire) {
    if (o.shape.core.empty()) return;
    if (layer == kAllLayers) {
      for (int l = 0; l < layers; ++l) {
        pending.emplace_back(o, l);
        routed_wire_of.push_back(wire);
      }
    } else if (layer >= 0 && layer < layers) {
      pending.emplace_back(std::move(o), layer);
      routed_wire_of.push_back(wire);
    }
  };
  const auto hold_shape = [&](const Shape& shape, Role role, int net, ClearanceType type, int layer, int wire,
                              std::optional<Coord> clearance_override = std::nullopt, int tie = -1) {
    for (Primitive& p : geometry::primitives_of(shape)) {
      hold({std::move(p), role, net, type, clearance_override, true, tie}, layer, wire);
    }
  };

  std::vector<bool> single_layer(board.padstacks.size());
  for (std::size_t p = 0; p < board.padstacks.size(); ++p) {
    const auto& shapes = board.padstacks[p].shapes;
    single_layer[p] =
        std::all_of(shapes.begin(), shapes.end(), [&](const LayerShape& s) { return s.layer == shapes.front().layer; });
  }
  for (const PinCopper& pad : pin_copper(board)) {
    const Component& component = board.components[static_cast<std::size_t>(pad.pin.component)];
    const int padstack =
        board.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)].padstack;
    hold_shape(pad.shape, Role::copper, pad.net,
               single_layer[static_cast<std::size_t>(padstack)] ? ClearanceType::smd : ClearanceType::pin, pad.layer,
               -1, pin_clearance_override(board, pad.pin), net_tie_of(board, pad.pin));
  }
  for (const Wire& wire : board.wires)
    hold_shape(wire.shape, Role::copper, wire.net, ClearanceType::wire, wire.layer, -1);
  for (std::size_t w = 0; w < routed.wires.size(); ++w) {
    const Wire& wire = routed.wires[w];
    hold_shape(wire.shape, Role::copper, wire.net, ClearanceType::wire, wire.layer, static_cast<int>(w));
  }
  for (const std::vector<Via>* vias : {&board.vias, static_cast<const std::vector<Via>*>(&routed.vias)}) {
    for (const Via& via : *vias) {
      for (const LayerShape& layer_shape : board.padstacks[static_cast<std::size_t>(via.padstack)].shapes) {
        Shape shape = layer_shape.shape;
        for (Point& p : shape.points) p = {p.x + via.position.x, p.y + via.position.y};
        hold_shape(shape, Role::copper, via.net, ClearanceType::via, layer_shape.layer, -1);
      }
    }
  }
  for (const CopperGraphic& graphic : board.copper_graphics) {
    for (const Shape& shape : graphic.shapes)
      hold_shape(shape, Role::copper, -1, ClearanceType::wire, graphic.layer, -1, std::nullopt, graphic.tie);
  }
  const auto hold_keepout = [&](const Keepout& keepout, const Shape& shape, int layer) {
    if (keepout.kind == KeepoutKind::via_keepout) return;  // wires may pass
    hold_shape(shape, Role::keepout, -1, ClearanceType::area, layer, -1);
  };
  for (const Keepout& keepout : board.keepouts) hold_keepout(keepout, keepout.shape, keepout.layer);
  for (const Component& component : board.components) {
    for (const Keepout& keepout : board.images[static_cast<std::size_t>(component.image)].keepouts) {
      hold_keepout(keepout, geometry::placed_shape(component, keepout.shape),
                   placed_layer(board, component, keepout.layer));
    }
  }
  if (!board.boundary.empty()) {
    for (Primitive& edge : geometry::outline_edges(board.boundary.front())) {
      hold({std::move(edge), Role::outline, -1, ClearanceType::edge, {}, true}, kAllLayers, -1);
    }
  }

  for (const auto& [obstacle, layer] : pending) extent_.include(obstacle.shape.box);
  if (extent_.empty()) extent_.include(Point{0, 0});
  const double width = static_cast<double>(extent_.max.x - extent_.min.x) + 1;
  const double height = static_cast<double>(extent_.max.y - extent_.min.y) + 1;
  double cell = std::max<double>(kCellSize, 2.0 * static_cast<double>(rules_.largest()));
  while ((width / cell) * (height / cell) > kMostCellsPerLayer) cell *= 1.5;
  cell_ = static_cast<Coord>(std::ceil(cell));
  columns_ = static_cast<Coord>(width / static_cast<double>(cell_)) + 1;
  rows_ = static_cast<Coord>(height / static_cast<double>(cell_)) + 1;
  cells_.assign(static_cast<std::size_t>(layers),
                std::vector<std::vector<int>>(static_cast<std::size_t>(columns_ * rows_)));
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (routed_wire_of[i] >= 0) {
      of_routed_wire_[static_cast<std::size_t>(routed_wire_of[i])].push_back(static_cast<int>(obstacles_.size()));
    }
    add(std::move(pending[i].first), pending[i].second);
  }
}

void WireClearance::add(Obstacle obstacle, int layer) {
  const Box box = obstacle.shape.box;
  const auto column = [&](Coord x) { return std::clamp<Coord>((x - extent_.min.x) / cell_, 0, columns_ - 1); };
  const auto row = [&](Coord y) { return std::clamp<Coord>((y - extent_.min.y) / cell_, 0, rows_ - 1); };
  const int index = static_cast<int>(obstacles_.size());
  obstacles_.push_back(std::move(obstacle));
  seen_.push_back(0);
  auto& cells = cells_[static_cast<std::size_t>(layer)];
  for (Coord r = row(box.min.y); r <= row(box.max.y); ++r) {
    for (Coord c = column(box.min.x); c <= column(box.max.x); ++c) {
      cells[static_cast<std::size_t>(r * columns_ + c)].push_back(index);
    }
  }
}

void WireClearance::add_wire(std::size_t index, const Wire& wire) {
  for (Primitive& p : geometry::primitives_of(wire.shape)) {
    if (p.core.empty()) continue;
    of_routed_wire_[index].push_back(static_cast<int>(obstacles_.size()));
    add({std::move(p), Role::copper, wire.net, ClearanceType::wire, {}, true}, wire.layer);
  }
}

void WireClearance::move_wire(std::size_t index, const Wire& wire) {
  for (const int o : of_routed_wire_[index]) obstacles_[static_cast<std::size_t>(o)].live = false;
  of_routed_wire_[index].clear();
  if (wire.layer >= 0 && wire.layer < static_cast<int>(cells_.size())) add_wire(index, wire);
}

std::optional<Coord> WireClearance::required(int net, const Obstacle& o) const {
  switch (o.role) {
    case Role::copper:
      if (o.net >= 0 && o.net == net) return std::nullopt;
      if (tie_joins(board_, o.tie, net)) return std::nullopt;
      if (o.clearance_override) return *o.clearance_override;
      return rules_.required(net, ClearanceType::wire, o.net, o.type);
    case Role::keepout:
      return rules_.required(net, ClearanceType::wire, net, ClearanceType::area);
    case Role::outline:
      return rules_.required(net, ClearanceType::wire, net, ClearanceType::edge);
  }
  return std::nullopt;
}

bool WireClearance::clear(int net, int layer, Coord width, Point a, Point b) {
  if (layer < 0 || layer >= static_cast<int>(cells_.size())) return false;
  const Primitive segment = geometry::capsule(a, b, static_cast<double>(width) / 2);
  const Box reach = geometry::grown(segment.box, static_cast<double>(rules_.largest()));
  const auto column = [&](Coord x) { return std::clamp<Coord>((x - extent_.min.x) / cell_, 0, columns_ - 1); };
  const auto row = [&](Coord y) { return std::clamp<Coord>((y - extent_.min.y) / cell_, 0, rows_ - 1); };
  ++query_;
  const auto& cells = cells_[static_cast<std::size_t>(layer)];
  for (Coord r = row(reach.min.y); r <= row(reach.max.y); ++r) {
    for (Coord c = column(reach.min.x); c <= column(reach.max.x); ++c) {
      for (const int index : cells[static_cast<std::size_t>(r * columns_ + c)]) {
        std::size_t& seen = seen_[static_cast<std::size_t>(index)];
        if (seen == query_) continue;
        seen = query_;
        const Obstacle& o = obstacles_[static_cast<std::size_t>(index)];
        if (!o.live) continue;
        const std::optional<Coord> need = required(net, o);
        if (!need) continue;
        const auto limit = static_cast<double>(*need);
        if (box_gap(segment.box, o.shape.box) >= limit) continue;
        if (geometry::separation(segment, o.shape).distance < limit) return false;
      }
    }
  }
  return true;
}

}  // namespace trellis::route::router_detail
