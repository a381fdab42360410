// The synthetic backplanes of `trellis bench route`: every pin wired once,
// and facing connectors wired only to each other.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <utility>

#include "route_backplane.hpp"
#include "trellis/core/error.hpp"

namespace trellis::bench {
namespace {

// Top pins (component, pin) of the board's nets, each once.
std::set<std::pair<int, int>> top_pins_of(const route::Board& board, int connectors) {
  std::set<std::pair<int, int>> seen;
  for (const route::Net& net : board.nets) {
    EXPECT_EQ(net.pins.size(), 2u);
    EXPECT_LT(net.pins.front().component, connectors);
    EXPECT_GE(net.pins.back().component, connectors);
    EXPECT_TRUE(seen.insert({net.pins.back().component, net.pins.back().pin}).second) << net.name;
  }
  return seen;
}

TEST(Backplane, EveryTopPinWiredOnce) {
  BackplaneSpec spec;
  spec.target_grid_nodes = 50'000;
  const route::Board board = backplane_board(spec);
  EXPECT_EQ(board.nets.size(), 512u);
  EXPECT_EQ(top_pins_of(board, spec.connectors_per_edge).size(), 512u);
}

TEST(Backplane, FacingConnectorsWireOnlyToTheConnectorAcross) {
  BackplaneSpec spec;
  spec.layers = 4;
  spec.nets = 96;
  spec.connectors_per_edge = 3;
  spec.pin_columns = 8;
  spec.pin_rows = 4;
  spec.target_grid_nodes = 10'000;
  spec.facing_connectors = true;
  const route::Board board = backplane_board(spec);
  ASSERT_EQ(board.nets.size(), 96u);
  EXPECT_EQ(top_pins_of(board, 3).size(), 96u);
  // A bottom connector and the one facing it span the same columns.
  const route::Coord span = (spec.pin_columns - 1) * 2 * route::kNanometresPerMillimetre;
  bool any_moved = false;
  for (const route::Net& net : board.nets) {
    const route::Point bottom = route::pin_position(board, net.pins.front());
    const route::Point top = route::pin_position(board, net.pins.back());
    EXPECT_LE(std::abs(bottom.x - top.x), span) << net.name;
    EXPECT_EQ(net.pins.back().component, 3 + (2 - net.pins.front().component)) << net.name;
    any_moved = any_moved || net.pins.back().pin != net.pins.front().pin;
  }
  EXPECT_TRUE(any_moved);  // shuffled, not pin to pin
}

TEST(Backplane, FacingConnectorsNeedWholeConnectors) {
  BackplaneSpec spec;
  spec.nets = 510;
  spec.facing_connectors = true;
  EXPECT_THROW(backplane_board(spec), UsageError);
}

}  // namespace
}  // namespace trellis::bench
