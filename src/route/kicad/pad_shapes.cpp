// Pad shapes: circle, rect, oval, roundrect (and chamfered), trapezoid and
// custom, in KiCad's pad frame.
#include "pad_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../dsn/tokenizer.hpp"

namespace trellis::route::kicad_detail {
namespace {

struct Size {
  Coord x = 0;
  Coord y = 0;
};

Size pad_size(const Reader& reader, const Node& pad) {
  const Node& size = reader.child(pad, "size");
  return {reader.positive_length(size, 0, "the pad's width"), reader.positive_length(size, 1, "the pad's height")};
}

Shape rect(Size size) {
  return {ShapeKind::rect, 0, {{-size.x / 2, -size.y / 2}, {size.x - size.x / 2, size.y - size.y / 2}}};
}

Shape circle(Coord diameter, Point centre = {}) { return {ShapeKind::circle, diameter, {centre}}; }

// A path along the long axis, as wide as the short side.
Shape oval(Size size) {
  if (size.x == size.y) return circle(size.x);
  if (size.x > size.y) {
    const Coord half = (size.x - size.y) / 2;
    return {ShapeKind::path, size.y, {{-half, 0}, {half, 0}}};
  }
  const Coord half = (size.y - size.x) / 2;
  return {ShapeKind::path, size.x, {{0, -half}, {0, half}}};
}

double ratio(const Reader& reader, const Node& pad, std::string_view keyword) {
  const Node* list = pad.find(keyword);
  if (list == nullptr) return 0;
  const double value = reader.number(*list, 0, fmt::format("the ({} ...) ratio", keyword));
  if (value < 0 || value > 0.5) {
    reader.fail(list->line, fmt::format("the ({} ...) ratio must lie between 0 and 0.5, found {}", keyword, value));
  }
  return value;
}

// A rectangle with rounded corners of `radius` and, at the named corners,
// chamfers of `chamfer`; walked counter-clockwise in KiCad's frame seen
// with y down, starting at the top-left corner.
Shape rounded_rect(const Reader& reader, const Node& pad, Size size) {
  const double short_side = static_cast<double>(std::min(size.x, size.y));
  const double radius = ratio(reader, pad, "roundrect_rratio") * short_side;
  const double chamfer = ratio(reader, pad, "chamfer_ratio") * short_side;
  bool chamfered[4] = {false, false, false, false};  // top_left, top_right, bottom_right, bottom_left
  if (const Node* corners = pad.find("chamfer"); corners != nullptr && chamfer > 0) {
    for (const Node& corner : corners->items) {
      if (corner.text == "top_left") chamfered[0] = true;
      if (corner.text == "top_right") chamfered[1] = true;
      if (corner.text == "bottom_right") chamfered[2] = true;
      if (corner.text == "bottom_left") chamfered[3] = true;
    }
  }
  const bool any_chamfer = chamfered[0] || chamfered[1] || chamfered[2] || chamfered[3];
  if (std::llround(radius) == 0 && !any_chamfer) return rect(size);

  const double hx = static_cast<double>(size.x) / 2, hy = static_cast<double>(size.y) / 2;
  // Corner centres and the directions from each corner along its two edges.
  const double corner_x[4] = {-hx, hx, hx, -hx};
  const double corner_y[4] = {-hy, -hy, hy, hy};
  std::vector<Point> points;
  for (int c = 0; c < 4; ++c) {
    const double sx = corner_x[c] < 0 ? 1 : -1;  // towards the centre along x
    const double sy = corner_y[c] < 0 ? 1 : -1;
    if (chamfered[c]) {
      // Cut from the edge arriving at the corner to the edge leaving it.
      const Point on_y_edge{std::llround(corner_x[c]), std::llround(corner_y[c] + sy * chamfer)};
      const Point on_x_edge{std::llround(corner_x[c] + sx * chamfer), std::llround(corner_y[c])};
      // Corners 0 and 2 are reached along a vertical edge, 1 and 3 along a horizontal one.
      if (c % 2 == 0) {
        points.push_back(on_y_edge);
        points.push_back(on_x_edge);
      } else {
        points.push_back(on_x_edge);
        points.push_back(on_y_edge);
      }
    } else if (std::llround(radius) == 0) {
      points.push_back({std::llround(corner_x[c]), std::llround(corner_y[c])});
    } else {
      const Point centre{std::llround(corner_x[c] + sx * radius), std::llround(corner_y[c] + sy * radius)};
      // Angles (y down) of the arc at each corner, from the edge reached to the edge left.
      const double from[4] = {180, 270, 0, 90};
      const std::vector<Point> arc = arc_outside(centre, radius, from[c], 90);
      points.insert(points.end(), arc.begin(), arc.end());
    }
  }
  return {ShapeKind::polygon, 0, std::move(points)};
}

// KiCad's trapezoid: (rect_delta dx dy) widens the left side by dx and the
// bottom side by dy (y down), narrowing the opposite side as much.
Shape trapezoid(const Reader& reader, const Node& pad, Size size) {
  Coord dx = 0, dy = 0;
  if (const Node* delta = pad.find("rect_delta")) {
    dx = reader.length(*delta, 0, "the trapezoid's x delta");
    dy = reader.length(*delta, 1, "the trapezoid's y delta");
    if (std::llabs(dx) >= size.y || std::llabs(dy) >= size.x) {
      reader.fail(delta->line, "the trapezoid's (rect_delta ...) is as large as the pad: the shape collapses");
    }
  }
  const Coord hx = size.x / 2, hy = size.y / 2, ex = dx / 2, ey = dy / 2;
  return {ShapeKind::polygon, 0, {{-hx - ey, hy + ex}, {-hx + ey, -hy - ex}, {hx - ey, -hy + ex}, {hx + ey, hy - ex}}};
}

// One primitive of a custom pad, relative to the pad's anchor.
std::optional<Shape> primitive_shape(const Reader& reader, const Node& primitive) {
  const Coord width = reader.stroke_width(primitive);
  const std::string& kind = primitive.text;
  if (kind == "gr_poly") {
    std::vector<Point> points = read_pts(reader, reader.child(primitive, "pts"), true);
    if (points.size() < 3) reader.fail(primitive.line, "a custom pad's (gr_poly ...) needs at least 3 vertices");
    return Shape{ShapeKind::polygon, width, std::move(points)};
  }
  if (kind == "gr_line") {
    return Shape{
        ShapeKind::path,
        width,
        {reader.raw_point(reader.child(primitive, "start")), reader.raw_point(reader.child(primitive, "end"))}};
  }
  if (kind == "gr_arc") return Shape{ShapeKind::path, width, read_arc(reader, primitive, true)};
  if (kind == "gr_circle") {
    const Point centre = reader.raw_point(reader.child(primitive, "center"));
    const Point edge = reader.raw_point(reader.child(primitive, "end"));
    const double radius = std::hypot(static_cast<double>(edge.x - centre.x), static_cast<double>(edge.y - centre.y));
    if (filled(primitive, false) || width == 0) return circle(2 * std::llround(radius) + width, centre);
    std::vector<Point> ring = circle_points(centre, radius);
    ring.push_back(ring.front());
    return Shape{ShapeKind::path, width, std::move(ring)};
  }
  if (kind == "gr_rect") {
    const Point a = reader.raw_point(reader.child(primitive, "start"));
    const Point b = reader.raw_point(reader.child(primitive, "end"));
    return Shape{ShapeKind::polygon, width, {{a.x, a.y}, {b.x, a.y}, {b.x, b.y}, {a.x, b.y}}};
  }
  return std::nullopt;  // gr_bbox, gr_vector, text: no copper
}

}  // namespace

Shape mirrored_y(Shape shape) {
  for (Point& p : shape.points) p.y = -p.y;
  if (shape.kind == ShapeKind::rect && shape.points.size() == 2) std::swap(shape.points[0].y, shape.points[1].y);
  return shape;
}

namespace {

// KiCad's (drill D (offset X Y)): the hole stays at the pad's position and
// the copper moves by the offset (KiCad's PAD::ShapePos).
Point drill_offset(const Reader& reader, const Node& pad) {
  const Node* drill = pad.find("drill");
  if (drill == nullptr) return {};
  const Node* offset = drill->find("offset");
  return offset == nullptr ? Point{} : reader.raw_point(*offset);
}

std::vector<Shape> centred_pad_copper(const Reader& reader, const Node& pad);

}  // namespace

std::vector<Shape> pad_copper(const Reader& reader, const Node& pad) {
  std::vector<Shape> shapes = centred_pad_copper(reader, pad);
  const Point offset = drill_offset(reader, pad);
  for (Shape& shape : shapes) {
    for (Point& p : shape.points) p = {p.x + offset.x, p.y + offset.y};
  }
  return shapes;
}

namespace {

std::vector<Shape> centred_pad_copper(const Reader& reader, const Node& pad) {
  const std::string& kind = reader.atom(pad, 2, "the pad's shape").text;
  if (kind == "circle") return {circle(pad_size(reader, pad).x)};
  if (kind == "rect") return {rect(pad_size(reader, pad))};
  if (kind == "oval") return {oval(pad_size(reader, pad))};
  if (kind == "roundrect" || kind == "chamfered_rect") return {rounded_rect(reader, pad, pad_size(reader, pad))};
  if (kind == "trapezoid") return {trapezoid(reader, pad, pad_size(reader, pad))};
  if (kind != "custom") {
    reader.fail(pad.items[2].line,
                fmt::format("unknown pad shape {}: expected circle, rect, oval, roundrect, trapezoid or custom",
                            dsn_detail::quoted(kind)));
  }
  const Size size = pad_size(reader, pad);
  bool rect_anchor = false;
  if (const Node* options = pad.find("options")) {
    if (const Node* anchor = options->find("anchor")) {
      rect_anchor = reader.atom(*anchor, 0, "the anchor's shape").text == "rect";
    }
  }
  std::vector<Shape> shapes{rect_anchor ? rect(size) : circle(size.x)};
  if (const Node* primitives = pad.find("primitives")) {
    for (const Node& primitive : primitives->items) {
      if (!primitive.is_list) continue;
      if (std::optional<Shape> shape = primitive_shape(reader, primitive)) shapes.push_back(std::move(*shape));
    }
  }
  return shapes;
}

}  // namespace

std::optional<Shape> pad_hole(const Reader& reader, const Node& pad) {
  const Node* drill = pad.find("drill");
  if (drill == nullptr || drill->items.empty()) return std::nullopt;
  if (!drill->items[0].is_list && drill->items[0].text == "oval") {
    const Coord w = reader.positive_length(*drill, 1, "the oval drill's width", true);
    const Coord h = drill->items.size() > 2 && !drill->items[2].is_list
                        ? reader.positive_length(*drill, 2, "the oval drill's height", true)
                        : w;
    Shape hole = oval({w, h});
    return hole.width > 0 ? std::optional<Shape>(hole) : std::nullopt;
  }
  if (drill->items[0].is_list) return std::nullopt;
  const Coord diameter = reader.positive_length(*drill, 0, "the drill's diameter", true);
  if (diameter == 0) return std::nullopt;
  return circle(diameter);
}

}  // namespace trellis::route::kicad_detail
