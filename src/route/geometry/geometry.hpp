// Copper as cores grown by a radius, and the distance between two of them.
// Internal to the route module: the geometry both the design-rule check and
// the router's lattice measure copper with.
#pragma once

#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route::geometry {

// One point: a disc; two points: a capsule; three or more: a filled
// polygon (closed implicitly), all grown by `radius`.
struct Primitive {
  std::vector<Point> core;
  double radius = 0;
  Box box;  // the core's box grown by the radius
};

// A box grown by `by` on every side, rounded up to whole nanometres.
Box grown(Box box, double by);

Primitive disc(Point centre, double radius);
Primitive capsule(Point a, Point b, double radius);
Primitive filled_polygon(std::vector<Point> vertices, double radius);

// The primitives that make up a shape: a path gives one capsule per
// segment, a rect and a polygon one filled polygon, a circle one disc.
std::vector<Primitive> primitives_of(const Shape& shape);

struct Separation {
  double distance = 0;  // between the grown shapes, 0 when they touch or overlap
  Point where;          // the midpoint of the closest points of the cores
};

Separation separation(const Primitive& a, const Primitive& b);
// separation(disc(a, 0), b), the same to the last bit, for a point.
Separation separation(Point a, const Primitive& b);

// An image's keepout in board coordinates (rects turn into polygons so any
// rotation stays exact up to rounding).
Shape placed_shape(const Component& component, const Shape& shape);

// The outline's edges as segments, with half the outline path's width.
std::vector<Primitive> outline_edges(const Shape& outline);

// The distance between two points.
double distance(Point a, Point b);

// Whether p lies on the segment [a, b]: exact for board coordinates.
bool on_segment(Point p, Point a, Point b);

// Whether a point lies inside or on a filled polygon.
bool polygon_contains(const std::vector<Point>& polygon, Point p);

}  // namespace trellis::route::geometry
