// Board geometry: placing library shapes on the board and testing points
// against the outline.
#include "trellis/route/board.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>

namespace trellis::route {
namespace {

// Degrees in [0, 360).
double normalised_degrees(double degrees) {
  double turned = std::fmod(degrees, 360.0);
  if (turned < 0) turned += 360.0;
  return turned;
}

// Counter-clockwise rotation about the origin; exact for quarter turns so
// the usual 0/90/180/270 placements keep integer coordinates unchanged.
Point rotated(Point p, double degrees) {
  const double turned = normalised_degrees(degrees);
  if (turned == 0) return p;
  if (turned == 90) return {-p.y, p.x};
  if (turned == 180) return {-p.x, -p.y};
  if (turned == 270) return {p.y, -p.x};
  const double radians = turned * std::numbers::pi / 180.0;
  const double c = std::cos(radians);
  const double s = std::sin(radians);
  const auto x = static_cast<double>(p.x);
  const auto y = static_cast<double>(p.y);
  return {std::llround(x * c - y * s), std::llround(x * s + y * c)};
}

bool is_quarter_turn(double degrees) {
  const double turned = normalised_degrees(degrees);
  return turned == 0 || turned == 90 || turned == 180 || turned == 270;
}

// The four corners of a rect, counter-clockwise from the lower left.
std::vector<Point> rect_corners(const Shape& rect) {
  const Point lo = rect.points[0];
  const Point hi = rect.points[1];
  return {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
}

// Applies `map` to every point; a rect stays a rect (normalised) when the
// map is axis-preserving, else it becomes the polygon of its corners.
template <typename Map>
Shape mapped(const Shape& shape, bool axis_preserving, Map map) {
  Shape result = shape;
  if (shape.kind == ShapeKind::rect && shape.points.size() == 2) {
    if (axis_preserving) {
      const Point a = map(shape.points[0]);
      const Point b = map(shape.points[1]);
      result.points = {{std::min(a.x, b.x), std::min(a.y, b.y)}, {std::max(a.x, b.x), std::max(a.y, b.y)}};
      return result;
    }
    result.kind = ShapeKind::polygon;
    result.width = 0;
    result.points = rect_corners(shape);
  }
  for (Point& p : result.points) p = map(p);
  return result;
}

}  // namespace

void Box::include(Point p) noexcept {
  min.x = std::min(min.x, p.x);
  min.y = std::min(min.y, p.y);
  max.x = std::max(max.x, p.x);
  max.y = std::max(max.y, p.y);
}

void Box::include(const Box& other) noexcept {
  if (other.empty()) return;
  include(other.min);
  include(other.max);
}

Box bounding_box(const Shape& shape) {
  Box box;
  for (const Point p : shape.points) box.include(p);
  if (box.empty()) return box;
  // Circles extend by their radius, paths and apertures by half their width.
  const Coord grow = shape.kind == ShapeKind::rect ? 0 : (shape.width + 1) / 2;
  box.min.x -= grow;
  box.min.y -= grow;
  box.max.x += grow;
  box.max.y += grow;
  return box;
}

std::optional<Coord> Rules::clearance_for(const std::string& type) const {
  for (const TypedClearance& typed : typed_clearances) {
    if (typed.type == type) return typed.value;
  }
  return clearance;
}

int placed_layer(const Board& board, const Component& component, int image_layer) {
  if (component.side == Side::front || image_layer < 0) return image_layer;
  return static_cast<int>(board.layers.size()) - 1 - image_layer;
}

Point placed_point(const Component& component, Point image_point) {
  if (component.side == Side::back) image_point.x = -image_point.x;
  const Point turned = rotated(image_point, component.rotation);
  return {turned.x + component.position.x, turned.y + component.position.y};
}

Point pin_position(const Board& board, const PinRef& pin) {
  const Component& component = board.components[static_cast<std::size_t>(pin.component)];
  const Image& image = board.images[static_cast<std::size_t>(component.image)];
  return placed_point(component, image.pins[static_cast<std::size_t>(pin.pin)].offset);
}

std::optional<Coord> pin_clearance_override(const Board& board, const PinRef& pin) {
  const Component& component = board.components[static_cast<std::size_t>(pin.component)];
  const ImagePin& image_pin =
      board.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pin.pin)];
  return image_pin.clearance ? image_pin.clearance : component.clearance;
}

