// Arcs as chords: as many as keep each chord's sagitta within the tolerance.
#include "arcs.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace trellis::route::geometry {
namespace {

// How many chords keep an arc of `radius` sweeping `sweep_radians` within
// the tolerance: each chord's sagitta r (1 - cos(a/2)) must not exceed it.
int chords_for(double radius, double sweep_radians) {
  if (!(radius > kArcTolerance))
    return std::max(1, static_cast<int>(std::ceil(std::fabs(sweep_radians) / (std::numbers::pi / 2))));
  const double widest = 2.0 * std::acos(1.0 - kArcTolerance / radius);
  const double needed = std::ceil(std::fabs(sweep_radians) / widest);
  return static_cast<int>(std::clamp(needed, 1.0, static_cast<double>(kMaxArcChords)));
}

}  // namespace

std::vector<Point> arc_about(Point centre, double radius, double from_degrees, double sweep) {
  const double from = from_degrees * kRadiansPerDegree;
  const double sweep_radians = sweep * kRadiansPerDegree;
  const int chords = chords_for(radius, sweep_radians);
  std::vector<Point> points;
  points.reserve(static_cast<std::size_t>(chords) + 1);
  for (int i = 0; i <= chords; ++i) {
    const double a = from + sweep_radians * i / chords;
    points.push_back(rounded(static_cast<double>(centre.x) + radius * std::cos(a),
                             static_cast<double>(centre.y) + radius * std::sin(a)));
  }
  return points;
}

std::vector<Point> arc_outside(Point centre, double radius, double from_degrees, double sweep) {
  const double from = from_degrees * kRadiansPerDegree;
  const double sweep_radians = sweep * kRadiansPerDegree;
  const int chords = chords_for(radius, sweep_radians);
  const double step = sweep_radians / chords;
  // Where the tangents at successive chord ends meet.
  const double reach = radius / std::cos(step / 2);
  std::vector<Point> points;
  points.reserve(static_cast<std::size_t>(chords) + 2);
  const auto at = [&](double r, double a) {
    return rounded(static_cast<double>(centre.x) + r * std::cos(a), static_cast<double>(centre.y) + r * std::sin(a));
  };
  points.push_back(at(radius, from));
  for (int i = 0; i < chords; ++i) points.push_back(at(reach, from + step * (i + 0.5)));
  points.push_back(at(radius, from + sweep_radians));
  return points;
}

std::vector<Point> minor_arc(Point start, Point end, Point centre) {
  if (start == end || start == centre) return {};
  const auto sx = static_cast<double>(start.x - centre.x), sy = static_cast<double>(start.y - centre.y);
  const auto ex = static_cast<double>(end.x - centre.x), ey = static_cast<double>(end.y - centre.y);
  const double from = std::atan2(sy, sx);
  double sweep = std::atan2(ey, ex) - from;  // in (-2 pi, 2 pi)
  if (sweep > std::numbers::pi) sweep -= 2 * std::numbers::pi;
  if (sweep <= -std::numbers::pi) sweep += 2 * std::numbers::pi;
  std::vector<Point> points =
      arc_about(centre, std::hypot(sx, sy), from / kRadiansPerDegree, sweep / kRadiansPerDegree);
  points.front() = start;
  points.back() = end;
  return points;
}

}  // namespace trellis::route::geometry
