// The design-rule check: collects every piece of copper, keepout and
// outline edge per layer, tests the pairs a uniform grid finds near each
// other, and joins touching copper of one net for the connectivity check.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "../geometry/clearance_rules.hpp"
#include "../geometry/geometry.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route {
namespace {

using geometry::ClearanceRules;
using geometry::ClearanceType;
using geometry::Primitive;

enum class Role { pad, wire, via, graphic, plane, keepout, outline };

// One object of the check; its primitives point back to it.
struct Item {
  Role role = Role::pad;
  int index = 0;  // in its own list
  int net = -1;
  ClearanceType type = ClearanceType::wire;
  int node = -1;  // union-find node for connectivity; -1 for keepouts and the outline
  KeepoutKind keepout_kind = KeepoutKind::keepout;
  PinRef pin;
  std::string keepout_name;
  std::optional<Coord> clearance_override = std::nullopt;  // pads: pin_clearance_override()
  int tie = -1;  // pads and drawings of a net tie: its index in Board::net_ties
};

struct Placed {
  Primitive shape;
  int item = 0;
  int layer = 0;
};

class DisjointSets {
 public:
  int add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int find(int x) {
    while (parent_[static_cast<std::size_t>(x)] != x) {
      parent_[static_cast<std::size_t>(x)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(x)])];
      x = parent_[static_cast<std::size_t>(x)];
    }
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

bool is_copper(Role role) {
  return role == Role::pad || role == Role::wire || role == Role::via || role == Role::graphic || role == Role::plane;
}

// The gap between two boxes: a lower bound of the distance of their contents.
double box_gap(const Box& a, const Box& b) {
  const double dx = static_cast<double>(std::max<Coord>({0, b.min.x - a.max.x, a.min.x - b.max.x}));
  const double dy = static_cast<double>(std::max<Coord>({0, b.min.y - a.max.y, a.min.y - b.max.y}));
  return std::hypot(dx, dy);
}

ViolationKind violation_kind(Role a, Role b) {
  if (a == Role::keepout || b == Role::keepout) return ViolationKind::keepout;
  if (a == Role::outline || b == Role::outline) return ViolationKind::outline;
  if (a == Role::graphic || b == Role::graphic) return ViolationKind::graphic;
  if (a > b) std::swap(a, b);
  if (a == Role::pad)
    return b == Role::pad ? ViolationKind::pad_pad : b == Role::wire ? ViolationKind::pad_wire : ViolationKind::pad_via;
  if (a == Role::wire) return b == Role::wire ? ViolationKind::wire_wire : ViolationKind::wire_via;
  return ViolationKind::via_via;
}

struct Finding {
  geometry::Separation separation;
  Coord required = 0;
};

class Checker {
 public:
  Checker(const Board& board, const RoutedCopper& routed) : board_(board), routed_(routed), rules_(board) {}

  DrcReport run() {
    collect();
    for (int layer = 0; layer < static_cast<int>(board_.layers.size()); ++layer) check_layer(layer);
    check_outside();
    DrcReport report;
    report_violations(report);
    join_pours(report);
    report_connectivity(report);
    report.pads = pads_;
    report.wires = routed_.wires.size();
    report.vias = routed_.vias.size();
    return report;
  }

 private:
  void add(Item item, const std::vector<Primitive>& shapes, int layer) {
    const int index = static_cast<int>(items_.size());
    items_.push_back(std::move(item));
    for (const Primitive& shape : shapes) {
      if (shape.core.empty()) continue;
      if (layer == kAllLayers) {
        for (int l = 0; l < static_cast<int>(board_.layers.size()); ++l) placed_.push_back({shape, index, l});
      } else if (layer >= 0 && layer < static_cast<int>(board_.layers.size())) {
        placed_.push_back({shape, index, layer});
      }
    }
  }

  static std::int64_t pin_key(const PinRef& pin) {
    return (std::int64_t{pin.component} << 32) | static_cast<std::uint32_t>(pin.pin);
  }

