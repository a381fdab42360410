#include "miter_corners.hpp"

#include "../geometry/geometry.hpp"
#include "copper_checks.hpp"
#include "copper_from_paths.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace trellis::route::router_detail {
namespace {

using geometry::on_segment;

Coord leg_length(Point a, Point b) { return std::abs(a.x - b.x) + std::abs(a.y - b.y); }

// The point `by` along the axis-aligned leg from `corner` toward `to`.
Point along(Point corner, Point to, Coord by) {
  const Coord dx = to.x > corner.x ? 1 : to.x < corner.x ? -1 : 0;
  const Coord dy = to.y > corner.y ? 1 : to.y < corner.y ? -1 : 0;
  return {corner.x + dx * by, corner.y + dy * by};
}

// A corner that may be cut: point `index` of wire `wire`, replaced by p, q.
struct Cut {
  std::size_t wire = 0;
  std::size_t index = 0;
  Point p, q;
  bool on = true;
};

// The corners of one wire that can be cut, in order along the wire.
void find_cuts(std::size_t wire, const std::vector<Point>& points, const std::vector<Point>& junctions,
               std::vector<Cut>& cuts) {
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    const Point a = points[i - 1];
    const Point b = points[i];
    const Point c = points[i + 1];
    const bool right_angle = (a.x == b.x && b.y == c.y && a.y != b.y && b.x != c.x) ||
                             (a.y == b.y && b.x == c.x && a.x != b.x && b.y != c.y);
    if (!right_angle) continue;
    // Half of each leg: the corner at its other end may take the other half.
    const Coord before = leg_length(a, b) / 2;
    const Coord after = leg_length(b, c) / 2;
    const Coord length = std::min(before, after);
    if (length == 0) continue;
    const Point p = along(b, a, length);
    const Point q = along(b, c, length);
    const bool keeps_junction = std::any_of(junctions.begin(), junctions.end(),
                                            [&](Point j) { return on_segment(j, p, b) || on_segment(j, b, q); });
    if (!keeps_junction) cuts.push_back({wire, i, p, q, true});
  }
}

// The wire's points with the cuts that are on (cuts of this wire, in order).
std::vector<Point> with_cuts(const std::vector<Point>& points, const std::vector<const Cut*>& cuts) {
  std::vector<Point> out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    while (next < cuts.size() && cuts[next]->index < i) ++next;
    if (next < cuts.size() && cuts[next]->index == i && cuts[next]->on) {
      out.push_back(cuts[next]->p);
      out.push_back(cuts[next]->q);
    } else {
      out.push_back(points[i]);
    }
  }
  return corners_only(out);
}

double distance_to_segment(Point x, Point a, Point b) {
  const double abx = static_cast<double>(b.x - a.x), aby = static_cast<double>(b.y - a.y);
  const double axx = static_cast<double>(x.x - a.x), axy = static_cast<double>(x.y - a.y);
  const double length2 = abx * abx + aby * aby;
  const double t = length2 > 0 ? std::clamp((axx * abx + axy * aby) / length2, 0.0, 1.0) : 0.0;
  return std::hypot(axx - t * abx, axy - t * aby);
}

}  // namespace

std::size_t miter_corners(const Board& board, RoutedCopper& routed) {
  const std::vector<std::vector<Point>> junctions = junctions_of_nets(board, routed);
  const auto checked = [&](const RoutedCopper& ours) { return check_after_board_wiring(board, ours); };
  // The pieces of the nets apart without cuts (unrouted ones): checked
  // only when a check with cuts finds unconnected nets at all.
  std::optional<PiecesApart> pieces_before;

  std::vector<Cut> cuts;
  for (std::size_t i = 0; i < routed.wires.size(); ++i) {
    const Wire& w = routed.wires[i];
    if (w.shape.kind != ShapeKind::path || w.net < 0) continue;
    find_cuts(i, w.shape.points, junctions[static_cast<std::size_t>(w.net)], cuts);
  }
  std::vector<std::vector<const Cut*>> cuts_of(routed.wires.size());
  for (const Cut& c : cuts) cuts_of[c.wire].push_back(&c);
  const auto any_on = [&](std::size_t wire) {
    return std::any_of(cuts_of[wire].begin(), cuts_of[wire].end(), [](const Cut* c) { return c->on; });
  };
  RoutedCopper cut = routed;
  const auto rebuild = [&](std::size_t wire) {
    cut.wires[wire].shape.points = with_cuts(routed.wires[wire].shape.points, cuts_of[wire]);
  };
  for (std::size_t i = 0; i < routed.wires.size(); ++i) {
    if (!cuts_of[i].empty()) rebuild(i);
  }
  const auto first_ours = static_cast<int>(board.wires.size());
  for (;;) {
    const DrcReport report = checked(cut);
    std::set<std::size_t> changed;
    // A violation of a wire with cuts takes back the cut nearest to it.
    const auto blame = [&](const DrcObject& o, Point where) {
      if (o.kind != DrcObjectKind::wire || o.index < first_ours) return;
      const auto wire = static_cast<std::size_t>(o.index - first_ours);
      Cut* nearest = nullptr;
      double best = std::numeric_limits<double>::infinity();
      for (const Cut* c : cuts_of[wire]) {
        if (!c->on) continue;
        const double d = distance_to_segment(where, c->p, c->q);
        if (d < best) {
          best = d;
          nearest = const_cast<Cut*>(c);
        }
      }
      if (nearest == nullptr) return;
      nearest->on = false;
      changed.insert(wire);
    };
    for (const Violation& v : report.routing) {
      blame(v.first, v.position);
      blame(v.second, v.position);
    }
    // A net in more pieces than before takes back every cut of its wires,
    // else (another net's cut split its pour) the cuts on its pours' layers,
    // else every cut.
    if (!report.unconnected.empty() && !pieces_before) pieces_before = pieces_apart(checked(routed));
    for (const int net : report.unconnected.empty() ? std::vector<int>{} : split_further(*pieces_before, report)) {
      std::vector<std::size_t> own, on_pours, all;
      for (std::size_t i = 0; i < cut.wires.size(); ++i) {
        if (!any_on(i)) continue;
        all.push_back(i);
        if (cut.wires[i].net == net) own.push_back(i);
        if (has_pour_on(board, net, cut.wires[i].layer)) on_pours.push_back(i);
      }
      for (const std::size_t i : !own.empty() ? own : !on_pours.empty() ? on_pours : all) {
        for (const Cut* c : cuts_of[i]) const_cast<Cut*>(c)->on = false;
        changed.insert(i);
      }
    }
    if (changed.empty()) break;
    for (const std::size_t wire : changed) rebuild(wire);
  }
  routed = std::move(cut);
  return static_cast<std::size_t>(std::count_if(cuts.begin(), cuts.end(), [](const Cut& c) { return c.on; }));
}

}  // namespace trellis::route::router_detail
