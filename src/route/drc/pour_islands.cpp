// What copper pours surely connect once refilled (drc.hpp says the rule):
// each zone's fill approximated from inside on a raster of cells, islands
// of cells sharing an edge, pads joined by spokes checked exactly.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numbers>
#include <set>

#include "../geometry/clearance_rules.hpp"
#include "../geometry/geometry.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route {
namespace {

using geometry::ClearanceRules;
using geometry::ClearanceType;
using geometry::Primitive;

// Room left for arcs drawn as chords and for rounding, on top of every rule.
constexpr double kTolerance = 2'000;
// KiCad ends a spoke this far beyond the thermal gap and tests that point.
constexpr double kSpokeOvershoot = 40'000;
// Cells no smaller than this, and at most this many per plane.
constexpr Coord kSmallestCell = 25'000;
constexpr Coord kLargestCell = 100'000;
constexpr double kMostCells = 6e6;

enum class ObstacleKind { foreign, own_pad, zone_edge, board_edge };

// Copper or an edge the fill keeps `need` away from (before the opening).
struct Obstacle {
  Primitive shape;
  double need = 0;
  ObstacleKind kind = ObstacleKind::foreign;
};

struct OwnPad {
  PinRef pin;
  std::vector<Shape> shapes;
  PadConnection connection = PadConnection::thermal;  // thermal or solid
  double thermal_gap = 0;
};

struct Vec2 {
  double x = 0, y = 0;
};

Point along(Point from, Vec2 u, double distance) {
  return {from.x + std::llround(u.x * distance), from.y + std::llround(u.y * distance)};
}

// The largest extent of a pad's copper from `centre` in direction u.
double extent(const std::vector<Shape>& shapes, Point centre, Vec2 u) {
  double most = 0;
  for (const Shape& shape : shapes) {
    for (const Primitive& p : geometry::primitives_of(shape)) {
      for (const Point& q : p.core) {
        most = std::max(
            most, static_cast<double>(q.x - centre.x) * u.x + static_cast<double>(q.y - centre.y) * u.y + p.radius);
      }
    }
  }
  return most;
}

class PlaneFill {
 public:
  PlaneFill(const Board& board, const RoutedCopper& routed, const std::vector<PinCopper>& pads,
            const std::vector<bool>& smd_padstack, const ClearanceRules& rules, int plane_index)
      : board_(board),
        routed_(routed),
        rules_(rules),
        plane_index_(plane_index),
        plane_(board.planes[static_cast<std::size_t>(plane_index)]),
        pour_(*plane_.pour),
        half_(static_cast<double>(pour_.min_thickness) / 2) {
    Box box = bounding_box(plane_.shape);
    if (const Box edge = boundary_box(board); !edge.empty()) {
      box.min = {std::max(box.min.x, edge.min.x), std::max(box.min.y, edge.min.y)};
      box.max = {std::min(box.max.x, edge.max.x), std::min(box.max.y, edge.max.y)};
    }
    if (box.empty()) return;
    cell_ = std::clamp<Coord>(pour_.min_thickness / 2, kSmallestCell, kLargestCell);
    const auto count = [&] {
      return (static_cast<double>(box.max.x - box.min.x) / static_cast<double>(cell_) + 1) *
             (static_cast<double>(box.max.y - box.min.y) / static_cast<double>(cell_) + 1);
    };
    while (count() > kMostCells) cell_ += cell_ / 4;
    origin_ = box.min;
    columns_ = static_cast<int>((box.max.x - box.min.x) / cell_) + 1;
    rows_ = static_cast<int>((box.max.y - box.min.y) / cell_) + 1;
    slack_ = static_cast<double>(cell_) * std::numbers::sqrt2 / 2 + kTolerance;
    collect_obstacles(pads, smd_padstack);
    fill_cells();
    label_islands();
  }