int net_tie_of(const Board& board, const PinRef& pin) {
  for (std::size_t t = 0; t < board.net_ties.size(); ++t) {
    const std::vector<PinRef>& pins = board.net_ties[t].pins;
    if (std::find(pins.begin(), pins.end(), pin) != pins.end()) return static_cast<int>(t);
  }
  return -1;
}

bool tie_joins(const Board& board, int tie, int net) {
  if (tie < 0 || net < 0) return false;
  const std::vector<int>& nets = board.net_ties[static_cast<std::size_t>(tie)].nets;
  return std::binary_search(nets.begin(), nets.end(), net);
}

std::vector<PinCopper> pin_copper(const Board& board) {
  // Which net each (component, pin) belongs to.
  std::unordered_map<std::int64_t, int> net_of_pin;
  const auto key = [](const PinRef& pin) { return (std::int64_t{pin.component} << 32) | std::uint32_t(pin.pin); };
  for (std::size_t net = 0; net < board.nets.size(); ++net) {
    for (const PinRef& pin : board.nets[net].pins) net_of_pin.emplace(key(pin), static_cast<int>(net));
  }

  std::vector<PinCopper> copper;
  for (std::size_t c = 0; c < board.components.size(); ++c) {
    const Component& component = board.components[c];
    const Image& image = board.images[static_cast<std::size_t>(component.image)];
    const bool axis_preserving = is_quarter_turn(component.rotation);
    for (std::size_t p = 0; p < image.pins.size(); ++p) {
      const ImagePin& pin = image.pins[p];
      const PinRef ref{static_cast<int>(c), static_cast<int>(p)};
      const auto found = net_of_pin.find(key(ref));
      const int net = found == net_of_pin.end() ? -1 : found->second;
      const bool pin_axis_preserving = axis_preserving && is_quarter_turn(pin.rotation);
      const Padstack& padstack = board.padstacks[static_cast<std::size_t>(pin.padstack)];
      for (const LayerShape& layer_shape : padstack.shapes) {
        // Padstack -> image (pin rotation, offset) -> board (mirror, rotation, position).
        Shape on_board = mapped(layer_shape.shape, pin_axis_preserving, [&](Point q) {
          const Point in_image = rotated(q, pin.rotation);
          return placed_point(component, {in_image.x + pin.offset.x, in_image.y + pin.offset.y});
        });
        copper.push_back({ref, placed_layer(board, component, layer_shape.layer), net, std::move(on_board)});
      }
    }
  }
  return copper;
}

Box boundary_box(const Board& board) {
  Box box;
  for (const Shape& shape : board.boundary) box.include(bounding_box(shape));
  return box;
}

bool inside_boundary(const Board& board, Point point) {
  if (board.boundary.empty()) return true;
  const Shape& outline = board.boundary.front();
  if (outline.kind == ShapeKind::circle) {
    if (outline.points.empty()) return true;
    const double dx = static_cast<double>(point.x - outline.points[0].x);
    const double dy = static_cast<double>(point.y - outline.points[0].y);
    const double radius = static_cast<double>(outline.width) / 2;
    return dx * dx + dy * dy <= radius * radius;
  }
  const std::vector<Point> vertices =
      outline.kind == ShapeKind::rect && outline.points.size() == 2 ? rect_corners(outline) : outline.points;
  if (vertices.size() < 3) return bounding_box(outline).contains(point);
  // Crossing-number test on the closed polygon; a point on an edge counts
  // as inside (pads are often centred on the board edge's grid).
  bool inside = false;
  const auto px = static_cast<double>(point.x);
  const auto py = static_cast<double>(point.y);
  for (std::size_t i = 0, j = vertices.size() - 1; i < vertices.size(); j = i++) {
    const auto xi = static_cast<double>(vertices[i].x);
    const auto yi = static_cast<double>(vertices[i].y);
    const auto xj = static_cast<double>(vertices[j].x);
    const auto yj = static_cast<double>(vertices[j].y);
    const double cross = (xj - xi) * (py - yi) - (yj - yi) * (px - xi);
    const bool within_x = px >= std::min(xi, xj) && px <= std::max(xi, xj);
    const bool within_y = py >= std::min(yi, yj) && py <= std::max(yi, yj);
    if (cross == 0 && within_x && within_y) return true;  // on this edge
    if ((yi > py) != (yj > py)) {
      const double crossing_x = xi + (py - yi) * (xj - xi) / (yj - yi);
      if (px < crossing_x) inside = !inside;
    }
  }
  return inside;
}

}  // namespace trellis::route
