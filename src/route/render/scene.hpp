// A board picture laid out in pixels: which figures are drawn, where, in
// which order and colour. The SVG and PNG writers only turn a Scene into
// their format, so both draw the same picture. Internal to rendering.
#pragma once

#include <string>
#include <vector>

#include "palette.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/render.hpp"

namespace trellis::route::render_detail {

// Picture coordinates: pixels from the top-left corner, y down.
struct Pixel {
  double x = 0;
  double y = 0;
};

enum class FigureKind { disc, area, trace };

// One shape in pixels. What `width` and `points` hold depends on the kind:
//   disc:  width = diameter, points = {centre}
//   area:  width = an edge stroked around it (0: none), points = the
//          vertices of a filled polygon, closed implicitly
//   trace: width = stroke width (round caps and joins), points = the centre
//          line, two or more points
struct Figure {
  FigureKind kind = FigureKind::disc;
  double width = 0;
  std::vector<Pixel> points;
  std::string label;  // what the object is (net, pin, keepout), for SVG tooltips
};

struct SceneLayer {
  int layer = 0;
  std::string name;
  Colour colour;
  std::vector<Figure> planes;
  std::vector<Figure> pads;
  std::vector<Figure> wires;
};

struct Scene {
  std::string title;
  int width = 0;  // pixels
  int height = 0;
  std::vector<Figure> board_area;  // the board edge (first boundary shape), filled
  std::vector<SceneLayer> layers;  // back to front: the last is drawn last, on top
  std::vector<Figure> keepouts;
  std::vector<Figure> vias;     // discs of the via's copper diameter
  std::vector<Figure> outline;  // every boundary shape, drawn as a thin line along its edge
};

// Lays the board out. Throws UsageError for a scale that is not a positive
// number or a picture more than kMaxPictureSide pixels a side.
Scene scene_of(const Board& board, const RoutedCopper& copper, const RenderOptions& options);

inline constexpr int kMaxPictureSide = 32767;  // cairo's limit; far beyond any useful board picture

}  // namespace trellis::route::render_detail