  // Adds this plane's islands that reach anything to `out`.
  void islands(std::vector<PourIsland>& out) const {
    if (columns_ == 0) return;
    std::map<int, PourIsland> by_label;
    const auto island = [&](int label) -> PourIsland& {
      PourIsland& found = by_label[label];
      found.plane = plane_index_;
      found.net = plane_.net;
      found.layer = plane_.layer;
      return found;
    };
    for (const OwnPad& pad : own_pads_) {
      for (const int label : pad_islands(pad)) island(label).pins.push_back(pad.pin);
    }
    for (std::size_t w = 0; w < routed_.wires.size(); ++w) {
      const Wire& wire = routed_.wires[w];
      if (wire.net != plane_.net || wire.layer != plane_.layer) continue;
      std::set<int> reached;
      for (const Point& p : wire.shape.points) {
        if (const int label = label_at(p); label >= 0) reached.insert(label);
      }
      for (const int label : reached) island(label).wires.push_back(static_cast<int>(w));
    }
    for (std::size_t v = 0; v < routed_.vias.size(); ++v) {
      const Via& via = routed_.vias[v];
      if (via.net != plane_.net) continue;
      const auto& shapes = board_.padstacks[static_cast<std::size_t>(via.padstack)].shapes;
      if (std::none_of(shapes.begin(), shapes.end(), [&](const LayerShape& s) { return s.layer == plane_.layer; }))
        continue;
      if (const int label = label_at(via.position); label >= 0) island(label).vias.push_back(static_cast<int>(v));
    }
    for (auto& [label, found] : by_label) out.push_back(std::move(found));
  }

 private:
  double clearance_from(int net, ClearanceType type, std::optional<Coord> override_clearance = std::nullopt) const {
    Coord c = std::max(pour_.clearance, rules_.required(plane_.net, ClearanceType::area, net, type));
    if (override_clearance) c = std::max(c, *override_clearance);
    return static_cast<double>(c);
  }

  void add(const Primitive& shape, double need, ObstacleKind kind) {
    if (shape.core.empty()) return;
    obstacles_.push_back({shape, need, kind});
  }

  void add_shape(const Shape& shape, double need, ObstacleKind kind) {
    for (const Primitive& p : geometry::primitives_of(shape)) add(p, need, kind);
  }

  static PadConnection connection_of(PadConnection rule, bool smd) {
    if (rule == PadConnection::thru_hole_only) return smd ? PadConnection::none : PadConnection::thermal;
    return rule;
  }

