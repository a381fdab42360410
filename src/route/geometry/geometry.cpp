// Distances between discs, capsules and filled polygons. Work is done in
// doubles relative to a point of the first shape, so the magnitudes stay
// those of the shapes' sizes rather than of board coordinates.
#include "geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace trellis::route::geometry {
namespace {

struct Vec {
  double x = 0;
  double y = 0;
};

Vec operator-(Vec a, Vec b) { return {a.x - b.x, a.y - b.y}; }
Vec operator+(Vec a, Vec b) { return {a.x + b.x, a.y + b.y}; }
Vec operator*(double s, Vec a) { return {s * a.x, s * a.y}; }
double dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y; }
double cross(Vec a, Vec b) { return a.x * b.y - a.y * b.x; }

Vec relative(Point p, Point origin) {
  return {static_cast<double>(p.x - origin.x), static_cast<double>(p.y - origin.y)};
}

struct Segment {
  Vec a;
  Vec b;
};

// Closest point to p on segment s.
Vec closest_on(const Segment& s, Vec p) {
  const Vec d = s.b - s.a;
  const double length2 = dot(d, d);
  if (length2 == 0) return s.a;
  const double t = std::clamp(dot(p - s.a, d) / length2, 0.0, 1.0);
  return s.a + t * d;
}

struct Closest {
  double distance2 = std::numeric_limits<double>::infinity();
  Vec on_first;
  Vec on_second;
};

void consider(Closest& best, Vec on_first, Vec on_second) {
  const Vec d = on_first - on_second;
  const double distance2 = dot(d, d);
  if (distance2 < best.distance2) best = {distance2, on_first, on_second};
}

// Proper or touching intersection of two segments; fills `at` when found.
bool intersect(const Segment& s, const Segment& t, Vec& at) {
  const Vec r = s.b - s.a;
  const Vec q = t.b - t.a;
  const double denominator = cross(r, q);
  if (denominator == 0) return false;  // parallel: endpoint distances decide
  const double u = cross(t.a - s.a, q) / denominator;
  const double v = cross(t.a - s.a, r) / denominator;
  if (u < 0 || u > 1 || v < 0 || v > 1) return false;
  at = s.a + u * r;
  return true;
}

Closest segment_closest(const Segment& s, const Segment& t) {
  Closest best;
  Vec at;
  if (intersect(s, t, at)) return {0, at, at};
  consider(best, s.a, closest_on(t, s.a));
  consider(best, s.b, closest_on(t, s.b));
  consider(best, closest_on(s, t.a), t.a);
  consider(best, closest_on(s, t.b), t.b);
  return best;
}

// A core's segments without building them all: a point is one segment of
// length 0, two points one segment, a polygon its closed ring of edges.
std::size_t segment_count(const std::vector<Point>& core) { return core.size() <= 2 ? 1 : core.size(); }

Segment segment_of(const std::vector<Point>& core, std::size_t i, Point origin) {
  if (core.size() == 1) {
    const Vec p = relative(core[0], origin);
    return {p, p};
  }
  return {relative(core[i], origin), relative(core[(i + 1) % core.size()], origin)};
}

Point rounded(Vec v, Point origin) { return {origin.x + std::llround(v.x), origin.y + std::llround(v.y)}; }

// Lowers best to segment s's closest approach to `core`'s segments
// (relative to origin), stopping at contact. Nothing is allocated: the
// router's lattice asks this millions of times.
void approach(const Segment& s, const std::vector<Point>& core, Point origin, Closest& best) {
  for (std::size_t j = 0; j < segment_count(core); ++j) {
    const Closest c = segment_closest(s, segment_of(core, j, origin));
    if (c.distance2 < best.distance2) best = c;
    if (best.distance2 == 0) return;
  }
}

// The separation of two cores grown by their radii.
Separation grown_apart(const Closest& best, double first_radius, double second_radius, Point origin) {
  const double distance = std::max(0.0, std::sqrt(best.distance2) - first_radius - second_radius);
  return {distance, rounded(0.5 * (best.on_first + best.on_second), origin)};
}

}  // namespace

Box grown(Box box, double by) {
  const auto d = static_cast<Coord>(std::ceil(by));
  box.min.x -= d;
  box.min.y -= d;
  box.max.x += d;
  box.max.y += d;
  return box;
}

namespace {

Box core_box(std::span<const Point> core, double radius) {
  Box box;
  for (const Point p : core) box.include(p);
  return grown(box, radius);
}

}  // namespace

Primitive disc(Point centre, double radius) {
  const Point core[] = {centre};
  return {{centre}, radius, core_box(core, radius)};
}

Primitive capsule(Point a, Point b, double radius) {
  if (a == b) return disc(a, radius);
  const Point core[] = {a, b};
  return {{a, b}, radius, core_box(core, radius)};
}

Primitive filled_polygon(std::vector<Point> vertices, double radius) {
  // Files often repeat the first vertex at the end; consecutive repeats add nothing.
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  while (vertices.size() > 1 && vertices.front() == vertices.back()) vertices.pop_back();
  if (vertices.size() < 3) {
    if (vertices.empty()) return {};
    return capsule(vertices.front(), vertices.back(), radius);
  }
  Box box = core_box(vertices, radius);
  return {std::move(vertices), radius, box};
}

