// Building the routing lattice: rule groups, the grid, who may use each
// node (from the copper, keepouts and outline near it), pad stubs, claim
// stencils and the graph's edges.
#include "lattice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>
#include <omp.h>

#include "../geometry/clearance_rules.hpp"
#include "../geometry/geometry.hpp"
#include "trellis/core/error.hpp"

namespace trellis::route::router_detail {
namespace {

// How far (in pitches beyond the pad) a necked-down stub may run to reach
// a grid node its net's full width can use: past the crowded ring of
// neighbouring pads' claims around a fine-pitch part.
constexpr double kNeckReach = 6;

using geometry::ClearanceRules;
using geometry::ClearanceType;
using geometry::Primitive;

// Grids beyond this many nodes would not fit a routing run; ask for a pitch.
constexpr double kMostNodes = 60e6;

enum class ObstacleKind { copper, keepout, wire_keepout, via_keepout, outline };

// Something other nets' wires and vias must keep clear of.
struct Obstacle {
  Primitive shape;
  int layer = kAllLayers;  // board layer
  int net = -1;
  ClearanceType type = ClearanceType::wire;
  ObstacleKind kind = ObstacleKind::copper;
  std::optional<Coord> clearance_override = std::nullopt;  // a pad's own clearance, which replaces the rules'
  int tie = -1;                                            // a net tie's pad or drawing: its index in Board::net_ties
};

// How near a stub another group's copper may not come: grid nodes and grid
// edges (their segments) within `grid` of its wire, via sites within
// `via`, where that group's owner table lets some other net be.
struct StubReach {
  std::size_t group = 0;
  double grid = 0;
  double via = 0;
};

using geometry::distance;

// A stub's wire of half-width `radius` as capsules, one a segment.
std::vector<Primitive> stub_segments(Point from, const std::vector<Point>& bends, Point to, double radius) {
  std::vector<Primitive> segments;
  Point at = from;
  for (const Point bend : bends) {
    segments.push_back(geometry::capsule(at, bend, radius));
    at = bend;
  }
  segments.push_back(geometry::capsule(at, to, radius));
  return segments;
}

// The length of a stub's wire.
double stub_length(Point from, const std::vector<Point>& bends, Point to) {
  double length = 0;
  Point at = from;
  for (const Point bend : bends) {
    length += distance(at, bend);
    at = bend;
  }
  return length + distance(at, to);
}

using geometry::grown;

bool single_layer(const Padstack& padstack) {
  return std::all_of(padstack.shapes.begin(), padstack.shapes.end(),
                     [&](const LayerShape& s) { return s.layer == padstack.shapes.front().layer; });
}

Coord padstack_radius(const Padstack& padstack) {
  Coord radius = 0;
  for (const LayerShape& s : padstack.shapes) {
    const Box box = bounding_box(s.shape);
    if (box.empty()) continue;
    radius = std::max({radius, -box.min.x, -box.min.y, box.max.x, box.max.y});
  }
  return radius;
}

class Builder {
 public:
  Builder(const Board& board, const RouterOptions& options, BentStubs bent, StubClaims claims)
      : board_(board), options_(options), bent_(bent), claims_(claims), rules_(board) {}

  Lattice build() {
    choose_slots();
    choose_groups();
    choose_grid();
    collect_obstacles();
    mark_outline();
    mark_obstacles();
    add_pads_and_pins();
    make_stencils();
    add_stubs();
    add_edges();
    mark_pours();
    return std::move(lattice_);
  }

 private:
  void choose_slots() {
    for (const Layer& layer : board_.layers) {
      if (layer.type == LayerType::signal || layer.type == LayerType::mixed) {
        const auto slot = static_cast<int>(lattice_.board_layer.size());
        slot_of_layer_.push_back(slot);
        lattice_.board_layer.push_back(layer.index);
        switch (options_.layer_directions) {
          case LayerDirections::from_board:
            slot_direction_.push_back(layer.direction);
            break;
          case LayerDirections::alternate:
            slot_direction_.push_back(slot % 2 == 0 ? LayerDirection::horizontal : LayerDirection::vertical);
            break;
          case LayerDirections::none:
            slot_direction_.push_back(LayerDirection::any);
            break;
        }
      } else {
        slot_of_layer_.push_back(-1);
      }
    }
    lattice_.layers = static_cast<int>(lattice_.board_layer.size());
    if (lattice_.layers == 0) throw UsageError(fmt::format("board '{}' has no signal layer to route on", board_.name));
  }

  // The slots a via padstack covers (ascending).
  std::vector<int> slots_covered(int padstack) const {
    std::vector<bool> reached(static_cast<std::size_t>(lattice_.layers), false);
    for (const LayerShape& s : board_.padstacks[static_cast<std::size_t>(padstack)].shapes) {
      const int slot = slot_of(s.layer);
      if (s.layer == kAllLayers) reached.assign(reached.size(), true);
      if (slot >= 0) reached[static_cast<std::size_t>(slot)] = true;
    }
    std::vector<int> slots;
    for (int s = 0; s < lattice_.layers; ++s) {
      if (reached[static_cast<std::size_t>(s)]) slots.push_back(s);
    }
    return slots;
  }

  // Width, clearance and vias of each net with two or more pins. A net may
  // use the vias its class lists (the board's where no class lists any),
  // the first of each set of layers: one through via, or several blind and
  // buried ones. A padstack on fewer than two signal layers joins nothing.
  void choose_groups() {
    std::vector<std::vector<const NetClass*>> classes(board_.nets.size());
    for (const NetClass& net_class : board_.classes) {
      for (const int net : net_class.nets) classes[static_cast<std::size_t>(net)].push_back(&net_class);
    }
    lattice_.group_of_net.assign(board_.nets.size(), -1);
    std::map<std::vector<int>, int> kind_of_slots;
    std::map<std::tuple<Coord, Coord, Coord, std::vector<int>>, int> group_of_rules;
    for (std::size_t n = 0; n < board_.nets.size(); ++n) {
      const Net& net = board_.nets[n];
      std::vector<PinRef> pins = net.pins;
      std::sort(pins.begin(), pins.end(), [](const PinRef& a, const PinRef& b) {
        return std::tie(a.component, a.pin) < std::tie(b.component, b.pin);
      });
      if (std::unique(pins.begin(), pins.end()) - pins.begin() < 2) continue;
      std::optional<Coord> width = net.rules.width;
      std::optional<Coord> neck = net.rules.neck_down_width;
      const std::vector<int>* listed = nullptr;
      for (const NetClass* net_class : classes[n]) {
        if (!width) width = net_class->rules.width;
        if (!neck) neck = net_class->rules.neck_down_width;
        if (!listed && !net_class->vias.empty()) listed = &net_class->vias;
      }
      if (!width) width = board_.rules.width;
      if (!neck) neck = board_.rules.neck_down_width;
      if (!width || *width <= 0) {
        throw UsageError(fmt::format("board '{}' gives net '{}' no wire width (a rule (width ...) is needed)",
                                     board_.name, net.name));
      }
      if (!listed) listed = &board_.via_padstacks;
      std::vector<int> vias;  // one padstack per set of slots, in the listed order
      std::vector<std::vector<int>> spans;
      for (const int padstack : *listed) {
        std::vector<int> slots = slots_covered(padstack);
        if (slots.size() < 2 || std::find(spans.begin(), spans.end(), slots) != spans.end()) continue;
        spans.push_back(std::move(slots));
        vias.push_back(padstack);
      }
      const int net_index = static_cast<int>(n);
      const Coord clearance = std::max(rules_.required(net_index, ClearanceType::wire, net_index, ClearanceType::wire),
                                       rules_.required(net_index, ClearanceType::via, net_index, ClearanceType::via));
      // The options' neck-down width overrides the board's; 0 is none.
      if (options_.neck_down_width) neck = *options_.neck_down_width;
      const Coord asked = neck.value_or(kDefaultNeckDownWidth);
      const Coord neck_width = asked > 0 ? std::min(*width, asked) : *width;
      const auto key = std::make_tuple(*width, neck_width, clearance, vias);
      auto [at, inserted] = group_of_rules.emplace(key, static_cast<int>(lattice_.groups.size()));
      if (inserted) {
        RuleGroup group;
        group.width = *width;
        group.neck_width = neck_width;
        group.clearance = clearance;
        for (std::size_t v = 0; v < vias.size(); ++v) {
          const auto [at_kind, added] = kind_of_slots.emplace(spans[v], static_cast<int>(lattice_.via_kinds.size()));
          if (added) lattice_.via_kinds.push_back({spans[v]});
          const auto kind = static_cast<std::size_t>(at_kind->second);
          group.via_padstacks.resize(std::max(group.via_padstacks.size(), kind + 1), -1);
          group.via_padstacks[kind] = vias[v];
          const Padstack& padstack = board_.padstacks[static_cast<std::size_t>(vias[v])];
          group.via_radius = std::max(group.via_radius, padstack_radius(padstack));
        }
        lattice_.groups.push_back(group);
      }
      lattice_.groups[static_cast<std::size_t>(at->second)].nets.push_back(net_index);
      lattice_.group_of_net[n] = at->second;
    }
    const std::size_t kinds = lattice_.via_kinds.size();
    lattice_.via_kinds_at_slot.assign(static_cast<std::size_t>(lattice_.layers), {});
    lattice_.via_kinds_meeting.assign(kinds, {});
    for (std::size_t k = 0; k < kinds; ++k) {
      const std::vector<int>& slots = lattice_.via_kinds[k].slots;
      for (const int s : slots) lattice_.via_kinds_at_slot[static_cast<std::size_t>(s)].push_back(static_cast<int>(k));
      for (std::size_t other = 0; other < kinds; ++other) {
        const std::vector<int>& theirs = lattice_.via_kinds[other].slots;
        if (std::find_first_of(slots.begin(), slots.end(), theirs.begin(), theirs.end()) != slots.end()) {
          lattice_.via_kinds_meeting[k].push_back(static_cast<int>(other));
        }
      }
    }
    for (RuleGroup& group : lattice_.groups) {
      group.via_padstacks.resize(kinds, -1);
      widest_wire_ = std::max(widest_wire_, group.width);
      largest_clearance_ = std::max(largest_clearance_, group.clearance);
    }
  }

