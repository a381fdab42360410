// KiCad's stroke font as glyph boxes. The metrics were measured from
// pcbnew 6.0.11's own plotter: every printable ASCII character plotted to
// Gerber alone and doubled, giving each glyph's advance and the extent of
// its strokes' centre lines, in units of a twenty-first of the text size
// (the font's own grid: a capital is 21 units tall), and checked against
// the plotted strokes of the kicad-demos boards' copper text. Lines are 1.61 sizes
// apart. A text centred vertically has its capitals' tops 11.5 units above
// the anchor; top and bottom justification move it 10.5 units.
#include "stroke_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace trellis::route::kicad_detail {
namespace {

struct Glyph {
  double advance;
  double left, right;  // strokes' x extent from the pen position
  double top, bottom;  // y extent from the line's anchor, y down as KiCad draws
};

constexpr std::array<Glyph, 95> kAscii{{
    {16, 0, 0, 0, 0},           // space: no strokes
    {10, 4, 6, -11.5, 9.5},     // !
    {16, 4, 12, -11.5, -7.5},   // "
    {21, 2, 19, -13.5, 13.5},   // #
    {20, 4, 16, -14.5, 12.5},   // $
    {24, 4, 20, -11.5, 9.5},    // %
    {26, 5, 22, -11.5, 9.5},    // &
    {10, 4, 6, -11.5, -7.5},    // '
    {14, 5, 11, -14.5, 17.5},   // (
    {14, 3, 9, -14.5, 17.5},    // )
    {16, 3, 13, -11.5, -2.5},   // *
    {26, 5, 21, -6.5, 9.5},     // +
    {10, 4, 6, 8.5, 12.5},      // ,
    {26, 5, 21, 1.5, 1.5},      // -
    {10, 4, 6, 7.5, 9.5},       // .
    {22, 2, 20, -12.5, 14.5},   // /
    {20, 4, 16, -11.5, 9.5},    // 0
    {20, 4, 16, -11.5, 9.5},    // 1
    {20, 3, 16, -11.5, 9.5},    // 2
    {20, 3, 16, -11.5, 9.5},    // 3
    {20, 4, 17, -12.5, 9.5},    // 4
    {20, 4, 16, -11.5, 9.5},    // 5
    {20, 4, 16, -11.5, 9.5},    // 6
    {20, 3, 17, -11.5, 9.5},    // 7
    {20, 4, 16, -11.5, 9.5},    // 8
    {20, 4, 16, -11.5, 9.5},    // 9
    {10, 4, 6, -3.5, 9.5},      // :
    {10, 4, 6, -3.5, 12.5},     // ;
    {26, 5, 21, -4.5, 7.5},     // <
    {26, 5, 21, -1.5, 4.5},     // =
    {26, 5, 21, -4.5, 7.5},     // >
    {18, 4, 14, -11.5, 9.5},    // ?
    {27, 4, 23, -7.5, 12.5},    // @
    {18, 2, 16, -11.5, 9.5},    // A
    {21, 5, 17, -11.5, 9.5},    // B
    {21, 4, 17, -11.5, 9.5},    // C
    {21, 5, 17, -11.5, 9.5},    // D
    {19, 5, 15, -11.5, 9.5},    // E
    {18, 5, 15, -11.5, 9.5},    // F
    {21, 4, 17, -11.5, 9.5},    // G
    {22, 5, 17, -11.5, 9.5},    // H
    {10, 5, 5, -11.5, 9.5},     // I
    {16, 3, 11, -11.5, 9.5},    // J
    {21, 5, 17, -11.5, 9.5},    // K
    {17, 5, 15, -11.5, 9.5},    // L
    {24, 5, 19, -11.5, 9.5},    // M
    {22, 5, 17, -11.5, 9.5},    // N
    {22, 4, 18, -11.5, 9.5},    // O
    {21, 5, 17, -11.5, 9.5},    // P
    {22, 4, 19, -11.5, 11.5},   // Q
    {21, 5, 17, -11.5, 9.5},    // R
    {20, 4, 16, -11.5, 9.5},    // S
    {16, 2, 14, -11.5, 9.5},    // T
    {22, 5, 17, -11.5, 9.5},    // U
    {18, 2, 16, -11.5, 9.5},    // V
    {24, 3, 21, -11.5, 9.5},    // W
    {20, 3, 17, -11.5, 9.5},    // X
    {18, 2, 16, -11.5, 9.5},    // Y
    {20, 3, 17, -11.5, 9.5},    // Z
    {14, 6, 11, -13.5, 16.5},   // [
    {14, -2, 16, -13.5, 13.5},  // backslash
    {14, 3, 8, -13.5, 16.5},    // ]
    {12, 2, 10, -12.5, -9.5},   // ^
    {16, 0, 16, 11.5, 11.5},    // _
    {8, 2, 5, -12.5, -9.5},     // `
    {19, 4, 14, -4.5, 9.5},     // a
    {19, 5, 15, -11.5, 9.5},    // b
    {18, 4, 14, -4.5, 9.5},     // c
    {19, 4, 14, -11.5, 9.5},    // d
    {18, 4, 14, -4.5, 9.5},     // e
    {12, 2, 10, -11.5, 9.5},    // f
    {19, 4, 14, -4.5, 16.5},    // g
    {19, 5, 14, -11.5, 9.5},    // h
    {10, 4, 6, -11.5, 9.5},     // i
    {10, 1, 6, -11.5, 16.5},    // j
    {17, 5, 13, -11.5, 9.5},    // k
    {11, 5, 8, -11.5, 9.5},     // l
    {28, 5, 23, -4.5, 9.5},     // m
    {19, 5, 14, -4.5, 9.5},     // n
    {19, 4, 15, -4.5, 9.5},     // o
    {19, 5, 15, -4.5, 16.5},    // p
    {19, 4, 14, -4.5, 16.5},    // q
    {13, 5, 11, -4.5, 9.5},     // r
    {17, 4, 13, -4.5, 9.5},     // s
    {12, 2, 10, -11.5, 9.5},    // t
    {19, 5, 14, -4.5, 9.5},     // u
    {16, 3, 13, -4.5, 9.5},     // v
    {22, 3, 19, -4.5, 9.5},     // w
    {17, 3, 14, -4.5, 9.5},     // x
    {16, 3, 13, -4.5, 16.5},    // y
    {17, 3, 14, -4.5, 9.5},     // z
    {14, 4, 11, -14.5, 17.5},   // {
    {20, 10, 10, -13.5, 16.5},  // |
    {14, 3, 10, -14.5, 17.5},   // }
    {15, 2, 12, -0.5, 1.5},     // ~
}};

// A character outside printable ASCII (a byte of UTF-8): as wide as the
// widest glyph, and taller than any ASCII glyph reaches (accents).
constexpr Glyph kAnyGlyph{28, -2, 28, -16.5, 18.5};

constexpr double kUnitsPerSize = 21;
constexpr double kLinePitch = 1.61;       // sizes from one line to the next
constexpr double kTopShift = 10.5;        // units a top- or bottom-justified line moves
constexpr double kItalicSlant = 1.0 / 8;  // KiCad's italic tilt, x per y
constexpr double kBaseline = 9.5;         // units below a centred line's anchor
// Rounding of the measurements and of KiCad's own integer arithmetic.
constexpr double kMargin = 0.25;  // units

const Glyph& glyph_of(char c) {
  const auto code = static_cast<unsigned char>(c);
  return code >= 32 && code < 127 ? kAscii[code - 32] : kAnyGlyph;
}

}  // namespace