std::vector<Primitive> primitives_of(const Shape& shape) {
  std::vector<Primitive> result;
  const double half_width = static_cast<double>(shape.width) / 2;
  switch (shape.kind) {
    case ShapeKind::circle:
      if (!shape.points.empty()) result.push_back(disc(shape.points[0], half_width));
      break;
    case ShapeKind::rect:
      if (shape.points.size() == 2) {
        const Point lo{std::min(shape.points[0].x, shape.points[1].x), std::min(shape.points[0].y, shape.points[1].y)};
        const Point hi{std::max(shape.points[0].x, shape.points[1].x), std::max(shape.points[0].y, shape.points[1].y)};
        result.push_back(filled_polygon({lo, {hi.x, lo.y}, hi, {lo.x, hi.y}}, 0));
      }
      break;
    case ShapeKind::polygon:
      if (!shape.points.empty()) result.push_back(filled_polygon(shape.points, half_width));
      break;
    case ShapeKind::path:
      if (shape.points.size() == 1) result.push_back(disc(shape.points[0], half_width));
      for (std::size_t i = 1; i < shape.points.size(); ++i) {
        result.push_back(capsule(shape.points[i - 1], shape.points[i], half_width));
      }
      break;
  }
  return result;
}

bool polygon_contains(const std::vector<Point>& polygon, Point p) {
  if (polygon.size() < 3) return false;
  const Point origin = polygon[0];
  const Vec q = relative(p, origin);
  bool inside = false;
  for (std::size_t i = 0, j = polygon.size() - 1; i < polygon.size(); j = i++) {
    const Vec a = relative(polygon[i], origin);
    const Vec b = relative(polygon[j], origin);
    if (cross(b - a, q - a) == 0 && q.x >= std::min(a.x, b.x) && q.x <= std::max(a.x, b.x) &&
        q.y >= std::min(a.y, b.y) && q.y <= std::max(a.y, b.y)) {
      return true;  // on an edge
    }
    if ((a.y > q.y) != (b.y > q.y)) {
      const double crossing_x = a.x + (q.y - a.y) * (b.x - a.x) / (b.y - a.y);
      if (q.x < crossing_x) inside = !inside;
    }
  }
  return inside;
}

Separation separation(const Primitive& a, const Primitive& b) {
  const Point origin = a.core.front();
  // A core inside the other's filled polygon: they overlap.
  if (a.core.size() >= 3 && polygon_contains(a.core, b.core.front())) return {0, b.core.front()};
  if (b.core.size() >= 3 && polygon_contains(b.core, a.core.front())) return {0, a.core.front()};
  Closest best;
  for (std::size_t i = 0; i < segment_count(a.core) && best.distance2 != 0; ++i) {
    approach(segment_of(a.core, i, origin), b.core, origin, best);
  }
  return grown_apart(best, a.radius, b.radius, origin);
}

Separation separation(Point a, const Primitive& b) {
  // separation(disc(a, 0), b), step for step, without building the disc.
  if (b.core.size() >= 3 && polygon_contains(b.core, a)) return {0, a};
  Closest best;
  approach(Segment{{0, 0}, {0, 0}}, b.core, a, best);
  return grown_apart(best, 0, b.radius, a);
}

namespace {

std::vector<Point> corners(const Shape& rect) {
  const Point lo = rect.points[0];
  const Point hi = rect.points[1];
  return {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
}

}  // namespace

Shape placed_shape(const Component& component, const Shape& shape) {
  Shape result = shape;
  if (shape.kind == ShapeKind::rect && shape.points.size() == 2) {
    result.kind = ShapeKind::polygon;
    result.points = corners(shape);
  }
  for (Point& p : result.points) p = placed_point(component, p);
  return result;
}

std::vector<Primitive> outline_edges(const Shape& outline) {
  std::vector<Point> vertices;
  if (outline.kind == ShapeKind::rect && outline.points.size() == 2) {
    vertices = corners(outline);
  } else if (outline.kind == ShapeKind::polygon || outline.kind == ShapeKind::path) {
    vertices = outline.points;
  }
  std::vector<Primitive> edges;
  if (vertices.size() < 2) return edges;
  const double radius = outline.kind == ShapeKind::rect ? 0.0 : static_cast<double>(outline.width) / 2;
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const Point a = vertices[i];
    const Point b = vertices[(i + 1) % vertices.size()];
    if (a == b) continue;
    edges.push_back(capsule(a, b, radius));
  }
  return edges;
}

double distance(Point a, Point b) { return std::hypot(static_cast<double>(a.x - b.x), static_cast<double>(a.y - b.y)); }

bool on_segment(Point p, Point a, Point b) {
  // 64-bit products: points on a board are less than a metre apart.
  const Coord cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
  return cross == 0 && p.x >= std::min(a.x, b.x) && p.x <= std::max(a.x, b.x) && p.y >= std::min(a.y, b.y) &&
         p.y <= std::max(a.y, b.y);
}

}  // namespace trellis::route::geometry
