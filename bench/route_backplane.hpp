// A synthetic backplane at OrthoRoute's scale for `trellis bench route`:
// 18 signal layers, 512 two-pin nets between two rows of through-hole
// connectors at opposite edges, on a routing lattice of about 450,000 grid
// nodes (columns x rows x layers) at the default pitch.
//
// Layout. Wires are 0.2 mm with 0.2 mm clearance, so the lattice pitch is
// 0.4 mm. Each connector is a field of pins (1.0 mm circles on every layer)
// with a pin pitch of 2.0 mm across and 1.2 mm deep: pads 1.2 mm apart
// leave no room for a wire between them, while the columns, offset half a
// lattice step from the grid, leave one grid line midway between
// neighbouring columns (1.0 mm from both pads) as an escape channel on
// every layer. The bottom row of connectors faces the top row across an
// open routing area; bottom pin i connects to top pin permutation[i], a
// seeded Fisher-Yates shuffle (the same on every platform). Vias are
// 0.6 mm circles: buried ones joining each pair of neighbouring layers, as
// OrthoRoute's backplane uses (a layer change takes room on the two layers
// it joins, and a longer one stacks them), or one through via on every
// layer. The layers' preferred directions alternate, horizontal first, as
// on OrthoRoute's lattice.
#pragma once

#include <cstdint>

#include "trellis/route/board.hpp"

namespace trellis::bench {

struct BackplaneSpec {
  int layers = 18;
  int nets = 512;
  int connectors_per_edge = 4;
  int pin_columns = 11;  // per connector
  int pin_rows = 12;     // per connector; pin_columns x pin_rows >= nets / connectors_per_edge
  // The board's height is chosen so that lattice columns x rows x layers
  // comes nearest this (never less than the connectors need).
  std::int64_t target_grid_nodes = 450'000;
  std::uint64_t seed = 1;
  bool buried_vias = true;  // false: one through via
  // Partners: false, top pin permutation[i] over the whole board; true, each
  // bottom connector's pins shuffled among those of the top connector facing
  // it (nets a multiple of connectors_per_edge), so demand stays local.
  bool facing_connectors = false;
};

// Throws UsageError when the spec cannot hold its nets or is out of range.
route::Board backplane_board(const BackplaneSpec& spec = {});

}  // namespace trellis::bench
