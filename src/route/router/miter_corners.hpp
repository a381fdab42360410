// Cutting the right-angle corners of routed wires at 45 degrees. Internal to
// the router.
#pragma once

#include <cstddef>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route::router_detail {

// Replaces every right-angle corner of `routed`'s wires by a 45-degree cut
// from the middle of one leg to the middle of the other (so a staircase of
// grid steps becomes a diagonal), except where a junction of the wire's net
// (a wire's end or a via) lies on the part cut away. The design-rule check
// then runs on the board's wiring plus the result: a violation of a wire
// with cuts takes back the cut nearest to it, a net newly unconnected takes
// back all cuts of its wires, until the check finds nothing new. Returns the
// number of corners cut.
std::size_t miter_corners(const Board& board, RoutedCopper& routed);

}  // namespace trellis::route::router_detail
