// The colours and opacities of board pictures, shared by the SVG and PNG
// writers so both draw the same picture. Internal to rendering.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace trellis::route::render_detail {

struct Colour {
  std::uint8_t red = 0;
  std::uint8_t green = 0;
  std::uint8_t blue = 0;

  std::string hex() const { return fmt::format("#{:02x}{:02x}{:02x}", red, green, blue); }
  double r() const { return red / 255.0; }
  double g() const { return green / 255.0; }
  double b() const { return blue / 255.0; }
};

inline constexpr Colour kBackground{18, 22, 28};
inline constexpr Colour kBoardArea{34, 52, 40};
inline constexpr Colour kOutline{230, 220, 120};
inline constexpr Colour kKeepout{200, 200, 200};
inline constexpr Colour kViaRing{205, 180, 90};
inline constexpr Colour kViaDrill{20, 20, 20};

inline constexpr Colour kFrontCopper{220, 60, 55};
inline constexpr Colour kBackCopper{60, 110, 230};
// Inner layers, in stack order, repeating on very deep stacks: hues far
// from the front's red and the back's blue and from each other.
inline constexpr std::array<Colour, 6> kInnerCopper{{
    {70, 180, 80},    // green
    {230, 170, 40},   // amber
    {190, 80, 200},   // magenta
    {40, 190, 200},   // cyan
    {160, 160, 50},   // olive
    {240, 120, 170},  // pink
}};

// A copper layer is drawn opaque and then blended at this opacity, so other
// layers show through it but its own overlapping shapes do not darken.
inline constexpr double kLayerOpacity = 0.7;
// Planes are pours under everything else of their layer; faint so the
// wires and pads on them stay readable.
inline constexpr double kPlaneOpacity = 0.3;
inline constexpr double kKeepoutOpacity = 0.6;
// Pads are the layer's colour mixed with this much white, to stand out
// from the wires that reach them.
inline constexpr double kPadLightening = 0.4;

// Line widths in pixels, whatever the scale.
inline constexpr double kOutlineWidth = 1.0;
inline constexpr double kKeepoutEdgeWidth = 1.0;
inline constexpr double kHatchSpacing = 6.0;
// The drill's share of a via's diameter: the model keeps the copper only.
inline constexpr double kDrillFraction = 0.5;

inline Colour layer_colour(int layer, int layer_count) {
  if (layer == 0) return kFrontCopper;
  if (layer == layer_count - 1) return kBackCopper;
  return kInnerCopper[static_cast<std::size_t>(layer - 1) % kInnerCopper.size()];
}

inline Colour lightened(Colour colour, double amount) {
  const auto mix = [amount](std::uint8_t c) { return static_cast<std::uint8_t>(std::lround(c + (255 - c) * amount)); };
  return {mix(colour.red), mix(colour.green), mix(colour.blue)};
}

}  // namespace trellis::route::render_detail
