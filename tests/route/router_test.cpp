// The router on hand-built boards: every net routed, the independent
// design-rule check finds nothing, and every backend gives the same copper
// as the reference.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "route/geometry/geometry.hpp"
#include "route/router/copper_from_paths.hpp"
#include "route/router/lattice.hpp"
#include "route/router/pull_tight.hpp"
#include "support/backends.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

Coord mm(double millimetres) { return std::llround(millimetres * 1e6); }

Shape circle(Coord diameter) { return {ShapeKind::circle, diameter, {Point{0, 0}}}; }
Shape rect(Point lo, Point hi) { return {ShapeKind::rect, 0, {lo, hi}}; }

// A two-layer board, 0.25 mm wires with 0.2 mm clearance, 0.6 mm vias,
// parts with one pin each.
struct BoardBuilder {
  Board board;
  int smd = 0;
  int through = 0;

  explicit BoardBuilder(double size_mm = 20) {
    board.name = "test";
    board.layers = {{"F.Cu", LayerType::signal, 0}, {"B.Cu", LayerType::signal, 1}};
    board.boundary = {rect({0, 0}, {mm(size_mm), mm(size_mm)})};
    board.rules.width = mm(0.25);
    board.rules.clearance = mm(0.2);
    smd = padstack("smd", {{0, circle(mm(0.8))}});
    through = padstack("pth", {{0, circle(mm(1.2))}, {1, circle(mm(1.2))}});
    board.via_padstacks = {padstack("via", {{0, circle(mm(0.6))}, {1, circle(mm(0.6))}})};
  }

  int padstack(const std::string& name, std::vector<LayerShape> shapes) {
    board.padstacks.push_back({name, std::move(shapes), true});
    return static_cast<int>(board.padstacks.size()) - 1;
  }

  int part(int padstack_index, Point at) {
    const std::string reference = "P" + std::to_string(board.components.size() + 1);
    board.images.push_back({reference + "_image", {{"1", padstack_index, {0, 0}, 0, {}}}, {}});
    board.components.push_back({reference, static_cast<int>(board.images.size()) - 1, at, Side::front, 0, {}});
    return static_cast<int>(board.components.size()) - 1;
  }

  void net(const std::string& name, const std::vector<int>& components) {
    Net net{name, {}, {}};
    for (const int c : components) net.pins.push_back({c, 0});
    board.nets.push_back(std::move(net));
  }
};

// Four signal layers and the vias given as (first, last) layer pairs, each a
// 0.6 mm circle on the layers it joins.
void four_layers(BoardBuilder& b, const std::vector<std::pair<int, int>>& vias) {
  b.board.layers = {{"F.Cu", LayerType::signal, 0},
                    {"In1.Cu", LayerType::signal, 1},
                    {"In2.Cu", LayerType::signal, 2},
                    {"B.Cu", LayerType::signal, 3}};
  b.board.via_padstacks.clear();
  for (const auto& [first, last] : vias) {
    std::vector<LayerShape> shapes;
    for (int layer = first; layer <= last; ++layer) shapes.push_back({layer, circle(mm(0.6))});
    const std::string name = "Via[" + std::to_string(first) + "-" + std::to_string(last) + "]";
    b.board.via_padstacks.push_back(b.padstack(name, std::move(shapes)));
  }
}

// The layers a via's padstack covers, as (first, last).
std::pair<int, int> via_span(const Board& board, const Via& via) {
  const auto& shapes = board.padstacks[static_cast<std::size_t>(via.padstack)].shapes;
  int first = shapes.front().layer;
  int last = first;
  for (const LayerShape& s : shapes) {
    first = std::min(first, s.layer);
    last = std::max(last, s.layer);
  }
  return {first, last};
}

// Two SMD nets that must cross: one of them needs the back layer.
Board crossing_board() {
  BoardBuilder b;
  b.net("A", {b.part(b.smd, {mm(2), mm(10)}), b.part(b.smd, {mm(18), mm(10)})});
  b.net("B", {b.part(b.smd, {mm(10), mm(2)}), b.part(b.smd, {mm(10), mm(18)})});
  return b.board;
}

// Many multi-pin nets at seeded random places, through-hole and SMD. On four
// layers: SMD on the top or the bottom, and blind, buried and through vias.
Board random_board(unsigned seed, int nets, int pins_per_net, bool four_layer = false) {
  BoardBuilder b(30);
  int bottom = b.smd;
  if (four_layer) {
    four_layers(b, {{0, 1}, {1, 2}, {2, 3}, {0, 3}});
    std::vector<LayerShape> every_layer;
    for (int layer = 0; layer < 4; ++layer) every_layer.push_back({layer, circle(mm(1.2))});
    b.through = b.padstack("pth4", std::move(every_layer));
    bottom = b.padstack("bottom smd", {{3, circle(mm(0.8))}});
  }
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> cell(1, 13);  // a 2 mm placement grid, away from the edge
  std::vector<Point> used;
  for (int n = 0; n < nets; ++n) {
    std::vector<int> parts;
    for (int p = 0; p < pins_per_net; ++p) {
      Point at;
      do {
        at = {mm(2.0 * cell(random)), mm(2.0 * cell(random))};
      } while (std::find(used.begin(), used.end(), at) != used.end());
      used.push_back(at);
      const unsigned kind = random() % (four_layer ? 3 : 2);
      parts.push_back(b.part(kind == 0 ? b.through : kind == 1 ? b.smd : bottom, at));
    }
    b.net(fmt::format("N{}", n), parts);  // not "N" + to_string: a false -Wrestrict of GCC 12 at -O3
  }
  return b.board;
}

DrcReport check(const Board& board, const RouteResult& result) {
  return check_design_rules(board, with_board_wiring(board, result.copper));
}

// Every net routed and connected, and no routing violation.
void expect_complete_and_clean(const Board& board, const RouteResult& result) {
  EXPECT_TRUE(result.unrouted_nets.empty());
  EXPECT_TRUE(result.converged);
  const DrcReport drc = check(board, result);
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
}

void expect_same_copper(const RoutedCopper& a, const RoutedCopper& b) {
  ASSERT_EQ(a.wires.size(), b.wires.size());
  ASSERT_EQ(a.vias.size(), b.vias.size());
  for (std::size_t i = 0; i < a.wires.size(); ++i) {
    EXPECT_EQ(a.wires[i].net, b.wires[i].net);
    EXPECT_EQ(a.wires[i].layer, b.wires[i].layer);
    EXPECT_EQ(a.wires[i].shape.width, b.wires[i].shape.width);
    EXPECT_EQ(a.wires[i].shape.points, b.wires[i].shape.points) << "wire " << i;
  }
  for (std::size_t i = 0; i < a.vias.size(); ++i) {
    EXPECT_EQ(a.vias[i].position, b.vias[i].position);
    EXPECT_EQ(a.vias[i].net, b.vias[i].net);
    EXPECT_EQ(a.vias[i].padstack, b.vias[i].padstack);
  }
}

TEST(Router, CrossingNetsRouteCleanlyWithAVia) {
  const Board board = crossing_board();
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult result = route_board(board, options);
  EXPECT_TRUE(result.converged);
  EXPECT_TRUE(result.unrouted_nets.empty());
  EXPECT_EQ(result.nets_to_route, 2u);
  EXPECT_GE(result.via_count, 2u) << "one net has to change layers twice to cross the other";
  const DrcReport drc = check(board, result);
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
  // At least the straight-line distance of both nets.
  EXPECT_GE(result.wire_length, 2 * mm(16));
  for (const Wire& wire : result.copper.wires) {
    EXPECT_EQ(wire.shape.kind, ShapeKind::path);
    EXPECT_EQ(wire.shape.width, mm(0.25));
    // Collinear steps are merged: no three consecutive collinear points.
    const auto& p = wire.shape.points;
    for (std::size_t i = 2; i < p.size(); ++i) {
      const Coord cross =
          (p[i - 1].x - p[i - 2].x) * (p[i].y - p[i - 1].y) - (p[i - 1].y - p[i - 2].y) * (p[i].x - p[i - 1].x);
      EXPECT_NE(cross, 0) << "collinear points left in a wire";
    }
  }
}

// Stopped after the first iteration (pres_fac 0: both nets go straight
// through each other), one crossing net is dropped; tried again alone with
// the other's copper forbidden, it goes round through a via, and the board
// is complete and clean.
// One iteration only (pres_fac 0: every net routed as if alone), which is
// expected to end with conflicts, so what is handed back comes from the
// dropped nets' second chances.
RouteResult route_one_iteration(const Board& board) {
  RouterOptions options;
  options.backend = Backend::reference;
  options.max_iterations = 1;
  RouteResult result = route_board(board, options);
  EXPECT_EQ(result.iterations.size(), 1u);
  EXPECT_GT(result.iterations.empty() ? 0u : result.iterations.front().overused_nodes, 0u);
  return result;
}

TEST(Router, ADroppedNetIsRoutedAroundTheOthersOnceMore) {
  const Board board = crossing_board();
  const RouteResult result = route_one_iteration(board);
  expect_complete_and_clean(board, result);
  EXPECT_GE(result.via_count, 2u);
}

TEST(Router, WithoutViasCrossingNetsCannotBothRoute) {
  // Both nets run from edge to edge, their pads too near the outline for a
  // wire to pass round them: on one layer one must cross the other.
  BoardBuilder b;
  b.net("A", {b.part(b.smd, {mm(0.9), mm(10)}), b.part(b.smd, {mm(19.1), mm(10)})});
  b.net("B", {b.part(b.smd, {mm(10), mm(0.9)}), b.part(b.smd, {mm(10), mm(19.1)})});
  Board board = b.board;
  board.via_padstacks.clear();
  RouterOptions options;
  options.backend = Backend::reference;
  options.max_iterations = 8;
  const RouteResult result = route_board(board, options);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.unrouted_nets.size(), 1u);
  EXPECT_EQ(result.via_count, 0u);
  // What is handed back is still clean: the conflicting net was left out.
  EXPECT_TRUE(check(board, result).routing.empty());
  EXPECT_EQ(result.overused_nodes, 0u);
}

