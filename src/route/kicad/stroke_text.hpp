// Where the strokes of a KiCad text lie: one box per glyph of KiCad's
// default stroke font, grown by half the stroke width, in Board coordinates.
// A wire clear of the boxes is clear of the text, which is what KiCad's DRC
// tests (the strokes themselves). Internal to the KiCad reader.
#pragma once

#include <string_view>
#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route::kicad_detail {

enum class HorizontalJustify { left, center, right };
enum class VerticalJustify { top, center, bottom };

struct TextLayout {
  Point anchor;            // (at x y) in Board orientation
  Coord glyph_width = 0;   // (size height width): the second number
  Coord glyph_height = 0;  // the first
  Coord thickness = 0;     // stroke width
  double angle = 0;        // degrees, counter-clockwise
  HorizontalJustify horizontal = HorizontalJustify::center;
  VerticalJustify vertical = VerticalJustify::center;
  bool mirrored = false;  // (justify mirror): drawn as seen from the back
  bool italic = false;
};

// One polygon (four corners) per visible glyph; lines split at '\n'.
std::vector<Shape> stroke_text_boxes(std::string_view text, const TextLayout& layout);

}  // namespace trellis::route::kicad_detail
