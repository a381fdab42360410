// The pour rule: what a net's copper zone surely connects once refilled,
// on a small board of two connectors joined by a GND zone on B.Cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
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

}  // namespace
}  // namespace trellis::route
