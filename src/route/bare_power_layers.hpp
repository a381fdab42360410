// Power layers that carry no plane, routed on. Internal to the readers.
#pragma once

#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route {

// KiCad names a layer of its "power" type a power layer in its files and
// its Specctra export, zone or not, and designers run tracks there: each
// power layer no plane (zone) lies on becomes mixed, so the router routes
// on it. Returns the indices of the layers changed.
std::vector<int> route_on_bare_power_layers(Board& board);

}  // namespace trellis::route