  void collect_obstacles(const std::vector<PinCopper>& pads, const std::vector<bool>& smd_padstack) {
    const int layer = plane_.layer;
    std::map<std::pair<int, int>, std::size_t> own_index;
    for (const PinCopper& pad : pads) {
      if (pad.layer != layer) continue;
      const Component& component = board_.components[static_cast<std::size_t>(pad.pin.component)];
      const int padstack =
          board_.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)].padstack;
      const bool smd = smd_padstack[static_cast<std::size_t>(padstack)];
      if (pad.net != plane_.net || plane_.net < 0) {
        add_shape(pad.shape,
                  clearance_from(pad.net, smd ? ClearanceType::smd : ClearanceType::pin,
                                 pin_clearance_override(board_, pad.pin)),
                  ObstacleKind::foreign);
        continue;
      }
      const ImagePin& pin =
          board_.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)];
      const PadConnection connection = connection_of(pin.zone_connection.value_or(pour_.pads), smd);
      const double gap = static_cast<double>(pin.thermal_gap.value_or(pour_.thermal_gap));
      if (connection == PadConnection::none) {
        add_shape(pad.shape, static_cast<double>(std::max(pour_.clearance, pour_.thermal_gap)), ObstacleKind::foreign);
        continue;
      }
      if (connection == PadConnection::thermal) add_shape(pad.shape, gap, ObstacleKind::own_pad);
      const auto key = std::pair{pad.pin.component, pad.pin.pin};
      const auto [at, inserted] = own_index.emplace(key, own_pads_.size());
      if (inserted) own_pads_.push_back({pad.pin, {}, connection, gap});
      own_pads_[at->second].shapes.push_back(pad.shape);
    }
    const auto foreign_copper = [&](int net, int copper_layer) { return copper_layer == layer && net != plane_.net; };
    for (const Wire& wire : routed_.wires) {
      if (foreign_copper(wire.net, wire.layer))
        add_shape(wire.shape, clearance_from(wire.net, ClearanceType::wire), ObstacleKind::foreign);
    }
    for (const Via& via : routed_.vias) {
      if (via.net == plane_.net) continue;
      for (const LayerShape& s : board_.padstacks[static_cast<std::size_t>(via.padstack)].shapes) {
        if (s.layer != layer) continue;
        Shape shape = s.shape;
        for (Point& p : shape.points) p = {p.x + via.position.x, p.y + via.position.y};
        add_shape(shape, clearance_from(via.net, ClearanceType::via), ObstacleKind::foreign);
      }
    }
    for (const CopperGraphic& graphic : board_.copper_graphics) {
      if (graphic.layer != layer) continue;
      for (const Shape& shape : graphic.shapes)
        add_shape(shape, clearance_from(-1, ClearanceType::wire), ObstacleKind::foreign);
    }
    const double widest = static_cast<double>(std::max(pour_.clearance, rules_.largest()));
    const auto keepout_here = [&](int keepout_layer) { return keepout_layer == kAllLayers || keepout_layer == layer; };
    for (const std::vector<Keepout>* keepouts : {&board_.keepouts, &board_.pour_keepouts}) {
      for (const Keepout& keepout : *keepouts) {
        if (keepout_here(keepout.layer)) add_shape(keepout.shape, widest, ObstacleKind::foreign);
      }
    }
    for (const Component& component : board_.components) {
      for (const Keepout& keepout : board_.images[static_cast<std::size_t>(component.image)].keepouts) {
        const int placed = keepout.layer == kAllLayers ? kAllLayers : placed_layer(board_, component, keepout.layer);
        if (keepout_here(placed))
          add_shape(geometry::placed_shape(component, keepout.shape), widest, ObstacleKind::foreign);
      }
    }
    for (const Plane& other : board_.planes) {
      if (other.layer != layer || other.net == plane_.net) continue;
      if (other.pour && other.pour->priority < pour_.priority) continue;  // it yields to this one
      const Coord other_clearance = other.pour ? other.pour->clearance : 0;
      add_shape(other.shape,
                std::max(clearance_from(other.net, ClearanceType::area), static_cast<double>(other_clearance)),
                ObstacleKind::foreign);
    }
    for (const Primitive& edge : geometry::outline_edges(plane_.shape)) {
      add(edge, static_cast<double>(pour_.corner_radius), ObstacleKind::zone_edge);
    }
    if (!board_.boundary.empty()) {
      for (const Primitive& edge : geometry::outline_edges(board_.boundary.front()))
        add(edge, widest, ObstacleKind::board_edge);
    }
    index_obstacles();
  }

  // A coarse grid of obstacle lists for the exact tests.
  void index_obstacles() {
    bucket_ = std::max<Coord>(cell_ * 16, 1);
    bucket_columns_ = static_cast<int>(static_cast<Coord>(columns_) * cell_ / bucket_) + 1;
    bucket_rows_ = static_cast<int>(static_cast<Coord>(rows_) * cell_ / bucket_) + 1;
    buckets_.assign(static_cast<std::size_t>(bucket_columns_) * static_cast<std::size_t>(bucket_rows_), {});
    for (std::size_t i = 0; i < obstacles_.size(); ++i) {
      const Obstacle& o = obstacles_[i];
      for (const std::size_t b : buckets_near(o.shape.box, o.need + half_ + slack_))
        buckets_[b].push_back(static_cast<int>(i));
    }
  }

  // The buckets a box grown by `grow` touches.
  std::vector<std::size_t> buckets_near(const Box& box, double grow) const {
    const auto index = [&](Coord v, Coord o, int limit) { return std::clamp<Coord>((v - o) / bucket_, 0, limit - 1); };
    const auto g = static_cast<Coord>(std::ceil(grow));
    std::vector<std::size_t> found;
    for (Coord r = index(box.min.y - g, origin_.y, bucket_rows_); r <= index(box.max.y + g, origin_.y, bucket_rows_);
         ++r) {
      for (Coord c = index(box.min.x - g, origin_.x, bucket_columns_);
           c <= index(box.max.x + g, origin_.x, bucket_columns_); ++c) {
        found.push_back(static_cast<std::size_t>(r * bucket_columns_ + c));
      }
    }
    return found;
  }

  Point centre(int column, int row) const {
    return {origin_.x + static_cast<Coord>(column) * cell_ + cell_ / 2,
            origin_.y + static_cast<Coord>(row) * cell_ + cell_ / 2};
  }

  // Cells whose centres lie inside a closed chain of edges, by rows.
  void keep_inside(const std::vector<Primitive>& edges, std::vector<char>& inside) const {
    std::vector<double> crossings;
    for (int row = 0; row < rows_; ++row) {
      const double y = static_cast<double>(centre(0, row).y);
      crossings.clear();
      for (const Primitive& edge : edges) {
        if (edge.core.size() != 2) continue;
        const Point a = edge.core[0], b = edge.core[1];
        const double ya = static_cast<double>(a.y), yb = static_cast<double>(b.y);
        if ((ya <= y) == (yb <= y)) continue;
        crossings.push_back(static_cast<double>(a.x) + (y - ya) / (yb - ya) * static_cast<double>(b.x - a.x));
      }
      std::sort(crossings.begin(), crossings.end());
      std::size_t next = 0;
      bool in = false;
      for (int column = 0; column < columns_; ++column) {
        const double x = static_cast<double>(centre(column, row).x);
        while (next < crossings.size() && crossings[next] <= x) {
          in = !in;
          ++next;
        }
        if (!in)
          inside[static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) +
                 static_cast<std::size_t>(column)] = 0;
      }
    }
  }

  void fill_cells() {
    core_.assign(static_cast<std::size_t>(columns_) * static_cast<std::size_t>(rows_), 1);
    keep_inside(geometry::outline_edges(plane_.shape), core_);
    if (!board_.boundary.empty()) {
      const Shape& edge = board_.boundary.front();
      if (edge.kind == ShapeKind::circle) {
        for (int row = 0; row < rows_; ++row) {
          for (int column = 0; column < columns_; ++column) {
            if (!inside_boundary(board_, centre(column, row))) core_[index(column, row)] = 0;
          }
        }
      } else {
        keep_inside(geometry::outline_edges(edge), core_);
      }
    }
    for (const Obstacle& o : obstacles_) {
      const double reach = o.need + half_ + slack_;
      const auto grow = static_cast<Coord>(std::ceil(reach));
      const int c0 = std::max(0, static_cast<int>((o.shape.box.min.x - grow - origin_.x) / cell_) - 1);
      const int c1 = std::min(columns_ - 1, static_cast<int>((o.shape.box.max.x + grow - origin_.x) / cell_) + 1);
      const int r0 = std::max(0, static_cast<int>((o.shape.box.min.y - grow - origin_.y) / cell_) - 1);
      const int r1 = std::min(rows_ - 1, static_cast<int>((o.shape.box.max.y + grow - origin_.y) / cell_) + 1);
      for (int row = r0; row <= r1; ++row) {
        for (int column = c0; column <= c1; ++column) {
          char& cell = core_[index(column, row)];
          if (cell != 0 && geometry::separation(centre(column, row), o.shape).distance < reach) cell = 0;
        }
      }
    }
  }

  std::size_t index(int column, int row) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) + static_cast<std::size_t>(column);
  }

  void label_islands() {
    label_.assign(core_.size(), -1);
    int next = 0;
    std::deque<std::pair<int, int>> queue;
    for (int row = 0; row < rows_; ++row) {
      for (int column = 0; column < columns_; ++column) {
        if (!core_[index(column, row)] || label_[index(column, row)] >= 0) continue;
        label_[index(column, row)] = next;
        queue.emplace_back(column, row);
        while (!queue.empty()) {
          const auto [c, r] = queue.front();
          queue.pop_front();
          const std::pair<int, int> neighbours[] = {{c - 1, r}, {c + 1, r}, {c, r - 1}, {c, r + 1}};
          for (const auto& [nc, nr] : neighbours) {
            if (nc < 0 || nr < 0 || nc >= columns_ || nr >= rows_) continue;
            const std::size_t i = index(nc, nr);
            if (!core_[i] || label_[i] >= 0) continue;
            label_[i] = next;
            queue.emplace_back(nc, nr);
          }
        }
        ++next;
      }
    }
  }

  // The island of the cell holding p, -1 when that cell is not surely filled.
  int label_at(Point p) const {
    if (columns_ == 0 || p.x < origin_.x || p.y < origin_.y) return -1;
    const Coord column = (p.x - origin_.x) / cell_;
    const Coord row = (p.y - origin_.y) / cell_;
    if (column >= columns_ || row >= rows_) return -1;
    return label_[index(static_cast<int>(column), static_cast<int>(row))];
  }

  // Whether `probe` keeps every obstacle of the kinds asked `extra` beyond
  // its need, and its core lies inside the zone's outline and the board's.
  bool clear(const Primitive& probe, double extra, bool spoke_body) const {
    for (const Point& p : probe.core) {
      if (!geometry::polygon_contains(plane_.shape.points, p) || !inside_boundary(board_, p)) return false;
    }
    // Every obstacle within its reach of the probe is listed in the
    // buckets the probe's box touches (index_obstacles grew them so).
    std::set<int> seen;
    for (const std::size_t b : buckets_near(probe.box, 0)) {
      for (const int i : buckets_[b]) {
        if (!seen.insert(i).second) continue;
        const Obstacle& o = obstacles_[static_cast<std::size_t>(i)];
        if (spoke_body && o.kind == ObstacleKind::own_pad) continue;
        if (geometry::separation(probe, o.shape).distance < o.need + extra + kTolerance) return false;
      }
    }
    return true;
  }

  // The islands a pad surely joins.
  std::set<int> pad_islands(const OwnPad& pad) const {
    if (pad.shapes.empty()) return {};
    Box box;
    for (const Shape& shape : pad.shapes) box.include(bounding_box(shape));
    const Point c = pad.shapes.size() == 1
                        ? Point{box.min.x + (box.max.x - box.min.x) / 2, box.min.y + (box.max.y - box.min.y) / 2}
                        : pin_position(board_, pad.pin);
    if (pad.connection == PadConnection::solid) {
      const int label = label_at(c);
      return label >= 0 ? std::set<int>{label} : std::set<int>{};
    }
    // Thermal: one spoke of every set KiCad may draw must reach the island.
    const Component& component = board_.components[static_cast<std::size_t>(pad.pin.component)];
    const double pin_angle =
        board_.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pad.pin.pin)].rotation;
    std::vector<double> bases{component.rotation + pin_angle, component.rotation - pin_angle, 0.0};
    std::vector<double> sets;
    for (const double base : bases) {
      for (const double offset : {0.0, 45.0}) {
        const double a = std::fmod(std::fmod(base + offset, 90.0) + 90.0, 90.0);
        if (std::none_of(sets.begin(), sets.end(), [&](double s) { return std::abs(s - a) < 1e-6; })) sets.push_back(a);
      }
    }
    std::optional<std::set<int>> common;
    for (const double set : sets) {
      std::set<int> reached;
      for (int k = 0; k < 4; ++k) {
        const double radians = (set + 90.0 * k) * std::numbers::pi / 180.0;
        if (const int label = spoke_island(pad, c, {std::cos(radians), std::sin(radians)}); label >= 0)
          reached.insert(label);
      }
      if (!common) {
        common = std::move(reached);
      } else {
        std::set<int> both;
        std::set_intersection(common->begin(), common->end(), reached.begin(), reached.end(),
                              std::inserter(both, both.end()));
        common = std::move(both);
      }
      if (common->empty()) return {};
    }
    return common.value_or(std::set<int>{});
  }

  // The island one spoke of a thermal pad surely reaches, or -1.
  int spoke_island(const OwnPad& pad, Point c, Vec2 u) const {
    const Vec2 v{-u.y, u.x};
    const double narrow = std::min(extent(pad.shapes, c, u) + extent(pad.shapes, c, {-u.x, -u.y}),
                                   extent(pad.shapes, c, v) + extent(pad.shapes, c, {-v.x, -v.y}));
    const double width = std::min(static_cast<double>(pour_.thermal_bridge_width), narrow);
    if (width < static_cast<double>(pour_.min_thickness) || width <= 0) return -1;
    const double tip = extent(pad.shapes, c, u) + pad.thermal_gap + kSpokeOvershoot;
    // The spoke's body, not cut by other nets' clearances.
    if (!clear(geometry::capsule(c, along(c, u, tip), width / 2), 0, true)) return -1;
    // Its tip in the opened fill: a disc of half the min thickness beyond
    // it in the fill, and from there a line of such discs out to a cell
    // counted as filled.
    const Point from = along(c, u, tip + half_);
    const Point to = along(c, u, tip + half_ + 2.0 * static_cast<double>(cell_));
    if (!clear(geometry::capsule(from, to, 0), half_, false)) return -1;
    return label_at(to);
  }

  const Board& board_;
  const RoutedCopper& routed_;
  const ClearanceRules& rules_;
  int plane_index_ = 0;
  const Plane& plane_;
  const PourRules& pour_;
  double half_ = 0;
  Coord cell_ = kLargestCell;
  Point origin_;
  int columns_ = 0, rows_ = 0;
  double slack_ = 0;  // from a cell's centre to its corners, and the tolerance
  std::vector<Obstacle> obstacles_;
  std::vector<OwnPad> own_pads_;
  std::vector<char> core_;  // per cell: every point of it is surely filled
  std::vector<int> label_;  // per cell: its island, -1 when not filled
  Coord bucket_ = 1;
  int bucket_columns_ = 0, bucket_rows_ = 0;
  std::vector<std::vector<int>> buckets_;
};

}  // namespace