  void choose_grid() {
    Coord pitch = 0;
    if (options_.pitch) {
      pitch = *options_.pitch;
    } else {
      // The finest group sets the pitch; wider groups claim the grid nodes
      // around their wires.
      for (const RuleGroup& group : lattice_.groups) {
        const Coord needed = group.width + group.clearance;
        if (pitch == 0 || needed < pitch) pitch = needed;
      }
      if (pitch == 0 && board_.rules.width && board_.rules.clearance)
        pitch = *board_.rules.width + *board_.rules.clearance;
    }
    if (pitch <= 0) {
      throw UsageError(fmt::format(
          "board '{}' has no wire width and clearance to derive a lattice pitch from; give one", board_.name));
    }
    Box extent = boundary_box(board_);
    if (extent.empty()) {
      for (const PinCopper& pad : pin_copper(board_)) extent.include(bounding_box(pad.shape));
    }
    if (extent.empty()) extent.include(Point{0, 0});
    const auto floor_to_pitch = [&](Coord v) { return (v >= 0 ? v / pitch : -((-v + pitch - 1) / pitch)) * pitch; };
    lattice_.pitch = pitch;
    lattice_.origin = {floor_to_pitch(extent.min.x), floor_to_pitch(extent.min.y)};
    const double columns =
        std::floor(static_cast<double>(extent.max.x - lattice_.origin.x) / static_cast<double>(pitch)) + 1;
    const double rows =
        std::floor(static_cast<double>(extent.max.y - lattice_.origin.y) / static_cast<double>(pitch)) + 1;
    const auto kinds = static_cast<int>(lattice_.via_kinds.size());
    if (columns * rows * (lattice_.layers + kinds) > kMostNodes) {
      throw UsageError(
          fmt::format("a lattice of pitch {} nm over board '{}' would have {:.0f} x {:.0f} x {} nodes; "
                      "choose a larger pitch",
                      pitch, board_.name, columns, rows, lattice_.layers + kinds));
    }
    lattice_.columns = static_cast<int>(columns);
    lattice_.rows = static_cast<int>(rows);
    lattice_.via_base = lattice_.columns * lattice_.rows * lattice_.layers;
    lattice_.pad_base = lattice_.via_base + lattice_.columns * lattice_.rows * kinds;
    const std::size_t sites = static_cast<std::size_t>(lattice_.pad_base);
    lattice_.position.resize(sites);
    lattice_.slot.assign(sites, -1);
    for (int s = 0; s < lattice_.layers + kinds; ++s) {
      for (int r = 0; r < lattice_.rows; ++r) {
        for (int c = 0; c < lattice_.columns; ++c) {
          const int node =
              s < lattice_.layers ? lattice_.grid_node(s, r, c) : lattice_.via_site(s - lattice_.layers, r, c);
          lattice_.position[static_cast<std::size_t>(node)] = grid_point(r, c);
          if (s < lattice_.layers) lattice_.slot[static_cast<std::size_t>(node)] = s;
        }
      }
    }
    lattice_.owner.assign(lattice_.groups.size(), std::vector<int>(sites, kAnyNet));
    // A group's vias are its kinds' sites only.
    for (std::size_t g = 0; g < lattice_.groups.size(); ++g) {
      for (int k = 0; k < kinds; ++k) {
        if (lattice_.groups[g].via_padstacks[static_cast<std::size_t>(k)] >= 0) continue;
        for (int r = 0; r < lattice_.rows; ++r) {
          for (int c = 0; c < lattice_.columns; ++c) {
            lattice_.owner[g][static_cast<std::size_t>(lattice_.via_site(k, r, c))] = kNoNet;
          }
        }
      }
    }
  }

  Point grid_point(int row, int column) const {
    return {lattice_.origin.x + static_cast<Coord>(column) * lattice_.pitch,
            lattice_.origin.y + static_cast<Coord>(row) * lattice_.pitch};
  }

  void add_obstacle_shapes(const Shape& shape, int layer, int net, ClearanceType type, ObstacleKind kind) {
    for (Primitive& primitive : geometry::primitives_of(shape)) {
      if (primitive.core.empty()) continue;
      obstacles_.push_back({std::move(primitive), layer, net, type, kind});
    }
  }

  void collect_obstacles() {
    for (const PinCopper& pad : pin_copper(board_)) {
      const Component& component = board_.components[static_cast<std::size_t>(pad.pin.component)];
      const int padstack =
          board_.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)].padstack;
      const ClearanceType type =
          single_layer(board_.padstacks[static_cast<std::size_t>(padstack)]) ? ClearanceType::smd : ClearanceType::pin;
      const std::size_t first = obstacles_.size();
      add_obstacle_shapes(pad.shape, pad.layer, pad.net, type, ObstacleKind::copper);
      const std::optional<Coord> own_clearance = pin_clearance_override(board_, pad.pin);
      const int tie = net_tie_of(board_, pad.pin);
      for (std::size_t o = first; o < obstacles_.size(); ++o) {
        obstacles_[o].clearance_override = own_clearance;
        obstacles_[o].tie = tie;
      }
      pads_.push_back(pad);
    }
    for (const Wire& wire : board_.wires)
      add_obstacle_shapes(wire.shape, wire.layer, wire.net, ClearanceType::wire, ObstacleKind::copper);
    // Text and drawings on copper belong to no net: every net keeps clear
    // of them in the lattice (a net tie's too: its nets' stubs alone may
    // touch it).
    for (const CopperGraphic& graphic : board_.copper_graphics) {
      const std::size_t first = obstacles_.size();
      for (const Shape& shape : graphic.shapes)
        add_obstacle_shapes(shape, graphic.layer, -1, ClearanceType::wire, ObstacleKind::copper);
      for (std::size_t o = first; o < obstacles_.size(); ++o) obstacles_[o].tie = graphic.tie;
    }
    for (const Via& via : board_.vias) {
      for (const LayerShape& s : board_.padstacks[static_cast<std::size_t>(via.padstack)].shapes) {
        Shape shape = s.shape;
        for (Point& p : shape.points) p = {p.x + via.position.x, p.y + via.position.y};
        add_obstacle_shapes(shape, s.layer, via.net, ClearanceType::via, ObstacleKind::copper);
      }
    }
    const auto kind_of = [](KeepoutKind kind) {
      return kind == KeepoutKind::keepout        ? ObstacleKind::keepout
             : kind == KeepoutKind::wire_keepout ? ObstacleKind::wire_keepout
                                                 : ObstacleKind::via_keepout;
    };
    for (const Keepout& keepout : board_.keepouts) {
      add_obstacle_shapes(keepout.shape, keepout.layer, -1, ClearanceType::area, kind_of(keepout.kind));
    }
    for (const Component& component : board_.components) {
      for (const Keepout& keepout : board_.images[static_cast<std::size_t>(component.image)].keepouts) {
        add_obstacle_shapes(geometry::placed_shape(component, keepout.shape),
                            keepout.layer == kAllLayers ? kAllLayers : placed_layer(board_, component, keepout.layer),
                            -1, ClearanceType::area, kind_of(keepout.kind));
      }
    }
    if (!board_.boundary.empty()) {
      for (Primitive& edge : geometry::outline_edges(board_.boundary.front())) {
        obstacles_.push_back({std::move(edge), kAllLayers, -1, ClearanceType::edge, ObstacleKind::outline});
      }
    }
  }

