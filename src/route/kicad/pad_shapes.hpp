// A pad's copper and hole in the pad's own frame as KiCad writes it (y
// down, centred on the pad, not rotated); footprints.cpp turns them into
// the Board's orientation.
#pragma once

#include <optional>
#include <vector>

#include "reader.hpp"

namespace trellis::route::kicad_detail {

// The copper of a (pad ...): one shape, or for custom pads the anchor and
// one shape per primitive; moved by the drill's (offset X Y).
std::vector<Shape> pad_copper(const Reader& reader, const Node& pad);

// The hole of a pad's (drill ...), at the pad's position: a circle, or for
// oval drills a path; nullopt without a drill.
std::optional<Shape> pad_hole(const Reader& reader, const Node& pad);

// The shape with every y negated (a mirror about the x axis).
Shape mirrored_y(Shape shape);

}  // namespace trellis::route::kicad_detail
