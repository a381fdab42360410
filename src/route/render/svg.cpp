// The SVG writer: one user unit per pixel, one group per copper layer.
#include <fmt/format.h>

#include <set>
#include <string>
#include <string_view>

#include "palette.hpp"
#include "scene.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/route/render.hpp"

namespace trellis::route {
namespace {

using render_detail::Figure;
using render_detail::FigureKind;
using render_detail::Pixel;

// Hundredths of a pixel are finer than any viewer shows; trailing zeros
// are dropped to keep large boards' files small.
std::string number(double value) {
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// An XML id from a layer name: characters an id may not hold become '_'.
std::string id_from(std::string_view name) {
  std::string id;
  for (const char c : name) {
    const bool allowed =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    id += allowed ? c : '_';
  }
  return id;
}

std::string points_of(const std::vector<Pixel>& points) {
  std::string text;
  for (const Pixel& p : points) {
    if (!text.empty()) text += ' ';
    text += number(p.x) + ',' + number(p.y);
  }
  return text;
}

// Writes the element, with the figure's label as a tooltip when it has one.
void element(std::string& out, std::string_view tag, const std::string& attributes, const std::string& label) {
  out += fmt::format("<{} {}", tag, attributes);
  if (label.empty()) {
    out += "/>\n";
  } else {
    out += fmt::format("><title>{}</title></{}>\n", escaped(label), tag);
  }
}

std::string disc_attributes(const Figure& figure) {
  return fmt::format(R"(cx="{}" cy="{}" r="{}")", number(figure.points[0].x), number(figure.points[0].y),
                     number(figure.width / 2));
}

// Copper: discs and areas filled, traces stroked, all in one colour.
void copper(std::string& out, const Figure& figure, const std::string& colour) {
  switch (figure.kind) {
    case FigureKind::disc:
      element(out, "circle", fmt::format(R"({} fill="{}")", disc_attributes(figure), colour), figure.label);
      break;
    case FigureKind::area: {
      std::string attributes = fmt::format(R"(points="{}" fill="{}")", points_of(figure.points), colour);
      if (figure.width > 0) {
        attributes +=
            fmt::format(R"( stroke="{}" stroke-width="{}" stroke-linejoin="round")", colour, number(figure.width));
      }
      element(out, "polygon", attributes, figure.label);
      break;
    }
    case FigureKind::trace:
      element(out, "polyline",
              fmt::format(R"(points="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linecap="round" )"
                          R"(stroke-linejoin="round")",
                          points_of(figure.points), colour, number(figure.width)),
              figure.label);
      break;
  }
}

// The figure's edge (traces: their centre line); fill and stroke come from
// the enclosing group.
void edge(std::string& out, const Figure& figure) {
  switch (figure.kind) {
    case FigureKind::disc:
      element(out, "circle", disc_attributes(figure), figure.label);
      break;
    case FigureKind::area:
      element(out, "polygon", fmt::format(R"(points="{}")", points_of(figure.points)), figure.label);
      break;
    case FigureKind::trace:
      element(out, "polyline", fmt::format(R"(points="{}" fill="none")", points_of(figure.points)), figure.label);
      break;
  }
}

void layer_group(std::string& out, const render_detail::SceneLayer& layer, std::set<std::string>& ids) {
  // Distinct names can map to one id; the layer's index keeps them apart.
  std::string id = "layer-" + id_from(layer.name);
  if (!ids.insert(id).second) {
    id += fmt::format("-{}", layer.layer);
    ids.insert(id);
  }
  const std::string name = escaped(layer.name);
  out += fmt::format(R"(<g id="{}" inkscape:groupmode="layer" inkscape:label="{}" opacity="{}">)", id, name,
                     number(render_detail::kLayerOpacity));
  out += fmt::format("<title>{}</title>\n", name);
  const std::string colour = layer.colour.hex();
  if (!layer.planes.empty()) {
    out += fmt::format(R"(<g opacity="{}">)", number(render_detail::kPlaneOpacity)) + "\n";
    for (const Figure& plane : layer.planes) copper(out, plane, colour);
    out += "</g>\n";
  }
  const std::string pad_colour = render_detail::lightened(layer.colour, render_detail::kPadLightening).hex();
  for (const Figure& pad : layer.pads) copper(out, pad, pad_colour);
  for (const Figure& wire : layer.wires) copper(out, wire, colour);
  out += "</g>\n";
}

}  // namespace

std::string board_svg(const Board& board, const RoutedCopper& routed, const RenderOptions& options) {
  using namespace render_detail;
  const Scene scene = scene_of(board, routed, options);
  std::string out;
  out += fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" )"
      R"(width="{0}" height="{1}" viewBox="0 0 {0} {1}">)"
      "\n",
      scene.width, scene.height);
  out += fmt::format("<title>{}</title>\n", escaped(scene.title));
  out += fmt::format(
      R"(<defs><pattern id="keepout-hatch" width="{0}" height="{0}" patternUnits="userSpaceOnUse" )"
      R"svg(patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="{0}" stroke="{1}" stroke-width="{2}"/>)svg"
      "</pattern></defs>\n",
      number(kHatchSpacing), kKeepout.hex(), number(kKeepoutEdgeWidth));
  out += fmt::format(R"(<rect width="100%" height="100%" fill="{}"/>)", kBackground.hex()) + "\n";

  out += "<g id=\"board\">\n";
  for (const Figure& area : scene.board_area) copper(out, area, kBoardArea.hex());
  out += "</g>\n";

  std::set<std::string> ids;
  for (const SceneLayer& layer : scene.layers) layer_group(out, layer, ids);

  out += fmt::format(R"svg(<g id="keepouts" opacity="{}" stroke="{}" stroke-width="{}" fill="url(#keepout-hatch)">)svg",
                     number(kKeepoutOpacity), kKeepout.hex(), number(kKeepoutEdgeWidth)) +
         "\n";
  for (const Figure& keepout : scene.keepouts) {
    if (keepout.kind == FigureKind::trace) {
      copper(out, keepout, kKeepout.hex());  // a line-shaped keepout covers its width
    } else {
      edge(out, keepout);
    }
  }
  out += "</g>\n";

  // A ring of copper around a dark drill: one circle whose stroke is the
  // ring, centred between the drill's edge and the copper's.
  out += fmt::format(R"(<g id="vias" fill="{}" stroke="{}">)", kViaDrill.hex(), kViaRing.hex()) + "\n";
  for (const Figure& via : scene.vias) {
    const double outer = via.width / 2;
    const double inner = outer * kDrillFraction;
    element(out, "circle",
            fmt::format(R"(cx="{}" cy="{}" r="{}" stroke-width="{}")", number(via.points[0].x), number(via.points[0].y),
                        number((outer + inner) / 2), number(outer - inner)),
            via.label);
  }
  out += "</g>\n";

  out += fmt::format(R"(<g id="outline" fill="none" stroke="{}" stroke-width="{}">)", kOutline.hex(),
                     number(kOutlineWidth)) +
         "\n";
  for (const Figure& figure : scene.outline) edge(out, figure);
  out += "</g>\n</svg>\n";
  return out;
}

void write_svg(const Board& board, const RoutedCopper& routed, const std::filesystem::path& path,
               const RenderOptions& options) {
  write_file_atomically(path, board_svg(board, routed, options));
}

}  // namespace trellis::route
