// Copper of no net: text and drawings on copper layers, the board's
// (gr_*) and the footprints' (fp_*), as shapes every net keeps clear of.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"
#include "stroke_text.hpp"

namespace trellis::route::kicad_detail {
namespace {

// A flag written as a bare atom (KiCad 6: "hide") or as (hide yes) (KiCad 8).
bool flagged(const Node& list, std::string_view flag) {
  if (list.has_atom(flag)) return true;
  const Node* found = list.find(flag);
  return found != nullptr && !found->items.empty() && found->items[0].text == "yes";
}

class GraphicsReader {
 public:
  explicit GraphicsReader(Reader& reader) : reader_(reader) {}

  // A graphic in local coordinates as written (y down) placed by
  // `placement`; `owner` names the footprint it belongs to, if any.
  void add(const Node& graphic, const Placement& placement, const std::string& owner) {
    const Node* layer_list = graphic.find("layer");
    if (layer_list == nullptr || layer_list->items.empty()) return;
    const std::optional<int> layer = reader_.copper_layer(layer_list->items[0].text);
    if (!layer) return;
    const bool property = graphic.text == "property";
    const std::string_view kind = property ? "text" : std::string_view(graphic.text).substr(3);  // after "gr_" or "fp_"
    const auto at = [&](std::string_view keyword) {
      return place(placement, reader_.point(reader_.child(graphic, keyword)));
    };
    const Coord width = reader_.stroke_width(graphic);
    std::vector<Shape> shapes;
    std::string what(kind);
    if (kind == "line") {
      shapes.push_back({ShapeKind::path, width, {at("start"), at("end")}});
    } else if (kind == "arc") {
      std::vector<Point> points = read_arc(reader_, graphic);
      for (Point& p : points) p = place(placement, p);
      shapes.push_back({ShapeKind::path, width, std::move(points)});
    } else if (kind == "circle") {
      const Point centre = at("center");
      const Point edge = at("end");
      const double radius = std::hypot(static_cast<double>(edge.x - centre.x), static_cast<double>(edge.y - centre.y));
      // A filled disc drawn by tangents holds the true circle.
      const bool fill = filled(graphic, false);
      std::vector<Point> points = fill ? arc_outside(centre, radius, 0, 360) : circle_points(centre, radius);
      if (fill) points.pop_back();  // the end repeats the start
      shapes.push_back(outline_or_area(std::move(points), width, fill));
    } else if (kind == "rect") {
      const Point a = reader_.point(reader_.child(graphic, "start"));
      const Point b = reader_.point(reader_.child(graphic, "end"));
      shapes.push_back(outline_or_area(
          {place(placement, a), place(placement, {b.x, a.y}), place(placement, b), place(placement, {a.x, b.y})}, width,
          filled(graphic, false)));
    } else if (kind == "poly") {
      std::vector<Point> points = read_pts(reader_, reader_.child(graphic, "pts"));
      for (Point& p : points) p = place(placement, p);
      // A polygon without (fill ...) is filled, as KiCad 5 drew every polygon.
      shapes.push_back(outline_or_area(std::move(points), width, filled(graphic, true)));
    } else if (kind == "curve") {
      // A Bezier curve lies inside the box of its control points.
      Box box;
      for (const Point& p : read_pts(reader_, reader_.child(graphic, "pts"))) box.include(place(placement, p));
      shapes.push_back({ShapeKind::polygon, width, {box.min, {box.max.x, box.min.y}, box.max, {box.min.x, box.max.y}}});
    } else if (kind == "text") {
      if (flagged(graphic, "hide")) return;
      // (gr_text "TEXT" ...), (fp_text reference|value|user "TEXT" ...),
      // (property "NAME" "TEXT" ...).
      const std::size_t index = graphic.text == "gr_text" ? 0 : 1;
      const std::string& text = reader_.atom(graphic, index, "the text").text;
      shapes = text_boxes(graphic, text, placement);
      what = fmt::format("text {}", dsn_detail::quoted(text));
    } else if (kind == "text_box" || kind == "textbox") {
      // KiCad 7's framed text: its frame holds the text.
      std::vector<Point> corners;
      if (const Node* pts = graphic.find("pts")) {
        corners = read_pts(reader_, *pts);
      } else {
        const Point a = reader_.point(reader_.child(graphic, "start"));
        const Point b = reader_.point(reader_.child(graphic, "end"));
        corners = {a, {b.x, a.y}, b, {a.x, b.y}};
      }
      for (Point& p : corners) p = place(placement, p);
      shapes.push_back({ShapeKind::polygon, width, std::move(corners)});
    } else {
      reader_.warn(graphic.line, fmt::format("({} ...) on copper layer {} is not read: the router does not avoid it",
                                             graphic.text, dsn_detail::quoted(layer_list->items[0].text)));
      return;
    }
    std::erase_if(shapes, [](const Shape& shape) { return shape.points.empty(); });
    if (shapes.empty()) return;
    std::string description = owner.empty() ? fmt::format("{} (line {})", what, graphic.line)
                                            : fmt::format("{}'s {} (line {})", owner, what, graphic.line);
    reader_.board.copper_graphics.push_back({std::move(description), *layer, std::move(shapes)});
  }