// The spans of the vias of a net from the top layer to the bottom one, on
// four layers with the given vias; the routing must be complete and clean.
std::vector<std::pair<int, int>> spans_from_top_to_bottom(const std::vector<std::pair<int, int>>& vias) {
  BoardBuilder b;
  four_layers(b, vias);
  const int bottom = b.padstack("bottom smd", {{3, circle(mm(0.8))}});
  b.net("A", {b.part(b.smd, {mm(3), mm(10)}), b.part(bottom, {mm(17), mm(10)})});
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult result = route_board(b.board, options);
  expect_complete_and_clean(b.board, result);
  std::vector<std::pair<int, int>> spans;
  for (const Via& via : result.copper.vias) spans.push_back(via_span(b.board, via));
  std::sort(spans.begin(), spans.end());
  return spans;
}

TEST(Router, StackedBlindAndBuriedViasCarryANetFromTopToBottom) {
  // One via of each kind, each on its own layers.
  const std::vector<std::pair<int, int>> buried{{0, 1}, {1, 2}, {2, 3}};
  EXPECT_EQ(spans_from_top_to_bottom(buried), buried);
}

TEST(Router, AThroughViaIsPreferredToAStackOfBuriedOnes) {
  EXPECT_EQ(spans_from_top_to_bottom({{0, 1}, {1, 2}, {2, 3}, {0, 3}}), (std::vector<std::pair<int, int>>{{0, 3}}));
}

// The outer layers are kept out of everywhere, so a through via fits
// nowhere; a buried via joins the inner layers alone.
TEST(Router, ABuriedViaGoesWhereAThroughViaCannot) {
  for (const bool buried : {false, true}) {
    BoardBuilder b;
    four_layers(b, {{buried ? 1 : 0, buried ? 2 : 3}});
    for (const int layer : {0, 3}) {
      b.board.keepouts.push_back({KeepoutKind::keepout, "outer", layer, rect({0, 0}, {mm(20), mm(20)})});
    }
    const int inner1 = b.padstack("inner1 smd", {{1, circle(mm(0.8))}});
    const int inner2 = b.padstack("inner2 smd", {{2, circle(mm(0.8))}});
    b.net("A", {b.part(inner1, {mm(3), mm(10)}), b.part(inner2, {mm(17), mm(10)})});
    RouterOptions options;
    options.backend = Backend::reference;
    options.max_iterations = 4;
    const RouteResult result = route_board(b.board, options);
    SCOPED_TRACE(buried ? "buried via" : "through via");
    EXPECT_EQ(result.unrouted_nets.size(), buried ? 0u : 1u);
    EXPECT_EQ(result.via_count, buried ? 1u : 0u);
    if (buried) expect_complete_and_clean(b.board, result);
  }
}

// A net from corner to corner of a two-layer board, front horizontal and back
// vertical: each run of more than two grid steps goes its layer's way, and
// one via joins them; without directions the net stays on one layer.
TEST(Router, WiresRunTheirLayersPreferredDirections) {
  for (const auto directions : {LayerDirections::from_board, LayerDirections::alternate, LayerDirections::none}) {
    BoardBuilder b;
    // Alternating directions make the front horizontal and the back vertical
    // whatever the board says.
    b.board.layers[0].direction = LayerDirection::horizontal;
    if (directions == LayerDirections::from_board) b.board.layers[1].direction = LayerDirection::vertical;
    // On grid points (the pitch is 0.45 mm): 14.4 mm apart both ways.
    b.net("A", {b.part(b.through, {mm(2.7), mm(2.7)}), b.part(b.through, {mm(17.1), mm(17.1)})});
    RouterOptions options;
    options.backend = Backend::reference;
    options.layer_directions = directions;
    const RouteResult result = route_board(b.board, options);
    SCOPED_TRACE(static_cast<int>(directions));
    expect_complete_and_clean(b.board, result);
    if (directions == LayerDirections::none) {
      EXPECT_EQ(result.via_count, 0u);
      continue;
    }
    EXPECT_EQ(result.via_count, 1u);
    Coord along = 0;
    for (const Wire& wire : result.copper.wires) {
      const auto& p = wire.shape.points;
      for (std::size_t i = 1; i < p.size(); ++i) {
        const Coord dx = std::abs(p[i].x - p[i - 1].x);
        const Coord dy = std::abs(p[i].y - p[i - 1].y);
        if (std::max(dx, dy) <= mm(0.9)) continue;  // a stub or a cut corner
        EXPECT_EQ(wire.layer == 0 ? dy : dx, 0) << "a long run against layer " << wire.layer << "'s direction";
        along += dx + dy;
      }
    }
    EXPECT_GE(along, mm(24));  // of 28.8 mm from pad to pad: the rest is stubs and cut corners
  }
}

// One layer, two nets crossing in a plus: one has to go round the other's
// end pad, further out than its first search box reaches (10 grid steps of
// 0.45 mm around its pins). A path through the other net's copper is always
// found, so only a box that widens under congestion lets the negotiation
// itself find the way round (else it ends on overuse, and the net it drops
// is routed round afterwards, alone).
TEST(Router, ACongestedNetLooksBeyondItsFirstBox) {
  BoardBuilder b(30);
  b.net("A", {b.part(b.smd, {mm(5), mm(15)}), b.part(b.smd, {mm(25), mm(15)})});
  b.net("B", {b.part(b.smd, {mm(15), mm(5)}), b.part(b.smd, {mm(15), mm(25)})});
  Board board = b.board;
  board.via_padstacks.clear();
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult result = route_board(board, options);
  ASSERT_FALSE(result.iterations.empty());
  EXPECT_EQ(result.iterations.back().overused_nodes, 0u);
  EXPECT_LT(result.iterations.size(), static_cast<std::size_t>(options.max_iterations));
  EXPECT_TRUE(result.converged);
  EXPECT_TRUE(result.unrouted_nets.empty());
  EXPECT_EQ(result.via_count, 0u);
  const DrcReport drc = check(board, result);
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
  // The way round is longer than both straight lines together.
  EXPECT_GT(result.wire_length, 2 * mm(20) + mm(10));
}

TEST(Router, APinWalledInByAKeepoutIsReportedUnrouted) {
  BoardBuilder b;
  b.net("A", {b.part(b.smd, {mm(5), mm(5)}), b.part(b.smd, {mm(15), mm(15)})});
  b.net("B", {b.part(b.smd, {mm(5), mm(15)}), b.part(b.smd, {mm(15), mm(5)})});
  // A ring of keepout around A's first pin on both layers.
  for (const Coord d : {mm(-2), mm(2)}) {
    b.board.keepouts.push_back(
        {KeepoutKind::keepout, "wall", kAllLayers, rect({mm(5) + d - mm(0.2), mm(3)}, {mm(5) + d + mm(0.2), mm(7)})});
    b.board.keepouts.push_back(
        {KeepoutKind::keepout, "wall", kAllLayers, rect({mm(3), mm(5) + d - mm(0.2)}, {mm(7), mm(5) + d + mm(0.2)})});
  }
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult result = route_board(b.board, options);
  ASSERT_EQ(result.unrouted_nets.size(), 1u);
  EXPECT_EQ(b.board.nets[static_cast<std::size_t>(result.unrouted_nets.front())].name, "A");
  EXPECT_FALSE(result.converged);
  const DrcReport drc = check(b.board, result);
  EXPECT_TRUE(drc.routing.empty());
  ASSERT_EQ(drc.unconnected.size(), 1u);
  EXPECT_EQ(drc.unconnected.front().name, "A");
}

// A wall of 2.54 mm header pins (1.73 mm pads, no net) across the board:
// a 0.25 mm wire with 0.2 mm clearance needs 0.65 mm of the 0.81 mm between
// two pins, so its centre line has a window 0.16 mm wide in each gap. On
// the 0.45 mm grid from the board's corner, grid columns fall 0.03 mm and
// 0.06 mm beside the third and sixth gaps' centres. A wire passes there
// only if each grid edge is judged by its own segment: judging a node by
// every edge it could have (sqrt((w/2 + c)^2 + (p/2)^2) from the pads)
// leaves a window of 0.02 mm, which no column hits, and the net unrouted.
TEST(Router, AWireRunsBetweenTheLegsOfAHeader) {
  BoardBuilder b;
  const int header = b.padstack("header", {{0, circle(mm(1.73))}, {1, circle(mm(1.73))}});
  for (int k = 0; k < 8; ++k) b.part(header, {mm(1.27 + 2.54 * k), mm(10)});
  b.net("A", {b.part(b.smd, {mm(7.62), mm(3)}), b.part(b.smd, {mm(7.62), mm(17)})});
  RouterOptions options;
  options.backend = Backend::reference;
  options.miter_corners = false;
  const RouteResult result = route_board(b.board, options);
  expect_complete_and_clean(b.board, result);
  EXPECT_EQ(result.via_count, 0u);
  // Through the third gap: the straight line plus the short way to a
  // grid column and back.
  EXPECT_LT(result.wire_length, mm(14.5));
}

// A 0.3 mm pad (no net) 0.44 mm above the middle of a grid edge on the
// straight line between two pins: both ends of that edge keep 0.344 mm
// from the pad, more than a 0.25 mm wire with 0.2 mm clearance needs
// (0.325), but the edge's middle only 0.29. The wire must not take that
// edge.
TEST(Router, AnEdgeCloserToCopperThanItsEndsIsNotTaken) {
  BoardBuilder b;
  const int small = b.padstack("small", {{0, circle(mm(0.3))}, {1, circle(mm(0.3))}});
  b.part(small, {mm(10.125), mm(9.9 + 0.44)});
  b.net("A", {b.part(b.smd, {mm(1.8), mm(9.9)}), b.part(b.smd, {mm(18.0), mm(9.9)})});
  Board board = b.board;
  board.via_padstacks.clear();
  RouterOptions options;
  options.backend = Backend::reference;
  options.miter_corners = false;
  const RouteResult result = route_board(board, options);
  expect_complete_and_clean(board, result);
  // The straight line along the row is 16.2 mm; the way round, from each
  // pad straight to a node of the row below and along it, 16.41 mm.
  EXPECT_GT(result.wire_length, mm(16.3));
}

