// Turning a net's lattice paths into wires and vias. Internal to the router.
#pragma once

#include <vector>

#include "lattice.hpp"

namespace trellis::route::router_detail {

// The length of a polyline through the points, rounded to the nanometre.
Coord length_of(const std::vector<Point>& points);

// Drops repeated points and the middle of three collinear points that keep
// one direction; what is left are the path's corners.
std::vector<Point> corners_only(const std::vector<Point>& points);

// Appends the copper of one net's paths (node lists from the lattice):
// runs of grid and pad nodes on one layer become one path wire of the net's
// width with collinear steps merged, via sites become vias (one per site
// however many paths cross it). Returns the centre-line length added.
Coord add_net_copper(const Lattice& lattice, int net, const std::vector<std::vector<int>>& paths, RoutedCopper& copper);

}  // namespace trellis::route::router_detail
