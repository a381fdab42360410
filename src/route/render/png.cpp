// The PNG writer: draws the scene with cairo, in the SVG writer's order and
// colours, into an image surface of the scene's pixel size.
#include <cairo.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <ostream>

#include "palette.hpp"
#include "scene.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/render.hpp"

namespace trellis::route {
namespace {

using render_detail::Colour;
using render_detail::Figure;
using render_detail::FigureKind;

// 4 bytes a pixel: a gibibyte of picture is far beyond any useful board.
constexpr long long kMaxPixels = 1LL << 28;

using SurfacePointer = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using ContextPointer = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS) {
    throw Error(fmt::format("cairo could not {}: {}", what, cairo_status_to_string(status)));
  }
}

void set_colour(cairo_t* cr, Colour colour) { cairo_set_source_rgb(cr, colour.r(), colour.g(), colour.b()); }

// The figure's outline as the current path: a circle, a closed polygon or
// an open polyline.
void figure_path(cairo_t* cr, const Figure& figure) {
  cairo_new_path(cr);
  if (figure.kind == FigureKind::disc) {
    cairo_arc(cr, figure.points[0].x, figure.points[0].y, figure.width / 2, 0, 2 * std::numbers::pi);
    return;
  }
  for (const render_detail::Pixel& p : figure.points) cairo_line_to(cr, p.x, p.y);
  if (figure.kind == FigureKind::area) cairo_close_path(cr);
}

void stroke_round(cairo_t* cr, double width) {
  cairo_set_line_width(cr, width);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke(cr);
}

// Copper: discs and areas filled, traces stroked, all in one colour.
void copper(cairo_t* cr, const Figure& figure, Colour colour) {
  set_colour(cr, colour);
  figure_path(cr, figure);
  if (figure.kind == FigureKind::trace) {
    stroke_round(cr, figure.width);
  } else if (figure.kind == FigureKind::area && figure.width > 0) {
    cairo_fill_preserve(cr);
    stroke_round(cr, figure.width);
  } else {
    cairo_fill(cr);
  }
}

// Diagonal lines inside the figure, lined up across figures as the SVG
// pattern is: lines x - y = c for c on multiples of the spacing times
// sqrt(2), which puts them kHatchSpacing apart.
void hatch(cairo_t* cr, const Figure& figure) {
  cairo_save(cr);
  figure_path(cr, figure);
  cairo_clip(cr);
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  cairo_clip_extents(cr, &x1, &y1, &x2, &y2);
  const double step = render_detail::kHatchSpacing * std::numbers::sqrt2;
  for (double c = std::floor((x1 - y2) / step) * step; c <= x2 - y1; c += step) {
    cairo_move_to(cr, c + y1, y1);
    cairo_line_to(cr, c + y2, y2);
  }
  set_colour(cr, render_detail::kKeepout);
  cairo_set_line_width(cr, render_detail::kKeepoutEdgeWidth);
  cairo_stroke(cr);
  cairo_restore(cr);
}

void draw_layer(cairo_t* cr, const render_detail::SceneLayer& layer) {
  cairo_push_group(cr);
  if (!layer.planes.empty()) {
    cairo_push_group(cr);
    for (const Figure& plane : layer.planes) copper(cr, plane, layer.colour);
    cairo_pop_group_to_source(cr);
    cairo_paint_with_alpha(cr, render_detail::kPlaneOpacity);
  }
  const Colour pad_colour = render_detail::lightened(layer.colour, render_detail::kPadLightening);
  for (const Figure& pad : layer.pads) copper(cr, pad, pad_colour);
  for (const Figure& wire : layer.wires) copper(cr, wire, layer.colour);
  cairo_pop_group_to_source(cr);
  cairo_paint_with_alpha(cr, render_detail::kLayerOpacity);
}

void draw(cairo_t* cr, const render_detail::Scene& scene) {
  using namespace render_detail;
  set_colour(cr, kBackground);
  cairo_paint(cr);
  for (const Figure& area : scene.board_area) copper(cr, area, kBoardArea);
  for (const SceneLayer& layer : scene.layers) draw_layer(cr, layer);

  cairo_push_group(cr);
  for (const Figure& keepout : scene.keepouts) {
    if (keepout.kind == FigureKind::trace) {
      copper(cr, keepout, kKeepout);  // a line-shaped keepout covers its width
      continue;
    }
    hatch(cr, keepout);
    set_colour(cr, kKeepout);
    figure_path(cr, keepout);
    cairo_set_line_width(cr, kKeepoutEdgeWidth);
    cairo_stroke(cr);
  }
  cairo_pop_group_to_source(cr);
  cairo_paint_with_alpha(cr, kKeepoutOpacity);

  // A ring of copper around a dark drill.
  for (const Figure& via : scene.vias) {
    copper(cr, via, kViaRing);
    Figure drill = via;
    drill.width = via.width * kDrillFraction;
    copper(cr, drill, kViaDrill);
  }

  set_colour(cr, kOutline);
  cairo_set_line_width(cr, kOutlineWidth);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  for (const Figure& figure : scene.outline) {
    figure_path(cr, figure);
    cairo_stroke(cr);
  }
}

cairo_status_t write_to_stream(void* closure, const unsigned char* data, unsigned int length) {
  auto& out = *static_cast<std::ostream*>(closure);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(length));
  return out ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

}  // namespace

bool png_available() noexcept { return true; }

void write_png(const Board& board, const RoutedCopper& routed, const std::filesystem::path& path,
               const RenderOptions& options) {
  const render_detail::Scene scene = render_detail::scene_of(board, routed, options);
  if (static_cast<long long>(scene.width) * scene.height > kMaxPixels) {
    throw UsageError(
        fmt::format("a PNG of {} x {} pixels is too large (at most {} pixels); lower the pixels per "
                    "millimetre or write SVG",
                    scene.width, scene.height, kMaxPixels));
  }
  SurfacePointer surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, scene.width, scene.height),
                         &cairo_surface_destroy);
  check(cairo_surface_status(surface.get()), "create the picture");
  ContextPointer cr(cairo_create(surface.get()), &cairo_destroy);
  draw(cr.get(), scene);
  check(cairo_status(cr.get()), "draw the picture");
  cairo_surface_flush(surface.get());

  AtomicOutputFile file(path, /*binary=*/true);
  check(cairo_surface_write_to_png_stream(surface.get(), write_to_stream, &file.stream()), "write the PNG");
  file.commit();
}

}  // namespace trellis::route