// A row of long narrow pads at 0.55 mm pitch: a 0.25 mm wire with 0.2 mm
// clearance fits between none of them, and the 0.45 mm grid's columns fall
// beside most pads' centres, so a straight stub from the centre to a grid
// node beyond the pad's end strays too close to the neighbours. A stub that
// leaves along the pad's axis and then turns gets every pin onto the
// lattice.
TEST(Router, FinePitchPadsLeaveAlongTheirAxisAndTurn) {
  BoardBuilder b;
  const int fine = b.padstack("fine", {{0, rect({mm(-0.15), mm(-1.5)}, {mm(0.15), mm(1.5)})}});
  for (int k = 0; k < 8; ++k) {
    const std::string name = fmt::format("N{}", k);
    b.net(name, {b.part(fine, {mm(7) + k * mm(0.55), mm(10)}), b.part(b.through, {mm(3) + k * mm(2), mm(17)})});
  }
  RouterOptions options;
  options.backend = Backend::reference;
  // One net after another, and the lattice's right angles kept: pulling
  // tight may cut a bent stub's corner, and some orders take straight stubs
  // where they fit.
  options.checked_batches = false;
  options.miter_corners = false;
  const RouteResult result = route_board(b.board, options);
  EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
  expect_complete_and_clean(b.board, result);
  // Some wire leaves a pad's centre straight along y and then turns.
  int bent = 0;
  for (const Wire& wire : result.copper.wires) {
    std::vector<Point> p = wire.shape.points;
    for (int direction = 0; direction < 2; ++direction, std::reverse(p.begin(), p.end())) {
      for (std::size_t i = 0; i + 2 < p.size(); ++i) {
        const bool from_pad_centre = p[i].y == mm(10) && (p[i].x - mm(7)) % mm(0.55) == 0;
        if (from_pad_centre && p[i + 1].x == p[i].x && p[i + 2].y == p[i + 1].y && p[i + 2].x != p[i].x) ++bent;
      }
    }
  }
  EXPECT_GT(bent, 0);
  // The lattice without bent stubs at fine-pitch pads (the router's last
  // try where nets stay unrouted) has them only where no straight stub
  // leaves a pad.
  const auto bent_stubs = [&](router_detail::BentStubs which) {
    const router_detail::Lattice lattice = router_detail::build_lattice(b.board, options, which);
    return std::count_if(lattice.stubs.begin(), lattice.stubs.end(),
                         [](const router_detail::Stub& stub) { return !stub.bends.empty(); });
  };
  EXPECT_LT(bent_stubs(router_detail::BentStubs::shut_in),
            bent_stubs(router_detail::BentStubs::shut_in_and_fine_pitch));
  // Reaching further, they reach more grid nodes.
  EXPECT_GT(bent_stubs(router_detail::BentStubs::fine_pitch_reaching_further),
            bent_stubs(router_detail::BentStubs::shut_in_and_fine_pitch));
}

// A pin in a row at 0.6 mm pitch (no 0.25 mm wire with 0.2 mm clearance
// passes between the pads), a through-hole pad of another net just behind
// its inner end and another net's pad in front, 0.6 mm beyond its outer
// end and with its top edge on the pin's axis (as a stitching via and a
// crystal's capacitor sit beside a microcontroller's oscillator pin). No
// square turn fits between the pad in front and the next pin's corner;
// only a wire out along the pad and on at 45 degrees leaves. At every
// pitch tried the pin gets onto the lattice and its net completes.
TEST(Router, APinShutInLeavesAtFortyFiveDegrees) {
  for (const double pitch : {0.0, 0.3, 0.37, 0.45}) {
    SCOPED_TRACE(fmt::format("pitch {}", pitch));
    BoardBuilder b;
    const int row = b.padstack("row", {{0, rect({mm(-0.5), mm(-0.15)}, {mm(0.5), mm(0.15)})}});
    const int behind = b.padstack("behind", {{0, circle(mm(0.6))}, {1, circle(mm(0.6))}});
    const int front = b.padstack("front", {{0, rect({mm(-0.5), mm(-0.5)}, {mm(0.5), mm(0.5)})}});
    b.net("T", {b.part(row, {mm(10), mm(10)}), b.part(b.smd, {mm(15), mm(15)})});
    b.net("A", {b.part(row, {mm(10), mm(10.6)})});
    b.net("B", {b.part(row, {mm(10), mm(9.4)})});
    b.net("G", {b.part(behind, {mm(9.1), mm(10)}), b.part(front, {mm(11.6), mm(9.5)})});
    RouterOptions options;
    options.backend = Backend::reference;
    if (pitch > 0) options.pitch = mm(pitch);
    const RouteResult result = route_board(b.board, options);
    EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
    expect_complete_and_clean(b.board, result);
  }
}

// Nets between pads that are not lined up route as L shapes and
// staircases; pulling them tight at 45 degrees and cutting the corners
// left shortens them, keeps the design-rule check clean and every net
// connected, and turning it off gives right angles only.
TEST(Router, WiresRunAtFortyFiveDegreesWhereTheClearanceAllows) {
  const Board board = random_board(11, 6, 3);
  RouterOptions square;
  square.backend = Backend::reference;
  square.miter_corners = false;
  RouterOptions mitred = square;
  mitred.miter_corners = true;
  const RouteResult right_angles = route_board(board, square);
  const RouteResult cut = route_board(board, mitred);
  ASSERT_TRUE(right_angles.converged);
  ASSERT_TRUE(cut.converged);
  EXPECT_EQ(right_angles.mitred_corners, 0u);
  EXPECT_LT(cut.wire_length, right_angles.wire_length);
  const auto diagonal_segments = [](const RoutedCopper& copper) {
    int count = 0;
    for (const Wire& wire : copper.wires) {
      const auto& p = wire.shape.points;
      for (std::size_t i = 1; i < p.size(); ++i) {
        if (std::abs(p[i].x - p[i - 1].x) == std::abs(p[i].y - p[i - 1].y) && p[i] != p[i - 1]) ++count;
      }
    }
    return count;
  };
  // Cuts along a staircase merge into one diagonal; without cuts only a
  // pad's stub can run at 45 degrees.
  EXPECT_GT(diagonal_segments(cut.copper), diagonal_segments(right_angles.copper));
  const DrcReport drc = check(board, cut);
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
  EXPECT_EQ(cut.copper.vias.size(), right_angles.copper.vias.size());
}

// An L-shaped wire of net A from a pad at (2, 2) to one at (12, 8) mm,
// and a pad of net B at (5, 5) mm where the diagonal that leaves (2, 2)
// first would pass; `extra` adds copper of net A.
struct PullTightCase {
  BoardBuilder b;
  RoutedCopper routed;

  explicit PullTightCase(bool blocked) {
    const int from = b.part(b.smd, {mm(2), mm(2)});
    const int to = b.part(b.smd, {mm(12), mm(8)});
    b.net("A", {from, to});
    if (blocked) b.net("B", {b.part(b.smd, {mm(5), mm(5)})});
    routed.wires.push_back(wire({{mm(2), mm(2)}, {mm(12), mm(2)}, {mm(12), mm(8)}}));
  }
  Wire wire(std::vector<Point> points) const {
    return {0, Shape{ShapeKind::path, mm(0.25), std::move(points)}, 0, WiringType::normal};
  }
};

// Pulled tight, the wire takes one bend at 45 degrees; the diagonal goes
// first where it is clear and last where the other net's pad is in the way.
TEST(Router, WiresArePulledTightAtFortyFiveDegreesAroundOtherCopper) {
  for (const bool blocked : {false, true}) {
    PullTightCase c(blocked);
    const Coord before = router_detail::length_of(c.routed.wires[0].shape.points);
    const Coord saved = router_detail::pull_tight(c.b.board, c.routed);
    const std::vector<Point> expected = blocked ? std::vector<Point>{{mm(2), mm(2)}, {mm(6), mm(2)}, {mm(12), mm(8)}}
                                                : std::vector<Point>{{mm(2), mm(2)}, {mm(8), mm(8)}, {mm(12), mm(8)}};
    EXPECT_EQ(c.routed.wires[0].shape.points, expected) << (blocked ? "blocked" : "open");
    EXPECT_EQ(saved, before - router_detail::length_of(expected));
    const DrcReport drc = check_design_rules(c.b.board, c.routed);
    EXPECT_TRUE(drc.routing.empty());
    EXPECT_TRUE(drc.unconnected.empty());
  }
}

// Where another wire of the net ends on the wire, or a via of the net
// stands on it, the wire still passes there once pulled.
TEST(Router, APulledWireKeepsItsNetsJunctions) {
  PullTightCase tee(false);
  tee.routed.wires.push_back(tee.wire({{mm(7), mm(2)}, {mm(7), mm(0.5)}}));
  router_detail::pull_tight(tee.b.board, tee.routed);
  const std::vector<Point>& pulled = tee.routed.wires[0].shape.points;
  EXPECT_LT(router_detail::length_of(pulled), mm(16));
  EXPECT_TRUE(std::find(pulled.begin(), pulled.end(), Point{mm(7), mm(2)}) != pulled.end());
  EXPECT_TRUE(check_design_rules(tee.b.board, tee.routed).unconnected.empty());

  PullTightCase via(false);
  via.routed.vias.push_back({via.b.board.via_padstacks[0], {mm(12), mm(2)}, 0, WiringType::normal});
  const std::vector<Point> l_shape = via.routed.wires[0].shape.points;
  EXPECT_EQ(router_detail::pull_tight(via.b.board, via.routed), 0);
  EXPECT_EQ(via.routed.wires[0].shape.points, l_shape);
}