  // The pour each grid node lies in on its layer: pours of routed nets
  // only (a pour whose net has one pin joins nothing). Their outline, not
  // their fill: what matters is where other nets' wires would part them.
  void mark_pours() {
    bool any = false;
    for (const Plane& plane : board_.planes) {
      if (!plane.pour || plane.net < 0 || lattice_.group_of_net[static_cast<std::size_t>(plane.net)] < 0) continue;
      const int slot = slot_of(plane.layer);
      if (slot < 0 || plane.shape.points.size() < 3) continue;
      if (!any) lattice_.pour_net.assign(static_cast<std::size_t>(lattice_.pad_base), kNoPour);
      any = true;
      const Box box = bounding_box(plane.shape);
      for (int r = 0; r < lattice_.rows; ++r) {
        for (int c = 0; c < lattice_.columns; ++c) {
          const Point at = grid_point(r, c);
          if (!box.contains(at) || !geometry::polygon_contains(plane.shape.points, at)) continue;
          int& pour = lattice_.pour_net[static_cast<std::size_t>(lattice_.grid_node(slot, r, c))];
          pour = pour == kNoPour || pour == plane.net ? plane.net : kPoursOfSeveralNets;
        }
      }
    }
  }

  // Grid points outside the outline are no one's.
  void mark_outline() {
    for (int r = 0; r < lattice_.rows; ++r) {
      for (int c = 0; c < lattice_.columns; ++c) {
        if (inside_boundary(board_, grid_point(r, c))) continue;
        for (auto& owner : lattice_.owner) {
          for (int s = 0; s < lattice_.layers; ++s)
            owner[static_cast<std::size_t>(lattice_.grid_node(s, r, c))] = kNoNet;
          for (std::size_t k = 0; k < lattice_.via_kinds.size(); ++k) {
            owner[static_cast<std::size_t>(lattice_.via_site(static_cast<int>(k), r, c))] = kNoNet;
          }
        }
      }
    }
  }

  // The clearance a group's wire (or via) keeps from an obstacle; nothing
  // when the obstacle does not concern it.
  std::optional<Coord> clearance(int representative, ClearanceType own, const Obstacle& o) const {
    switch (o.kind) {
      case ObstacleKind::copper:
        if (o.clearance_override) return *o.clearance_override;
        return rules_.required(representative, own, o.net, o.type);
      case ObstacleKind::keepout:
        return rules_.required(representative, own, representative, ClearanceType::area);
      case ObstacleKind::wire_keepout:
        if (own == ClearanceType::via) return std::nullopt;
        return rules_.required(representative, own, representative, ClearanceType::area);
      case ObstacleKind::via_keepout:
        if (own == ClearanceType::wire) return std::nullopt;
        return rules_.required(representative, own, representative, ClearanceType::area);
      case ObstacleKind::outline:
        return rules_.required(representative, own, representative, ClearanceType::edge);
    }
    return std::nullopt;
  }

  // Who may use two things at once, each kAnyNet, kNoNet or one net.
  static int both(int a, int b) {
    if (a == kAnyNet) return b;
    if (b == kAnyNet || a == b) return a;
    return kNoNet;
  }

  static void restrict_owner(int& owner, const Obstacle& o) {
    if (o.kind == ObstacleKind::copper && o.net >= 0) {
      if (owner == kAnyNet)
        owner = o.net;
      else if (owner != o.net)
        owner = kNoNet;
    } else {
      owner = kNoNet;
    }
  }

  // The grid rows and columns (inclusive) of the points inside a box.
  struct GridRange {
    int r0, r1, c0, c1;
  };
  GridRange grid_range(const Box& area) const {
    const double p = static_cast<double>(lattice_.pitch);
    return {std::max(0, static_cast<int>(std::ceil(static_cast<double>(area.min.y - lattice_.origin.y) / p))),
            std::min(lattice_.rows - 1,
                     static_cast<int>(std::floor(static_cast<double>(area.max.y - lattice_.origin.y) / p))),
            std::max(0, static_cast<int>(std::ceil(static_cast<double>(area.min.x - lattice_.origin.x) / p))),
            std::min(lattice_.columns - 1,
                     static_cast<int>(std::floor(static_cast<double>(area.max.x - lattice_.origin.x) / p)))};
  }

  // Calls visit(row, column) for the grid points within `reach` of the box.
  template <typename Visit>
  void for_grid_points_near(const Box& box, double reach, Visit visit) const {
    const GridRange g = grid_range(grown(box, reach));
    for (int r = g.r0; r <= g.r1; ++r) {
      for (int c = g.c0; c <= g.c1; ++c) visit(r, c);
    }
  }

  // Calls visit(row, column) for the grid points of the box around segment
  // a-b grown by `reach` that can lie within `reach` of the segment: in each
  // row only the columns near where the segment crosses that row's band of
  // height 2 * reach (a superset, one column wider on each side for
  // rounding), not the box's whole width. A long diagonal stub's claims are
  // then found without testing every point of its box.
  template <typename Visit>
  void for_grid_points_near_segment(Point a, Point b, double reach, Visit visit) const {
    Box box{a, a};
    box.include(b);
    const GridRange g = grid_range(grown(box, reach));
    const double p = static_cast<double>(lattice_.pitch);
    const double ox = static_cast<double>(lattice_.origin.x);
    const double ax = static_cast<double>(a.x), ay = static_cast<double>(a.y);
    const double bx = static_cast<double>(b.x), by = static_cast<double>(b.y);
    for (int r = g.r0; r <= g.r1; ++r) {
      const double y = static_cast<double>(grid_point(r, 0).y);
      // The part of the segment with |y' - y| <= reach, by its x extent.
      double low = std::min(ax, bx);
      double high = std::max(ax, bx);
      if (ay != by) {
        const double t0 = std::clamp((y - reach - ay) / (by - ay), 0.0, 1.0);
        const double t1 = std::clamp((y + reach - ay) / (by - ay), 0.0, 1.0);
        low = std::min(ax + t0 * (bx - ax), ax + t1 * (bx - ax));
        high = std::max(ax + t0 * (bx - ax), ax + t1 * (bx - ax));
      }
      const int first = std::max(g.c0, static_cast<int>(std::floor((low - reach - ox) / p)) - 1);
      const int last = std::min(g.c1, static_cast<int>(std::ceil((high + reach - ox) / p)) + 1);
      for (int c = first; c <= last; ++c) visit(r, c);
    }
  }

  int slot_of(int board_layer) const {
    return board_layer >= 0 && static_cast<std::size_t>(board_layer) < slot_of_layer_.size()
               ? slot_of_layer_[static_cast<std::size_t>(board_layer)]
               : -1;
  }

  // Who may use each grid node and grid edge. A node is usable by a group
  // where the group's wire centred on it keeps its clearance; an edge where
  // its whole segment does (a segment can pass closer to a pad's corner or
  // a small via than either of its ends). Deciding per edge, not per node
  // with the edges' half pitch added to the reach, opens the channels
  // between the pins of a 2.54 mm header to a 0.25 mm wire: the node rule
  // left a window of 0.02 mm for a grid line there, this one 0.16 mm.
  void mark_obstacles() {
    const double pitch = static_cast<double>(lattice_.pitch);
    const auto grid_nodes = static_cast<std::size_t>(lattice_.via_base);
    edge_owner_.assign(lattice_.groups.size(), std::vector<int>(2 * grid_nodes, kAnyNet));
    for (std::size_t g = 0; g < lattice_.groups.size(); ++g) {
      const RuleGroup& group = lattice_.groups[g];
      const int representative = group.nets.front();
      std::vector<int>& owner = lattice_.owner[g];
      std::vector<int>& edge_owner = edge_owner_[g];
      std::vector<Coord> via_radius(lattice_.via_kinds.size(), 0);  // per kind: the group's via's, once
      for (std::size_t k = 0; k < via_radius.size(); ++k) {
        const int padstack = group.via_padstacks[k];
        if (padstack >= 0) via_radius[k] = padstack_radius(board_.padstacks[static_cast<std::size_t>(padstack)]);
      }
      for (const Obstacle& o : obstacles_) {
        const int slot = slot_of(o.layer);
        if (o.layer != kAllLayers && slot < 0) continue;
        if (const auto c = clearance(representative, ClearanceType::wire, o)) {
          const double wire = static_cast<double>(group.width) / 2 + static_cast<double>(*c);
          const auto restrict_slots = [&](std::vector<int>& owners, int r, int c2, int per_node, int which) {
            for (int s = 0; s < lattice_.layers; ++s) {
              if (o.layer != kAllLayers && s != slot) continue;
              const auto node = static_cast<std::size_t>(lattice_.grid_node(s, r, c2));
              restrict_owner(owners[node * static_cast<std::size_t>(per_node) + static_cast<std::size_t>(which)], o);
            }
          };
          for_grid_points_near(o.shape.box, wire, [&](int r, int c2) {
            if (geometry::separation(grid_point(r, c2), o.shape).distance >= wire) return;
            restrict_slots(owner, r, c2, 1, 0);
          });
          // An edge can pass within reach of a shape narrower than a pitch
          // with both its ends out of reach: look a pitch further.
          for_grid_points_near(o.shape.box, wire + pitch, [&](int r, int c2) {
            const Point from = grid_point(r, c2);
            if (c2 + 1 < lattice_.columns &&
                geometry::separation(geometry::capsule(from, grid_point(r, c2 + 1), 0), o.shape).distance < wire) {
              restrict_slots(edge_owner, r, c2, 2, 0);
            }
            if (r + 1 < lattice_.rows &&
                geometry::separation(geometry::capsule(from, grid_point(r + 1, c2), 0), o.shape).distance < wire) {
              restrict_slots(edge_owner, r, c2, 2, 1);
            }
          });
        }
        const auto c = clearance(representative, ClearanceType::via, o);
        if (!c) continue;
        for (std::size_t k = 0; k < lattice_.via_kinds.size(); ++k) {
          const std::vector<int>& slots = lattice_.via_kinds[k].slots;
          const bool on_its_layers =
              o.layer == kAllLayers || std::find(slots.begin(), slots.end(), slot) != slots.end();
          if (group.via_padstacks[k] < 0 || !on_its_layers) continue;
          const double reach = static_cast<double>(via_radius[k]) + static_cast<double>(*c);
          // A through-hole pad keeps every via off, its own net's too: the
          // pad joins its layers already, and the drills would meet.
          const bool drilled = o.kind == ObstacleKind::copper && o.type == ClearanceType::pin;
          for_grid_points_near(o.shape.box, reach, [&](int r, int c2) {
            if (geometry::separation(grid_point(r, c2), o.shape).distance >= reach) return;
            int& site = owner[static_cast<std::size_t>(lattice_.via_site(static_cast<int>(k), r, c2))];
            if (drilled)
              site = kNoNet;
            else
              restrict_owner(site, o);
          });
        }
      }
    }
  }