 private:
  static Shape outline_or_area(std::vector<Point> points, Coord width, bool fill) {
    if (fill || points.empty()) return {ShapeKind::polygon, width, std::move(points)};
    points.push_back(points.front());
    return {ShapeKind::path, width, std::move(points)};
  }

  std::vector<Shape> text_boxes(const Node& graphic, const std::string& text, const Placement& placement) const {
    const Node& at = reader_.child(graphic, "at");
    TextLayout layout;
    layout.anchor = place(placement, reader_.point(at));
    // A footprint's text angle is written as seen on the board, as its pads' are.
    layout.angle = reader_.angle(at);
    // KiCad's defaults where the file gives none: 1.27 mm glyphs, strokes
    // of an eighth of the size (a fifth when bold).
    layout.glyph_height = layout.glyph_width = 1'270'000;
    bool bold = false;
    if (const Node* effects = graphic.find("effects")) {
      if (const Node* font = effects->find("font")) {
        if (const Node* size = font->find("size")) {
          layout.glyph_height = reader_.positive_length(*size, 0, "the text height", true);
          layout.glyph_width = reader_.positive_length(*size, 1, "the text width", true);
        }
        if (const Node* thickness = font->find("thickness")) {
          layout.thickness = reader_.positive_length(*thickness, 0, "the text's stroke width", true);
        }
        bold = flagged(*font, "bold");
        layout.italic = flagged(*font, "italic");
        if (font->find("face") != nullptr) {
          // An outline font's glyphs are not the stroke font's: as wide as
          // the widest stroke glyph each, which covers common faces.
          reader_.warn(graphic.line, "text in an outline font on copper is taken as wide as its widest glyphs");
          layout.italic = true;
        }
      }
      if (const Node* justify = effects->find("justify")) {
        if (justify->has_atom("left")) layout.horizontal = HorizontalJustify::left;
        if (justify->has_atom("right")) layout.horizontal = HorizontalJustify::right;
        if (justify->has_atom("top")) layout.vertical = VerticalJustify::top;
        if (justify->has_atom("bottom")) layout.vertical = VerticalJustify::bottom;
        layout.mirrored = justify->has_atom("mirror");
      }
      if (flagged(*effects, "hide")) return {};
    }
    if (layout.thickness == 0) {
      layout.thickness = std::max(layout.glyph_width, layout.glyph_height) / (bold ? 5 : 8);
    }
    if (text.find("${") != std::string::npos) {
      reader_.warn(graphic.line, fmt::format("the copper text {} holds a variable; its box is the text as written",
                                             dsn_detail::quoted(text)));
    }
    return stroke_text_boxes(text, layout);
  }

  Reader& reader_;
};

}  // namespace

void Reader::read_copper_graphics(const Node& root) {
  GraphicsReader graphics(*this);
  for (const Node& item : root.items) {
    if (item.is_list && item.text.starts_with("gr_")) graphics.add(item, Placement{}, "");
  }
  auto pending_tie = pending_ties.begin();
  int component = 0;
  for (const Node* footprint : footprints_of(root)) {
    // Footprints are the board's components in order.
    const bool tie = pending_tie != pending_ties.end() && pending_tie->component == component++;
    if (tie) pending_tie->first_graphic = board.copper_graphics.size();
    const Node& at = child(*footprint, "at");
    const Placement placement{point(at), angle(at)};
    std::string owner = reference_of(*this, *footprint);
    if (owner.empty()) owner = atom(*footprint, 0, "the footprint's library name").text;
    for (const Node& item : footprint->items) {
      // KiCad 8 writes a footprint's fields as (property "NAME" "TEXT" ...).
      if (item.is_list && (item.text.starts_with("fp_") || item.text == "property"))
        graphics.add(item, placement, owner);
    }
    if (tie) (pending_tie++)->end_graphic = board.copper_graphics.size();
  }
}

}  // namespace trellis::route::kicad_detail
