// What a routed wire must keep clear of, indexed for quick queries while
// wires move. Internal to the router.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "../geometry/clearance_rules.hpp"
#include "../geometry/geometry.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route::router_detail {

// Every pad, wire, via and copper drawing of the board and the routing,
// the keepouts that forbid wires and the outline, per layer in a uniform
// grid. A query asks whether a wire segment keeps the clearance the
// design-rule check (drc.hpp) requires from everything of other nets
// (a net tie's copper is its nets' own): the same rules, measured
// strictly (without the check's tolerance).
class WireClearance {
 public:
  // The board must outlive the object.
  WireClearance(const Board& board, const RoutedCopper& routed);

  // Whether the segment a-b of a wire of `net` and `width` on `layer`
  // keeps its clearance from everything but its own net's copper.
  bool clear(int net, int layer, Coord width, Point a, Point b);

  // Routed wire `index` now runs as `wire` (same net and layer).
  void move_wire(std::size_t index, const Wire& wire);

 private:
  enum class Role { copper, keepout, outline };
  struct Obstacle {
    geometry::Primitive shape;
    Role role = Role::copper;
    int net = -1;  // copper: its net, -1 for none
    geometry::ClearanceType type = geometry::ClearanceType::wire;
    std::optional<Coord> clearance_override;  // pads: pin_clearance_override()
    bool live = true;                         // false once its routed wire moved
    int tie = -1;                             // a net tie's pad or drawing: its index in Board::net_ties
  };

  void add(Obstacle obstacle, int layer);
  void add_wire(std::size_t index, const Wire& wire);
  std::optional<Coord> required(int net, const Obstacle& obstacle) const;

  const Board& board_;
  geometry::ClearanceRules rules_;
  std::vector<Obstacle> obstacles_;
  std::vector<std::vector<int>> of_routed_wire_;  // per routed wire: its obstacles
  // The grid: the same cells on every layer.
  Box extent_;
  Coord cell_ = 1;
  Coord columns_ = 1, rows_ = 1;
  std::vector<std::vector<std::vector<int>>> cells_;  // per layer, per cell: obstacles
  std::vector<std::size_t> seen_;                     // per obstacle: the query that last tested it
  std::size_t query_ = 0;
};

}  // namespace trellis::route::router_detail