// Asked for some nets, the router routes those and no other; the others
// are neither routed nor reported unrouted, and a name the board lacks is
// a usage error.
TEST(Router, OnlyTheNetsNamedAreRouted) {
  const Board board = random_board(11, 6, 3);
  RouterOptions options;
  options.backend = Backend::reference;
  options.nets = {board.nets[1].name, board.nets[4].name};
  const RouteResult result = route_board(board, options);
  EXPECT_EQ(result.nets_to_route, 2u);
  EXPECT_TRUE(result.unrouted_nets.empty());
  EXPECT_FALSE(result.copper.wires.empty());
  for (const Wire& wire : result.copper.wires) EXPECT_TRUE(wire.net == 1 || wire.net == 4) << wire.net;
  for (const Via& via : result.copper.vias) EXPECT_TRUE(via.net == 1 || via.net == 4) << via.net;
  const DrcReport drc = check(board, result);
  EXPECT_TRUE(drc.routing.empty());
  std::vector<int> apart;
  for (const UnconnectedNet& net : drc.unconnected) apart.push_back(net.net);
  EXPECT_EQ(apart, (std::vector<int>{0, 2, 3, 5}));
  options.nets.push_back("no such net");
  EXPECT_THROW(route_board(board, options), UsageError);
}

TEST(Router, OptionsOutOfRangeAreUsageErrors) {
  const Board board = crossing_board();
  const auto with = [&](auto change) {
    RouterOptions options;
    options.backend = Backend::reference;
    change(options);
    return options;
  };
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.pitch = 0; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.pitch = -5; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.max_iterations = 0; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.present_factor = std::nan(""); })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.present_factor_growth = 0.5; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.via_cost = -1; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.batch_size = 0; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.concurrent_nets = -1; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.cleanup_passes = -1; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.device_round_min = -1; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.cleanup_via_cost = NAN; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.against_direction_cost = 0.5; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.against_direction_cost = INFINITY; })), UsageError);
  EXPECT_THROW(route_board(board, with([](RouterOptions& o) { o.pitch = 1; })), UsageError) << "a lattice too large";
  Board no_width = board;
  no_width.rules.width.reset();
  EXPECT_THROW(route_board(no_width, with([](RouterOptions&) {})), UsageError);
  Board no_signal = board;
  for (Layer& layer : no_signal.layers) layer.type = LayerType::power;
  EXPECT_THROW(route_board(no_signal, with([](RouterOptions&) {})), UsageError);
}

TEST(Router, ProgressReportsEveryIteration) {
  const Board board = random_board(7, 10, 3);
  RouterOptions options;
  options.backend = Backend::reference;
  std::vector<RouteIteration> seen;
  const RouteResult result = route_board(board, options, [&](const RouteIteration& it) { seen.push_back(it); });
  ASSERT_EQ(seen.size(), result.iterations.size());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].iteration, static_cast<int>(i) + 1);
  EXPECT_EQ(seen.front().nets_routed, result.nets_to_route);
  EXPECT_EQ(seen.front().present_factor, 0.0);
}

// The parts of the router's time are each measured, cover the iterations
// and together stay within the whole.
TEST(Router, PhasesAccountForTheRoutersTime) {
  const Board board = random_board(7, 10, 3);
  RouterOptions options;
  options.backend = Backend::cpu;
  const RouteResult result = route_board(board, options);
  const RoutePhases& p = result.phases;
  double iterations = 0;
  for (const RouteIteration& it : result.iterations) iterations += it.seconds;
  for (const double part : {p.lattice, p.negotiation, p.repair, p.cleanup, p.geometry}) EXPECT_GE(part, 0.0);
  EXPECT_GT(p.lattice, 0.0);
  EXPECT_GE(p.negotiation, iterations);
  EXPECT_LE(p.lattice + p.negotiation + p.repair + p.cleanup + p.geometry, result.seconds);
}

// The negotiation's schedule as asked: pres_fac 0 in the first iteration,
// present_factor in the second, then times present_factor_growth each
// iteration up to present_factor_max.
TEST(Router, ThePresentFactorFollowsTheSchedule) {
  const Board board = random_board(8, 8, 5);
  for (const double growth : {1.3, 2.0}) {
    SCOPED_TRACE(growth);
    RouterOptions options;
    options.backend = Backend::cpu;
    options.present_factor_growth = growth;
    options.present_factor_max = 3;
    const RouteResult result = route_board(board, options);
    ASSERT_GE(result.iterations.size(), 3u);
    EXPECT_EQ(result.iterations[0].present_factor, 0.0);
    double expected = options.present_factor;
    for (std::size_t i = 1; i < result.iterations.size(); ++i) {
      if (result.iterations[i].iteration == 1) break;  // a further routing (finer lattice) starts again
      EXPECT_DOUBLE_EQ(result.iterations[i].present_factor, expected) << "iteration " << i + 1;
      expected = std::min(expected * growth, options.present_factor_max);
    }
  }
}

// A net squeezed under a keepout onto the grid row 0.9 mm from another net
// (two grid steps: twice what the wire and the default clearance need),
// on a board where one far-away net belongs to a class of its own. Two
// nets keep w_a / 2 + w_b / 2 + the larger of their clearances apart, so
// that class's rules must not be imposed on the two: the squeezed net jogs
// down and back, with no via and no detour round the keepout.
void expect_squeezed_net_unaffected_by(const Rules& far_class_rules) {
  BoardBuilder b;
  const int small_pad = b.padstack("small", {{0, circle(mm(0.5))}});
  b.net("low", {b.part(small_pad, {mm(2.25), mm(4.5)}), b.part(small_pad, {mm(17.55), mm(4.5)})});
  b.net("squeezed", {b.part(small_pad, {mm(2.25), mm(6.3)}), b.part(small_pad, {mm(17.55), mm(6.3)})});
  b.net("far", {b.part(small_pad, {mm(1.35), mm(16.2)}), b.part(small_pad, {mm(4.05), mm(16.2)})});
  b.board.keepouts.push_back({KeepoutKind::keepout, "roof", kAllLayers, rect({mm(6), mm(5.85)}, {mm(14), mm(20)})});
  b.board.classes.push_back({"far", {2}, far_class_rules, {}});

  RouterOptions options;
  options.backend = Backend::cpu;
  const RouteResult result = route_board(b.board, options);
  expect_complete_and_clean(b.board, result);
  double squeezed = 0;
  for (const Wire& wire : result.copper.wires) {
    if (wire.net != 1) continue;
    const auto& p = wire.shape.points;
    for (std::size_t i = 1; i < p.size(); ++i) {
      squeezed += std::hypot(static_cast<double>(p[i].x - p[i - 1].x), static_cast<double>(p[i].y - p[i - 1].y));
    }
  }
  // Straight is 15.3 mm; down 0.9 mm and back up adds at most 1.8 mm.
  EXPECT_LE(squeezed, static_cast<double>(mm(15.3 + 1.8)));
  EXPECT_EQ(result.via_count, 0u);
}

TEST(Router, AHighClearanceClassKeepsItsDistanceAndNoMore) {
  Rules high_voltage;
  high_voltage.clearance = mm(1.0);
  expect_squeezed_net_unaffected_by(high_voltage);
}

TEST(Router, AWideWireClassKeepsItsDistanceAndNoMore) {
  Rules power;
  power.width = mm(2.0);
  expect_squeezed_net_unaffected_by(power);
}

// The corner of a 3 x 3 mm QFN-16 (0.5 mm pitch) where three nets leave
// between a coil's pad and a resistor (divergence_meter's charger, moved
// onto this board with the lattice's phase kept): /PG between /VBAT and
// the first pin of the next side. One far-away net belongs to a class with
// a 0.8 mm clearance. A stub, the wire from a pad to the lattice, keeps
// from each other net the clearance of the two nets' classes, and the
// class's wider one only where a net of that class may be at all: with it
// the corner routes as without it. (Claiming the widest clearance of the
// board everywhere left /PG unrouted on every lattice tried.)
TEST(Router, AStubKeepsTheClearanceOfTheNetsItMeetsAndNoMore) {
  const auto route_corner = [](bool far_class) {
    BoardBuilder b;
    const auto pad = [&](double x, double y, double width, double height) {
      const int stack = b.padstack(fmt::format("pad{}", b.board.padstacks.size()),
                                   {{0, rect({mm(-width / 2), mm(-height / 2)}, {mm(width / 2), mm(height / 2)})}});
      return b.part(stack, {mm(x), mm(y)});
    };
    const auto side = [&](double x, double y) { return pad(x, y, 0.8, 0.25); };
    const auto end = [&](double x, double y) { return pad(x, y, 0.25, 0.8); };
    b.net("L2", {side(8.325, 3.0), side(8.325, 3.5), pad(12.0, 3.4, 3.9, 1.2)});
    b.net("VBAT", {side(8.325, 4.0), side(5.175, 4.0), side(5.175, 3.5), side(5.175, 3.0), end(6.0, 2.18)});
    b.net("PG", {side(8.325, 4.5), pad(15.25, 5.0, 0.5, 0.9)});
    b.net("R6", {end(7.5, 5.32), pad(10.5, 5.75, 0.9, 0.5), pad(12.25, 6.0, 0.5, 0.9)});
    b.net("GND",
          {end(7.0, 5.32), end(6.5, 2.18), end(7.0, 2.18), pad(6.75, 3.75, 1.7, 1.7), pad(10.5, 7.25, 0.9, 0.5)});
    b.net("C6-2", {end(6.5, 5.32), pad(7.0, 7.0, 0.8, 0.76)});
    b.net("C6-1", {end(6.0, 5.32), pad(5.5, 7.0, 0.8, 0.76)});
    b.net("3V3", {end(7.5, 2.18), pad(13.75, 6.0, 0.5, 0.9)});
    b.net("C7", {side(5.175, 4.5), pad(3.0, 5.5, 0.8, 0.76)});
    b.net("far", {b.part(b.smd, {mm(2), mm(18)}), b.part(b.smd, {mm(8), mm(18)})});
    if (far_class) {
      Rules high_voltage;
      high_voltage.clearance = mm(0.8);
      b.board.classes.push_back({"hv", {static_cast<int>(b.board.nets.size()) - 1}, high_voltage, {}});
    }
    RouterOptions options;
    options.backend = Backend::cpu;
    RouteResult result = route_board(b.board, options);
    expect_complete_and_clean(b.board, result);
    return result;
  };
  const RouteResult plain = route_corner(false);
  const RouteResult with_class = route_corner(true);
  EXPECT_EQ(plain.lattice.pitch, mm(0.45));
  EXPECT_EQ(with_class.lattice.pitch, plain.lattice.pitch);
  EXPECT_EQ(with_class.via_count, plain.via_count);
}