  void add_pads_and_pins() {
    std::map<std::pair<int, int>, int> pin_node;  // (component, pin) -> pin index
    lattice_.net_pins.resize(board_.nets.size());
    for (std::size_t n = 0; n < board_.nets.size(); ++n) {
      if (lattice_.group_of_net[n] < 0) continue;
      for (const PinRef& pin : board_.nets[n].pins) {
        const auto [at, inserted] =
            pin_node.emplace(std::pair{pin.component, pin.pin}, static_cast<int>(lattice_.pin_of.size()));
        if (!inserted) continue;
        lattice_.pin_of.push_back(pin);
        pin_net_.push_back(static_cast<int>(n));
        lattice_.net_pins[n].push_back(at->second);  // made node ids below
      }
    }
    for (const PinCopper& pad : pads_) {
      const int slot = slot_of(pad.layer);
      if (pad.net < 0 || slot < 0 || lattice_.group_of_net[static_cast<std::size_t>(pad.net)] < 0) continue;
      const auto found = pin_node.find({pad.pin.component, pad.pin.pin});
      if (found == pin_node.end() || pin_net_[static_cast<std::size_t>(found->second)] != pad.net) continue;
      pad_shapes_.push_back(&pad);
      pad_pin_index_.push_back(found->second);
      pad_slots_.push_back(slot);
    }
    lattice_.pin_base = lattice_.pad_base + static_cast<int>(pad_shapes_.size());
    lattice_.stub_base = lattice_.pin_base + static_cast<int>(lattice_.pin_of.size());
    lattice_.node_count = lattice_.stub_base;  // stubs and midpoints are added later
    lattice_.mid_base = lattice_.node_count;
    for (auto& list : lattice_.net_pins) {
      for (int& pin : list) pin += lattice_.pin_base;
    }
    for (std::size_t i = 0; i < pad_shapes_.size(); ++i) {
      lattice_.position.push_back(pin_position(board_, pad_shapes_[i]->pin));
      lattice_.slot.push_back(pad_slots_[i]);
      lattice_.pin_of_pad.push_back(lattice_.pin_base + pad_pin_index_[i]);
    }
    for (const PinRef& pin : lattice_.pin_of) {
      lattice_.position.push_back(pin_position(board_, pin));
      lattice_.slot.push_back(-1);
    }
    lattice_.net_pads.resize(board_.nets.size());
    for (std::size_t i = 0; i < pad_shapes_.size(); ++i) {
      lattice_.net_pads[static_cast<std::size_t>(pad_shapes_[i]->net)].push_back(lattice_.pad_base +
                                                                                 static_cast<int>(i));
    }
    // Pad and pin nodes belong to their net alone.
    for (auto& owner : lattice_.owner) {
      owner.resize(static_cast<std::size_t>(lattice_.node_count));
      for (std::size_t i = 0; i < pad_shapes_.size(); ++i)
        owner[static_cast<std::size_t>(lattice_.pad_base) + i] = pad_shapes_[i]->net;
      for (std::size_t i = 0; i < pin_net_.size(); ++i)
        owner[static_cast<std::size_t>(lattice_.pin_base) + i] = pin_net_[i];
    }
  }

  // Grid offsets within `radius` (strictly) of the origin, in pitches.
  std::vector<Offset> disc_offsets(double radius, bool with_centre) const {
    std::vector<Offset> offsets;
    const double p = static_cast<double>(lattice_.pitch);
    const int reach = static_cast<int>(std::ceil(radius / p));
    for (int dr = -reach; dr <= reach; ++dr) {
      for (int dc = -reach; dc <= reach; ++dc) {
        if (dr == 0 && dc == 0 && !with_centre) continue;
        if (std::hypot(dc * p, dr * p) < radius) offsets.push_back({dc, dr});
      }
    }
    return offsets;
  }

  // Two nets must keep the larger of their clearances apart
  // (ClearanceRules::required): w_a / 2 + w_b / 2 + max(c_a, c_b) between
  // wire centres. Of two such pieces of copper it is enough that one claims
  // the other's node, so the groups are ordered (by clearance, then wire
  // width, via radius and index) and a group's stencils reach only for the
  // groups not above it: its own width and clearance plus the widest wire
  // (or via) among those. For two groups, the one above has the larger (or
  // equal) clearance, and its stencils cover the pair. (With the widest wire
  // and largest clearance of every group in every stencil, one 4 mm or one
  // high-voltage class kept every other net several grid lines apart.)
  void make_stencils() {
    const auto rank = [&](std::size_t g) {
      const RuleGroup& group = lattice_.groups[g];
      return std::make_tuple(group.clearance, group.width, group.via_radius, g);
    };
    for (std::size_t g = 0; g < lattice_.groups.size(); ++g) {
      const RuleGroup& group = lattice_.groups[g];
      double wide = 0;
      double via = 0;
      for (std::size_t h = 0; h < lattice_.groups.size(); ++h) {
        if (rank(h) > rank(g)) continue;
        wide = std::max(wide, static_cast<double>(lattice_.groups[h].width) / 2);
        via = std::max(via, static_cast<double>(lattice_.groups[h].via_radius));
      }
      const double own_wire = static_cast<double>(group.width) / 2;
      const double own_via = static_cast<double>(group.via_radius);
      const double c = static_cast<double>(group.clearance);
      lattice_.wire_grid_claims.push_back(disc_offsets(own_wire + wide + c, false));
      lattice_.wire_via_claims.push_back(disc_offsets(own_wire + via + c, true));
      lattice_.via_grid_claims.push_back(disc_offsets(own_via + wide + c, true));
      lattice_.via_via_claims.push_back(disc_offsets(own_via + via + c, true));
    }
  }

  // The obstacles near a box on one slot, found through a bucket grid.
  void index_obstacles() {
    bucket_size_ = std::max<Coord>(lattice_.pitch * 8, 1);
    const Box extent = grown(Box{lattice_.origin, grid_point(lattice_.rows - 1, lattice_.columns - 1)}, 0);
    bucket_columns_ = static_cast<int>((extent.max.x - extent.min.x) / bucket_size_) + 1;
    bucket_rows_ = static_cast<int>((extent.max.y - extent.min.y) / bucket_size_) + 1;
    buckets_.assign(static_cast<std::size_t>(bucket_columns_) * static_cast<std::size_t>(bucket_rows_), {});
    const double reach = static_cast<double>(widest_wire_) / 2 + static_cast<double>(rules_.largest());
    for (std::size_t i = 0; i < obstacles_.size(); ++i) {
      for_buckets(grown(obstacles_[i].shape.box, reach),
                  [&](std::vector<int>& bucket) { bucket.push_back(static_cast<int>(i)); });
    }
  }

