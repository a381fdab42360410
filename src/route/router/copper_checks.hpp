// What the router's passes over finished copper (pulling tight, cutting
// corners) share. Internal to the router.
#pragma once

#include <map>
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

// Per net the report finds unconnected: the pieces its pins fall into.
using PiecesApart = std::map<int, std::size_t>;
PiecesApart pieces_apart(const DrcReport& report);

// The nets `after` finds in more pieces than `before` held (a net missing
// from `before` was whole): a pass that reshapes copper made them worse,
// its own wires or, on a pour's layer, another net's cutting the pour.
std::vector<int> split_further(const PiecesApart& before, const DrcReport& after);

// Whether `net` has a copper pour on `layer`.
bool has_pour_on(const Board& board, int net, int layer);

}  // namespace trellis::route::router_detail
