// Pictures of a routed board: SVG always, PNG through cairo when the build
// has it.
//
// What is drawn, bottom to top: the board area, the copper layers from the
// last (back) to the first (front) so the front lies on top, then keepouts
// (hatched), vias (a ring with a dark drill) and the outline (a thin line).
// Each copper layer has its own colour (front red, back blue, inner layers
// distinct) and is drawn whole and then made semi-transparent, so copper of
// different layers shows through while overlaps within a layer do not
// darken. A layer holds its planes (faint), pads (a lighter tint) and wires
// (paths as polylines of their width with round caps and joins).
//
// Geometry: the board's y axis points up and the picture's down, so y is
// flipped. The picture covers the boundary's box (the copper's box when the
// board has no boundary; a small square for an empty board) plus a margin,
// at `pixels_per_millimetre`. In the SVG one user unit is one pixel, every
// copper layer is a group with id "layer-NAME" and a `<title>` naming it
// (also an Inkscape layer), so viewers can show and hide layers.
#pragma once

#include <filesystem>
#include <string>

#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route {

// How a board is drawn.
struct RenderOptions {
  double pixels_per_millimetre = 20;  // must be positive; pictures are at most 32767 pixels a side
  bool show_pads = true;              // draw pads
};

// The picture as SVG text. Throws UsageError for a non-positive scale or a
// picture too large to draw.
std::string board_svg(const Board& board, const RoutedCopper& copper, const RenderOptions& options = {});

// Writes board_svg() to `path`; the file appears whole or not at all.
void write_svg(const Board& board, const RoutedCopper& copper, const std::filesystem::path& path,
               const RenderOptions& options = {});

// Draws the same picture into a PNG file (appearing whole or not at all).
// Throws UsageError in builds without cairo, and for pictures whose pixels
// would not fit in memory.
void write_png(const Board& board, const RoutedCopper& copper, const std::filesystem::path& path,
               const RenderOptions& options = {});

// Whether write_png() can draw (the build found cairo).
bool png_available() noexcept;

}  // namespace trellis::route