  void collect() {
    for (const Net& net : board_.nets) {
      for (const PinRef& pin : net.pins) {
        if (!pin_node_.contains(pin_key(pin))) pin_node_.emplace(pin_key(pin), sets_.add());
      }
    }
    // A pad on one layer is surface-mount ("smd"), else a through-hole "pin".
    std::vector<bool> single_layer(board_.padstacks.size());
    for (std::size_t p = 0; p < board_.padstacks.size(); ++p) {
      const auto& shapes = board_.padstacks[p].shapes;
      single_layer[p] = std::all_of(shapes.begin(), shapes.end(),
                                    [&](const LayerShape& s) { return s.layer == shapes.front().layer; });
    }
    pads_copper_ = pin_copper(board_);
    pads_ = pads_copper_.size();
    for (std::size_t i = 0; i < pads_copper_.size(); ++i) {
      const PinCopper& pad = pads_copper_[i];
      const Component& component = board_.components[static_cast<std::size_t>(pad.pin.component)];
      const int padstack =
          board_.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)].padstack;
      Item item{Role::pad, static_cast<int>(i),
                pad.net,   single_layer[static_cast<std::size_t>(padstack)] ? ClearanceType::smd : ClearanceType::pin,
                -1,        KeepoutKind::keepout,
                pad.pin,   {},
                {}};
      item.clearance_override = pin_clearance_override(board_, pad.pin);
      item.tie = net_tie_of(board_, pad.pin);
      if (const auto found = pin_node_.find(pin_key(pad.pin)); found != pin_node_.end() && pad.net >= 0) {
        item.node = found->second;
      }
      add(std::move(item), geometry::primitives_of(pad.shape), pad.layer);
    }
    for (std::size_t w = 0; w < routed_.wires.size(); ++w) {
      const Wire& wire = routed_.wires[w];
      wire_node_.push_back(sets_.add());
      add({Role::wire,
           static_cast<int>(w),
           wire.net,
           ClearanceType::wire,
           wire_node_.back(),
           KeepoutKind::keepout,
           {},
           {},
           {}},
          geometry::primitives_of(wire.shape), wire.layer);
    }
    for (std::size_t v = 0; v < routed_.vias.size(); ++v) {
      const Via& via = routed_.vias[v];
      const int node = sets_.add();
      via_node_.push_back(node);
      // One item per via; its copper on each layer the padstack covers.
      const int index = static_cast<int>(items_.size());
      items_.push_back(
          {Role::via, static_cast<int>(v), via.net, ClearanceType::via, node, KeepoutKind::keepout, {}, {}, {}});
      for (const LayerShape& layer_shape : board_.padstacks[static_cast<std::size_t>(via.padstack)].shapes) {
        Shape shape = layer_shape.shape;
        for (Point& p : shape.points) p = {p.x + via.position.x, p.y + via.position.y};
        for (Primitive& primitive : geometry::primitives_of(shape)) {
          if (layer_shape.layer >= 0 && layer_shape.layer < static_cast<int>(board_.layers.size())) {
            placed_.push_back({std::move(primitive), index, layer_shape.layer});
          }
        }
      }
    }
    for (std::size_t g = 0; g < board_.copper_graphics.size(); ++g) {
      const CopperGraphic& graphic = board_.copper_graphics[g];
      std::vector<Primitive> primitives;
      for (const Shape& shape : graphic.shapes) {
        for (Primitive& primitive : geometry::primitives_of(shape)) primitives.push_back(std::move(primitive));
      }
      Item item{Role::graphic, static_cast<int>(g), -1, ClearanceType::wire, -1, KeepoutKind::keepout, {}, {}, {}};
      item.tie = graphic.tie;
      add(std::move(item), primitives, graphic.layer);
    }
    for (std::size_t p = 0; p < board_.planes.size(); ++p) {
      const Plane& plane = board_.planes[p];
      if (plane.net < 0 || plane.pour) continue;  // pours connect by join_pours
      add({Role::plane,
           static_cast<int>(p),
           plane.net,
           ClearanceType::area,
           sets_.add(),
           KeepoutKind::keepout,
           {},
           {},
           {}},
          geometry::primitives_of(plane.shape), plane.layer);
    }
    int keepout_count = 0;
    const auto add_keepout = [&](const Keepout& keepout, const Shape& shape, int layer) {
      const int k = keepout_count++;
      add({Role::keepout,
           k,
           -1,
           ClearanceType::area,
           -1,
           keepout.kind,
           {},
           keepout.name.empty() ? fmt::format("#{}", k) : keepout.name,
           {}},
          geometry::primitives_of(shape), layer);
    };
    for (const Keepout& keepout : board_.keepouts) add_keepout(keepout, keepout.shape, keepout.layer);
    for (const Component& component : board_.components) {
      for (const Keepout& keepout : board_.images[static_cast<std::size_t>(component.image)].keepouts) {
        add_keepout(keepout, geometry::placed_shape(component, keepout.shape),
                    placed_layer(board_, component, keepout.layer));
      }
    }
    if (!board_.boundary.empty()) {
      outline_item_ = static_cast<int>(items_.size());
      outline_edges_ = geometry::outline_edges(board_.boundary.front());
      add({Role::outline, 0, -1, ClearanceType::edge, -1, KeepoutKind::keepout, {}, {}, {}}, outline_edges_,
          kAllLayers);
    }
  }

  // What the pair must keep apart, or nothing when the pair is not checked
  // (and joins touching copper of one net on the way).
  std::optional<Coord> requirement(const Item& a, const Item& b, const Placed& pa, const Placed& pb) {
    if (is_copper(a.role) && is_copper(b.role)) {
      if (a.net >= 0 && a.net == b.net) {
        if (a.node >= 0 && b.node >= 0 && sets_.find(a.node) != sets_.find(b.node) &&
            box_gap(pa.shape.box, pb.shape.box) <= kDistanceTolerance &&
            geometry::separation(pa.shape, pb.shape).distance <= kDistanceTolerance) {
          sets_.unite(a.node, b.node);
        }
        return std::nullopt;
      }
      if (a.role == Role::plane || b.role == Role::plane) return std::nullopt;
      // Drawings of no net may touch each other, as KiCad's do.
      if (a.role == Role::graphic && b.role == Role::graphic) return std::nullopt;
      if (a.role == Role::pad && b.role == Role::pad && a.pin == b.pin) return std::nullopt;
      // A net tie's copper touches its own and its nets' copper on purpose.
      if (a.tie >= 0 && (a.tie == b.tie || tie_joins(board_, a.tie, b.net))) return std::nullopt;
      if (b.tie >= 0 && tie_joins(board_, b.tie, a.net)) return std::nullopt;
      if (a.clearance_override || b.clearance_override) {
        return std::max(a.clearance_override.value_or(0), b.clearance_override.value_or(0));
      }
      return rules_.required(a.net, a.type, b.net, b.type);
    }
    const Item& other = is_copper(a.role) ? a : b;
    const Item& fixed = is_copper(a.role) ? b : a;
    if (!is_copper(other.role) || other.role == Role::plane) return std::nullopt;
    if (fixed.role == Role::keepout) {
      const bool applies = (other.role == Role::wire && fixed.keepout_kind != KeepoutKind::via_keepout) ||
                           (other.role == Role::via && fixed.keepout_kind != KeepoutKind::wire_keepout);
      if (!applies) return std::nullopt;
      return rules_.required(other.net, other.type, other.net, ClearanceType::area);
    }
    return rules_.required(other.net, other.type, other.net, ClearanceType::edge);  // the outline
  }

  void test_pair(const Placed& pa, const Placed& pb) {
    if (pa.item == pb.item) return;
    const Item& a = items_[static_cast<std::size_t>(pa.item)];
    const Item& b = items_[static_cast<std::size_t>(pb.item)];
    const std::optional<Coord> required = requirement(a, b, pa, pb);
    if (!required) return;
    const double limit = static_cast<double>(*required) - kDistanceTolerance;
    if (box_gap(pa.shape.box, pb.shape.box) >= limit) return;
    const geometry::Separation separation = geometry::separation(pa.shape, pb.shape);
    if (separation.distance >= limit) return;
    record(pa.layer, pa.item, pb.item, {separation, *required});
  }

  void record(int layer, int item_a, int item_b, Finding finding) {
    if (item_a > item_b) std::swap(item_a, item_b);
    const auto key = std::make_tuple(layer, item_a, item_b);
    const auto [at, inserted] = findings_.emplace(key, finding);
    if (!inserted && finding.separation.distance < at->second.separation.distance) at->second = finding;
  }

  void check_layer(int layer) {
    std::vector<int> members;
    Box extent;
    for (std::size_t i = 0; i < placed_.size(); ++i) {
      if (placed_[i].layer != layer) continue;
      members.push_back(static_cast<int>(i));
      extent.include(placed_[i].shape.box);
    }
    if (members.size() < 2) return;
    // Boxes grown by half the largest clearance overlap for every pair that
    // could be too close.
    const Coord grow = rules_.largest() / 2 + 1;
    extent.min.x -= grow;
    extent.min.y -= grow;
    extent.max.x += grow;
    extent.max.y += grow;
    const double width = static_cast<double>(extent.max.x - extent.min.x) + 1;
    const double height = static_cast<double>(extent.max.y - extent.min.y) + 1;
    // About two objects per cell, cells no smaller than the search reach.
    double cell = std::max(std::sqrt(width * height / static_cast<double>(members.size())) * 1.5,
                           2.0 * static_cast<double>(grow));
    const double most_cells = 4.0 * static_cast<double>(members.size()) + 16;
    while ((width / cell) * (height / cell) > most_cells) cell *= 1.5;
    const auto columns = static_cast<Coord>(width / cell) + 1;
    const auto rows = static_cast<Coord>(height / cell) + 1;
    const auto cell_of = [&](Coord x, Coord y) {
      const Coord column =
          std::clamp<Coord>(static_cast<Coord>(static_cast<double>(x - extent.min.x) / cell), 0, columns - 1);
      const Coord row =
          std::clamp<Coord>(static_cast<Coord>(static_cast<double>(y - extent.min.y) / cell), 0, rows - 1);
      return std::pair{column, row};
    };
    const auto grown = [&](int member) {
      Box box = placed_[static_cast<std::size_t>(member)].shape.box;
      box.min.x -= grow;
      box.min.y -= grow;
      box.max.x += grow;
      box.max.y += grow;
      return box;
    };
    std::vector<std::vector<int>> cells(static_cast<std::size_t>(columns * rows));
    for (const int member : members) {
      const Box box = grown(member);
      const auto [c0, r0] = cell_of(box.min.x, box.min.y);
      const auto [c1, r1] = cell_of(box.max.x, box.max.y);
      for (Coord r = r0; r <= r1; ++r) {
        for (Coord c = c0; c <= c1; ++c) cells[static_cast<std::size_t>(r * columns + c)].push_back(member);
      }
    }
    for (Coord r = 0; r < rows; ++r) {
      for (Coord c = 0; c < columns; ++c) {
        const std::vector<int>& here = cells[static_cast<std::size_t>(r * columns + c)];
        for (std::size_t i = 0; i < here.size(); ++i) {
          const Box a = grown(here[i]);
          for (std::size_t j = i + 1; j < here.size(); ++j) {
            const Box b = grown(here[j]);
            if (a.max.x < b.min.x || b.max.x < a.min.x || a.max.y < b.min.y || b.max.y < a.min.y) continue;
            // Each pair once: in the cell holding the corner where their boxes start to overlap.
            if (cell_of(std::max(a.min.x, b.min.x), std::max(a.min.y, b.min.y)) != std::pair{c, r}) continue;
            test_pair(placed_[static_cast<std::size_t>(here[i])], placed_[static_cast<std::size_t>(here[j])]);
          }
        }
      }
    }
  }

  // Copper whose core starts outside the outline without crossing an edge
  // (crossings were found with the edges): distance to the edge, negative.
  void check_outside() {
    if (outline_item_ < 0) return;
    for (const Placed& placed : placed_) {
      const Item& item = items_[static_cast<std::size_t>(placed.item)];
      if (item.role != Role::pad && item.role != Role::wire && item.role != Role::via) continue;
      if (inside_boundary(board_, placed.shape.core.front())) continue;
      geometry::Separation nearest{std::numeric_limits<double>::infinity(), placed.shape.core.front()};
      for (const Primitive& edge : outline_edges_) {
        const geometry::Separation s = geometry::separation(placed.shape, edge);
        if (s.distance < nearest.distance) nearest = s;
      }
      if (outline_edges_.empty()) nearest.distance = 0;
      nearest.distance = -nearest.distance;
      record(placed.layer, placed.item, outline_item_,
             {nearest, rules_.required(item.net, item.type, item.net, ClearanceType::edge)});
    }
  }

  DrcObject object_of(const Item& item) const {
    DrcObject object;
    object.index = item.index;
    object.net = item.net;
    if (item.net >= 0) object.net_name = board_.nets[static_cast<std::size_t>(item.net)].name;
    switch (item.role) {
      case Role::pad:
        object.kind = DrcObjectKind::pad;
        object.pin = item.pin;
        object.name = pin_name(board_, item.pin);
        break;
      case Role::wire:
        object.kind = DrcObjectKind::wire;
        object.name = fmt::format("wire {}", item.index);
        break;
      case Role::via:
        object.kind = DrcObjectKind::via;
        object.name = fmt::format("via {}", item.index);
        break;
      case Role::graphic:
        object.kind = DrcObjectKind::graphic;
        object.name = board_.copper_graphics[static_cast<std::size_t>(item.index)].description;
        break;
      case Role::keepout:
        object.kind = DrcObjectKind::keepout;
        object.name = "keepout " + item.keepout_name;
        break;
      case Role::outline:
      case Role::plane:
        object.kind = DrcObjectKind::outline;
        object.name = "outline";
        break;
    }
    return object;
  }

  void report_violations(DrcReport& report) const {
    for (const auto& [key, finding] : findings_) {
      const auto [layer, item_a, item_b] = key;
      const Item* a = &items_[static_cast<std::size_t>(item_a)];
      const Item* b = &items_[static_cast<std::size_t>(item_b)];
      // Copper first, and in the order pad, wire, via.
      if (!is_copper(a->role) || (is_copper(b->role) && b->role < a->role)) std::swap(a, b);
      Violation violation{
          violation_kind(a->role, b->role), layer,           finding.separation.where, object_of(*a), object_of(*b),
          finding.separation.distance,      finding.required};
      const bool routed =
          a->role == Role::wire || a->role == Role::via || b->role == Role::wire || b->role == Role::via;
      (routed ? report.routing : report.input_conflicts).push_back(std::move(violation));
    }
    const auto order = [](const Violation& x, const Violation& y) {
      return std::tie(x.layer, x.position.x, x.position.y, x.first.name, x.second.name) <
             std::tie(y.layer, y.position.x, y.position.y, y.first.name, y.second.name);
    };
    std::sort(report.routing.begin(), report.routing.end(), order);
    std::sort(report.input_conflicts.begin(), report.input_conflicts.end(), order);
  }

  // Each pour island joins the pads, wires and vias it surely connects.
  void join_pours(DrcReport& report) {
    for (PourIsland& island : pour_islands(board_, routed_)) {
      const int node = sets_.add();
      for (const PinRef& pin : island.pins) {
        if (const auto found = pin_node_.find(pin_key(pin)); found != pin_node_.end()) sets_.unite(node, found->second);
      }
      for (const int w : island.wires) sets_.unite(node, wire_node_[static_cast<std::size_t>(w)]);
      for (const int v : island.vias) sets_.unite(node, via_node_[static_cast<std::size_t>(v)]);
      if (island.pins.size() >= 2) report.pours.push_back(std::move(island));
    }
  }

  void report_connectivity(DrcReport& report) {
    for (std::size_t n = 0; n < board_.nets.size(); ++n) {
      const Net& net = board_.nets[n];
      if (net.pins.size() < 2) continue;
      ++report.nets_checked;
      std::map<int, std::vector<PinRef>> groups;
      for (const PinRef& pin : net.pins) groups[sets_.find(pin_node_.at(pin_key(pin)))].push_back(pin);
      if (groups.size() < 2) continue;
      UnconnectedNet unconnected{static_cast<int>(n), net.name, {}};
      for (auto& [root, pins] : groups) unconnected.groups.push_back(std::move(pins));
      std::stable_sort(unconnected.groups.begin(), unconnected.groups.end(),
                       [](const auto& x, const auto& y) { return x.size() > y.size(); });
      report.unconnected.push_back(std::move(unconnected));
    }
  }

  const Board& board_;
  const RoutedCopper& routed_;
  ClearanceRules rules_;
  DisjointSets sets_;
  std::unordered_map<std::int64_t, int> pin_node_;
  std::vector<int> wire_node_;  // per wire: its union-find node
  std::vector<int> via_node_;   // per via
  std::vector<PinCopper> pads_copper_;
  std::size_t pads_ = 0;
  std::vector<Item> items_;
  std::vector<Placed> placed_;
  std::vector<Primitive> outline_edges_;
  int outline_item_ = -1;
  std::map<std::tuple<int, int, int>, Finding> findings_;
};

}  // namespace

