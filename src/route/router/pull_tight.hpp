// Pulling routed wires tight with 45-degree segments. Internal to the router.
#pragma once

#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route::router_detail {

// Shortens `routed`'s path wires. Between two junctions of a wire (its
// ends, and its net's wire ends, vias and pin centres that lie on it) the
// run of points is replaced, greedily from the junction before, by one or
// two segments at multiples of 45 degrees to the farthest point of the run
// they reach while shorter than the run and clear of other nets' copper as
// pulled so far (WireClearance). The design-rule check then runs on the
// board's wiring plus the result: a wire a violation involves, or a wire
// of a net newly unconnected, gets its points back, until the check finds
// nothing new. Returns the centre-line length saved.
Coord pull_tight(const Board& board, RoutedCopper& routed);

}  // namespace trellis::route::router_detail