// Ten pins at 0.4 mm pitch (a 5 mm QFN's side, 0.2 x 0.75 mm pads) with
// 0.19 mm wires and 0.1524 mm clearance, each to a pad of its own 4 mm
// away; all moved `shift` along y.
Board fine_pitch_row(Coord shift = 0) {
  BoardBuilder b(10);
  b.board.rules.width = mm(0.19);
  b.board.rules.clearance = mm(0.1524);
  const int qfn = b.padstack("qfn", {{0, rect({mm(-0.1), mm(-0.375)}, {mm(0.1), mm(0.375)})}});
  for (int i = 0; i < 10; ++i) {
    b.net(fmt::format("n{}", i),
          {b.part(qfn, {mm(3.2 + 0.4 * i), mm(4) + shift}), b.part(b.smd, {mm(1 + 0.9 * i), mm(8) + shift})});
  }
  return b.board;
}

// On a lattice of one wire and clearance a step, neighbouring pins' stubs
// of fine_pitch_row land on neighbouring grid nodes. The cautious stub
// claims take the grid node beside a stub, which the clearance leaves to
// another net's wire; the exact ones leave it, and still keep every grid
// node and edge too close to a stub from the other nets: the node, an end
// of the edge or its midpoint is claimed.
TEST(Router, ExactStubClaimsKeepTheClearanceAndNoMore) {
  const Board board = fine_pitch_row();
  RouterOptions options;
  const auto lattice_with = [&](router_detail::StubClaims claims) {
    return router_detail::build_lattice(board, options, router_detail::BentStubs::shut_in_and_fine_pitch, claims);
  };
  const router_detail::Lattice cautious = lattice_with(router_detail::StubClaims::nodes_near);
  const router_detail::Lattice exact = lattice_with(router_detail::StubClaims::nodes_and_edges);
  ASSERT_EQ(exact.pitch, mm(0.3424));
  ASSERT_EQ(exact.stubs.size(), cautious.stubs.size());
  const auto net_of_stub = [](const router_detail::Lattice& l, const router_detail::Stub& stub) {
    return l.owner.front()[static_cast<std::size_t>(stub.pad_node)];
  };
  // Claims on the grid node another net's stub lands on, beside one's own.
  const auto neighbours_claimed = [&](const router_detail::Lattice& l) {
    int claimed = 0;
    for (const router_detail::Stub& stub : l.stubs) {
      for (const router_detail::Stub& other : l.stubs) {
        const Point a = l.position[static_cast<std::size_t>(stub.grid_node)];
        const Point c = l.position[static_cast<std::size_t>(other.grid_node)];
        const bool beside = std::abs(a.x - c.x) + std::abs(a.y - c.y) == l.pitch;
        if (beside && net_of_stub(l, stub) != net_of_stub(l, other) &&
            std::binary_search(stub.claims.begin(), stub.claims.end(), other.grid_node)) {
          ++claimed;
        }
      }
    }
    return claimed;
  };
  EXPECT_GT(neighbours_claimed(cautious), 0);
  EXPECT_LT(neighbours_claimed(exact), neighbours_claimed(cautious));
  // Every grid node and edge of the stubs' layer too close to a stub is
  // claimed (an edge: an end or its midpoint), and nothing farther; on a
  // finer lattice too, where an edge can pass closer than both its ends.
  const auto check_claims = [](const router_detail::Lattice& lattice) {
    const auto csr = lattice.graph.csr.view();
    const auto linked = [&](int a, int b) {
      return std::find(csr.col_indices + csr.row_offsets[a], csr.col_indices + csr.row_offsets[a + 1], b) !=
             csr.col_indices + csr.row_offsets[a + 1];
    };
    int midpoints = 0;
    for (const router_detail::Stub& stub : lattice.stubs) {
      std::vector<geometry::Primitive> wire;
      Point at = lattice.position[static_cast<std::size_t>(stub.pad_node)];
      std::vector<Point> corners = stub.bends;
      corners.push_back(lattice.position[static_cast<std::size_t>(stub.grid_node)]);
      for (const Point next : corners) {
        wire.push_back(geometry::capsule(at, next, 0));
        at = next;
      }
      const auto distance = [&](const auto& shape) {
        double d = std::numeric_limits<double>::infinity();
        for (const geometry::Primitive& piece : wire) d = std::min(d, geometry::separation(shape, piece).distance);
        return d;
      };
      const double reach = static_cast<double>(stub.width) / 2 + static_cast<double>(mm(0.19 / 2 + 0.1524));
      const auto claims = [&](int node) { return std::binary_search(stub.claims.begin(), stub.claims.end(), node); };
      const int slot = lattice.slot[static_cast<std::size_t>(stub.grid_node)];
      for (int r = 0; r < lattice.rows; ++r) {
        for (int c = 0; c < lattice.columns; ++c) {
          const int node = lattice.grid_node(slot, r, c);
          const Point p = lattice.position[static_cast<std::size_t>(node)];
          const Point pad = lattice.position[static_cast<std::size_t>(stub.pad_node)];
          if (std::abs(p.x - pad.x) > mm(2) || std::abs(p.y - pad.y) > mm(2)) continue;  // far beyond any reach
          EXPECT_EQ(claims(node), distance(p) < reach) << "grid node at " << p.x << ", " << p.y;
          for (int which = 0; which < 2; ++which) {
            if ((which == 0 && c + 1 == lattice.columns) || (which == 1 && r + 1 == lattice.rows)) continue;
            const int end = which == 0 ? node + 1 : node + lattice.columns;
            const int mid = lattice.edge_midpoints[static_cast<std::size_t>(node)][static_cast<std::size_t>(which)];
            const bool too_close =
                distance(geometry::capsule(p, lattice.position[static_cast<std::size_t>(end)], 0)) < reach;
            if (mid >= 0 && claims(mid)) {
              ++midpoints;
              EXPECT_TRUE(too_close && !claims(node) && !claims(end)) << "edge from " << p.x << ", " << p.y;
            }
            if (too_close && (mid >= 0 || linked(node, end))) {
              EXPECT_TRUE(claims(node) || claims(end) || (mid >= 0 && claims(mid)))
                  << "edge from " << p.x << ", " << p.y;
            }
          }
        }
      }
    }
    return midpoints;
  };
  int midpoints = check_claims(exact);
  // Edges come closer than both their ends only near a stub's bends: the
  // row moved by fractions of the pitch against the grid, on a finer one.
  RouterOptions finer = options;
  finer.pitch = mm(0.2568);
  for (int shift = 1; shift < 8; ++shift) {
    midpoints += check_claims(router_detail::build_lattice(fine_pitch_row(mm(0.04) * shift), finer,
                                                           router_detail::BentStubs::shut_in_and_fine_pitch,
                                                           router_detail::StubClaims::nodes_and_edges));
  }
  EXPECT_GT(midpoints, 0) << "no stub claims an edge alone: the test no longer reaches the midpoints";
}

// Random boards where some nets belong to a class with a larger clearance:
// the design-rule check, which knows nothing of the lattice, finds nothing.
TEST(Router, MixedClearanceClassesRouteCleanly) {
  for (const unsigned seed : {5u, 6u, 7u}) {
    Board board = random_board(seed, 12, 2 + static_cast<int>(seed % 2));
    NetClass wide_gap{"wide_gap", {0, 3, 7}, {}, {}};
    wide_gap.rules.clearance = mm(0.6);
    board.classes.push_back(wide_gap);
    RouterOptions options;
    options.backend = Backend::cpu;
    options.max_iterations = 20;
    const RouteResult result = route_board(board, options);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const DrcReport drc = check(board, result);
    EXPECT_TRUE(drc.routing.empty()) << drc.routing.size() << " violations, first: "
                                     << (drc.routing.empty() ? ""
                                                             : drc.routing.front().first.name + " / " +
                                                                   drc.routing.front().second.name);
    EXPECT_EQ(drc.unconnected.size(), result.unrouted_nets.size());
    EXPECT_LE(result.unrouted_nets.size(), 2u);
  }
}

class RouterBackends : public ::testing::TestWithParam<Backend> {};

TEST_P(RouterBackends, RandomBoardsRouteCleanlyAndMatchTheReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (const unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    // Seeds 5 and 6: four layers with blind, buried and through vias.
    const Board board = random_board(seed, 12, 2 + static_cast<int>(seed % 3), seed > 4);
    RouterOptions options;
    options.backend = Backend::reference;
    options.max_iterations = 12;
    const RouteResult expected = route_board(board, options);
    options.backend = GetParam();
    options.device_round_min = 1;  // on cuda every round on the device: its search is under test
    const RouteResult result = route_board(board, options);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(result.backend, GetParam());
    expect_same_copper(expected.copper, result.copper);
    EXPECT_EQ(result.unrouted_nets, expected.unrouted_nets);
    EXPECT_EQ(result.iterations.size(), expected.iterations.size());
    if (seed == 2 || seed == 5) {
      // Rounds of fewer than 3 searches (most after the first iteration)
      // on the host's cores: where a round runs changes no route.
      options.device_round_min = 3;
      const RouteResult split = route_board(board, options);
      expect_same_copper(expected.copper, split.copper);
      EXPECT_EQ(split.iterations.size(), expected.iterations.size());
    }
    const DrcReport drc = check(board, result);
    EXPECT_TRUE(drc.routing.empty()) << drc.routing.size() << " violations, first: "
                                     << (drc.routing.empty() ? ""
                                                             : drc.routing.front().first.name + " / " +
                                                                   drc.routing.front().second.name);
    EXPECT_EQ(drc.unconnected.size(), result.unrouted_nets.size());
  }
}