  template <typename Visit>
  void for_buckets(const Box& box, Visit visit) {
    const auto index = [&](Coord v, Coord origin, int count) {
      return static_cast<int>(std::clamp<Coord>((v - origin) / bucket_size_, 0, count - 1));
    };
    const int c0 = index(box.min.x, lattice_.origin.x, bucket_columns_);
    const int c1 = index(box.max.x, lattice_.origin.x, bucket_columns_);
    const int r0 = index(box.min.y, lattice_.origin.y, bucket_rows_);
    const int r1 = index(box.max.y, lattice_.origin.y, bucket_rows_);
    for (int r = r0; r <= r1; ++r) {
      for (int c = c0; c <= c1; ++c)
        visit(buckets_[static_cast<std::size_t>(r) * static_cast<std::size_t>(bucket_columns_) +
                       static_cast<std::size_t>(c)]);
    }
  }

  // Offers `take` the corners a stub from `centre` to `end` may take,
  // simplest first, until it accepts one: out along one axis, then square;
  // out along one axis, then at 45 degrees; out along one axis for some way
  // (in steps of `step`), then at 45 degrees and square or straight on. The
  // last fit a diagonal into the gap between a neighbour's corner and a
  // part in front at any pitch. True when `take` accepted some.
  template <typename Take>
  static bool try_stub_shapes(Point centre, Point end, Coord step, Take take) {
    const auto offer = [&](std::initializer_list<Point> corners) {
      for (const Point corner : corners) {
        if (corner == centre || corner == end) return false;
      }
      return take(std::vector<Point>(corners));
    };
    if (offer({{end.x, centre.y}}) || offer({{centre.x, end.y}})) return true;
    // Along x first (`along_x`), or along y: written for x, with y mirrored.
    for (const bool along_x : {true, false}) {
      const auto point = [&](Coord along, Coord across) {
        return along_x ? Point{along, across} : Point{across, along};
      };
      const Coord c_along = along_x ? centre.x : centre.y, c_across = along_x ? centre.y : centre.x;
      const Coord e_along = along_x ? end.x : end.y, e_across = along_x ? end.y : end.x;
      const Coord d_along = std::abs(e_along - c_along), d_across = std::abs(e_across - c_across);
      const Coord s_along = e_along > c_along ? 1 : -1, s_across = e_across > c_across ? 1 : -1;
      if (d_across == 0 || d_along == 0) continue;
      if (d_along > d_across && offer({point(e_along - s_along * d_across, c_across)})) return true;
      for (Coord t = step; t < d_along; t += step) {
        const Coord diagonal = d_along - t;  // to end's column, then square
        if (diagonal < d_across &&
            offer({point(c_along + s_along * t, c_across), point(e_along, c_across + s_across * diagonal)})) {
          return true;
        }
        // Across to end's row, then straight on.
        if (t + d_across < d_along &&
            offer({point(c_along + s_along * t, c_across), point(c_along + s_along * (t + d_across), e_across)})) {
          return true;
        }
      }
    }
    return false;
  }

  // Whether the grid nodes a pad's straight stubs reach are shut in: the
  // nodes `net` may use on the slot, joined side by side, never lead out
  // of the pad's box grown by a few pitches (an escape by via counts as a
  // way out). A pad in a ring of other nets' claims with a part in front
  // of it then gets bent stubs too.
  bool trapped(const std::vector<std::array<int, 2>>& starts, const Box& pad_box, int slot, int net,
               const std::vector<int>& owner) const {
    const GridRange box = grid_range(grown(pad_box, 4.0 * static_cast<double>(lattice_.pitch)));
    const auto usable = [&](std::size_t node) { return owner[node] == kAnyNet || owner[node] == net; };
    const auto outside = [&](int r, int c) { return r <= box.r0 || r >= box.r1 || c <= box.c0 || c >= box.c1; };
    // Reached marks over the box: the search stops at its edge.
    const int width = box.c1 - box.c0 + 1;
    std::vector<char> seen(static_cast<std::size_t>(width) * static_cast<std::size_t>(box.r1 - box.r0 + 1), 0);
    const auto mark = [&](int r, int c) {
      char& at = seen[static_cast<std::size_t>(r - box.r0) * static_cast<std::size_t>(width) +
                      static_cast<std::size_t>(c - box.c0)];
      const bool first = at == 0;
      at = 1;
      return first;
    };
    std::vector<std::array<int, 2>> stack;
    for (const auto [r, c] : starts) {
      if (outside(r, c)) return false;
      if (mark(r, c)) stack.push_back({r, c});
    }
    while (!stack.empty()) {
      const auto [r, c] = stack.back();
      stack.pop_back();
      if (outside(r, c)) return false;
      for (const int k : lattice_.via_kinds_at_slot[static_cast<std::size_t>(slot)]) {
        if (usable(static_cast<std::size_t>(lattice_.via_site(k, r, c)))) return false;
      }
      for (const auto [r2, c2] : {std::array<int, 2>{r + 1, c}, {r - 1, c}, {r, c + 1}, {r, c - 1}}) {
        if (!usable(static_cast<std::size_t>(lattice_.grid_node(slot, r2, c2))) || !mark(r2, c2)) continue;
        stack.push_back({r2, c2});
      }
    }
    return true;
  }

  // Whether a wire `width` wide could not pass between the pad and another
  // net's copper on its slot: a fine-pitch pad, whose ways out lie only
  // ahead and aslant.
  bool tight(const PinCopper& pad, int slot, Coord width) {
    const double gap = static_cast<double>(width) + 2.0 * static_cast<double>(largest_clearance_);
    bool close = false;
    for (const Primitive& part : geometry::primitives_of(pad.shape)) {
      if (part.core.empty()) continue;
      for_buckets(grown(part.box, gap), [&](std::vector<int>& bucket) {
        for (const int i : bucket) {
          if (close) return;
          const Obstacle& o = obstacles_[static_cast<std::size_t>(i)];
          if (o.kind != ObstacleKind::copper || o.net == pad.net || tie_joins(board_, o.tie, pad.net)) continue;
          if (o.layer != kAllLayers && slot_of(o.layer) != slot) continue;
          if (geometry::separation(part, o.shape).distance < gap) close = true;
        }
      });
    }
    return close;
  }

  // Whether a stub of `net` keeps its clearance from everything not its own.
  bool stub_clear(const Primitive& stub, int net, int slot) {
    bool clear = true;
    for_buckets(stub.box, [&](std::vector<int>& bucket) {
      for (const int i : bucket) {
        if (!clear) return;
        const Obstacle& o = obstacles_[static_cast<std::size_t>(i)];
        if (o.layer != kAllLayers && slot_of(o.layer) != slot) continue;
        if (o.kind == ObstacleKind::copper && ((o.net == net && net >= 0) || tie_joins(board_, o.tie, net))) continue;
        const auto c = clearance(net, ClearanceType::wire, o);
        if (!c) continue;
        if (geometry::separation(stub, o.shape).distance < static_cast<double>(*c)) clear = false;
      }
    });
    return clear;
  }

