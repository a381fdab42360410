// A small hand-written board with every value checked: units, layers,
// rules, keepouts, planes, padstacks with wildcards, placements (rotated and
// mirrored on the back), nets, classes and wiring.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/dsn.hpp"

namespace trellis::route {
namespace {

// Mils as this board writes them, in nanometres.
constexpr Coord mil(double value) { return static_cast<Coord>(value * 25'400); }
Point at(double x, double y) { return {mil(x), mil(y)}; }

constexpr const char* kTinyBoard = R"dsn((pcb "tiny board"
  (parser
    (string_quote ")
    (space_in_quoted_tokens on)
    (host_cad "hand written"))
  (resolution mil 10)
  (unit mil)
  (floor_plan (anything (goes here)))
  (structure
    (layer Top (type signal) (property (index 0)) (direction horizontal))
    (layer GND (type power))
    (layer Bottom (type signal) (direction vert))
    (boundary (rect pcb 0 0 1000 800))
    (keepout "k1" (rect Top 100 100 200 200))
    (via_keepout (circle pcb 50 500 500))
    (plane GND (polygon GND 0  0 0  1000 0  1000 800  0 800))
    (via "via 20:10")
    (rule (width 8) (clearance 6) (clearance 4 (type smd_smd)))
    (autoroute_settings (fanout off) (nested (deep (list)))))
  (placement
    (component R0603
      (place R1 200 300 front 0 (PN 10k))
      (place R2 500 300 front 90)
      (place R3 700 300 back 90))
    (component "Big Part"
      (place "U 1" 500 600 back 0)))
  (library
    (image R0603
      (outline (path signal 5  -30 0  30 0))
      (pin smd_rect 1 -30 0)
      (pin smd_rect (rotate 90) 2 30 0)
      (keepout "" (circle Top 10 0 20)))
    (image "Big Part"
      (pin th_round 1 -50 0)
      (pin th_round 2 50 10))
    (padstack smd_rect (shape (rect Top -10 -5 10 5)) (attach off))
    (padstack th_round (shape (circle signal 40)) (attach on))
    (padstack "via 20:10" (shape (circle * 20))))
  (network
    (net Net-(R1-Pad1) (pins R1-1 R2-2 "U 1"-1))
    (net GND (pins R1-2 R3-1 R3-2))
    (net lonely (pins R2-1) (rule (width 12)))
    (class power GND not_a_net (circuit (use_via "via 20:10")) (rule (width 20) (clearance 10))))
  (wiring
    (wire (path Top 8  200 300  500 300) (net GND) (type protect))
    (via "via 20:10" 600 400 (net GND) (type fix))
    (wire (path Bottom 10  0 0  10 10))))
)dsn";

Board tiny_board() { return read_dsn(std::string_view(kTinyBoard), "tiny.dsn"); }

TEST(DsnReader, ReadsUnitsLayersAndRules) {
  const Board board = tiny_board();
  EXPECT_EQ(board.name, "tiny board");
  EXPECT_EQ(board.resolution_unit, "mil");
  EXPECT_EQ(board.resolution_per_unit, 10);
  ASSERT_EQ(board.layers.size(), 3u);
  EXPECT_EQ(board.layers[0].name, "Top");
  EXPECT_EQ(board.layers[1].name, "GND");
  EXPECT_EQ(board.layers[1].type, LayerType::power);
  EXPECT_EQ(board.layers[2].name, "Bottom");
  EXPECT_EQ(board.layers[2].index, 2);
  EXPECT_EQ(board.layers[0].direction, LayerDirection::horizontal);
  EXPECT_EQ(board.layers[1].direction, LayerDirection::any);
  EXPECT_EQ(board.layers[2].direction, LayerDirection::vertical);
  ASSERT_EQ(board.boundary.size(), 1u);
  EXPECT_EQ(board.boundary[0].kind, ShapeKind::rect);
  EXPECT_EQ(board.boundary[0].points, (std::vector<Point>{at(0, 0), at(1000, 800)}));
  EXPECT_EQ(board.rules.width, mil(8));
  EXPECT_EQ(board.rules.clearance, mil(6));
  EXPECT_EQ(board.rules.clearance_for("smd_smd"), mil(4));
  EXPECT_EQ(board.rules.clearance_for("default_smd"), mil(6));
}

TEST(DsnReader, ReadsKeepoutsPlanesAndViaPadstacks) {
  const Board board = tiny_board();
  ASSERT_EQ(board.keepouts.size(), 2u);
  EXPECT_EQ(board.keepouts[0].kind, KeepoutKind::keepout);
  EXPECT_EQ(board.keepouts[0].name, "k1");
  EXPECT_EQ(board.keepouts[0].layer, 0);
  EXPECT_EQ(board.keepouts[0].shape.points, (std::vector<Point>{at(100, 100), at(200, 200)}));
  EXPECT_EQ(board.keepouts[1].kind, KeepoutKind::via_keepout);
  EXPECT_EQ(board.keepouts[1].layer, kAllLayers);
  EXPECT_EQ(board.keepouts[1].shape.kind, ShapeKind::circle);
  EXPECT_EQ(board.keepouts[1].shape.width, mil(50));
  EXPECT_EQ(board.keepouts[1].shape.points, (std::vector<Point>{at(500, 500)}));

  ASSERT_EQ(board.planes.size(), 1u);
  EXPECT_EQ(board.planes[0].net_name, "GND");
  EXPECT_EQ(board.planes[0].net, 1);
  EXPECT_EQ(board.planes[0].layer, 1);
  EXPECT_EQ(board.planes[0].shape.points.size(), 4u);

  ASSERT_EQ(board.padstacks.size(), 3u);
  EXPECT_EQ(board.via_padstacks, (std::vector<int>{2}));
  EXPECT_FALSE(board.padstacks[0].attach_allowed);
  EXPECT_TRUE(board.padstacks[1].attach_allowed);
  // "signal" covers the signal layers, "*" every layer.
  ASSERT_EQ(board.padstacks[1].shapes.size(), 2u);
  EXPECT_EQ(board.padstacks[1].shapes[0].layer, 0);
  EXPECT_EQ(board.padstacks[1].shapes[1].layer, 2);
  EXPECT_EQ(board.padstacks[2].shapes.size(), 3u);
}

TEST(DsnReader, ReadsImagesAndPlacements) {
  const Board board = tiny_board();
  ASSERT_EQ(board.images.size(), 2u);
  const Image& resistor = board.images[0];
  ASSERT_EQ(resistor.pins.size(), 2u);
  EXPECT_EQ(resistor.pins[1].name, "2");
  EXPECT_EQ(resistor.pins[1].padstack, 0);
  EXPECT_EQ(resistor.pins[1].offset, at(30, 0));
  EXPECT_EQ(resistor.pins[1].rotation, 90);
  ASSERT_EQ(resistor.keepouts.size(), 1u);
  EXPECT_EQ(resistor.keepouts[0].shape.points, (std::vector<Point>{at(0, 20)}));

  ASSERT_EQ(board.components.size(), 4u);
  EXPECT_EQ(board.components[2].reference, "R3");
  EXPECT_EQ(board.components[2].side, Side::back);
  EXPECT_EQ(board.components[2].rotation, 90);
  EXPECT_EQ(board.components[3].reference, "U 1");
  EXPECT_EQ(board.components[3].image, 1);
  EXPECT_EQ(board.components[3].position, at(500, 600));
}

TEST(DsnReader, PlacesPinsWithRotationAndBackSideMirroring) {
  const Board board = tiny_board();
  // R1 front 0, R2 front 90, R3 back 90 (mirrored, then turned), U 1 back 0.
  EXPECT_EQ(pin_position(board, {0, 0}), at(170, 300));
  EXPECT_EQ(pin_position(board, {0, 1}), at(230, 300));
  EXPECT_EQ(pin_position(board, {1, 0}), at(500, 270));
  EXPECT_EQ(pin_position(board, {1, 1}), at(500, 330));
  EXPECT_EQ(pin_position(board, {2, 0}), at(700, 330));
  EXPECT_EQ(pin_position(board, {2, 1}), at(700, 270));
  EXPECT_EQ(pin_position(board, {3, 0}), at(550, 600));
  EXPECT_EQ(pin_position(board, {3, 1}), at(450, 610));
}

TEST(DsnReader, PinCopperIsInBoardCoordinatesOnFlippedLayers) {
  const Board board = tiny_board();
  const std::vector<PinCopper> copper = pin_copper(board);
  // 3 resistors x 2 single-layer pads, 2 through-hole pins x 2 layers.
  ASSERT_EQ(copper.size(), 10u);
  const auto rect = [](double x1, double y1, double x2, double y2) {
    return std::vector<Point>{at(x1, y1), at(x2, y2)};
  };
  // R1 pin 2: the pin's own 90 degrees turn the 20x10 pad upright.
  EXPECT_EQ(copper[1].pin, (PinRef{0, 1}));
  EXPECT_EQ(copper[1].layer, 0);
  EXPECT_EQ(copper[1].net, 1);
  EXPECT_EQ(copper[1].shape.kind, ShapeKind::rect);
  EXPECT_EQ(copper[1].shape.points, rect(225, 290, 235, 310));
  // R2 pin 1 (front, 90): upright; pin 2: pin and component turns make 180.
  EXPECT_EQ(copper[2].shape.points, rect(495, 260, 505, 280));
  EXPECT_EQ(copper[2].net, 2);
  EXPECT_EQ(copper[3].shape.points, rect(490, 325, 510, 335));
  EXPECT_EQ(copper[3].net, 0);
  // R3 on the back: its Top pads land on Bottom.
  EXPECT_EQ(copper[4].pin, (PinRef{2, 0}));
  EXPECT_EQ(copper[4].layer, 2);
  EXPECT_EQ(copper[4].shape.points, rect(695, 320, 705, 340));
  // U 1 on the back: each layer's circle swaps sides; the centre is mirrored.
  EXPECT_EQ(copper[6].pin, (PinRef{3, 0}));
  EXPECT_EQ(copper[6].layer, 2);
  EXPECT_EQ(copper[7].layer, 0);
  EXPECT_EQ(copper[6].shape.kind, ShapeKind::circle);
  EXPECT_EQ(copper[6].shape.width, mil(40));
  EXPECT_EQ(copper[6].shape.points, (std::vector<Point>{at(550, 600)}));
  EXPECT_EQ(copper[6].net, 0);
  EXPECT_EQ(copper[8].net, -1);  // U 1 pin 2 is in no net
}

TEST(DsnReader, ReadsNetsClassesAndWiring) {
  const Board board = tiny_board();
  ASSERT_EQ(board.nets.size(), 3u);
  EXPECT_EQ(board.nets[0].name, "Net-(R1-Pad1)");
  EXPECT_EQ(board.nets[0].pins, (std::vector<PinRef>{{0, 0}, {1, 1}, {3, 0}}));
  EXPECT_EQ(board.nets[1].pins, (std::vector<PinRef>{{0, 1}, {2, 0}, {2, 1}}));
  EXPECT_EQ(board.nets[2].rules.width, mil(12));

  ASSERT_EQ(board.classes.size(), 1u);
  EXPECT_EQ(board.classes[0].name, "power");
  EXPECT_EQ(board.classes[0].nets, (std::vector<int>{1}));  // not_a_net has no pins: dropped
  EXPECT_EQ(board.classes[0].vias, (std::vector<int>{2}));
  EXPECT_EQ(board.classes[0].rules.width, mil(20));
  EXPECT_EQ(board.classes[0].rules.clearance, mil(10));

  ASSERT_EQ(board.wires.size(), 2u);
  EXPECT_EQ(board.wires[0].layer, 0);
  EXPECT_EQ(board.wires[0].net, 1);
  EXPECT_EQ(board.wires[0].type, WiringType::protect);
  EXPECT_EQ(board.wires[0].shape.kind, ShapeKind::path);
  EXPECT_EQ(board.wires[0].shape.width, mil(8));
  EXPECT_EQ(board.wires[0].shape.points, (std::vector<Point>{at(200, 300), at(500, 300)}));
  EXPECT_EQ(board.wires[1].layer, 2);
  EXPECT_EQ(board.wires[1].net, -1);
  EXPECT_EQ(board.wires[1].type, WiringType::normal);
  ASSERT_EQ(board.vias.size(), 1u);
  EXPECT_EQ(board.vias[0].padstack, 2);
  EXPECT_EQ(board.vias[0].position, at(600, 400));
  EXPECT_EQ(board.vias[0].net, 1);
  EXPECT_EQ(board.vias[0].type, WiringType::fix);
  EXPECT_TRUE(board.warnings.empty());
}

// KiCad writes names holding quotes between quotes, unescaped: the nets
// /G/"B" and /G/B stay two nets.
TEST(DsnReader, ReadsNetNamesHoldingQuotesAsKiCadExportsThem) {
  std::string text = kTinyBoard;
  const auto rename = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  rename("(net lonely", "(net \"/G/\"B\"\"");
  rename(" GND ", " \"/G/B\" ");
  rename("(net GND)", "(net \"/G/B\")");
  const Board board = read_dsn(std::string_view(text), "quotes.dsn");
  ASSERT_EQ(board.nets.size(), 3u);
  EXPECT_EQ(board.nets[1].name, "/G/B");
  EXPECT_EQ(board.nets[2].name, "/G/\"B\"");
  EXPECT_EQ(board.classes[0].nets, (std::vector<int>{1}));
  EXPECT_EQ(board.wires[0].net, 1);
}

TEST(DsnReader, StreamAndTextReadTheSame) {
  std::istringstream in(kTinyBoard);
  const Board from_stream = read_dsn(in, "tiny.dsn");
  EXPECT_EQ(from_stream.nets.size(), 3u);
  EXPECT_EQ(pin_position(from_stream, {2, 0}), at(700, 330));
}

TEST(DsnReader, ConvertsEveryUnit) {
  const auto width_in = [](const std::string& unit, const std::string& value) {
    const std::string text = "(pcb u (unit " + unit + ") (structure (layer A) (rule (width " + value + "))))";
    return *read_dsn(std::string_view(text), "units.dsn").rules.width;
  };
  EXPECT_EQ(width_in("inch", "0.01"), 254'000);
  EXPECT_EQ(width_in("mil", "10"), 254'000);
  EXPECT_EQ(width_in("cm", "0.0254"), 254'000);
  EXPECT_EQ(width_in("mm", "0.254"), 254'000);
  EXPECT_EQ(width_in("um", "254"), 254'000);
  EXPECT_EQ(width_in("um", "0.1234"), 123);  // rounded to the nanometre
  // Without (unit), coordinates are in the resolution's unit.
  const Board board = read_dsn(std::string_view("(pcb r (resolution mm 1000) (structure (rule (width 0.2))))"), "r");
  EXPECT_EQ(board.rules.width, 200'000);
}

TEST(DsnReader, ReadsNeckDownWidths) {
  const Board board = read_dsn(std::string_view(R"((pcb n (unit mm) (structure (layer A)
    (rule (width 0.25) (neck_down_width 0.1)))
  (network (net a (pins)) (class thin a (rule (width 0.2) (neck_down_width 0.08))))))"),
                               "n.dsn");
  EXPECT_EQ(board.rules.neck_down_width, 100'000);
  ASSERT_EQ(board.classes.size(), 1u);
  EXPECT_EQ(board.classes[0].rules.neck_down_width, 80'000);
  try {
    read_dsn(std::string_view("(pcb n (unit mm)\n (structure (rule (neck_down_width 0))))"), "zero.dsn");
    FAIL() << "a zero neck-down width was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("zero.dsn:2"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("neck-down width must be positive"), std::string::npos) << error.what();
  }
}

TEST(DsnReader, UnplacedPadsOffTheBoardAreWarnings) {
  const std::string text = R"((pcb w (unit mm)
  (structure (layer A) (boundary (rect pcb 0 0 10 10)))
  (placement (component fid (place FID1 20 20 front 0)))
  (library (image fid (pin dot 1 0 0)) (padstack dot (shape (circle A 1))))
  (network))
)";
  const Board board = read_dsn(std::string_view(text), "panel.dsn");
  ASSERT_EQ(board.warnings.size(), 1u);
  EXPECT_NE(board.warnings[0].find("panel.dsn:3: pin FID1-1"), std::string::npos) << board.warnings[0];
}

// KiCad exports a layer of its "power" type as a power layer with or
// without a zone on it; one without a plane is routed on (mixed), with a
// warning naming its line, and one with a plane stays a plane layer.
TEST(DsnReader, APowerLayerWithoutAPlaneIsMixed) {
  const std::string text = R"((pcb p (unit mm)
  (structure (layer F.Cu (type power))
    (layer In1.Cu (type power))
    (layer B.Cu (type signal))
    (plane GND (polygon In1.Cu 0  0 0  10 0  10 10)))
  (network (net GND (pins))))
)";
  const Board board = read_dsn(std::string_view(text), "power.dsn");
  ASSERT_EQ(board.layers.size(), 3u);
  EXPECT_EQ(board.layers[0].type, LayerType::mixed);
  EXPECT_EQ(board.layers[1].type, LayerType::power);
  EXPECT_EQ(board.layers[2].type, LayerType::signal);
  ASSERT_EQ(board.warnings.size(), 1u);
  EXPECT_NE(board.warnings[0].find("power.dsn:2: power layer 'F.Cu' carries no plane"), std::string::npos)
      << board.warnings[0];
  // The tiny board's power layer holds its GND plane.
  EXPECT_EQ(tiny_board().layers[1].type, LayerType::power);
}

// What the reader does not read is named in a warning with its line
// (layer rules, differential pairs, jumpers, ...), except what changes
// neither the routing nor the check (the autorouter's settings, grids,
// silkscreen outlines, part numbers): the tiny board has those and reads
// without a warning.
TEST(DsnReader, ListsItDoesNotReadAreWarnings) {
  const std::string text = R"((pcb w (unit mm)
  (structure (layer A) (grid via 0.1) (layer_rule A (rule (width 0.3))))
  (library (jumper j1 (length 5)))
  (network (net a (pins) (fromto x y)) (pair (nets a b)))
  (wiring (bond x 0 0 A))
  (frobnicate 1))
)";
  const Board board = read_dsn(std::string_view(text), "odd.dsn");
  const std::vector<std::string> expected = {
      "odd.dsn:2: (layer_rule ...) in (structure ...)", "odd.dsn:3: (jumper ...) in (library ...)",
      "odd.dsn:4: (fromto ...) in a (net ...)",         "odd.dsn:4: (pair ...) in (network ...)",
      "odd.dsn:5: (bond ...) in (wiring ...)",          "odd.dsn:6: (frobnicate ...) in (pcb ...)"};
  ASSERT_EQ(board.warnings.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(board.warnings[i].rfind(expected[i], 0), 0u) << board.warnings[i];
  }
  EXPECT_TRUE(tiny_board().warnings.empty());
}

// Deeper lists are named too: an arc as a plane's outline, a circuit's
// layer restriction, a rule this reader does not apply, a placement's
// unknown details. Arcs elsewhere are read (the next test).
TEST(DsnReader, DeeperListsItDoesNotReadAreWarnings) {
  const std::string text = R"((pcb w (unit mm)
  (structure (layer A (type signal) (cost 3)) (layer B)
    (boundary (rect pcb 0 0 10 10) (qarc pcb 0 0 0 1 1 0 1))
    (plane n (qarc A 0 0 0 1 1 0 1))
    (via v (spare v2) (mystery 1))
    (rule (width 0.2) (clearance 0.2 (layer_depth 2)) (via_at_smd off)))
  (placement (place_control (flip_style mirror_first)) (lost 1)
    (component c (place R1 1 1 front 0 (PN 1k) (orbit 3)) (where 1)))
  (library (image c (pin p (rotate 90) (mirror x) 1 0 0))
    (padstack p (shape (qarc A 0 0 0 1 1 0 1)) (shape (circle A 1)) (attach on (use_via v) (odd 1)))
    (padstack v (shape (circle A 0.6)) (shape (circle B 0.6))))
  (network (net n (pins R1-1)) (class k n (circuit (use_layer A) (use_via v (extra 1)))))
  (wiring (wire (qarc A 0.2 0 0 1 1 0 1) (net n)) (via v 2 2 (net n) (glow 1))))
)";
  const Board board = read_dsn(std::string_view(text), "arcs.dsn");
  const std::vector<std::string> expected = {
      "arcs.dsn:2: (cost ...) in a (layer ...)",         "arcs.dsn:4: (qarc ...) in a (plane ...)",
      "arcs.dsn:5: (mystery ...) in (via ...)",          "arcs.dsn:6: (layer_depth ...) in a (clearance ...)",
      "arcs.dsn:6: (via_at_smd ...) in a (rule ...)",    "arcs.dsn:7: (lost ...) in (placement ...)",
      "arcs.dsn:8: (orbit ...) in a (place ...)",        "arcs.dsn:8: (where ...) in a (component ...)",
      "arcs.dsn:9: (mirror ...) in a (pin ...)",         "arcs.dsn:10: (odd ...) in (attach ...)",
      "arcs.dsn:12: (use_layer ...) in a (circuit ...)", "arcs.dsn:12: (extra ...) in (use_via ...)",
      "arcs.dsn:13: (glow ...) in a (via ...)"};
  std::string all;
  for (const std::string& warning : board.warnings) all += warning + "\n";
  ASSERT_EQ(board.warnings.size(), expected.size()) << all;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(board.warnings[i].rfind(expected[i], 0), 0u) << board.warnings[i];
  }
  EXPECT_EQ(board.wires.size(), 1u);
  EXPECT_EQ(board.vias.size(), 1u);
}

