// What the router's passes over finished copper (pulling tight, cutting
// corners) share. Internal to the router.
#pragma once

#include <set>
#include <vector>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route::router_detail {

// Per net: where its wires (the board's and `routed`'s) end and its vias
// stand, the points a reshaped wire must keep passing through.
std::vector<std::vector<Point>> junctions_of_nets(const Board& board, const RoutedCopper& routed);

// The design-rule check of the board's own wiring followed by `routed`: a
// routed wire or via of index i is object board.wires.size() + i (or
// board.vias.size() + i) in the report.
DrcReport check_after_board_wiring(const Board& board, const RoutedCopper& routed);

// The nets the report finds unconnected.
std::set<int> unconnected_nets(const DrcReport& report);

}  // namespace trellis::route::router_detail
