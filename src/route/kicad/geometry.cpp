// Arcs through three points and circles as chords, rotations and placements,
// in Board orientation.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "reader.hpp"

namespace trellis::route::kicad_detail {

using geometry::kRadiansPerDegree;
using geometry::rounded;

Point rotate(Point p, double degrees) {
  // Quarter turns exactly: most footprints sit at 0, 90, 180 or 270.
  const double turned = std::fmod(std::fmod(degrees, 360.0) + 360.0, 360.0);
  if (turned == 0) return p;
  if (turned == 90) return {-p.y, p.x};
  if (turned == 180) return {-p.x, -p.y};
  if (turned == 270) return {p.y, -p.x};
  const double c = std::cos(degrees * kRadiansPerDegree);
  const double s = std::sin(degrees * kRadiansPerDegree);
  const auto x = static_cast<double>(p.x);
  const auto y = static_cast<double>(p.y);
  return rounded(x * c - y * s, x * s + y * c);
}

Point place(const Placement& placement, Point local) {
  const Point turned = rotate(local, placement.angle);
  return {placement.origin.x + turned.x, placement.origin.y + turned.y};
}

std::vector<Point> circle_points(Point centre, double radius) {
  std::vector<Point> points = arc_about(centre, radius, 0, 360);
  points.pop_back();  // the closing vertex repeats the first
  return points;
}

std::vector<Point> arc_points(Point start, Point mid, Point end) {
  // The circle through three points; coordinates relative to start keep
  // the products well inside double precision.
  const double bx = static_cast<double>(mid.x - start.x), by = static_cast<double>(mid.y - start.y);
  const double cx = static_cast<double>(end.x - start.x), cy = static_cast<double>(end.y - start.y);
  const double d = 2.0 * (bx * cy - by * cx);
  const double scale = std::max({std::fabs(bx), std::fabs(by), std::fabs(cx), std::fabs(cy), 1.0});
  if (std::fabs(d) <= 1e-9 * scale * scale) return {start, end};  // collinear: a straight segment
  const double b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
  const double ux = (cy * b2 - by * c2) / d;
  const double uy = (bx * c2 - cx * b2) / d;
  const double radius = std::hypot(ux, uy);
  const double a_start = std::atan2(-uy, -ux);
  const double a_mid = std::atan2(by - uy, bx - ux);
  const double a_end = std::atan2(cy - uy, cx - ux);
  const auto ccw_from_start = [&](double a) {
    const double t = std::fmod(a - a_start, 2 * std::numbers::pi);
    return t < 0 ? t + 2 * std::numbers::pi : t;
  };
  // Counter-clockwise when mid comes before end going counter-clockwise.
  double sweep = ccw_from_start(a_end);
  if (ccw_from_start(a_mid) > sweep) sweep -= 2 * std::numbers::pi;
  const Point centre = rounded(static_cast<double>(start.x) + ux, static_cast<double>(start.y) + uy);
  std::vector<Point> points = arc_about(centre, radius, a_start / kRadiansPerDegree, sweep / kRadiansPerDegree);
  // The ends exactly as written, so chained outlines meet.
  points.front() = start;
  points.back() = end;
  return points;
}

double twice_area(const std::vector<Point>& polygon) {
  double sum = 0;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Point& a = polygon[i];
    const Point& b = polygon[(i + 1) % polygon.size()];
    sum += static_cast<double>(a.x) * static_cast<double>(b.y) - static_cast<double>(b.x) * static_cast<double>(a.y);
  }
  return sum;
}

std::vector<Point> read_arc(const Reader& reader, const Node& arc, bool raw) {
  const auto at = [&](std::string_view which) {
    const Node& p = reader.child(arc, which);
    return raw ? reader.raw_point(p) : reader.point(p);
  };
  if (arc.find("mid") != nullptr) return arc_points(at("start"), at("mid"), at("end"));
  const Point centre = at("start");
  const Point first = at("end");
  const Node& angle = reader.child(arc, "angle");
  const double sweep = reader.number(angle, 0, "the arc's angle");
  if (!(std::fabs(sweep) <= 360)) reader.fail(angle.line, "an arc's angle must lie within +-360 degrees");
  const double dx = static_cast<double>(first.x - centre.x);
  const double dy = static_cast<double>(first.y - centre.y);
  // The sweep turns from x toward y as written (y down): the other way
  // once y points up.
  return arc_about(centre, std::hypot(dx, dy), std::atan2(dy, dx) / kRadiansPerDegree, raw ? sweep : -sweep);
}

std::vector<Point> read_pts(const Reader& reader, const Node& pts, bool raw) {
  std::vector<Point> points;
  for (const Node& item : pts.items) {
    if (!item.is_list) reader.fail(item.line, "expected (xy x y) or (arc ...) in (pts ...)");
    if (item.text == "xy") {
      points.push_back(raw ? reader.raw_point(item) : reader.point(item));
    } else if (item.text == "arc") {
      const auto end_of = [&](std::string_view which) {
        const Node& p = reader.child(item, which);
        return raw ? reader.raw_point(p) : reader.point(p);
      };
      const std::vector<Point> arc = arc_points(end_of("start"), end_of("mid"), end_of("end"));
      points.insert(points.end(), arc.begin(), arc.end());
    } else {
      reader.fail(item.line, fmt::format("expected (xy x y) or (arc ...) in (pts ...), found ({} ...)", item.text));
    }
  }
  return points;
}

}  // namespace trellis::route::kicad_detail
