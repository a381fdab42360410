// Lays a board out in pixels: the picture's extent, the y flip, and every
// shape turned into a figure in drawing order.
#include "scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "trellis/core/error.hpp"

namespace trellis::route::render_detail {
namespace {

// Space around the board: at least a millimetre, more on large boards so
// the outline never touches the picture's edge.
constexpr double kMinimumMarginNanometres = 1'000'000;
constexpr double kMarginFraction = 0.02;
// Vias whose padstack has no copper still get a visible, common size.
constexpr Coord kFallbackViaDiameter = 600'000;
constexpr int kMaxUnlistedLayers = 256;

// Board nanometres (y up) to picture pixels (y down).
struct Mapping {
  double left = 0;   // board x at the picture's left edge
  double top = 0;    // board y at the picture's top edge
  double scale = 0;  // pixels per nanometre

  Pixel operator()(Point p) const {
    return {(static_cast<double>(p.x) - left) * scale, (top - static_cast<double>(p.y)) * scale};
  }
  double length(Coord nanometres) const { return static_cast<double>(nanometres) * scale; }
};

// The figure of a shape as copper or keepout; nothing for shapes without
// points, which readers never produce but hand-built boards might.
std::optional<Figure> figure_of(const Shape& shape, const Mapping& to_pixels) {
  if (shape.points.empty()) return std::nullopt;
  Figure figure;
  switch (shape.kind) {
    case ShapeKind::circle:
      figure.kind = FigureKind::disc;
      figure.width = to_pixels.length(shape.width);
      figure.points = {to_pixels(shape.points[0])};
      return figure;
    case ShapeKind::rect: {
      if (shape.points.size() < 2) return std::nullopt;
      const Point lo = shape.points[0];
      const Point hi = shape.points[1];
      figure.kind = FigureKind::area;
      figure.points = {to_pixels(lo), to_pixels({hi.x, lo.y}), to_pixels(hi), to_pixels({lo.x, hi.y})};
      return figure;
    }
    case ShapeKind::polygon:
      figure.kind = FigureKind::area;
      figure.width = to_pixels.length(shape.width);
      break;
    case ShapeKind::path: {
      // A path that stays on one point (round pads are often written as
      // "path 0 0 0 0") is a dot of its width: a disc, since viewers differ
      // on drawing the caps of zero-length lines.
      const Point first = shape.points[0];
      const bool dot = std::all_of(shape.points.begin(), shape.points.end(), [&](Point p) { return p == first; });
      figure.kind = dot ? FigureKind::disc : FigureKind::trace;
      figure.width = to_pixels.length(shape.width);
      if (dot) {
        figure.points = {to_pixels(first)};
        return figure;
      }
      break;
    }
  }
  for (const Point p : shape.points) figure.points.push_back(to_pixels(p));
  return figure;
}

// The figure of a shape that encloses an area (board edge, plane): an
// outline written as a path is the polygon it goes round.
std::optional<Figure> area_of(const Shape& shape, const Mapping& to_pixels) {
  std::optional<Figure> figure = figure_of(shape, to_pixels);
  if (figure && figure->kind == FigureKind::trace && figure->points.size() >= 3) {
    figure->kind = FigureKind::area;
    figure->width = 0;
  }
  return figure;
}

Coord via_diameter(const Board& board, const Via& via) {
  Coord diameter = 0;
  if (via.padstack >= 0 && static_cast<std::size_t>(via.padstack) < board.padstacks.size()) {
    for (const LayerShape& layer_shape : board.padstacks[static_cast<std::size_t>(via.padstack)].shapes) {
      const Box box = bounding_box(layer_shape.shape);
      if (!box.empty()) diameter = std::max(diameter, std::min(box.max.x - box.min.x, box.max.y - box.min.y));
    }
  }
  return diameter > 0 ? diameter : kFallbackViaDiameter;
}

std::string net_label(const Board& board, int net) {
  if (net < 0 || static_cast<std::size_t>(net) >= board.nets.size()) return {};
  return "net " + board.nets[static_cast<std::size_t>(net)].name;
}

const char* keepout_kind_name(KeepoutKind kind) {
  switch (kind) {
    case KeepoutKind::keepout:
      return "keepout";
    case KeepoutKind::via_keepout:
      return "via keepout";
    case KeepoutKind::wire_keepout:
      return "wire keepout";
  }
  return "keepout";
}

// An image keepout in board coordinates; rects become polygons so rotations
// by any angle stay exact up to rounding.
Shape placed_shape(const Component& component, const Shape& shape) {
  Shape placed = shape;
  if (shape.kind == ShapeKind::rect && shape.points.size() == 2) {
    const Point lo = shape.points[0];
    const Point hi = shape.points[1];
    placed.kind = ShapeKind::polygon;
    placed.points = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
  }
  for (Point& p : placed.points) p = placed_point(component, p);
  return placed;
}

// Where the picture is: the outline, else the copper, else a small square
// around the origin so an empty board still gives a picture.
Box picture_box(const Board& board, const RoutedCopper& copper, const std::vector<PinCopper>& pads) {
  Box box = boundary_box(board);
  if (!box.empty()) return box;
  for (const Wire& wire : copper.wires) box.include(bounding_box(wire.shape));
  for (const Via& via : copper.vias) {
    box.include(bounding_box(Shape{ShapeKind::circle, via_diameter(board, via), {via.position}}));
  }
  for (const PinCopper& pad : pads) box.include(bounding_box(pad.shape));
  for (const Plane& plane : board.planes) box.include(bounding_box(plane.shape));
  if (box.empty()) box.include(Point{0, 0});
  return box;
}

int picture_side(double pixels, const char* which) {
  if (!(pixels <= kMaxPictureSide)) {
    throw UsageError(fmt::format("the picture would be {:.0f} pixels {} (at most {}); lower the pixels per millimetre",
                                 pixels, which, kMaxPictureSide));
  }
  // Rounding in the scale must not add a pixel to an exact size.
  return std::max(1, static_cast<int>(std::ceil(pixels - 1e-6)));
}

}  // namespace

Scene scene_of(const Board& board, const RoutedCopper& copper, const RenderOptions& options) {
  if (!(options.pixels_per_millimetre > 0) || !std::isfinite(options.pixels_per_millimetre)) {
    throw UsageError(
        fmt::format("pixels per millimetre must be a positive number, not {}", options.pixels_per_millimetre));
  }
  const std::vector<PinCopper> pads = pin_copper(board);
  const Box box = picture_box(board, copper, pads);
  const double box_width = static_cast<double>(box.max.x) - static_cast<double>(box.min.x);
  const double box_height = static_cast<double>(box.max.y) - static_cast<double>(box.min.y);
  const double margin = std::max(kMinimumMarginNanometres, kMarginFraction * std::max(box_width, box_height));
  const Mapping to_pixels{static_cast<double>(box.min.x) - margin, static_cast<double>(box.max.y) + margin,
                          options.pixels_per_millimetre / static_cast<double>(kNanometresPerMillimetre)};

  Scene scene;
  scene.title = board.name.empty() ? "board" : board.name;
  const double millimetres = static_cast<double>(kNanometresPerMillimetre);
  scene.width = picture_side((box_width + 2 * margin) / millimetres * options.pixels_per_millimetre, "wide");
  scene.height = picture_side((box_height + 2 * margin) / millimetres * options.pixels_per_millimetre, "high");

  if (!board.boundary.empty()) {
    if (auto area = area_of(board.boundary.front(), to_pixels)) scene.board_area.push_back(std::move(*area));
  }
  for (const Shape& shape : board.boundary) {
    if (auto figure = figure_of(shape, to_pixels)) scene.outline.push_back(std::move(*figure));
  }

  // Copper may name layers a hand-built board does not list; they still
  // get drawn, under a made-up name, up to a stack deeper than any board's.
  int layer_count = static_cast<int>(board.layers.size());
  const auto count_layer = [&](int layer) {
    if (layer < kMaxUnlistedLayers) layer_count = std::max(layer_count, layer + 1);
  };
  for (const Wire& wire : copper.wires) count_layer(wire.layer);
  for (const PinCopper& pad : pads) count_layer(pad.layer);
  for (const Plane& plane : board.planes) count_layer(plane.layer);
  std::vector<SceneLayer> layers(static_cast<std::size_t>(layer_count));
  for (int layer = 0; layer < layer_count; ++layer) {
    SceneLayer& scene_layer = layers[static_cast<std::size_t>(layer)];
    scene_layer.layer = layer;
    scene_layer.name = static_cast<std::size_t>(layer) < board.layers.size()
                           ? board.layers[static_cast<std::size_t>(layer)].name
                           : fmt::format("layer {}", layer);
    scene_layer.colour = layer_colour(layer, layer_count);
  }
  const auto on_layer = [&](int layer) -> SceneLayer* {
    return layer >= 0 && layer < layer_count ? &layers[static_cast<std::size_t>(layer)] : nullptr;
  };

  for (const Plane& plane : board.planes) {
    SceneLayer* layer = on_layer(plane.layer);
    auto figure = area_of(plane.shape, to_pixels);
    if (!layer || !figure) continue;
    figure->label = "plane " + plane.net_name;
    layer->planes.push_back(std::move(*figure));
  }
  if (options.show_pads) {
    for (const PinCopper& pad : pads) {
      SceneLayer* layer = on_layer(pad.layer);
      auto figure = figure_of(pad.shape, to_pixels);
      if (!layer || !figure) continue;
      const std::string net = net_label(board, pad.net);
      figure->label = "pin " + pin_name(board, pad.pin) + (net.empty() ? "" : ", " + net);
      layer->pads.push_back(std::move(*figure));
    }
  }
  // Text and drawings on copper are drawn with the pads: fixed copper.
  for (const CopperGraphic& graphic : board.copper_graphics) {
    SceneLayer* layer = on_layer(graphic.layer);
    if (!layer) continue;
    for (const Shape& shape : graphic.shapes) {
      auto figure = figure_of(shape, to_pixels);
      if (!figure) continue;
      figure->label = graphic.description;
      layer->pads.push_back(std::move(*figure));
    }
  }
  for (const Wire& wire : copper.wires) {
    SceneLayer* layer = on_layer(wire.layer);
    auto figure = figure_of(wire.shape, to_pixels);
    if (!layer || !figure) continue;
    figure->label = net_label(board, wire.net);
    layer->wires.push_back(std::move(*figure));
  }
  std::vector<std::string> layer_names;
  for (const SceneLayer& layer : layers) layer_names.push_back(layer.name);
  scene.layers.assign(std::make_move_iterator(layers.rbegin()), std::make_move_iterator(layers.rend()));

  // Keepouts of every layer share one group; the tooltip names the layer.
  const auto add_keepout = [&](const Keepout& keepout, const Shape& shape, int layer) {
    auto figure = figure_of(shape, to_pixels);
    if (!figure) return;
    figure->label = keepout_kind_name(keepout.kind);
    if (!keepout.name.empty()) figure->label += " " + keepout.name;
    figure->label += layer >= 0 && layer < layer_count ? " on " + layer_names[static_cast<std::size_t>(layer)]
                                                       : std::string(" on every layer");
    scene.keepouts.push_back(std::move(*figure));
  };
  for (const Keepout& keepout : board.keepouts) add_keepout(keepout, keepout.shape, keepout.layer);
  for (const Component& component : board.components) {
    if (component.image < 0 || static_cast<std::size_t>(component.image) >= board.images.size()) continue;
    for (const Keepout& keepout : board.images[static_cast<std::size_t>(component.image)].keepouts) {
      add_keepout(keepout, placed_shape(component, keepout.shape), placed_layer(board, component, keepout.layer));
    }
  }

  for (const Via& via : copper.vias) {
    scene.vias.push_back({FigureKind::disc,
                          to_pixels.length(via_diameter(board, via)),
                          {to_pixels(via.position)},
                          net_label(board, via.net)});
  }
  return scene;
}

}  // namespace trellis::route::render_detail
