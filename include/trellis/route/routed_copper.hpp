// What routing produced, apart from the design-rule check that judges it:
// the wires and vias a router, a session file or a board's own wiring
// gives, in the board's units and indices.
#pragma once

#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route {

// Wires and vias (the board's own wiring until the router writes its own).
struct RoutedCopper {
  std::vector<Wire> wires;  // the wires, in the board's units and indices
  std::vector<Via> vias;    // the vias
};

// Throws UsageError when the copper names a layer, net or padstack the board
// lacks, or holds a wire without points (what writers check first).
void check_copper_indices(const Board& board, const RoutedCopper& routed);

}  // namespace trellis::route