  void add_stubs() {
    index_obstacles();
    const std::size_t pins = lattice_.pin_of.size();
    std::vector<bool> reachable_pin(pins, false);
    // Whether a wire of the pin's net, as wide as tried last, could start at
    // one of its pads' centres at all (else no pitch gives it a stub).
    std::vector<bool> centre_clear(pins, false);
    std::vector<Coord> tried_width(pins, 0);
    lattice_.pin_off_every_lattice.assign(board_.nets.size(), 0);
    // The stubs of pad node pad_base + i for wires `width` wide, to grid
    // nodes within `pitches` of the pad (one more with a bend), and whether
    // such a wire could start at the pad's centre at all. A pad's stubs
    // depend on no other pad's, so the pads go side by side.
    struct PadStubs {
      std::vector<Stub> stubs;
      std::vector<std::vector<int>> edges;  // per stub: the grid edges it claims (stub_edges_)
      bool centre_clear = false;
    };
    const auto pad_stubs = [&](std::size_t i, Coord width, double pitches) {
      PadStubs out;
      const PinCopper& pad = *pad_shapes_[i];
      const int pad_node = lattice_.pad_base + static_cast<int>(i);
      const int group = lattice_.group_of_net[static_cast<std::size_t>(pad.net)];
      const std::vector<int>& owner = lattice_.owner[static_cast<std::size_t>(group)];
      const Point centre = lattice_.position[static_cast<std::size_t>(pad_node)];
      const int slot = pad_slots_[i];
      Box around = bounding_box(pad.shape);
      around.include(centre);
      const double half_width = static_cast<double>(width) / 2;
      // Claims of a stub: what other nets' wires and vias could not use
      // beside it. The stub claims what its own group's copper could not
      // use beside it; further out, what another group's copper could not
      // (at the larger of the two groups' clearances), only where the owner
      // table lets a net of that group be: a wide clearance of one class
      // claims no room round a fine-pitch part that only narrow classes can
      // use. A grid wire is its nodes and the segments between them, and a
      // segment comes within d of the stub only if one of its ends comes
      // within sqrt(d^2 + (p/2)^2): StubClaims says which the stub claims
      // (edges through their midpoints, made by add_edges), and the points
      // searched reach that far.
      const double half_pitch = static_cast<double>(lattice_.pitch) / 2;
      const bool edges = claims_ == StubClaims::nodes_and_edges;
      const RuleGroup& own_group = lattice_.groups[static_cast<std::size_t>(group)];
      const auto reach_of = [&](std::size_t g) {
        const RuleGroup& other = lattice_.groups[g];
        const auto c = static_cast<double>(std::max(own_group.clearance, other.clearance));
        const double grid = half_width + static_cast<double>(other.width) / 2 + c;
        return StubReach{g, edges ? grid : std::hypot(grid, half_pitch),
                         half_width + static_cast<double>(other.via_radius) + c};
      };
      const StubReach own_reach = reach_of(static_cast<std::size_t>(group));
      std::vector<StubReach> reaches;  // other groups', where they reach further
      const auto searched = [&](const StubReach& at) {
        return std::max(edges ? std::hypot(at.grid, half_pitch) : at.grid, at.via);
      };
      double claim_reach = searched(own_reach);
      for (std::size_t g = 0; g < lattice_.groups.size(); ++g) {
        const StubReach at = reach_of(g);
        if (at.grid <= own_reach.grid && at.via <= own_reach.via) continue;
        reaches.push_back(at);
        claim_reach = std::max(claim_reach, searched(at));
      }
      // Whether the stub claims something d from its wire: within the
      // StubReach member `reach` (grid or via) of its own group, or of a
      // group g whose net may be there (who_of(g): kAnyNet or a net).
      const auto claimed_by = [&](double d, double StubReach::*reach, auto&& who_of) {
        if (d < own_reach.*reach) return true;
        for (const StubReach& at : reaches) {
          if (d >= at.*reach) continue;
          const int who = who_of(at.group);
          if (who == kAnyNet || (who >= 0 && who != pad.net)) return true;
        }
        return false;
      };
      const auto claimed = [&](int node, double d, bool via) {
        return claimed_by(d, via ? &StubReach::via : &StubReach::grid,
                          [&](std::size_t g) { return lattice_.owner[g][static_cast<std::size_t>(node)]; });
      };
      const auto add_stub = [&](int r, int c, const std::vector<Point>& corners) {
        Stub stub{pad_node, lattice_.grid_node(slot, r, c), corners, width, {}};
        const std::vector<Primitive> wire = stub_segments(centre, corners, grid_point(r, c), 0);
        std::vector<std::array<int, 2>> near;  // grid points within claim_reach
        for (const Primitive& reach_wire : wire) {
          for_grid_points_near_segment(
              reach_wire.core.front(), reach_wire.core.back(), claim_reach, [&](int r2, int c2) {
                const double d = geometry::separation(grid_point(r2, c2), reach_wire).distance;
                if (d >= claim_reach) return;
                if (edges) near.push_back({r2, c2});
                const int node = lattice_.grid_node(slot, r2, c2);
                if (claimed(node, d, false)) stub.claims.push_back(node);
                for (const int k : lattice_.via_kinds_at_slot[static_cast<std::size_t>(slot)]) {
                  const int site = lattice_.via_site(k, r2, c2);
                  if (claimed(site, d, true)) stub.claims.push_back(site);
                }
              });
        }
        std::sort(stub.claims.begin(), stub.claims.end());
        stub.claims.erase(std::unique(stub.claims.begin(), stub.claims.end()), stub.claims.end());
        if (!edges) {
          out.edges.emplace_back();
          out.stubs.push_back(std::move(stub));
          return;
        }
        out.edges.push_back(claimed_edges(slot, wire, near, stub.claims, [&](int a, int which, double d) {
          return claimed_by(d, &StubReach::grid, [&](std::size_t g) { return edge_users(g, a, which); });
        }));
        out.stubs.push_back(std::move(stub));
      };
      const auto usable = [&](int r, int c) {
        const int who = owner[static_cast<std::size_t>(lattice_.grid_node(slot, r, c))];
        return who == kAnyNet || who == pad.net;
      };
      const auto clear = [&](const std::vector<Point>& corners, Point end) {
        for (const Primitive& wire : stub_segments(centre, corners, end, half_width)) {
          if (!stub_clear(wire, pad.net, slot)) return false;
        }
        return true;
      };
      out.centre_clear = clear({}, centre);
      std::vector<std::array<int, 2>> straight;
      for_grid_points_near(around, pitches * static_cast<double>(lattice_.pitch), [&](int r, int c) {
        if (!usable(r, c) || !clear({}, grid_point(r, c))) return;
        add_stub(r, c, {});
        straight.push_back({r, c});
      });
      // Fine-pitch pads often have no straight way out between their
      // neighbours, or few: they also leave along the pad's axis first and
      // then turn (as a human fan-out does, at 45 degrees).
      const bool fine_pitch = bent_ != BentStubs::shut_in && tight(pad, slot, width);
      if (!straight.empty() && !fine_pitch && !trapped(straight, around, slot, pad.net, owner)) return out;
      const Coord step = std::max<Coord>(1, lattice_.pitch / 16);
      // Reaching further, a fine-pitch pad's bent stub can pass the rows
      // in front of a part, where neighbouring pins' wires need 45-degree
      // jogs the lattice's square steps do not fit.
      const double reach = fine_pitch && bent_ == BentStubs::fine_pitch_reaching_further ? kNeckReach + 1 : pitches + 1;
      for_grid_points_near(around, reach * static_cast<double>(lattice_.pitch), [&](int r, int c) {
        if (!usable(r, c)) return;
        const Point end = grid_point(r, c);
        if (std::find(straight.begin(), straight.end(), std::array<int, 2>{r, c}) != straight.end()) return;
        try_stub_shapes(centre, end, step, [&](const std::vector<Point>& corners) {
          if (!clear(corners, end)) return false;
          add_stub(r, c, corners);
          return true;
        });
      });
      return out;
    };
    const auto group_of_pad = [&](std::size_t i) -> const RuleGroup& {
      const int net = pad_shapes_[i]->net;
      return lattice_.groups[static_cast<std::size_t>(lattice_.group_of_net[static_cast<std::size_t>(net)])];
    };
    // The stubs of `pads` (ascending) at their group's width or neck width,
    // appended in pad order; per pin, reachable once a pad has a stub, and
    // clear at the centre as any of its pads is at the width tried last.
    const auto add_pads_stubs = [&](const std::vector<std::size_t>& pads, bool neck) {
      std::vector<PadStubs> found(pads.size());
#pragma omp parallel for schedule(dynamic, 4)
      for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(pads.size()); ++k) {
        const auto at = static_cast<std::size_t>(k);
        const RuleGroup& group = group_of_pad(pads[at]);
        found[at] = neck ? pad_stubs(pads[at], group.neck_width, kNeckReach) : pad_stubs(pads[at], group.width, 1.5);
      }
      for (std::size_t k = 0; k < pads.size(); ++k) {
        const auto pin = static_cast<std::size_t>(pad_pin_index_[pads[k]]);
        const RuleGroup& group = group_of_pad(pads[k]);
        const Coord width = neck ? group.neck_width : group.width;
        if (tried_width[pin] != width) {
          tried_width[pin] = width;
          centre_clear[pin] = false;
        }
        if (found[k].centre_clear) centre_clear[pin] = true;
        if (!found[k].stubs.empty()) reachable_pin[pin] = true;
        for (Stub& stub : found[k].stubs) lattice_.stubs.push_back(std::move(stub));
        for (std::vector<int>& edges : found[k].edges) stub_edges_.push_back(std::move(edges));
      }
    };
    std::vector<std::size_t> every_pad(pad_shapes_.size());
    std::iota(every_pad.begin(), every_pad.end(), std::size_t{0});
    add_pads_stubs(every_pad, false);
    // Neck-down: a pin that no wire of its net's width can leave gets
    // narrower stubs on all its pads; the stubs of the other pins stay as
    // they are (and keep their node numbers).
    std::vector<std::size_t> narrower;
    for (std::size_t i = 0; i < pad_shapes_.size(); ++i) {
      const RuleGroup& group = group_of_pad(i);
      if (!reachable_pin[static_cast<std::size_t>(pad_pin_index_[i])] && group.neck_width < group.width) {
        narrower.push_back(i);
      }
    }
    add_pads_stubs(narrower, true);
    // Stub nodes: their net's alone, placed at their grid node.
    for (std::size_t i = 0; i < lattice_.stubs.size(); ++i) {
      const Stub& stub = lattice_.stubs[i];
      const int node = lattice_.stub_base + static_cast<int>(i);
      const int net = lattice_.owner.front()[static_cast<std::size_t>(stub.pad_node)];
      lattice_.position.push_back(lattice_.position[static_cast<std::size_t>(stub.grid_node)]);
      lattice_.slot.push_back(lattice_.slot[static_cast<std::size_t>(stub.pad_node)]);
      for (auto& owner : lattice_.owner) owner.push_back(net);
      lattice_.net_pads[static_cast<std::size_t>(net)].push_back(node);
    }
    lattice_.node_count = lattice_.stub_base + static_cast<int>(lattice_.stubs.size());
    lattice_.mid_base = lattice_.node_count;
    claim_crossing_stubs();
    for (std::size_t p = 0; p < lattice_.pin_of.size(); ++p) {
      if (reachable_pin[p]) continue;
      const int net = pin_net_[p];
      const std::string pin = fmt::format("pin {} of net '{}'", pin_name(board_, lattice_.pin_of[p]),
                                          board_.nets[static_cast<std::size_t>(net)].name);
      if (centre_clear[p]) {
        lattice_.warnings.push_back(
            fmt::format("{} has no way onto the lattice (too close to other copper for a wire "
                        "of its net); try a finer --pitch",
                        pin));
      } else {
        lattice_.pin_off_every_lattice[static_cast<std::size_t>(net)] = 1;
        lattice_.warnings.push_back(
            fmt::format("{} has no way onto the lattice: a wire of its net, {} mm wide, comes "
                        "closer than its clearance to other copper even at the pad's centre, "
                        "so no pitch helps",
                        pin, millimetres(static_cast<double>(tried_width[p]))));
      }
    }
  }

  // Who of group g may use the grid edge from grid node a to the next
  // column (which 0) or row (1): its ends and its segment alike.
  int edge_users(std::size_t g, int a, int which) const {
    const int b = a + (which == 0 ? 1 : lattice_.columns);
    const int ends =
        both(lattice_.owner[g][static_cast<std::size_t>(a)], lattice_.owner[g][static_cast<std::size_t>(b)]);
    return both(ends, edge_owner_[g][2 * static_cast<std::size_t>(a) + static_cast<std::size_t>(which)]);
  }

  // The grid edges on `slot` (2 * grid node + 0 to the next column, + 1 to
  // the next row) with an end among the grid points `near` a stub's
  // `wire`, neither end among the stub's `node_claims`, that
  // claim(grid node, 0 or 1, the segment's distance from the wire) says the
  // stub claims.
  template <class Claim>
  std::vector<int> claimed_edges(int slot, const std::vector<Primitive>& wire,
                                 const std::vector<std::array<int, 2>>& near, const std::vector<int>& node_claims,
                                 Claim&& claim) const {
    std::vector<std::array<int, 3>> edges;  // row, column, which
    for (const auto& [r, c] : near) {
      for (const std::array<int, 3>& edge :
           {std::array{r, c, 0}, std::array{r, c, 1}, std::array{r, c - 1, 0}, std::array{r - 1, c, 1}}) {
        const auto [r0, c0, which] = edge;
        if (r0 < 0 || c0 < 0 || r0 + which >= lattice_.rows || c0 + 1 - which >= lattice_.columns) continue;
        edges.push_back(edge);
      }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    std::vector<int> claimed;
    for (const auto& [r0, c0, which] : edges) {
      const int r1 = r0 + which;
      const int c1 = c0 + 1 - which;
      const int a = lattice_.grid_node(slot, r0, c0);
      const int b = lattice_.grid_node(slot, r1, c1);
      if (std::binary_search(node_claims.begin(), node_claims.end(), a) ||
          std::binary_search(node_claims.begin(), node_claims.end(), b)) {
        continue;
      }
      const Primitive segment = geometry::capsule(grid_point(r0, c0), grid_point(r1, c1), 0);
      double d = std::numeric_limits<double>::infinity();
      for (const Primitive& piece : wire) d = std::min(d, geometry::separation(segment, piece).distance);
      if (claim(a, which, d)) claimed.push_back(2 * a + which);
    }
    return claimed;
  }

  // Stubs leave the grid, so two stubs of different nets can come too close
  // where no grid node shows it: each claims the other's stub node.
  void claim_crossing_stubs() {
    const auto count = lattice_.stubs.size();
    std::vector<std::vector<Primitive>> wires(count);
    std::vector<Box> boxes(count);
    std::vector<int> nets(count);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
      const auto i = static_cast<std::size_t>(k);
      const Stub& stub = lattice_.stubs[i];
      nets[i] = lattice_.owner.front()[static_cast<std::size_t>(stub.pad_node)];
      wires[i] = stub_segments(lattice_.position[static_cast<std::size_t>(stub.pad_node)], stub.bends,
                               lattice_.position[static_cast<std::size_t>(stub.grid_node)],
                               static_cast<double>(stub.width) / 2);
      boxes[i] = wires[i].front().box;
      for (const Primitive& w : wires[i]) boxes[i].include(w.box);
    }
    const auto separation = [&](std::size_t i, std::size_t j) {
      double least = std::numeric_limits<double>::infinity();
      for (const Primitive& a : wires[i]) {
        for (const Primitive& b : wires[j]) least = std::min(least, geometry::separation(a, b).distance);
      }
      return least;
    };
    const double reach = static_cast<double>(largest_clearance_);
    const auto apart = [&](const Box& a, const Box& b) {
      return static_cast<double>(b.min.x) > static_cast<double>(a.max.x) + reach ||
             static_cast<double>(a.min.x) > static_cast<double>(b.max.x) + reach ||
             static_cast<double>(b.min.y) > static_cast<double>(a.max.y) + reach ||
             static_cast<double>(a.min.y) > static_cast<double>(b.max.y) + reach;
    };
    // The stubs come pad by pad, and a pad's stubs share its net and slot:
    // only pairs from two pads of different nets on one slot, whose stubs'
    // boxes come within the clearance, can be too close. (A large pad has a
    // stub for each of hundreds of grid points inside it.)
    struct Run {
      std::size_t first = 0, last = 0;  // stubs [first, last)
      Box box;
    };
    std::vector<Run> runs;
    for (std::size_t i = 0; i < count; ++i) {
      if (runs.empty() || lattice_.stubs[i].pad_node != lattice_.stubs[runs.back().first].pad_node)
        runs.push_back({i, i, {}});
      runs.back().last = i + 1;
      runs.back().box.include(boxes[i]);
    }
    const auto slot_of_stub = [&](std::size_t i) {
      return lattice_.slot[static_cast<std::size_t>(lattice_.stubs[i].pad_node)];
    };
    // Pairs of runs on one slot whose boxes come within the clearance
    // across x, found by a sweep over the runs sorted by slot and their
    // boxes' left edges (a board of many through-hole pins has a run per
    // pin and layer: a hundred thousand and more), the runs side by side.
    // Each pair is met once; the claims are sorted after, so the order in
    // which the pairs are found does not matter.
    std::vector<std::size_t> by_left(runs.size());
    std::iota(by_left.begin(), by_left.end(), std::size_t{0});
    const auto sweep_key = [&](std::size_t r) { return std::tuple(slot_of_stub(runs[r].first), runs[r].box.min.x, r); };
    std::sort(by_left.begin(), by_left.end(),
              [&](std::size_t a, std::size_t b) { return sweep_key(a) < sweep_key(b); });
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> too_close(
        static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(by_left.size()); ++k) {
      auto& found = too_close[static_cast<std::size_t>(omp_get_thread_num())];
      const auto sa = static_cast<std::size_t>(k);
      const std::size_t a = by_left[sa];
      for (std::size_t sb = sa + 1; sb < by_left.size(); ++sb) {
        const std::size_t b = by_left[sb];
        if (slot_of_stub(runs[b].first) != slot_of_stub(runs[a].first) ||
            static_cast<double>(runs[b].box.min.x) > static_cast<double>(runs[a].box.max.x) + reach) {
          break;
        }
        const std::size_t i0 = runs[a].first, j0 = runs[b].first;
        if (nets[i0] == nets[j0] || apart(runs[a].box, runs[b].box)) continue;
        const Coord needed = rules_.required(nets[i0], ClearanceType::wire, nets[j0], ClearanceType::wire);
        for (std::size_t i = runs[a].first; i < runs[a].last; ++i) {
          for (std::size_t j = runs[b].first; j < runs[b].last; ++j) {
            if (apart(boxes[i], boxes[j]) || separation(i, j) >= static_cast<double>(needed)) continue;
            found.emplace_back(i, j);
          }
        }
      }
    }
    for (const auto& found : too_close) {
      for (const auto& [i, j] : found) {
        lattice_.stubs[i].claims.push_back(lattice_.stub_base + static_cast<int>(j));
        lattice_.stubs[j].claims.push_back(lattice_.stub_base + static_cast<int>(i));
      }
    }
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
      std::vector<int>& claims = lattice_.stubs[static_cast<std::size_t>(k)].claims;
      std::sort(claims.begin(), claims.end());
    }
  }

  void add_edges() {
    std::vector<graph::NodeId> tails;
    std::vector<graph::NodeId> heads;
    std::vector<graph::Weight> weights;
    const auto link = [&](int a, int b, double weight) {
      tails.push_back(a);
      heads.push_back(b);
      weights.push_back(static_cast<graph::Weight>(weight));
      tails.push_back(b);
      heads.push_back(a);
      weights.push_back(static_cast<graph::Weight>(weight));
    };
    const auto usable = [&](int node) {
      for (const auto& owner : lattice_.owner) {
        if (owner[static_cast<std::size_t>(node)] != kNoNet) return true;
      }
      return false;
    };
    lattice_.edge_midpoints.assign(static_cast<std::size_t>(lattice_.via_base), {-1, -1});
    // Edges some stub claims run through a midpoint, which stands for the
    // edge in the stub's claims.
    std::vector<char> stub_claimed(2 * static_cast<std::size_t>(lattice_.via_base), 0);
    for (const std::vector<int>& edges : stub_edges_) {
      for (const int edge : edges) stub_claimed[static_cast<std::size_t>(edge)] = 1;
    }
    const auto groups = lattice_.groups.size();
    std::vector<int> ends(groups);   // per group: who may use both ends of an edge
    std::vector<int> whole(groups);  // and the edge itself
    // A step across its layer's preferred direction costs more.
    const auto step = [&](int node, int which) {
      const auto slot = static_cast<std::size_t>(lattice_.slot[static_cast<std::size_t>(node)]);
      const LayerDirection direction = slot_direction_[slot];
      const bool against = (direction == LayerDirection::horizontal && which == 1) ||
                           (direction == LayerDirection::vertical && which == 0);
      return against ? options_.against_direction_cost : 1.0;
    };
    // Joins grid nodes a and b (the next column or row, `which` 0 or 1):
    // directly where the edge restricts no group beyond its ends, through
    // a midpoint where it does, not at all where no net may use it.
    const auto join = [&](int a, int b, int which) {
      bool any = false;
      bool narrower = false;
      for (std::size_t g = 0; g < groups; ++g) {
        const auto& owner = lattice_.owner[g];
        ends[g] = both(owner[static_cast<std::size_t>(a)], owner[static_cast<std::size_t>(b)]);
        whole[g] = edge_users(g, a, which);
        any = any || whole[g] != kNoNet;
        narrower = narrower || whole[g] != ends[g];
      }
      if (!any) return;
      const double weight = step(a, which);
      if (!narrower && stub_claimed[2 * static_cast<std::size_t>(a) + static_cast<std::size_t>(which)] == 0) {
        link(a, b, weight);
        return;
      }
      const int mid = lattice_.node_count++;
      lattice_.edge_midpoints[static_cast<std::size_t>(a)][static_cast<std::size_t>(which)] = mid;
      const Point pa = lattice_.position[static_cast<std::size_t>(a)];
      const Point pb = lattice_.position[static_cast<std::size_t>(b)];
      lattice_.position.push_back(Point{pa.x + (pb.x - pa.x) / 2, pa.y + (pb.y - pa.y) / 2});
      lattice_.slot.push_back(lattice_.slot[static_cast<std::size_t>(a)]);
      for (std::size_t g = 0; g < groups; ++g) lattice_.owner[g].push_back(whole[g]);
      // Halves of a grid step (exact in float for a step of 1 or 2, so a
      // path through the midpoint costs what the direct edge would).
      link(a, mid, weight / 2);
      link(mid, b, weight / 2);
    };
    for (int s = 0; s < lattice_.layers; ++s) {
      for (int r = 0; r < lattice_.rows; ++r) {
        for (int c = 0; c < lattice_.columns; ++c) {
          const int node = lattice_.grid_node(s, r, c);
          if (!usable(node)) continue;
          if (c + 1 < lattice_.columns && usable(node + 1)) join(node, node + 1, 0);
          if (r + 1 < lattice_.rows && usable(node + lattice_.columns)) join(node, node + lattice_.columns, 1);
        }
      }
    }
    lattice_.stub_claimed_mid.assign(static_cast<std::size_t>(lattice_.node_count - lattice_.mid_base), 0);
    for (std::size_t i = 0; i < stub_edges_.size(); ++i) {
      std::vector<int>& claims = lattice_.stubs[i].claims;
      for (const int edge : stub_edges_[i]) {
        const int mid = lattice_.edge_midpoints[static_cast<std::size_t>(edge / 2)][static_cast<std::size_t>(edge % 2)];
        if (mid < 0) continue;  // no net may use the edge
        claims.push_back(mid);
        lattice_.stub_claimed_mid[static_cast<std::size_t>(mid - lattice_.mid_base)] = 1;
      }
      std::sort(claims.begin(), claims.end());
    }
    stub_edges_.clear();
    const double half_via = options_.via_cost / 2;
    for (std::size_t k = 0; k < lattice_.via_kinds.size(); ++k) {
      for (int r = 0; r < lattice_.rows; ++r) {
        for (int c = 0; c < lattice_.columns; ++c) {
          const int site = lattice_.via_site(static_cast<int>(k), r, c);
          if (!usable(site)) continue;
          for (const int s : lattice_.via_kinds[k].slots) {
            if (usable(lattice_.grid_node(s, r, c))) link(lattice_.grid_node(s, r, c), site, half_via);
          }
        }
      }
    }
    // Leaving a pin for its pads is free; arriving costs a tiny exact step,
    // so that every node a search target (a pin) could take as its parent
    // lies strictly closer than the target. A search that stops at the
    // target has settled all of those on every backend, and the parent
    // rule then picks the same one everywhere.
    constexpr double kArrival = 1.0 / 1024;
    for (int pad = lattice_.pad_base; pad < lattice_.pin_base; ++pad) {
      const int pin = lattice_.pin_of_pad[static_cast<std::size_t>(pad - lattice_.pad_base)];
      tails.push_back(pad);
      heads.push_back(pin);
      weights.push_back(static_cast<graph::Weight>(kArrival));
      tails.push_back(pin);
      heads.push_back(pad);
      weights.push_back(0.0f);
    }
    for (std::size_t i = 0; i < lattice_.stubs.size(); ++i) {
      const Stub& stub = lattice_.stubs[i];
      const int node = lattice_.stub_base + static_cast<int>(i);
      const Point from = lattice_.position[static_cast<std::size_t>(stub.pad_node)];
      const Point to = lattice_.position[static_cast<std::size_t>(stub.grid_node)];
      link(stub.pad_node, node, stub_length(from, stub.bends, to) / static_cast<double>(lattice_.pitch));
      link(node, stub.grid_node, 0.0);
    }
    lattice_.graph = graph::graph_from_edges(lattice_.node_count, tails, heads, weights);
  }

  const Board& board_;
  const RouterOptions& options_;
  BentStubs bent_;
  StubClaims claims_;
  ClearanceRules rules_;
  Lattice lattice_;
  std::vector<int> slot_of_layer_;              // board layer -> slot, -1 when not routed on
  std::vector<LayerDirection> slot_direction_;  // per slot: its preferred direction
  std::vector<Obstacle> obstacles_;
  std::vector<PinCopper> pads_;
  std::vector<const PinCopper*> pad_shapes_;  // per pad node
  std::vector<int> pad_pin_index_;            // per pad node: its pin (index from pin_base)
  std::vector<int> pad_slots_;
  std::vector<int> pin_net_;  // per pin node
  std::vector<std::vector<int>>
      edge_owner_;  // [group][2 * grid node + 0 or 1]: who may use its edge to the next column or row
  std::vector<std::vector<int>> stub_edges_;  // per stub: the grid edges it claims, until add_edges
  Coord widest_wire_ = 0;
  Coord largest_clearance_ = 0;
  Coord bucket_size_ = 1;
  int bucket_columns_ = 1;
  int bucket_rows_ = 1;
  std::vector<std::vector<int>> buckets_;
};

}  // namespace

