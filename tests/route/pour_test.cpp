// The pour rule: what a net's copper zone surely connects once refilled,
// on a small board of two connectors joined by a GND zone on B.Cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
#include "support/backends.hpp"
#include "trellis/route/router.hpp"

namespace trellis::route {
namespace {

constexpr Coord mm(double value) { return static_cast<Coord>(std::llround(value * 1e6)); }

// A 30 x 20 mm two-layer board: J1 at x = 5 mm and J2 at x = 25 mm, each a
// GND pad (1) and a SIG pad (2) 5 mm apart, through-hole; a GND zone over
// the whole board on B.Cu connecting pads as `connect` says.
std::string board_text(const std::string& connect, const std::string& j1_pad_extra = "") {
  const auto connector = [&](const std::string& reference, double x) {
    return "  (footprint \"Lib:Conn\" (layer \"F.Cu\") (at " + std::to_string(x) +
           " 10)\n"
           "    (fp_text reference \"" +
           reference +
           "\" (at 0 -3) (layer \"F.SilkS\"))\n"
           "    (pad \"1\" thru_hole circle (at 0 -2.5) (size 1.6 1.6) (drill 0.8) (layers *.Cu) (net 1 \"GND\")" +
           (reference == "J1" ? j1_pad_extra : "") +
           ")\n"
           "    (pad \"2\" thru_hole circle (at 0 2.5) (size 1.6 1.6) (drill 0.8) (layers *.Cu) (net 2 \"SIG\")))\n";
  };
  return "(kicad_pcb (version 20211014) (generator pcbnew)\n"
         "  (general (thickness 1.6))\n"
         "  (layers (0 \"F.Cu\" signal) (31 \"B.Cu\" signal) (37 \"F.SilkS\" user) (44 \"Edge.Cuts\" user))\n"
         "  (setup (pad_to_mask_clearance 0))\n"
         "  (net 0 \"\") (net 1 \"GND\") (net 2 \"SIG\")\n"
         "  (gr_rect (start 0 0) (end 30 20) (layer \"Edge.Cuts\") (width 0.1))\n" +
         connector("J1", 5) + connector("J2", 25) +
         "  (zone (net 1) (net_name \"GND\") (layer \"B.Cu\") (hatch edge 0.508)\n"
         "    (connect_pads " +
         connect +
         "(clearance 0.5)) (min_thickness 0.25)\n"
         "    (fill yes (thermal_gap 0.5) (thermal_bridge_width 0.5))\n"
         "    (polygon (pts (xy 0.5 0.5) (xy 29.5 0.5) (xy 29.5 19.5) (xy 0.5 19.5))))\n)\n";
}

bool joined(const Board& board, const std::vector<PourIsland>& islands, const std::string& a, const std::string& b) {
  return std::any_of(islands.begin(), islands.end(), [&](const PourIsland& island) {
    const auto has = [&](const std::string& name) {
      return std::any_of(island.pins.begin(), island.pins.end(),
                         [&](const PinRef& pin) { return pin_name(board, pin) == name; });
    };
    return has(a) && has(b);
  });
}

// A SIG wire across the whole board at x = 15 mm on `layer`.
Wire cut(int layer) {
  return {
      layer, {ShapeKind::path, mm(0.25), {{mm(15), mm(-1)}, {mm(15), mm(-19)}}}, 1, WiringType::normal};  // net 1: SIG
}

TEST(PourIslands, ThermalPadsInOnePourAreJoined) {
  const Board board = read_kicad_pcb(board_text(""), "pour.kicad_pcb");
  ASSERT_EQ(board.planes.size(), 1u);
  ASSERT_TRUE(board.planes[0].pour);
  EXPECT_EQ(board.planes[0].pour->pads, PadConnection::thermal);
  const std::vector<PourIsland> islands = pour_islands(board, {});
  EXPECT_TRUE(joined(board, islands, "J1-1", "J2-1"));
  for (const PourIsland& island : islands) EXPECT_EQ(board.nets[static_cast<std::size_t>(island.net)].name, "GND");
  EXPECT_FALSE(joined(board, islands, "J1-1", "J1-2")) << "SIG pads are the pour's obstacles";
}

TEST(PourIslands, AnotherNetsWireAcrossThePourParts) {
  const Board board = read_kicad_pcb(board_text(""), "pour.kicad_pcb");
  EXPECT_FALSE(joined(board, pour_islands(board, {{cut(1)}, {}}), "J1-1", "J2-1")) << "the wire cuts the B.Cu pour";
  EXPECT_TRUE(joined(board, pour_islands(board, {{cut(0)}, {}}), "J1-1", "J2-1")) << "a wire on F.Cu leaves it whole";
}

TEST(PourIslands, PadsThePourDoesNotConnectStayApart) {
  const Board board = read_kicad_pcb(board_text("no "), "pour.kicad_pcb");
  EXPECT_FALSE(joined(board, pour_islands(board, {}), "J1-1", "J2-1"));
  const Board solid = read_kicad_pcb(board_text("yes "), "pour.kicad_pcb");
  EXPECT_TRUE(joined(solid, pour_islands(solid, {}), "J1-1", "J2-1"));
}

TEST(PourIslands, APadsOwnZoneConnectionComesFirst) {
  const Board none = read_kicad_pcb(board_text("", " (zone_connect 0)"), "pour.kicad_pcb");
  EXPECT_FALSE(joined(none, pour_islands(none, {}), "J1-1", "J2-1")) << "J1-1 asks for no connection";
  const Board solid = read_kicad_pcb(board_text("no ", " (zone_connect 2)"), "pour.kicad_pcb");
  EXPECT_FALSE(joined(solid, pour_islands(solid, {}), "J1-1", "J2-1")) << "J2-1 still takes the zone's none";
}

TEST(PourIslands, DrcCountsWhatThePourJoins) {
  const Board board = read_kicad_pcb(board_text(""), "pour.kicad_pcb");
  const RoutedCopper sig{
      {{1, {ShapeKind::path, mm(0.25), {{mm(5), mm(-12.5)}, {mm(25), mm(-12.5)}}}, 1, WiringType::normal}}, {}};
  const DrcReport report = check_design_rules(board, sig);
  EXPECT_TRUE(report.unconnected.empty());
  ASSERT_EQ(report.pours.size(), 1u);
  EXPECT_EQ(report.pours[0].pins.size(), 2u);
  const DrcReport cut_report = check_design_rules(board, {{cut(1)}, {}});
  ASSERT_EQ(cut_report.unconnected.size(), 2u) << "GND parted by the cut, SIG unrouted";
}

TEST(PourIslands, TheRouterLeavesPouredConnectionsToThePour) {
  const Board board = read_kicad_pcb(board_text(""), "pour.kicad_pcb");
  RouterOptions options;
  options.backend = Backend::cpu;
  const RouteResult result = route_board(board, options);
  EXPECT_TRUE(result.unrouted_nets.empty());
  for (const Wire& wire : result.copper.wires) EXPECT_NE(board.nets[static_cast<std::size_t>(wire.net)].name, "GND");
  EXPECT_TRUE(joined(board, result.pour_joins, "J1-1", "J2-1"));
  EXPECT_TRUE(check_design_rules(board, result.copper).unconnected.empty());
}

// The same two GND connectors, and SIG between two surface-mount pads on
// B.Cu at x = 15 mm, near the top and bottom edges: a SIG wire along B.Cu
// parts the GND pour from edge to edge. F.Cu is of type `front_type`.
std::string board_with_a_cut_across(const std::string& front_type = "signal") {
  return "(kicad_pcb (version 20211014) (generator pcbnew)\n"
         "  (general (thickness 1.6))\n"
         "  (layers (0 \"F.Cu\" " +
         front_type +
         ") (31 \"B.Cu\" signal) (37 \"F.SilkS\" user) (44 \"Edge.Cuts\" user))\n"
         "  (setup (pad_to_mask_clearance 0))\n"
         "  (net 0 \"\") (net 1 \"GND\") (net 2 \"SIG\")\n"
         "  (gr_rect (start 0 0) (end 30 20) (layer \"Edge.Cuts\") (width 0.1))\n"
         "  (footprint \"Lib:Pin\" (layer \"F.Cu\") (at 5 10)\n"
         "    (fp_text reference \"J1\" (at 0 -3) (layer \"F.SilkS\"))\n"
         "    (pad \"1\" thru_hole circle (at 0 0) (size 1.6 1.6) (drill 0.8) (layers *.Cu) (net 1 \"GND\")))\n"
         "  (footprint \"Lib:Pin\" (layer \"F.Cu\") (at 25 10)\n"
         "    (fp_text reference \"J2\" (at 0 -3) (layer \"F.SilkS\"))\n"
         "    (pad \"1\" thru_hole circle (at 0 0) (size 1.6 1.6) (drill 0.8) (layers *.Cu) (net 1 \"GND\")))\n"
         "  (footprint \"Lib:Pads\" (layer \"F.Cu\") (at 15 10)\n"
         "    (fp_text reference \"S1\" (at 0 -3) (layer \"F.SilkS\"))\n"
         "    (pad \"1\" smd rect (at 0 -8) (size 1.6 1.6) (layers \"B.Cu\") (net 2 \"SIG\"))\n"
         "    (pad \"2\" smd rect (at 0 8) (size 1.6 1.6) (layers \"B.Cu\") (net 2 \"SIG\")))\n"
         "  (zone (net 1) (net_name \"GND\") (layer \"B.Cu\") (hatch edge 0.508)\n"
         "    (connect_pads (clearance 0.5)) (min_thickness 0.25)\n"
         "    (fill yes (thermal_gap 0.5) (thermal_bridge_width 0.5))\n"
         "    (polygon (pts (xy 0.5 0.5) (xy 29.5 0.5) (xy 29.5 19.5) (xy 0.5 19.5))))\n)\n";
}

// Length of a net's new wires on one layer (mm).
double wire_mm(const Board& board, const RouteResult& result, const std::string& net, int layer) {
  double length = 0;
  for (const Wire& wire : result.copper.wires) {
    if (wire.layer != layer || board.nets[static_cast<std::size_t>(wire.net)].name != net) continue;
    for (std::size_t i = 1; i < wire.shape.points.size(); ++i) {
      const Point a = wire.shape.points[i - 1];
      const Point b = wire.shape.points[i];
      length += std::hypot(static_cast<double>(b.x - a.x), static_cast<double>(b.y - a.y)) / 1e6;
    }
  }
  return length;
}

TEST(PourCost, OtherNetsKeepOffThePoursLayerAndThePourStaysWhole) {
  const Board board = read_kicad_pcb(board_with_a_cut_across(), "cut.kicad_pcb");
  const int b_cu = 1;
  RouterOptions options;
  options.backend = Backend::cpu;
  options.pour_cost = 0;
  const RouteResult free = route_board(board, options);
  EXPECT_GT(wire_mm(board, free, "SIG", b_cu), 10) << "without the cost SIG runs straight along B.Cu";
  EXPECT_FALSE(joined(board, free.pour_joins, "J1-1", "J2-1")) << "and parts the pour";

  options.pour_cost = RouterOptions{}.pour_cost;
  const RouteResult kept = route_board(board, options);
  EXPECT_TRUE(kept.unrouted_nets.empty());
  EXPECT_LT(wire_mm(board, kept, "SIG", b_cu), 3) << "SIG leaves B.Cu next to its pads";
  EXPECT_EQ(kept.via_count, 2u);
  EXPECT_EQ(wire_mm(board, kept, "GND", 0) + wire_mm(board, kept, "GND", b_cu), 0) << "no GND wire needed";
  EXPECT_TRUE(joined(board, kept.pour_joins, "J1-1", "J2-1"));
  EXPECT_TRUE(check_design_rules(board, kept.copper).unconnected.empty());
}

// KiCad takes tracks on a power layer; one that carries no zone is routed
// on like a signal layer (complex_hierarchy's F.Cu is such a layer).
TEST(PourCost, ABareKicadPowerLayerTakesWires) {
  const Board board = read_kicad_pcb(board_with_a_cut_across("power"), "cut.kicad_pcb");
  ASSERT_EQ(board.layers[0].type, LayerType::mixed) << "no zone lies on F.Cu";
  RouterOptions options;
  options.backend = Backend::cpu;
  const RouteResult result = route_board(board, options);
  EXPECT_EQ(result.lattice.layers, 2);
  EXPECT_TRUE(result.unrouted_nets.empty());
  EXPECT_GT(wire_mm(board, result, "SIG", 0), 10) << "SIG crosses on the power layer";
  EXPECT_TRUE(joined(board, result.pour_joins, "J1-1", "J2-1"));
}

// The pour cost enters every node's price the same way on every backend
// (the cuda search prices its windows on the device).
class PourCostBackends : public ::testing::TestWithParam<Backend> {};

TEST_P(PourCostBackends, RoutesMatchTheReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Board board = read_kicad_pcb(board_with_a_cut_across(), "cut.kicad_pcb");
  RouterOptions options;
  options.backend = Backend::reference;
  const RouteResult expected = route_board(board, options);
  options.backend = GetParam();
  options.device_round_min = 1;  // on cuda every round on the device
  const RouteResult result = route_board(board, options);
  ASSERT_EQ(result.copper.wires.size(), expected.copper.wires.size());
  for (std::size_t i = 0; i < result.copper.wires.size(); ++i) {
    EXPECT_EQ(result.copper.wires[i].layer, expected.copper.wires[i].layer);
    EXPECT_EQ(result.copper.wires[i].shape.points, expected.copper.wires[i].shape.points);
  }
  ASSERT_EQ(result.copper.vias.size(), expected.copper.vias.size());
  for (std::size_t i = 0; i < result.copper.vias.size(); ++i)
    EXPECT_EQ(result.copper.vias[i].position, expected.copper.vias[i].position);
}

INSTANTIATE_TEST_SUITE_P(Backends, PourCostBackends, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

}  // namespace
}  // namespace trellis::route
