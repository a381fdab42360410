// Arcs as chords within a fixed distance of the true curve, for the
// readers (KiCad's arcs and round corners, Specctra's qarc).
#pragma once

#include <cmath>
#include <numbers>
#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route::geometry {

inline constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

// The nearest point of whole nanometres.
inline Point rounded(double x, double y) { return {std::llround(x), std::llround(y)}; }

// Chords stay within this distance of the true curve (KiCad's
// ARC_HIGH_DEF), with at most kMaxArcChords an arc.
inline constexpr double kArcTolerance = 5'000;  // nanometres
inline constexpr int kMaxArcChords = 4096;

// The arc of `radius` about `centre` from `from_degrees` sweeping `sweep`
// degrees (counter-clockwise when positive), both ends included.
std::vector<Point> arc_about(Point centre, double radius, double from_degrees, double sweep);
// The same arc by tangents: its ends, then the points where the tangents
// at successive chord ends meet, so the polygon holds the whole arc (for
// copper, whose true edge must not lie outside the shape the checks see).
std::vector<Point> arc_outside(Point centre, double radius, double from_degrees, double sweep);
// The shorter arc about `centre` from `start` to `end` (counter-clockwise
// when they are opposite), with the ends exactly as given; the radius is
// start's distance from the centre. Empty when start is the centre or
// start and end coincide.
std::vector<Point> minor_arc(Point start, Point end, Point centre);

}  // namespace trellis::route::geometry