std::vector<Shape> stroke_text_boxes(std::string_view text, const TextLayout& layout) {
  const double x_unit = static_cast<double>(layout.glyph_width) / kUnitsPerSize;
  const double y_unit = static_cast<double>(layout.glyph_height) / kUnitsPerSize;
  const double pen = static_cast<double>(layout.thickness) / 2;
  std::vector<std::string_view> lines;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const double pitch = kLinePitch * static_cast<double>(layout.glyph_height) + static_cast<double>(layout.thickness);
  const auto count = static_cast<double>(lines.size());
  const double radians = layout.angle * std::acos(-1.0) / 180.0;
  const double cosine = std::cos(radians);
  const double sine = std::sin(radians);
  // Text frame (x right, y down as KiCad draws) to Board coordinates.
  const auto to_board = [&](double x, double y) {
    if (layout.mirrored) x = -x;
    y = -y;
    return Point{layout.anchor.x + std::llround(x * cosine - y * sine),
                 layout.anchor.y + std::llround(x * sine + y * cosine)};
  };
  std::vector<Shape> boxes;
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const auto index = static_cast<double>(l);
    double line_y = 0;
    switch (layout.vertical) {
      case VerticalJustify::center:
        line_y = (index - (count - 1) / 2) * pitch;
        break;
      case VerticalJustify::top:
        line_y = kTopShift * y_unit + index * pitch;
        break;
      case VerticalJustify::bottom:
        line_y = -kTopShift * y_unit - (count - 1 - index) * pitch;
        break;
    }
    double width = static_cast<double>(layout.thickness);
    for (const char c : lines[l]) width += glyph_of(c).advance * x_unit;
    // The line's box is its advances plus a stroke width; the first glyph's
    // pen starts half a stroke inside it.
    double x = layout.horizontal == HorizontalJustify::left     ? 0
               : layout.horizontal == HorizontalJustify::center ? -width / 2
                                                                : -width;
    x += pen;
    // Where a line holds other characters than printable ASCII, their
    // widths are guesses and the glyphs after them may sit elsewhere: one
    // box over the whole guessed line then, which holds them wherever.
    const bool ascii = std::all_of(lines[l].begin(), lines[l].end(), [](char c) {
      return static_cast<unsigned char>(c) >= 32 && static_cast<unsigned char>(c) < 127;
    });
    if (!ascii) {
      const double top = line_y + (kAnyGlyph.top - kMargin) * y_unit - pen;
      const double bottom = line_y + (kAnyGlyph.bottom + kMargin) * y_unit + pen;
      const double slant = layout.italic ? kItalicSlant * (bottom - top) : 0;
      // Strokes reach up to 2 units past their glyph's advance (a backslash).
      const double reach = (2 + kMargin) * x_unit + slant;
      const double left = x - pen - reach;
      const double right = x - pen + width + reach;
      boxes.push_back(
          Shape{ShapeKind::polygon,
                0,
                {to_board(left, top), to_board(right, top), to_board(right, bottom), to_board(left, bottom)}});
      continue;
    }
    for (const char c : lines[l]) {
      const Glyph& glyph = glyph_of(c);
      if (c != ' ') {
        double top = line_y + (glyph.top - kMargin) * y_unit - pen;
        double bottom = line_y + (glyph.bottom + kMargin) * y_unit + pen;
        double left = x + (glyph.left - kMargin) * x_unit - pen;
        double right = x + (glyph.right + kMargin) * x_unit + pen;
        if (layout.italic) {
          // Slanted about the baseline: the tops lean right, descenders left.
          const double baseline = line_y + kBaseline * y_unit;
          const double reach = kItalicSlant * std::max(std::fabs(top - baseline), std::fabs(bottom - baseline));
          left -= reach;
          right += reach;
        }
        boxes.push_back(
            Shape{ShapeKind::polygon,
                  0,
                  {to_board(left, top), to_board(right, top), to_board(right, bottom), to_board(left, bottom)}});
      }
      x += glyph.advance * x_unit;
    }
  }
  return boxes;
}

}  // namespace trellis::route::kicad_detail
