// The board outline: Edge.Cuts graphics chained into closed polygons.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

// Ends closer than this join, as KiCad's own outline builder allows.
constexpr Coord kChainingTolerance = 20'000;  // nanometres

// An open piece of the outline (a line or an arc as chords).
struct Piece {
  std::vector<Point> points;
  std::size_t line = 0;
};

bool near(Point a, Point b) {
  return std::llabs(a.x - b.x) <= kChainingTolerance && std::llabs(a.y - b.y) <= kChainingTolerance &&
         std::hypot(static_cast<double>(a.x - b.x), static_cast<double>(a.y - b.y)) <= kChainingTolerance;
}

bool on_edge_cuts(const Node& graphic) {
  const Node* layer = graphic.find("layer");
  return layer != nullptr && !layer->items.empty() && layer->items[0].text == "Edge.Cuts";
}

class OutlineBuilder {
 public:
  explicit OutlineBuilder(const Reader& reader) : reader_(reader) {}

  // A graphic in local coordinates as written (y down) placed by `placement`.
  void add(const Node& graphic, const Placement& placement) {
    const auto at = [&](std::string_view keyword) {
      const Point p = reader_.point(reader_.child(graphic, keyword));
      return place(placement, p);
    };
    const std::string& kind = graphic.text;
    const std::string_view shape = std::string_view(kind).substr(3);  // after "gr_" or "fp_"
    if (shape == "line") {
      pieces_.push_back({{at("start"), at("end")}, graphic.line});
    } else if (shape == "arc") {
      std::vector<Point> points = read_arc(reader_, graphic);
      for (Point& p : points) p = place(placement, p);
      pieces_.push_back({std::move(points), graphic.line});
    } else if (shape == "circle") {
      const Point centre = at("center");
      const Point edge = at("end");
      const double radius = std::hypot(static_cast<double>(edge.x - centre.x), static_cast<double>(edge.y - centre.y));
      if (radius == 0) reader_.fail(graphic.line, "a circle on Edge.Cuts has no radius");
      closed_.push_back({circle_points(centre, radius), graphic.line});
    } else if (shape == "rect") {
      const Point a = reader_.point(reader_.child(graphic, "start"));
      const Point b = reader_.point(reader_.child(graphic, "end"));
      closed_.push_back(
          {{place(placement, a), place(placement, {b.x, a.y}), place(placement, b), place(placement, {a.x, b.y})},
           graphic.line});
    } else if (shape == "poly") {
      std::vector<Point> points = read_pts(reader_, reader_.child(graphic, "pts"));
      for (Point& p : points) p = place(placement, p);
      closed_.push_back({std::move(points), graphic.line});
    }
    // Text, dimensions and curves (gr_curve) are not part of the outline.
  }

  // Joins the open pieces end to end into closed loops.
  std::vector<Piece> loops() {
    std::vector<Piece> result = closed_;
    std::vector<bool> used(pieces_.size(), false);
    for (std::size_t first = 0; first < pieces_.size(); ++first) {
      if (used[first]) continue;
      used[first] = true;
      Piece loop = pieces_[first];
      for (;;) {
        if (loop.points.size() > 2 && near(loop.points.back(), loop.points.front())) break;
        bool extended = false;
        for (std::size_t next = 0; next < pieces_.size() && !extended; ++next) {
          if (used[next]) continue;
          const std::vector<Point>& points = pieces_[next].points;
          if (near(loop.points.back(), points.front())) {
            loop.points.insert(loop.points.end(), points.begin() + 1, points.end());
          } else if (near(loop.points.back(), points.back())) {
            loop.points.insert(loop.points.end(), points.rbegin() + 1, points.rend());
          } else {
            continue;
          }
          used[next] = true;
          extended = true;
        }
        if (!extended) {
          const Point end = loop.points.back();
          reader_.fail(loop.line,
                       fmt::format("the board outline (Edge.Cuts) is not closed: the outline through this line ends "
                                   "at ({:.6f}, {:.6f}) mm with nothing joining it",
                                   static_cast<double>(end.x) / 1e6, -static_cast<double>(end.y) / 1e6));
        }
      }
      loop.points.pop_back();  // the closing point repeats the first
      result.push_back(std::move(loop));
    }
    return result;
  }

 private:
  const Reader& reader_;
  std::vector<Piece> pieces_;
  std::vector<Piece> closed_;
};

}  // namespace

void Reader::read_outline(const Node& root) {
  OutlineBuilder builder(*this);
  for (const Node& item : root.items) {
    if (item.is_list && item.text.starts_with("gr_") && on_edge_cuts(item)) builder.add(item, Placement{});
  }
  for (const Node* footprint : footprints_of(root)) {
    const Node& at = child(*footprint, "at");
    const Placement placement{point(at), angle(at)};
    for (const Node& item : footprint->items) {
      if (item.is_list && item.text.starts_with("fp_") && on_edge_cuts(item)) builder.add(item, placement);
    }
  }
  std::vector<Piece> loops = builder.loops();
  std::erase_if(loops, [](const Piece& loop) { return loop.points.size() < 3; });
  if (loops.empty()) {
    warn(1, "the board has no outline on Edge.Cuts: every position counts as on the board");
    return;
  }
  // The largest loop is the board's edge; the others are cutouts.
  const auto largest = std::max_element(loops.begin(), loops.end(), [](const Piece& a, const Piece& b) {
    return std::fabs(twice_area(a.points)) < std::fabs(twice_area(b.points));
  });
  std::iter_swap(loops.begin(), largest);
  board.boundary.push_back(Shape{ShapeKind::polygon, 0, std::move(loops.front().points)});
  for (std::size_t i = 1; i < loops.size(); ++i) {
    board.keepouts.push_back(Keepout{KeepoutKind::keepout, "edge_cutout", kAllLayers,
                                     Shape{ShapeKind::polygon, 0, std::move(loops[i].points)}});
  }
}

}  // namespace trellis::route::kicad_detail
