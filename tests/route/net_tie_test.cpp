// Net ties: a footprint whose copper joins two nets on purpose. Read from
// KiCad's two ways of saying so, checked by the design-rule check (the tie's
// nets may touch its copper, other nets keep clear) and routed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
#include "trellis/route/router.hpp"

namespace trellis::route {
namespace {

constexpr Coord mm(double value) { return static_cast<Coord>(std::llround(value * 1e6)); }

// A 40 x 30 mm two-layer board with nets A, B and C: the net tie NT1 at
// (20, 15) (pads 1 on A and 2 on B, 2 mm apart, joined by a copper bar
// 0.5 mm wide), R1 (A and C) at x = 10 and R2 (B and C) at x = 30. `tie`
// says how NT1 is a tie; `body` adds items.
std::string tie_board(const std::string& tie, const std::string& version = "20211014", const std::string& body = "") {
  const auto resistor = [](const std::string& reference, double x, const std::string& net) {
    return "  (footprint \"R:R\" (layer \"F.Cu\") (at " + std::to_string(x) +
           " 15)\n"
           "    (fp_text reference \"" +
           reference +
           "\" (at 0 -2) (layer \"F.SilkS\"))\n"
           "    (pad \"1\" smd rect (at 0 0) (size 1 1) (layers \"F.Cu\") " +
           net +
           ")\n"
           "    (pad \"2\" smd rect (at 0 5) (size 1 1) (layers \"F.Cu\") (net 3 \"C\")))\n";
  };
  return "(kicad_pcb (version " + version +
         ") (generator pcbnew)\n"
         "  (general (thickness 1.6))\n"
         "  (layers (0 \"F.Cu\" signal) (31 \"B.Cu\" signal) (37 \"F.SilkS\" user) (44 \"Edge.Cuts\" user))\n"
         "  (setup (pad_to_mask_clearance 0))\n"
         "  (net 0 \"\") (net 1 \"A\") (net 2 \"B\") (net 3 \"C\")\n"
         "  (gr_rect (start 0 0) (end 40 30) (layer \"Edge.Cuts\") (width 0.1))\n"
         "  (footprint \"NetTie:NetTie-2_SMD\" (layer \"F.Cu\") (at 20 15)\n" +
         tie +
         "\n"
         "    (fp_text reference \"NT1\" (at 0 -2) (layer \"F.SilkS\"))\n"
         "    (fp_poly (pts (xy -1 -0.25) (xy 1 -0.25) (xy 1 0.25) (xy -1 0.25)) (layer \"F.Cu\") (width 0) "
         "(fill solid))\n"
         "    (fp_line (start -1 3) (end 1 3) (layer \"F.Cu\") (width 0.2))\n"
         "    (pad \"1\" smd rect (at -1 0) (size 1 1) (layers \"F.Cu\") (net 1 \"A\"))\n"
         "    (pad \"2\" smd rect (at 1 0) (size 1 1) (layers \"F.Cu\") (net 2 \"B\")))\n" +
         resistor("R1", 10, "(net 1 \"A\")") + resistor("R2", 30, "(net 2 \"B\")") + body + ")\n";
}

const std::string kKiCad6Tie = "    (tags \"net tie\")";
const std::string kKiCad7Tie = "    (net_tie_pad_groups \"1, 2\")";

int net_named(const Board& board, const std::string& name) {
  for (std::size_t n = 0; n < board.nets.size(); ++n) {
    if (board.nets[n].name == name) return static_cast<int>(n);
  }
  return -1;
}

void expect_tie_of_a_and_b(const Board& board) {
  ASSERT_EQ(board.net_ties.size(), 1u);
  const NetTie& tie = board.net_ties[0];
  EXPECT_EQ(tie.component, "NT1");
  EXPECT_EQ(tie.pins.size(), 2u);
  std::vector<int> expected{net_named(board, "A"), net_named(board, "B")};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(tie.nets, expected);
  ASSERT_EQ(board.copper_graphics.size(), 2u);
  EXPECT_EQ(board.copper_graphics[0].tie, 0) << "the bar touches both pads";
  EXPECT_NE(board.copper_graphics[0].description.find("a net tie of A, B"), std::string::npos)
      << board.copper_graphics[0].description;
  EXPECT_EQ(board.copper_graphics[1].tie, -1) << "the line touches no pad: copper of no net";
  for (const PinRef& pin : tie.pins) EXPECT_EQ(net_tie_of(board, pin), 0);
  EXPECT_TRUE(tie_joins(board, 0, net_named(board, "A")));
  EXPECT_FALSE(tie_joins(board, 0, net_named(board, "C")));
}

TEST(NetTies, KiCad6KeywordsMakeAFootprintATie) {
  expect_tie_of_a_and_b(read_kicad_pcb(tie_board(kKiCad6Tie), "tie.kicad_pcb"));
}

TEST(NetTies, KiCad7PadGroupsNameTheTiedPads) {
  expect_tie_of_a_and_b(read_kicad_pcb(tie_board(kKiCad7Tie, "20221018"), "tie.kicad_pcb"));
}

TEST(NetTies, KiCad7ReadsKeywordsAsNoTie) {
  // From KiCad 7 on only pad groups make a tie: the bar is no net's copper.
  const Board board = read_kicad_pcb(tie_board(kKiCad6Tie, "20221018"), "tie.kicad_pcb");
  EXPECT_TRUE(board.net_ties.empty());
  EXPECT_EQ(board.copper_graphics[0].tie, -1);
}

TEST(NetTies, GroupsNotJoinedByCopperStayApart) {
  // Pads 1 and 2 in separate groups, escaped commas and spaces read as
  // KiCad reads them: the bar touches both, so the groups join into one tie.
  const Board joined =
      read_kicad_pcb(tie_board("    (net_tie_pad_groups \" 1 \" \"2,\\\\,9\")", "20221018"), "tie.kicad_pcb");
  ASSERT_EQ(joined.net_ties.size(), 1u);
  EXPECT_EQ(joined.net_ties[0].nets.size(), 2u);
  // Without the bar the two groups are two ties of one net each.
  std::string text = tie_board("    (net_tie_pad_groups \"1\" \"2\")", "20221018");
  const std::string bar = "(fp_poly (pts (xy -1 -0.25)";
  text.replace(text.find(bar), bar.size(), "(fp_poly (pts (xy -0.1 -0.25)");
  text.replace(text.find("(xy 1 -0.25) (xy 1 0.25)"), std::string("(xy 1 -0.25) (xy 1 0.25)").size(),
               "(xy 0.1 -0.25) (xy 0.1 0.25)");
  text.replace(text.find("(xy -1 0.25)"), std::string("(xy -1 0.25)").size(), "(xy -0.1 0.25)");
  const Board apart = read_kicad_pcb(text, "tie.kicad_pcb");
  ASSERT_EQ(apart.net_ties.size(), 2u);
  EXPECT_EQ(apart.net_ties[0].nets.size(), 1u);
  EXPECT_EQ(apart.net_ties[1].nets.size(), 1u);
  EXPECT_EQ(apart.copper_graphics[0].tie, -1);
}

// A track of A onto NT1's pad 1 across the bar, and one of C along the
// bar's side 0.125 mm from it.
const std::string kTracks =
    "  (segment (start 10 15) (end 19.5 15) (width 0.25) (layer \"F.Cu\") (net 1))\n"
    "  (segment (start 18 15.5) (end 22 15.5) (width 0.25) (layer \"F.Cu\") (net 3))\n";

TEST(NetTies, TheTiesNetsMayTouchItsCopperAndNoOtherNet) {
  const DrcReport tied = check_design_rules(read_kicad_pcb(tie_board(kKiCad6Tie, "20211014", kTracks), "t"));
  EXPECT_TRUE(tied.input_conflicts.empty()) << "the tie's pads touch its bar on purpose";
  for (const Violation& v : tied.routing) {
    EXPECT_TRUE(v.first.net_name == "C" || v.second.net_name == "C") << v.first.name << " against " << v.second.name;
  }
  // C's track crosses both pads and passes the bar.
  EXPECT_EQ(tied.routing.size(), 3u);
  const bool bar = std::any_of(tied.routing.begin(), tied.routing.end(),
                               [](const Violation& v) { return v.kind == ViolationKind::graphic; });
  EXPECT_TRUE(bar) << "C keeps its clearance from the tie's copper";

  // The same footprint without its keywords: the bar is no net's copper.
  const DrcReport plain = check_design_rules(read_kicad_pcb(tie_board("", "20211014", kTracks), "t"));
  EXPECT_EQ(plain.input_conflicts.size(), 2u) << "each pad touches the bar";
  EXPECT_EQ(plain.routing.size(), 4u) << "A's track too";
}

TEST(NetTies, TheTiesNetsRouteOntoItsPads) {
  const Board board = read_kicad_pcb(tie_board(kKiCad7Tie, "20221018"), "tie.kicad_pcb");
  RouterOptions options;
  options.backend = Backend::cpu;
  const RouteResult result = route_board(board, options);
  EXPECT_EQ(result.nets_to_route, 3u);
  EXPECT_TRUE(result.unrouted_nets.empty()) << "A and B reach the tie's pads, C goes round";
  const DrcReport report = check_design_rules(board, result.copper);
  EXPECT_TRUE(report.routing.empty());
  EXPECT_TRUE(report.unconnected.empty());

  // Without the tie its bar walls both pads in.
  const RouteResult walled = route_board(read_kicad_pcb(tie_board(""), "tie.kicad_pcb"), options);
  EXPECT_EQ(walled.unrouted_nets.size(), 2u);
}

}  // namespace
}  // namespace trellis::route
