// The clearance two objects must keep, from the board's, classes' and
// nets' rules. Internal to the route module: the design-rule check and the
// router's lattice resolve clearances alike.
#pragma once

#include <array>
#include <vector>

#include "trellis/route/board.hpp"

namespace trellis::route::geometry {

// Specctra's object types for typed clearances; `area` is a keepout and
// `edge` the outline (which only the default clearance covers).
enum class ClearanceType { smd, pin, wire, via, area, edge };
inline constexpr std::size_t kClearanceTypes = 6;

class ClearanceRules {
 public:
  explicit ClearanceRules(const Board& board);

  // The clearance between objects of nets `a` and `b` (-1: no net).
  Coord required(int net_a, ClearanceType type_a, int net_b, ClearanceType type_b) const;

  // The largest clearance any pair may need, pads' own clearances
  // (pin_clearance_override) included: how far the search looks.
  Coord largest() const noexcept { return largest_; }

 private:
  using Table = std::array<Coord, kClearanceTypes * kClearanceTypes>;
  std::vector<Table> by_net_;  // index net + 1: row 0 is "no net"
  Coord largest_ = 0;
};

}  // namespace trellis::route::geometry
