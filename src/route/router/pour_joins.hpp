// Pins a net's copper pours join (pour_islands): the router connects each
// such group once, from one of its pins, instead of pin by pin.
#pragma once

#include <functional>
#include <vector>

#include "lattice.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/router.hpp"

namespace trellis::route::router_detail {

// Groups of two or more pins of one net that pours join, pins in board
// order within a group, groups in order of their first pin.
using PinGroups = std::vector<std::vector<PinRef>>;

PinGroups pour_groups(const std::vector<PourIsland>& islands);

// The groups both join: each group of `a` split by those of `b`.
PinGroups common_groups(const PinGroups& a, const PinGroups& b);

// Whether every group of `assumed` lies within one group of `held`.
bool groups_hold(const PinGroups& assumed, const PinGroups& held);

// Leaves one pin of each group among its net's pins to connect: the one
// nearest to a pin of the net outside the group. The others stay the
// net's copper (their pads may carry its wires) but need no connection.
void join_pins(Lattice& lattice, const PinGroups& groups);

// Pins the pours join need no wire between them, but the routed wires of
// other nets cut the pours: `route` routes the board taking the groups it
// is given as joined, and what its copper leaves joined is checked. Where
// an assumed join did not hold, the board is routed again assuming only
// what held (at most kPourRounds routings); where nets stay unrouted, the
// board is routed once more by wires alone (the pours still joining what
// they join). The routing with the fewest unrouted nets is kept, of those
// the one with the fewest connections missing, the first of those. A net whose pins the copper
// and pours leave apart counts as unrouted, whatever the router thought;
// RouteResult::pour_joins lists what the pours connect.
inline constexpr int kPourRounds = 3;
// Only nets whose `in_scope` entry is true count as unrouted.
RouteResult route_with_pours(const Board& board, const std::vector<bool>& in_scope,
                             const std::function<RouteResult(const PinGroups&)>& route);

}  // namespace trellis::route::router_detail