// Routes random boards on the reference with `baseline` and with
// `concurrent`, then with `concurrent` on the backend under test: the
// backend's routes are the reference's, complete and clean, and on some
// board they differ from the baseline's.
void expect_concurrency_routes_alike(Backend backend, const RouterOptions& baseline, const RouterOptions& concurrent) {
  int differing = 0;
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Board board = random_board(seed, 12, 2 + static_cast<int>(seed % 3));
    RouterOptions options = baseline;
    options.backend = Backend::reference;
    options.max_iterations = 25;
    const RouteResult before = route_board(board, options);
    options = concurrent;
    options.backend = Backend::reference;
    options.max_iterations = 25;
    const RouteResult expected = route_board(board, options);
    options.backend = backend;
    options.device_round_min = 1;
    const RouteResult result = route_board(board, options);
    expect_same_copper(expected.copper, result.copper);
    EXPECT_EQ(result.iterations.size(), expected.iterations.size());
    expect_complete_and_clean(board, result);
    if (before.iterations.size() != result.iterations.size() || before.wire_length != result.wire_length) ++differing;
  }
  EXPECT_GT(differing, 0) << "the concurrency should change the negotiation somewhere";
}

// Concurrent nets: nets whose reaches overlap share a batch after the first
// iteration and are searched against the same copper. The routes differ
// from the default's on some of these boards (the nets no longer see each
// other within a batch), are the same on every backend, and end complete
// and clean all the same.
TEST_P(RouterBackends, ConcurrentNetsRouteAlikeOnEveryBackend) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  RouterOptions concurrent;
  concurrent.concurrent_nets = 6;
  expect_concurrency_routes_alike(GetParam(), RouterOptions{}, concurrent);
}

// Concurrency that follows overuse: as many nets share a batch as the
// overuse allows, fewer as it falls; the same routes on every backend, and
// not those of the fixed concurrency (the later iterations route one net
// after another).
TEST_P(RouterBackends, ConcurrencyFollowingOveruseRoutesAlikeOnEveryBackend) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  RouterOptions fixed;
  fixed.concurrent_nets = 6;
  RouterOptions following = fixed;
  following.concurrency_follows_overuse = true;
  following.overuse_per_concurrent_net = 2;
  expect_concurrency_routes_alike(GetParam(), fixed, following);
}

// Checked batches (the default): nets whose reaches overlap share a batch
// after the first iteration, and a path found is placed only where the
// paths placed before it left its price as searched. The routes differ
// from those of batches of nets apart on some of these boards (the order
// of placement changes), are the same on every backend, and end complete
// and clean.
TEST_P(RouterBackends, CheckedBatchesRouteAlikeOnEveryBackend) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  RouterOptions apart;
  apart.checked_batches = false;
  expect_concurrency_routes_alike(GetParam(), apart, RouterOptions{});
}

// Exact stub claims (edges through midpoints, priced by the searches):
// the fine-pitch row, moved against the grid so that some stubs claim
// edges, routes complete and clean, the same on every backend.
TEST_P(RouterBackends, ExactStubClaimsRouteAlikeOnEveryBackend) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (const int shift : {0, 3, 5}) {
    SCOPED_TRACE("shift " + std::to_string(shift));
    const Board board = fine_pitch_row(mm(0.04) * shift);
    RouterOptions options;
    options.exact_stub_claims = true;
    options.backend = Backend::reference;
    const RouteResult expected = route_board(board, options);
    options.backend = GetParam();
    options.device_round_min = 1;
    const RouteResult result = route_board(board, options);
    expect_same_copper(expected.copper, result.copper);
    EXPECT_EQ(result.iterations.size(), expected.iterations.size());
    expect_complete_and_clean(board, result);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RouterBackends, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

// A checked batch of one net is one net after another in routing order,
// which is what batches of nets apart give at any size: the same copper.
// With larger checked batches, the later iterations search several nets a
// round, and some paths are searched again because a path placed before
// them in their round raised their price.
TEST(Router, CheckedBatchesRunSearchesSideBySideAndKeepTheirPricesExact) {
  std::size_t again = 0;
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    const Board board = random_board(seed, 12, 2 + static_cast<int>(seed % 3));
    RouterOptions options;
    options.backend = Backend::cpu;
    options.max_iterations = 25;
    options.checked_batches = false;
    const RouteResult apart = route_board(board, options);
    options.checked_batches = true;
    options.batch_size = 1;
    const RouteResult one = route_board(board, options);
    expect_same_copper(apart.copper, one.copper);
    ASSERT_EQ(one.iterations.size(), apart.iterations.size());
    for (std::size_t i = 1; i < one.iterations.size(); ++i) {
      EXPECT_EQ(one.iterations[i].search_rounds, one.iterations[i].connections_searched);
      EXPECT_EQ(one.iterations[i].paths_searched_again, 0u);
    }
    options.batch_size = RouterOptions{}.batch_size;
    const RouteResult checked = route_board(board, options);
    expect_complete_and_clean(board, checked);
    ASSERT_GE(checked.iterations.size(), 2u);
    const RouteIteration& second = checked.iterations[1];
    EXPECT_LT(second.search_rounds, second.connections_searched);
    for (const RouteIteration& it : checked.iterations) {
      EXPECT_LE(it.paths_searched_again, it.connections_searched);
      again += it.paths_searched_again;
    }
  }
  EXPECT_GT(again, 0u) << "on these congested boards some path should be priced higher by the time it is placed";
}

// After one iteration (pres_fac 0: every net routed as if alone) these
// random boards end with conflicts, and routing each dropped net round the
// others' copper leaves one or two unrouted: the net has no way round
// another's present route. Making room (the dropped net through the
// other's copper, then the other moved round it) completes them.
TEST(Router, ADroppedNetMakesRoomByMovingAnother) {
  for (const unsigned seed : {32u, 46u, 116u, 119u, 148u}) {
    SCOPED_TRACE(seed);
    const Board board = random_board(seed, 14, 3);
    expect_complete_and_clean(board, route_one_iteration(board));
  }
}

// From the second iteration on a net on overuse searches again only its
// connections in conflict (and those hanging from them), not all of them:
// on random boards of five-pin nets the later iterations search fewer
// connections than rerouting whole nets does, and both end complete and
// clean.
TEST(Router, ACongestedNetSearchesOnlyItsConnectionsInConflict) {
  const auto later_searches = [](const RouteResult& result) {
    std::size_t searches = 0;
    for (std::size_t i = 1; i < result.iterations.size(); ++i) searches += result.iterations[i].connections_searched;
    return searches;
  };
  for (const unsigned seed : {1u, 8u, 20u, 21u}) {
    SCOPED_TRACE(seed);
    const Board board = random_board(seed, 8, 5);
    RouterOptions options;
    options.backend = Backend::cpu;
    options.reroute_whole_nets = true;
    const RouteResult whole = route_board(board, options);
    options.reroute_whole_nets = false;
    const RouteResult partial = route_board(board, options);
    expect_complete_and_clean(board, whole);
    expect_complete_and_clean(board, partial);
    ASSERT_GE(whole.iterations.size(), 2u);
    ASSERT_GE(partial.iterations.size(), 2u);
    // The first iterations are the same: every connection of every net.
    EXPECT_EQ(partial.iterations[0].connections_searched, whole.iterations[0].connections_searched);
    EXPECT_GE(whole.iterations[0].connections_searched, 8u * 4u);
    // The second reroutes the same nets, fewer of their connections.
    EXPECT_EQ(partial.iterations[1].nets_routed, whole.iterations[1].nets_routed);
    EXPECT_LT(partial.iterations[1].connections_searched, whole.iterations[1].connections_searched);
    EXPECT_LT(later_searches(partial), later_searches(whole));
  }
}