std::vector<PourIsland> pour_islands(const Board& board, const RoutedCopper& routed) {
  std::vector<PourIsland> islands;
  if (std::none_of(board.planes.begin(), board.planes.end(),
                   [](const Plane& p) { return p.pour && !p.pour->hatched && p.net >= 0; })) {
    return islands;
  }
  const ClearanceRules rules(board);
  const std::vector<PinCopper> pads = pin_copper(board);
  std::vector<bool> smd(board.padstacks.size());
  for (std::size_t p = 0; p < board.padstacks.size(); ++p) {
    const auto& shapes = board.padstacks[p].shapes;
    smd[p] =
        std::all_of(shapes.begin(), shapes.end(), [&](const LayerShape& s) { return s.layer == shapes.front().layer; });
  }
  for (std::size_t p = 0; p < board.planes.size(); ++p) {
    const Plane& plane = board.planes[p];
    if (!plane.pour || plane.pour->hatched || plane.net < 0 || plane.shape.points.size() < 3) continue;
    PlaneFill(board, routed, pads, smd, rules, static_cast<int>(p)).islands(islands);
  }
  for (PourIsland& island : islands) {
    std::sort(island.pins.begin(), island.pins.end(), [](const PinRef& a, const PinRef& b) {
      return std::tie(a.component, a.pin) < std::tie(b.component, b.pin);
    });
  }
  return islands;
}

}  // namespace trellis::route