Lattice build_lattice(const Board& board, const RouterOptions& options, BentStubs bent, StubClaims claims) {
  return Builder(board, options, bent, claims).build();
}

std::vector<int> pins_apart(const Lattice& lattice, int net) {
  const std::vector<int>& pins = lattice.net_pins[static_cast<std::size_t>(net)];
  if (pins.size() < 2) return {};
  const std::vector<int>& owner =
      lattice.owner[static_cast<std::size_t>(lattice.group_of_net[static_cast<std::size_t>(net)])];
  const auto csr = lattice.graph.csr.view();
  std::vector<char> reached(static_cast<std::size_t>(lattice.node_count), 0);
  std::vector<int> stack{pins.front()};
  reached[static_cast<std::size_t>(pins.front())] = 1;
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (auto e = csr.row_offsets[node]; e < csr.row_offsets[node + 1]; ++e) {
      const int next = csr.col_indices[e];
      const int who = owner[static_cast<std::size_t>(next)];
      if (reached[static_cast<std::size_t>(next)] || (who != kAnyNet && who != net)) continue;
      reached[static_cast<std::size_t>(next)] = 1;
      stack.push_back(next);
    }
  }
  std::vector<int> apart;
  for (const int pin : pins) {
    if (!reached[static_cast<std::size_t>(pin)]) apart.push_back(pin);
  }
  return apart;
}

}  // namespace trellis::route::router_detail