DrcReport check_design_rules(const Board& board, const RoutedCopper& routed) {
  const auto start = std::chrono::steady_clock::now();
  DrcReport report = Checker(board, routed).run();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

DrcReport check_design_rules(const Board& board) { return check_design_rules(board, {board.wires, board.vias}); }

const char* to_string(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::pad_pad:
      return "pad-pad";
    case ViolationKind::pad_wire:
      return "pad-wire";
    case ViolationKind::pad_via:
      return "pad-via";
    case ViolationKind::wire_wire:
      return "wire-wire";
    case ViolationKind::wire_via:
      return "wire-via";
    case ViolationKind::via_via:
      return "via-via";
    case ViolationKind::graphic:
      return "copper-graphic";
    case ViolationKind::keepout:
      return "keepout";
    case ViolationKind::outline:
      return "outline";
  }
  return "?";
}

const char* to_string(DrcObjectKind kind) {
  switch (kind) {
    case DrcObjectKind::pad:
      return "pad";
    case DrcObjectKind::wire:
      return "wire";
    case DrcObjectKind::via:
      return "via";
    case DrcObjectKind::graphic:
      return "graphic";
    case DrcObjectKind::keepout:
      return "keepout";
    case DrcObjectKind::outline:
      return "outline";
  }
  return "?";
}

std::string pin_name(const Board& board, const PinRef& pin) {
  const Component& component = board.components[static_cast<std::size_t>(pin.component)];
  return component.reference + "-" +
         board.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pin.pin)].name;
}

}  // namespace trellis::route