// (qarc layer width start end centre) is a stroke along the shorter arc:
// a path of chords within the arc tolerance, its ends as written. An
// outline in pieces (lines and round corners) is joined into one path.
TEST(DsnReader, ArcsAreReadAsPathsOfChords) {
  const std::string text = R"((pcb w (unit mm)
  (structure (layer A (type signal)) (layer B (type signal))
    (boundary (path pcb 0 1 0 9 0) (qarc pcb 0 10 1 9 0 9 1) (path pcb 0 10 1 10 9)
      (qarc pcb 0 9 10 10 9 9 9) (path pcb 0 9 10 1 10) (qarc pcb 0 1 10 0 9 1 9)
      (path pcb 0 0 9 0 1) (qarc pcb 0 0 1 1 0 1 1)))
  (placement (component c (place R1 5 5 front 0)))
  (library (image c (pin p 1 0 0)) (padstack p (shape (qarc A 0.3 -0.5 0 0.5 0 0 0))))
  (network (net n (pins R1-1)))
  (wiring (wire (qarc A 0.2 2 2 4 4 4 2) (net n))))
)";
  const Board board = read_dsn(std::string_view(text), "arcs.dsn");
  EXPECT_TRUE(board.warnings.empty()) << board.warnings.front();
  ASSERT_EQ(board.boundary.size(), 1u);
  const Shape& outline = board.boundary.front();
  EXPECT_EQ(outline.kind, ShapeKind::path);
  ASSERT_GT(outline.points.size(), 9u);
  EXPECT_EQ(outline.points.front(), outline.points.back());
  EXPECT_EQ(outline.points.front(), (Point{1'000'000, 0}));
  // A corner's chords lie on the circle about its centre, within a
  // nanometre of rounding, and inside the square's corner.
  for (const Point& p : outline.points) {
    const Point centre{p.x < 5'000'000 ? 1'000'000 : 9'000'000, p.y < 5'000'000 ? 1'000'000 : 9'000'000};
    const bool in_corner = (p.x < 1'000'000 || p.x > 9'000'000) && (p.y < 1'000'000 || p.y > 9'000'000);
    if (!in_corner) continue;
    const double r = std::hypot(static_cast<double>(p.x - centre.x), static_cast<double>(p.y - centre.y));
    EXPECT_NEAR(r, 1'000'000, 1.0) << p.x << " " << p.y;
  }
  EXPECT_TRUE(inside_boundary(board, {5'000'000, 5'000'000}));
  EXPECT_FALSE(inside_boundary(board, {100'000, 100'000}));  // cut off by the round corner

  // The pad's arc: a half turn from (-0.5, 0) to (0.5, 0) about the origin,
  // counter-clockwise (through y < 0).
  ASSERT_EQ(board.padstacks.size(), 1u);
  ASSERT_EQ(board.padstacks[0].shapes.size(), 1u);
  const Shape& pad = board.padstacks[0].shapes[0].shape;
  EXPECT_EQ(pad.kind, ShapeKind::path);
  EXPECT_EQ(pad.width, 300'000);
  EXPECT_EQ(pad.points.front(), (Point{-500'000, 0}));
  EXPECT_EQ(pad.points.back(), (Point{500'000, 0}));
  for (const Point& p : pad.points) EXPECT_LE(p.y, 0);

  // The wire's quarter turn from (2, 2) to (4, 4) about (4, 2): through
  // x < 4 and y > 2 (the shorter way), its length near pi/2 * 2 mm.
  ASSERT_EQ(board.wires.size(), 1u);
  const Shape& wire = board.wires[0].shape;
  EXPECT_EQ(wire.width, 200'000);
  ASSERT_GE(wire.points.size(), 3u);
  double length = 0;
  for (std::size_t i = 1; i < wire.points.size(); ++i) {
    const Point a = wire.points[i - 1], b = wire.points[i];
    length += std::hypot(static_cast<double>(b.x - a.x), static_cast<double>(b.y - a.y));
    EXPECT_LE(b.x, 4'000'000);
    EXPECT_GE(b.y, 2'000'000);
  }
  EXPECT_NEAR(length, std::numbers::pi * 1'000'000, 5'000);  // chords cut the curve short
}

// (place REF) without a position: a component not placed yet. Its pins
// leave their nets with one warning; a pin of a component not in the
// placement at all is still an error.
TEST(DsnReader, UnplacedComponentsLeaveTheirNetsWithAWarning) {
  const std::string placement = R"((pcb w (unit mm)
  (structure (layer A (type signal)) (boundary (rect pcb 0 0 20 20)))
  (placement (component c (place R1 5 5 front 0) (place R3 10 10 front 0))
    (component c (place R2 (PN 1k))))
  (library (image c (pin p 1 0 0) (pin p 2 2 0)) (padstack p (shape (circle A 0.5))))
)";
  const Board board =
      read_dsn(std::string_view(placement + "(network (net n (pins R1-1 R2-1 R3-1)) (net m (pins R2-2))))\n"), "u.dsn");
  ASSERT_EQ(board.warnings.size(), 1u);
  EXPECT_EQ(board.warnings[0].rfind("u.dsn:4: component 'R2' is not placed", 0), 0u) << board.warnings[0];
  ASSERT_EQ(board.components.size(), 2u);
  ASSERT_EQ(board.nets.size(), 2u);
  EXPECT_EQ(board.nets[0].pins, (std::vector<PinRef>{{0, 0}, {1, 0}}));
  EXPECT_TRUE(board.nets[1].pins.empty());
  try {
    (void)read_dsn(std::string_view(placement + "(network (net n (pins R1-1\nR4-1))))\n"), "u.dsn");
    FAIL() << "a pin of a component not in the placement was read";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 7u) << error.what();
  }
}

TEST(DsnReader, PinArraysAreRowsOfPins) {
  const auto board_with = [](const std::string& pins) {
    return "(pcb w (unit mm)\n"
           "  (structure (layer A (type signal)) (boundary (rect pcb 0 0 20 20)))\n"
           "  (placement (component c (place U1 5 5 front 0)))\n"
           "  (library (image c\n" +
           pins +
           ")\n"
           "    (padstack p (shape (circle A 0.5))))\n"
           "  (network (net n (pins U1-A3 U1-9))))\n";
  };
  const Board board = read_dsn(board_with("  (pin p (rotate 90) (array 1 5 2 0 0 1.27 -0.5 (prefix A))) "
                                          "(pin p (array 9 9 1 4 4 0 0))"),
                               "array.dsn");
  EXPECT_TRUE(board.warnings.empty());
  const Image& image = board.images.at(0);
  ASSERT_EQ(image.pins.size(), 4u);
  const std::vector<std::string> names{"A1", "A3", "A5", "9"};
  const std::vector<Point> offsets{{0, 0}, {1'270'000, -500'000}, {2'540'000, -1'000'000}, {4'000'000, 4'000'000}};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(image.pins[i].name, names[i]);
    EXPECT_EQ(image.pins[i].offset, offsets[i]) << names[i];
  }
  EXPECT_EQ(image.pins[1].rotation, 90);
  ASSERT_EQ(board.nets.size(), 1u);
  EXPECT_EQ(board.nets[0].pins, (std::vector<PinRef>{{0, 1}, {0, 3}}));

  for (const std::string_view bad :
       {"(pin p (array 1 4 0 0 0 1 0))", "(pin p (array 4 1 1 0 0 1 0))", "(pin p (array 1 4 2 0 0 1 0))",
        "(pin p (array 1 4 1.5 0 0 1 0))", "(pin p (array -1 4 1 0 0 1 0))", "(pin p (array 1 9999999 1 0 0 1 0))",
        "(pin p (array 1 2 1 0 0 1 0 (middle x)))", "(pin p A7 (array 1 2 1 0 0 1 0))",
        "(pin p (array 1 2 1 0 0 1 0)) (pin p 2 0 0)"}) {
    try {
      std::string pins = "\n";  // the bad pin on line 6
      pins += bad;
      (void)read_dsn(board_with(pins), "array.dsn");
      ADD_FAILURE() << bad << " was read";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("array.dsn:6"), std::string::npos) << bad << ": " << error.what();
    }
  }
}

TEST(DsnReader, DegenerateArcsAreErrorsWithTheirLine) {
  const std::string text = R"((pcb w (unit mm)
  (structure (layer A (type signal))
    (boundary (qarc pcb 0 1 1 1 1 0 0))))
)";
  try {
    (void)read_dsn(std::string_view(text), "arc.dsn");
    FAIL() << "a qarc whose start is its end was read";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("arc.dsn:3"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("qarc"), std::string::npos) << error.what();
  }
}

TEST(Board, RotationsOffQuarterTurnsMakeRectsPolygons) {
  Board board;
  board.layers = {{"A", LayerType::signal, 0}};
  board.padstacks = {{"p", {{0, {ShapeKind::rect, 0, {{-10, -10}, {10, 10}}}}}, true}};
  board.images = {{"i", {{"1", 0, {100, 0}, 0, {}}}, {}}};
  board.components = {{"C", 0, {0, 0}, Side::front, 45}};
  const std::vector<PinCopper> copper = pin_copper(board);
  ASSERT_EQ(copper.size(), 1u);
  EXPECT_EQ(copper[0].shape.kind, ShapeKind::polygon);
  ASSERT_EQ(copper[0].shape.points.size(), 4u);
  // (100, 0) turned by 45 degrees: (70.71, 70.71), rounded to the nanometre.
  EXPECT_EQ(pin_position(board, {0, 0}), (Point{71, 71}));
  EXPECT_EQ(copper[0].shape.points[0], (Point{71, 57}));  // (90, -10) turned
}

}  // namespace
}  // namespace trellis::route
