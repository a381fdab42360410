#include "pull_tight.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "../geometry/geometry.hpp"
#include "copper_checks.hpp"
#include "copper_from_paths.hpp"
#include "trellis/route/drc.hpp"
#include "wire_clearance.hpp"

namespace trellis::route::router_detail {
namespace {

// How many points ahead a shortcut may reach: bounds the tries per point
// on long staircases (a longer straight run is joined up by corners_only).
constexpr std::size_t kMostPointsAhead = 96;
constexpr int kMostPasses = 4;

using geometry::distance;
using geometry::on_segment;

// A wire's points with each junction on it made a point of its own, and
// which of them must stay.
struct Run {
  std::vector<Point> points;
  std::vector<bool> fixed;
};

Run with_junctions(const std::vector<Point>& points, const std::vector<Point>& junctions) {
  Run run;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point p = points[i];
    const bool end = i == 0 || i + 1 == points.size();
    run.points.push_back(p);
    run.fixed.push_back(end || std::find(junctions.begin(), junctions.end(), p) != junctions.end());
    if (i + 1 == points.size()) break;
    std::vector<Point> inside;
    for (const Point j : junctions) {
      if (j != p && j != points[i + 1] && on_segment(j, p, points[i + 1])) inside.push_back(j);
    }
    std::sort(inside.begin(), inside.end(), [&](Point x, Point y) {
      return std::llabs(x.x - p.x) + std::llabs(x.y - p.y) < std::llabs(y.x - p.x) + std::llabs(y.y - p.y);
    });
    for (const Point j : inside) {
      if (run.points.back() == j) continue;
      run.points.push_back(j);
      run.fixed.push_back(true);
    }
  }
  return run;
}

// The ways from a to b at multiples of 45 degrees with at most one bend:
// one segment where that is such a way, else a diagonal first or last.
std::vector<std::vector<Point>> octilinear_ways(Point a, Point b) {
  const Coord dx = b.x - a.x;
  const Coord dy = b.y - a.y;
  if (dx == 0 || dy == 0 || std::llabs(dx) == std::llabs(dy)) return {{a, b}};
  const Coord d = std::min(std::llabs(dx), std::llabs(dy));
  const Point diagonal{dx > 0 ? d : -d, dy > 0 ? d : -d};
  return {{a, {a.x + diagonal.x, a.y + diagonal.y}, b}, {a, {b.x - diagonal.x, b.y - diagonal.y}, b}};
}

double length_of_way(const std::vector<Point>& way) {
  double total = 0;
  for (std::size_t i = 1; i < way.size(); ++i) total += distance(way[i - 1], way[i]);
  return total;
}

// The wire's points pulled tight against the copper `clearance` holds.
std::vector<Point> pulled(const Wire& wire, const Run& run, WireClearance& clearance) {
  const std::vector<Point>& points = run.points;
  std::vector<double> along(points.size(), 0);
  for (std::size_t i = 1; i < points.size(); ++i) along[i] = along[i - 1] + distance(points[i - 1], points[i]);
  const auto clear = [&](const std::vector<Point>& way) {
    for (std::size_t k = 1; k < way.size(); ++k) {
      if (!clearance.clear(wire.net, wire.layer, wire.shape.width, way[k - 1], way[k])) return false;
    }
    return true;
  };
  std::vector<Point> out{points.front()};
  std::size_t i = 0;
  while (i + 1 < points.size()) {
    std::size_t end = i + 1;
    while (end + 1 < points.size() && !run.fixed[end] && end - i < kMostPointsAhead) ++end;
    std::size_t next = i + 1;
    std::vector<Point> taken{points[i], points[i + 1]};
    for (std::size_t j = end; j >= i + 2; --j) {
      bool found = false;
      for (std::vector<Point>& way : octilinear_ways(points[i], points[j])) {
        if (length_of_way(way) < along[j] - along[i] - 1.0 && clear(way)) {
          taken = std::move(way);
          found = true;
          break;
        }
      }
      if (found) {
        next = j;
        break;
      }
    }
    out.insert(out.end(), taken.begin() + 1, taken.end());
    i = next;
  }
  return corners_only(out);
}

}  // namespace

Coord pull_tight(const Board& board, RoutedCopper& routed) {
  // Junctions of each net: where its wires end, its vias stand and its pins sit.
  std::vector<std::vector<Point>> junctions = junctions_of_nets(board, routed);
  for (std::size_t n = 0; n < board.nets.size(); ++n) {
    for (const PinRef& pin : board.nets[n].pins) junctions[n].push_back(pin_position(board, pin));
  }

  const RoutedCopper before = routed;
  WireClearance clearance(board, routed);
  std::set<std::size_t> changed;
  // A wire pulled aside can make room for its neighbours: passes repeat
  // while they shorten something.
  for (int pass = 0; pass < kMostPasses; ++pass) {
    bool shortened = false;
    for (std::size_t w = 0; w < routed.wires.size(); ++w) {
      Wire& wire = routed.wires[w];
      if (wire.shape.kind != ShapeKind::path || wire.net < 0 || wire.shape.points.size() < 3) continue;
      const Run run = with_junctions(wire.shape.points, junctions[static_cast<std::size_t>(wire.net)]);
      std::vector<Point> tight = pulled(wire, run, clearance);
      if (length_of(tight) >= length_of(wire.shape.points)) continue;
      wire.shape.points = std::move(tight);
      clearance.move_wire(w, wire);
      changed.insert(w);
      shortened = true;
    }
    if (!shortened) break;
  }

  // The design-rule check has the last word: what it faults goes back.
  const auto checked = [&](const RoutedCopper& ours) { return check_after_board_wiring(board, ours); };
  std::optional<PiecesApart> pieces_before;
  const auto first_ours = static_cast<int>(board.wires.size());
  while (!changed.empty()) {
    const DrcReport report = checked(routed);
    std::set<std::size_t> back;
    const auto blame = [&](const DrcObject& o) {
      if (o.kind != DrcObjectKind::wire || o.index < first_ours) return;
      const auto wire = static_cast<std::size_t>(o.index - first_ours);
      if (changed.contains(wire)) back.insert(wire);
    };
    for (const Violation& v : report.routing) {
      blame(v.first);
      blame(v.second);
    }
    // A net in more pieces than before: its own changed wires go back,
    // else the changed wires on its pours' layers (they cut a pour), else
    // every changed wire.
    if (!report.unconnected.empty() && !pieces_before) pieces_before = pieces_apart(checked(before));
    for (const int net : report.unconnected.empty() ? std::vector<int>{} : split_further(*pieces_before, report)) {
      std::set<std::size_t> own, on_pours;
      for (const std::size_t w : changed) {
        if (routed.wires[w].net == net) own.insert(w);
        if (has_pour_on(board, net, routed.wires[w].layer)) on_pours.insert(w);
      }
      const std::set<std::size_t>& suspects = !own.empty() ? own : !on_pours.empty() ? on_pours : changed;
      back.insert(suspects.begin(), suspects.end());
    }
    if (back.empty()) break;
    for (const std::size_t w : back) {
      routed.wires[w] = before.wires[w];
      changed.erase(w);
    }
  }
  Coord saved = 0;
  for (const std::size_t w : changed) {
    saved += length_of(before.wires[w].shape.points) - length_of(routed.wires[w].shape.points);
  }
  return saved;
}

}  // namespace trellis::route::router_detail