// The clean-up after the negotiation: each complete net routed again alone
// round the others' final copper, kept where it costs less. With
// right-angle wires (no corners cut) the clean-up's price of a routing is
// its wire in grid steps plus cleanup_via_cost a via, so on every board
// that sum may only fall, and over these dense random boards it does; no
// net is lost, and the copper stays clean.
TEST(Router, TheCleanUpShortensRoutesAndLosesNoNet) {
  double before_total = 0;
  double after_total = 0;
  for (const unsigned seed : {1u, 2u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Board board = random_board(seed, 16, 3, seed > 4);
    RouterOptions options;
    options.backend = Backend::cpu;
    options.miter_corners = false;
    options.cleanup_passes = 0;
    const RouteResult before = route_board(board, options);
    options.cleanup_passes = 2;
    const RouteResult after = route_board(board, options);
    const auto price = [&](const RouteResult& r) {
      return static_cast<double>(r.wire_length) / static_cast<double>(r.lattice.pitch) +
             std::max(options.via_cost, options.cleanup_via_cost) * static_cast<double>(r.via_count);
    };
    EXPECT_LE(after.unrouted_nets.size(), before.unrouted_nets.size());
    for (const int net : after.unrouted_nets) {
      EXPECT_NE(std::find(before.unrouted_nets.begin(), before.unrouted_nets.end(), net), before.unrouted_nets.end());
    }
    if (after.unrouted_nets == before.unrouted_nets) {
      EXPECT_LE(price(after), price(before) * (1 + 1e-9));
      before_total += price(before);
      after_total += price(after);
    }
    const DrcReport drc = check(board, after);
    EXPECT_TRUE(drc.routing.empty());
    EXPECT_EQ(drc.unconnected.size(), after.unrouted_nets.size());
  }
  EXPECT_LT(after_total, before_total * 0.999) << "the clean-up should shorten some routing";
}

// A via priced higher in the clean-up than in the negotiation: layer
// changes traded for longer ways round where the others' copper leaves
// room. Over these boards the vias fall, no net is lost, and the copper
// stays clean.
TEST(Router, TheCleanUpTradesViasForWire) {
  std::size_t plain_vias = 0;
  std::size_t priced_vias = 0;
  for (const unsigned seed : {1u, 2u, 3u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Board board = random_board(seed, 16, 2 + static_cast<int>(seed % 2), seed > 4);
    RouterOptions options;
    options.backend = Backend::cpu;
    options.cleanup_via_cost = options.via_cost;
    const RouteResult plain = route_board(board, options);
    options.cleanup_via_cost = 4 * options.via_cost;
    const RouteResult priced = route_board(board, options);
    EXPECT_EQ(priced.unrouted_nets, plain.unrouted_nets);
    plain_vias += plain.via_count;
    priced_vias += priced.via_count;
    const DrcReport drc = check(board, priced);
    EXPECT_TRUE(drc.routing.empty());
    EXPECT_EQ(drc.unconnected.size(), priced.unrouted_nets.size());
  }
  EXPECT_LT(priced_vias, plain_vias);
}

// Three wires between through-hole pins, each free to run on either layer,
// and a net between two front pads across all of them. With one iteration
// the net, in conflict with all three, is dropped and routed round them
// with vias; rerouting any one net alone keeps those vias, so the clean-up
// routes the net through the wires in its way and then those wires round
// it: the vias go, and the copper stays clean.
TEST(Router, TheCleanUpMovesWiresOffTheLayerAnotherNetCrosses) {
  BoardBuilder b;
  for (const auto& [name, x] : {std::pair{"B1", 6.0}, {"B2", 10.0}, {"B3", 14.0}}) {
    b.net(name, {b.part(b.through, {mm(x), mm(1.5)}), b.part(b.through, {mm(x), mm(18.5)})});
  }
  b.net("A", {b.part(b.smd, {mm(1), mm(10)}), b.part(b.smd, {mm(19), mm(10)})});
  RouterOptions options;
  options.backend = Backend::cpu;
  options.max_iterations = 1;
  options.cleanup_passes = 0;
  const RouteResult negotiated = route_board(b.board, options);
  ASSERT_TRUE(negotiated.unrouted_nets.empty());
  ASSERT_GT(negotiated.via_count, 0u) << "the net no longer has to pass the wires";
  options.cleanup_passes = 1;
  const RouteResult cleaned = route_board(b.board, options);
  expect_complete_and_clean(b.board, cleaned);
  EXPECT_EQ(cleaned.via_count, 0u);
}

// Routes depend on the board and the options only: the searches of a
// round run side by side on the host's threads and are placed in routing
// order, so these dense boards (nets crowded round each other, so that
// paths go stale and are searched again) route the same on one thread and
// on eight.
TEST(Router, RoutesAlikeOnAnyNumberOfThreads) {
  const int threads = omp_get_max_threads();
  std::size_t searched_again = 0;
  for (const unsigned seed : {1u, 5u, 9u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Board board = random_board(seed, 24, 3, seed > 4);
    RouterOptions options;
    options.backend = Backend::cpu;
    omp_set_num_threads(1);
    const RouteResult alone = route_board(board, options);
    omp_set_num_threads(8);
    const RouteResult side_by_side = route_board(board, options);
    omp_set_num_threads(threads);
    expect_same_copper(alone.copper, side_by_side.copper);
    EXPECT_EQ(alone.wire_length, side_by_side.wire_length);
    EXPECT_EQ(alone.unrouted_nets, side_by_side.unrouted_nets);
    EXPECT_EQ(alone.iterations.size(), side_by_side.iterations.size());
    for (const RouteIteration& it : side_by_side.iterations) searched_again += it.paths_searched_again;
  }
  EXPECT_GT(searched_again, 0u) << "no path went stale: the boards no longer test the placing order";
}

TEST(Router, SameInputSameRoutes) {
  const Board board = random_board(11, 14, 3);
  RouterOptions options;
  options.backend = Backend::cpu;
  options.max_iterations = 12;
  const RouteResult first = route_board(board, options);
  const RouteResult second = route_board(board, options);
  expect_same_copper(first.copper, second.copper);
  EXPECT_EQ(first.wire_length, second.wire_length);
}

TEST(Router, LeftToChooseItRoutesOnCpu) {
  RouterOptions options;
  options.max_iterations = 2;
  EXPECT_EQ(options.backend, Backend::automatic);
  EXPECT_EQ(route_board(crossing_board(), options).backend, Backend::cpu);
}

// A pcbench board's unrouted.dsn under TRELLIS_BOARDS_DIR (ctest sets it to
// ../shared/boards), or why there is none.
std::filesystem::path pcbench_board(const std::string& name, std::string& why_not) {
  const char* dir = std::getenv("TRELLIS_BOARDS_DIR");
  if (dir == nullptr || *dir == '\0') {
    why_not = "TRELLIS_BOARDS_DIR is not set (ctest sets it to ../shared/boards)";
    return {};
  }
  const std::filesystem::path file = std::filesystem::path(dir) / "pcbench" / name / "unrouted.dsn";
  if (!std::filesystem::exists(file)) {
    why_not = file.string() + " is missing";
    return {};
  }
  return file;
}

// A real board from ../shared/boards, when TRELLIS_BOARDS_DIR points there.
TEST(Router, SharedBoardRoutesWithoutViolations) {
  std::string why_not;
  const std::filesystem::path file = pcbench_board("OpenVNAVI_motor unit", why_not);
  if (file.empty()) GTEST_SKIP() << why_not;
  const Board board = read_dsn_file(file);
  RouterOptions options;
  options.backend = Backend::cpu;
  expect_complete_and_clean(board, route_board(board, options));
}

// Pads 0.4 mm apart leave a 0.25 mm wire with 0.2 mm clearance no room even
// at their centres: without neck-down the warning says no pitch helps, and
// the router does not try a finer one.
TEST(Router, APinNoWireCanLeaveIsNotRetriedOnAFinerLattice) {
  BoardBuilder b;
  const int tiny = b.padstack("tiny", {{0, rect({mm(-0.1), mm(-0.1)}, {mm(0.1), mm(0.1)})}});
  b.net("A", {b.part(tiny, {mm(10), mm(10)}), b.part(b.smd, {mm(3), mm(3)})});
  b.net("B", {b.part(tiny, {mm(10.4), mm(10)}), b.part(b.smd, {mm(17), mm(17)})});
  RouterOptions options;
  options.backend = Backend::reference;
  options.neck_down_width = 0;  // a 0.15 mm neck would leave them (the next test)
  std::vector<Coord> pitches;   // of every iteration run, kept or not
  const RouteResult result =
      route_board(b.board, options, [&](const RouteIteration& it) { pitches.push_back(it.pitch); });
  EXPECT_EQ(result.unrouted_nets.size(), 2u);
  EXPECT_EQ(result.blocked_nets, result.unrouted_nets);
  ASSERT_EQ(result.warnings.size(), 2u);
  for (const std::string& warning : result.warnings) {
    EXPECT_NE(warning.find("0.25 mm wide"), std::string::npos) << warning;
    EXPECT_NE(warning.find("no pitch helps"), std::string::npos) << warning;
  }
  ASSERT_FALSE(pitches.empty());
  for (const Coord pitch : pitches) EXPECT_EQ(pitch, mm(0.45)) << "the default pitch: 0.25 mm wire + 0.2 mm clearance";
}

// No via may sit where it would come within the clearance of a through-hole
// pad, the pad's own net's included: the pad joins its layers already, and
// KiCad checks a via's drill against the pad's. An SMD pad of another net
// restricts via sites to its own net only.
TEST(Router, ViasKeepClearOfThroughHolePadsOfEveryNet) {
  BoardBuilder b;
  const Point hole{mm(10), mm(10)};
  const Point smd{mm(5), mm(10)};
  b.net("A", {b.part(b.through, hole), b.part(b.smd, {mm(3), mm(3)}), b.part(b.smd, smd)});
  b.net("B", {b.part(b.smd, {mm(17), mm(17)}), b.part(b.smd, {mm(17), mm(3)})});
  const router_detail::Lattice lattice = router_detail::build_lattice(b.board, RouterOptions{});
  const int group = lattice.group_of_net[0];
  ASSERT_EQ(group, lattice.group_of_net[1]);
  const std::vector<int>& owner = lattice.owner[static_cast<std::size_t>(group)];
  // 0.6 mm via + 0.2 mm clearance + 1.2 mm pad: centres 1.1 mm apart or more.
  const double keep_off_hole = static_cast<double>(mm(0.3 + 0.2 + 0.6));
  const double keep_off_smd = static_cast<double>(mm(0.3 + 0.2 + 0.4));
  std::size_t near_hole = 0, near_smd = 0;
  for (int node = lattice.via_base; node < lattice.pad_base; ++node) {
    const Point at = lattice.position[static_cast<std::size_t>(node)];
    const int who = owner[static_cast<std::size_t>(node)];
    if (std::hypot(static_cast<double>(at.x - hole.x), static_cast<double>(at.y - hole.y)) < keep_off_hole) {
      ++near_hole;
      EXPECT_EQ(who, router_detail::kNoNet) << "a via site " << at.x << ", " << at.y << " by the hole";
    }
    if (std::hypot(static_cast<double>(at.x - smd.x), static_cast<double>(at.y - smd.y)) < keep_off_smd) {
      ++near_smd;
      EXPECT_EQ(who, 0) << "a via site by net A's SMD pad is A's alone";
    }
  }
  EXPECT_GT(near_hole, 4u);
  EXPECT_GT(near_smd, 2u);
  // Routed, no via of either net comes near the hole.
  const RouteResult result = route_board(b.board, RouterOptions{});
  expect_complete_and_clean(b.board, result);
  for (const Via& via : result.copper.vias) {
    EXPECT_GE(std::hypot(static_cast<double>(via.position.x - hole.x), static_cast<double>(via.position.y - hole.y)),
              keep_off_hole);
  }
}

// Three pads in a row 0.4 mm apart: no 0.25 mm wire with 0.2 mm clearance
// leaves the middle one, nor the outer ones toward their neighbours. Each
// net narrows to the neck-down width between its pad and the lattice, and
// only there; the board is then complete and clean on every backend.
TEST(Router, WiresNeckDownToLeaveFinePitchPads) {
  BoardBuilder b;
  const int tiny = b.padstack("tiny", {{0, rect({mm(-0.1), mm(-0.1)}, {mm(0.1), mm(0.1)})}});
  const std::vector<Point> row{{mm(10), mm(10)}, {mm(10.4), mm(10)}, {mm(10.8), mm(10)}};
  b.net("A", {b.part(tiny, row[0]), b.part(b.smd, {mm(3), mm(3)})});
  b.net("B", {b.part(tiny, row[1]), b.part(b.smd, {mm(10.4), mm(17)})});
  b.net("C", {b.part(tiny, row[2]), b.part(b.smd, {mm(17), mm(3)})});
  for (const std::optional<Coord> neck : {std::optional<Coord>{}, std::optional<Coord>{mm(0.1)}}) {
    SCOPED_TRACE(neck ? "a 0.1 mm neck" : "the default neck");
    const Coord expected_neck = neck.value_or(kDefaultNeckDownWidth);
    RouterOptions options;
    options.neck_down_width = neck;
    options.backend = Backend::reference;
    const RouteResult reference = route_board(b.board, options);
    expect_complete_and_clean(b.board, reference);
    EXPECT_TRUE(reference.warnings.empty());
    // Every wire touching a row pad's centre is the neck, the rest full width.
    std::size_t necks = 0;
    for (const Wire& wire : reference.copper.wires) {
      const auto& points = wire.shape.points;
      const bool at_row =
          std::any_of(row.begin(), row.end(), [&](Point p) { return points.front() == p || points.back() == p; });
      EXPECT_EQ(wire.shape.width, at_row ? expected_neck : mm(0.25));
      necks += at_row ? 1 : 0;
    }
    EXPECT_EQ(necks, 3u);
    for (const Backend backend : testing::backends_under_test()) {
      if (backend == Backend::reference || !testing::unavailable_reason(backend).empty()) continue;
      SCOPED_TRACE(to_string(backend));
      options.backend = backend;
      expect_same_copper(reference.copper, route_board(b.board, options).copper);
    }
  }
}

// A pin at the closed end of a channel 5.7 mm long between pads of other
// nets: a 0.25 mm wire with 0.2 mm clearance fits along it only within
// 0.05 mm of its axis, so only a lattice with a row there routes it (every
// lattice starts at the board's corner). Net S joins the pin to a pad
// beyond the channel's open end.
Board channel_board(Coord axis) {
  BoardBuilder b;
  const Coord inner = mm(0.375);  // from the axis to each wall: the wire's 0.325 mm and 0.05 mm to spare
  const int wall = b.padstack("wall", {{0, rect({mm(-3), mm(-0.25)}, {mm(3), mm(0.25)})}});
  const int end = b.padstack("end", {{0, rect({mm(-0.15), mm(-0.625)}, {mm(0.15), mm(0.625)})}});
  const int pin = b.padstack("pin", {{0, rect({mm(-0.15), mm(-0.15)}, {mm(0.15), mm(0.15)})}});
  b.net("top", {b.part(wall, {mm(12.7), axis + inner + mm(0.25)})});
  b.net("bottom", {b.part(wall, {mm(12.7), axis - inner - mm(0.25)})});
  b.net("end", {b.part(end, {mm(9.15), axis})});
  b.net("S", {b.part(pin, {mm(9.8), axis}), b.part(b.smd, {mm(17), axis})});
  return b.board;
}

// Where nets stay unrouted, the board is routed again on a lattice of 3/4
// the pitch: the channel's axis (y = 9.7875 mm) is row 29 of the 0.3375 mm
// lattice and 0.1125 mm from the nearest row of the 0.45 mm one.
TEST(Router, NetsLeftUnroutedAreTriedAgainOnAFinerLattice) {
  const Board board = channel_board(mm(9.7875));
  RouterOptions options;
  options.backend = Backend::cpu;
  options.refine_pitch = false;
  const RouteResult coarse = route_board(board, options);
  ASSERT_FALSE(coarse.unrouted_nets.empty()) << "the default pitch should leave a net unrouted here";
  options.refine_pitch = true;
  const RouteResult refined = route_board(board, options);
  EXPECT_EQ(refined.lattice.pitch, coarse.lattice.pitch * 3 / 4);
  ASSERT_FALSE(refined.iterations.empty());
  EXPECT_EQ(refined.iterations.front().pitch, refined.lattice.pitch);
  expect_complete_and_clean(board, refined);
  // A pitch given by the user is kept, complete or not.
  options.pitch = coarse.lattice.pitch;
  EXPECT_EQ(route_board(board, options).lattice.pitch, coarse.lattice.pitch);
}

// Where a connection still finds no way on the finer lattice, a finer one
// again is tried, and the routing that leaves the fewest nets apart is
// kept.
TEST(Router, AFinerLatticeAgainWhileSomePinIsOutOfReach) {
  // The axis, y = 9.61875 mm, is row 38 of the 0.253125 mm lattice and
  // 0.169 mm or more from the rows of the 0.45 and 0.3375 mm ones.
  const Board board = channel_board(mm(9.61875));
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult refined = route_board(board, options);
  options.refine_pitch = false;
  const RouteResult coarse = route_board(board, options);
  EXPECT_EQ(coarse.lattice.pitch, mm(0.45));
  options.pitch = coarse.lattice.pitch * 3 / 4;
  const RouteResult once = route_board(board, options);
  ASSERT_FALSE(once.unrouted_nets.empty()) << "one finer lattice should leave the net unrouted here";
  EXPECT_TRUE(refined.unrouted_nets.empty());
  EXPECT_EQ(refined.lattice.pitch, mm(0.253125));
  const DrcReport drc = check(board, refined);
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
}

// An unrouted net that the lattice leaves apart even with no other net
// routed is named as blocked by its own rules, with its pins and its wire
// and clearance; one that only lacks room others took is not.
TEST(Router, NetsBlockedByTheirOwnRulesAreNamed) {
  const Board channel = channel_board(mm(9.61875));
  RouterOptions options;
  options.backend = Backend::reference;
  options.refine_pitch = false;
  const RouteResult blocked = route_board(channel, options);
  ASSERT_EQ(blocked.unrouted_nets.size(), 1u);
  EXPECT_EQ(blocked.blocked_nets, blocked.unrouted_nets);
  const auto named = std::find_if(blocked.warnings.begin(), blocked.warnings.end(), [](const std::string& w) {
    return w.starts_with("net 'S' is blocked by its own rules");
  });
  ASSERT_NE(named, blocked.warnings.end());
  EXPECT_NE(named->find("the lattice of 0.45 mm"), std::string::npos) << *named;
  EXPECT_NE(named->find("0.25 mm wire with 0.2 mm clearance from pin P4-1 to pin P5-1"), std::string::npos) << *named;

  // A wall across the board, on both layers, with a gap for one wire a
  // layer (0.8 mm: two would need 1.1 mm), centred on a row of the 0.45 mm
  // lattice. Three nets must pass it; each alone could.
  BoardBuilder b;
  const int wall =
      b.padstack("wall", {{0, rect({mm(-0.5), 0}, {mm(0.5), mm(10)})}, {1, rect({mm(-0.5), 0}, {mm(0.5), mm(10)})}});
  b.net("lower wall", {b.part(wall, {mm(10), mm(-0.5)})});
  b.net("upper wall", {b.part(wall, {mm(10), mm(10.3)})});
  b.net("A", {b.part(b.smd, {mm(5), mm(8)}), b.part(b.smd, {mm(15), mm(8)})});
  b.net("B", {b.part(b.smd, {mm(5), mm(12)}), b.part(b.smd, {mm(15), mm(12)})});
  b.net("C", {b.part(b.smd, {mm(5), mm(4)}), b.part(b.smd, {mm(15), mm(4)})});
  options.max_iterations = 10;
  const RouteResult congested = route_board(b.board, options);
  EXPECT_EQ(congested.unrouted_nets.size(), 1u);
  EXPECT_TRUE(congested.blocked_nets.empty());

  // Left apart by congestion, with finer lattices allowed: finer lattices
  // (each 3/4 of the last; one that leaves the unrouted net's pins apart
  // even alone is not negotiated: 0.3375 mm puts no row through the gap),
  // then the finest once more with straight stubs only at fine-pitch pads,
  // the first once more with bent stubs there reaching further, the first
  // under a steeper negotiation, and the first with exact stub claims;
  // each routing starts at iteration 1, the steeper one with its own
  // present factors.
  options.refine_pitch = true;
  std::vector<Coord> pitches;
  std::vector<double> third_factors;  // each routing's present factor in its third iteration, 0 if none
  const RouteResult refined = route_board(b.board, options, [&](const RouteIteration& it) {
    if (it.iteration == 1) {
      pitches.push_back(it.pitch);
      third_factors.push_back(0);  // a routing may end before its third iteration
    }
    if (it.iteration == 3) third_factors.back() = it.present_factor;
  });
  EXPECT_EQ(refined.unrouted_nets.size(), 1u);
  ASSERT_GE(pitches.size(), 6u);
  EXPECT_EQ(pitches.front(), mm(0.45));
  const std::size_t finer = pitches.size() - 4;  // the lattices routed before the other stubs
  const Coord three_quarters = pitches.front() * 3 / 4;
  EXPECT_EQ(std::vector<Coord>(pitches.begin(), pitches.begin() + static_cast<std::ptrdiff_t>(finer)),
            (std::vector<Coord>{pitches.front(), three_quarters * 3 / 4}));
  EXPECT_EQ(pitches[finer], pitches[finer - 1]);
  EXPECT_EQ(pitches[finer + 1], pitches.front());
  EXPECT_EQ(pitches[finer + 2], pitches.front());
  EXPECT_EQ(pitches.back(), pitches.front());
  ASSERT_EQ(third_factors.size(), pitches.size());
  EXPECT_DOUBLE_EQ(third_factors.front(), options.present_factor * options.present_factor_growth);
  EXPECT_DOUBLE_EQ(third_factors[finer + 2], options.present_factor * 1.6);
  EXPECT_DOUBLE_EQ(third_factors.back(), options.present_factor * options.present_factor_growth);
}

}  // namespace
}  // namespace trellis::route
