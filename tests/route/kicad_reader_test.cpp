// The KiCad board reader on small hand-written boards with known answers,
// on the kicad-demos boards against KiCad's own Specctra export of them,
// and on broken input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "route/dsn/tokenizer.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {
namespace {

namespace fs = std::filesystem;

constexpr Coord mm(double value) { return static_cast<Coord>(std::llround(value * 1e6)); }

// A two-layer board around `body`.
std::string board_text(const std::string& body, const std::string& version = "20211014") {
  return "(kicad_pcb (version " + version +
         ") (generator pcbnew)\n"
         "  (general (thickness 1.6))\n"
         "  (layers\n"
         "    (0 \"F.Cu\" signal)\n"
         "    (31 \"B.Cu\" signal)\n"
         "    (37 \"F.SilkS\" user \"F.Silkscreen\")\n"
         "    (44 \"Edge.Cuts\" user)\n"
         "  )\n"
         "  (setup (pad_to_mask_clearance 0))\n"
         "  (net 0 \"\")\n"
         "  (net 1 \"GND\")\n"
         "  (net 2 \"SIG\")\n" +
         body + ")\n";
}

// A 100 x 100 mm square outline from (0, 0) to (100, 100) (KiCad's y down).
const std::string kSquareOutline =
    "  (gr_line (start 0 0) (end 100 0) (layer \"Edge.Cuts\") (width 0.1))\n"
    "  (gr_line (start 100 0) (end 100 100) (layer \"Edge.Cuts\") (width 0.1))\n"
    "  (gr_line (start 100 100) (end 0 100) (layer \"Edge.Cuts\") (width 0.1))\n"
    "  (gr_line (start 0 100) (end 0 0) (layer \"Edge.Cuts\") (width 0.1))\n";

Board read(const std::string& body, std::optional<std::string> project = std::nullopt) {
  const std::string text = board_text(body);
  if (!project) return read_kicad_pcb(text, "test.kicad_pcb");
  return read_kicad_pcb(text, "test.kicad_pcb", KicadProject{*project, "test.kicad_pro"});
}

const Component& component_named(const Board& board, const std::string& reference) {
  for (const Component& component : board.components) {
    if (component.reference == reference) return component;
  }
  throw std::runtime_error("no component " + reference);
}

PinRef pin_named(const Board& board, const std::string& reference, const std::string& pin) {
  for (std::size_t c = 0; c < board.components.size(); ++c) {
    if (board.components[c].reference != reference) continue;
    const Image& image = board.images[static_cast<std::size_t>(board.components[c].image)];
    for (std::size_t p = 0; p < image.pins.size(); ++p) {
      if (image.pins[p].name == pin) return {static_cast<int>(c), static_cast<int>(p)};
    }
  }
  throw std::runtime_error("no pin " + reference + "-" + pin);
}

std::vector<PinCopper> copper_of(const Board& board, PinRef pin) {
  std::vector<PinCopper> found;
  for (PinCopper& copper : pin_copper(board)) {
    if (copper.pin == pin) found.push_back(std::move(copper));
  }
  return found;
}

// A rect's corners or a polygon's vertices, sorted, for comparisons that
// do not depend on where a polygon starts.
std::vector<std::pair<Coord, Coord>> corners(const Shape& shape) {
  std::vector<std::pair<Coord, Coord>> points;
  if (shape.kind == ShapeKind::rect) {
    const Point lo = shape.points[0], hi = shape.points[1];
    points = {{lo.x, lo.y}, {hi.x, lo.y}, {hi.x, hi.y}, {lo.x, hi.y}};
  } else {
    for (const Point& p : shape.points) points.emplace_back(p.x, p.y);
  }
  std::sort(points.begin(), points.end());
  return points;
}

// ---------------------------------------------------------------- tokenizer

TEST(KicadTokenizer, QuotedStringsUnescapeBackslashes) {
  dsn_detail::Tokenizer tokens(R"((net 3 "a \"quoted\" \\ name\n") #not-a-comment)", "t", dsn_detail::Dialect::kicad);
  EXPECT_EQ(tokens.next().kind, dsn_detail::TokenKind::open);
  EXPECT_EQ(tokens.next().text, "net");
  EXPECT_EQ(tokens.next().text, "3");
  EXPECT_EQ(tokens.next().text, "a \"quoted\" \\ name\n");
  EXPECT_EQ(tokens.next().kind, dsn_detail::TokenKind::close);
  EXPECT_EQ(tokens.next().text, "#not-a-comment");
}

TEST(KicadTokenizer, SpecctraKeepsBackslashesAsText) {
  dsn_detail::Tokenizer tokens(R"((a "x\y"))", "t");
  tokens.next();
  tokens.next();
  EXPECT_EQ(tokens.next().text, "x\\y");
}

// ------------------------------------------------------------------ layers

TEST(KicadReader, CopperLayersInStackOrderWhateverTheirIds) {
  // KiCad 9 numbers F.Cu 0, B.Cu 2 and the inner layers 4, 6, ...
  const std::string text =
      "(kicad_pcb (version 20241229) (generator \"pcbnew\")\n"
      "  (layers (0 \"F.Cu\" signal) (2 \"B.Cu\" signal) (4 \"In1.Cu\" power \"GND plane\") (6 \"In2.Cu\" mixed)\n"
      "    (25 \"Edge.Cuts\" user))\n"
      "  (net 0 \"\"))\n";
  const Board board = read_kicad_pcb(text, "four.kicad_pcb");
  ASSERT_EQ(board.layers.size(), 4u);
  EXPECT_EQ(board.layers[0].name, "F.Cu");
  EXPECT_EQ(board.layers[1].name, "In1.Cu");
  EXPECT_EQ(board.layers[1].type, LayerType::mixed) << "a power layer without a zone takes wires";
  EXPECT_EQ(board.layers[2].name, "In2.Cu");
  EXPECT_EQ(board.layers[2].type, LayerType::mixed);
  EXPECT_EQ(board.layers[3].name, "B.Cu");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(board.layers[static_cast<std::size_t>(i)].index, i);
  EXPECT_EQ(board.name, "four");
}

// -------------------------------------------------------------- footprints

TEST(KicadReader, RotatedFootprintPlacesPadsAsKiCadDoes) {
  const Board board =
      read(kSquareOutline +
           "  (footprint \"Lib:Part\" (layer \"F.Cu\") (at 10 20 90)\n"
           "    (fp_text reference \"U1\" (at 0 0 90) (layer \"F.SilkS\"))\n"
           "    (pad \"1\" smd rect (at 1 0 90) (size 1 0.5) (layers \"F.Cu\" \"F.Mask\") (net 1 \"GND\"))\n"
           "    (pad \"2\" smd rect (at 0 2 180) (size 1 0.5) (layers \"F.Cu\") (net 2 \"SIG\")))\n");
  ASSERT_EQ(board.components.size(), 1u);
  const Component& u1 = board.components[0];
  EXPECT_EQ(u1.reference, "U1");
  EXPECT_EQ(u1.side, Side::front);
  EXPECT_EQ(u1.rotation, 90);
  EXPECT_EQ(u1.position, (Point{mm(10), mm(-20)}));
  // KiCad: pad 1 at (1, 0) turned 90 degrees counter-clockwise on screen
  // lands at (10, 19) with y down, (10, -19) with y up.
  EXPECT_EQ(pin_position(board, pin_named(board, "U1", "1")), (Point{mm(10), mm(-19)}));
  EXPECT_EQ(pin_position(board, pin_named(board, "U1", "2")), (Point{mm(12), mm(-20)}));
  // Pad angles are absolute: pad 1 is not turned relative to the footprint.
  const Image& image = board.images[0];
  EXPECT_EQ(image.pins[0].rotation, 0);
  EXPECT_EQ(image.pins[1].rotation, 90);
  // Pad 1's 1 x 0.5 mm rect, turned with the footprint: 0.5 wide, 1 tall.
  const std::vector<PinCopper> copper = copper_of(board, pin_named(board, "U1", "1"));
  ASSERT_EQ(copper.size(), 1u);
  EXPECT_EQ(copper[0].layer, 0);
  EXPECT_EQ(copper[0].net, 0);  // GND is the first net
  const Box box = bounding_box(copper[0].shape);
  EXPECT_EQ(box.min, (Point{mm(9.75), mm(-19.5)}));
  EXPECT_EQ(box.max, (Point{mm(10.25), mm(-18.5)}));
  // Nets hold the pins.
  ASSERT_EQ(board.nets.size(), 2u);
  EXPECT_EQ(board.nets[0].name, "GND");
  EXPECT_EQ(board.nets[0].pins, (std::vector<PinRef>{pin_named(board, "U1", "1")}));
  EXPECT_EQ(board.nets[1].pins, (std::vector<PinRef>{pin_named(board, "U1", "2")}));
  EXPECT_TRUE(board.warnings.empty());
}

TEST(KicadReader, BackSideFootprintCopperLandsWhereKiCadDrawsIt) {
  // Back-side footprints are stored flipped: a board position is origin +
  // rotate(local) whatever the side. Checked against that on an asymmetric
  // trapezoid at several angles.
  for (const double angle : {0.0, 90.0, 30.0}) {
    const std::string at = std::to_string(angle);
    const Board board = read(kSquareOutline + "  (footprint \"Lib:Back\" (layer \"B.Cu\") (at 50 30 " + at +
                             ")\n"
                             "    (property \"Reference\" \"J1\")\n"
                             "    (pad \"1\" smd rect (at -1 0.5 " +
                             at +
                             ") (size 1 2) (layers \"B.Cu\" \"B.Mask\") (net 1 \"GND\"))\n"
                             "    (pad \"2\" smd trapezoid (at 2 0 " +
                             std::to_string(angle + 90) +
                             ") (size 2 1) (rect_delta 0.4 0)\n"
                             "      (layers \"B.Cu\") (net 2 \"SIG\")))\n");
    const Component& j1 = component_named(board, "J1");
    EXPECT_EQ(j1.side, Side::back);
    EXPECT_DOUBLE_EQ(j1.rotation, std::fmod(angle + 180, 360));
    const double a = angle * std::numbers::pi / 180;
    // KiCad's own arithmetic, y down: origin + rotate(local).
    const auto kicad = [&](double x, double y) {
      const double bx = 50 + x * std::cos(a) + y * std::sin(a);
      const double by = 30 - x * std::sin(a) + y * std::cos(a);
      return Point{mm(bx), -mm(by)};
    };
    EXPECT_EQ(pin_position(board, pin_named(board, "J1", "1")), kicad(-1, 0.5)) << angle;
    const std::vector<PinCopper> trapezoid = copper_of(board, pin_named(board, "J1", "2"));
    ASSERT_EQ(trapezoid.size(), 1u);
    EXPECT_EQ(trapezoid[0].layer, 1) << "back copper stays on B.Cu";
    ASSERT_EQ(trapezoid[0].shape.kind, ShapeKind::polygon);
    // The trapezoid in its pad frame (KiCad's formula, y down), turned by
    // the pad's own 90 degrees, then placed.
    const double pa = 90 * std::numbers::pi / 180;
    std::vector<std::pair<Coord, Coord>> expected;
    for (const auto& [cx, cy] : std::vector<std::pair<double, double>>{{-1, 0.7}, {-1, -0.7}, {1, -0.3}, {1, 0.3}}) {
      const double lx = 2 + cx * std::cos(pa) + cy * std::sin(pa);
      const double ly = -cx * std::sin(pa) + cy * std::cos(pa);
      const Point p = kicad(lx, ly);
      expected.emplace_back(p.x, p.y);
    }
    std::sort(expected.begin(), expected.end());
    const auto got = corners(trapezoid[0].shape);
    ASSERT_EQ(got.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_NEAR(got[i].first, expected[i].first, 2) << angle;
      EXPECT_NEAR(got[i].second, expected[i].second, 2) << angle;
    }
  }
}

TEST(KicadReader, EveryPadShape) {
  const Board board =
      read(kSquareOutline +
           "  (footprint \"Lib:Shapes\" (layer \"F.Cu\") (at 50 50)\n"
           "    (fp_text reference \"S1\" (at 0 0) (layer \"F.SilkS\"))\n"
           "    (pad \"1\" thru_hole circle (at 0 0) (size 1.5 1.5) (drill 0.8) (layers *.Cu *.Mask))\n"
           "    (pad \"2\" smd rect (at 5 0) (size 2 1) (layers \"F.Cu\"))\n"
           "    (pad \"3\" thru_hole oval (at 10 0) (size 3 1) (drill 0.5) (layers *.Cu))\n"
           "    (pad \"4\" thru_hole oval (at 15 0) (size 1 3) (drill 0.5) (layers \"F&B.Cu\"))\n"
           "    (pad \"5\" smd roundrect (at 20 0) (size 2 1) (layers \"F.Cu\") (roundrect_rratio 0.25))\n"
           "    (pad \"6\" smd trapezoid (at 25 0) (size 2 2) (rect_delta 0 0.5) (layers \"F.Cu\"))\n"
           "    (pad \"7\" smd custom (at 30 0) (size 0.5 0.5) (layers \"F.Cu\")\n"
           "      (options (clearance outline) (anchor rect))\n"
           "      (primitives (gr_poly (pts (xy 0 0) (xy 2 0) (xy 0 -1)) (width 0) (fill yes))\n"
           "                  (gr_line (start 0 0) (end 0 3) (width 0.2))))\n"
           "    (pad \"\" np_thru_hole circle (at 35 0) (size 3 3) (drill 3) (layers *.Cu *.Mask))\n"
           "    (pad \"8\" smd roundrect (at 40 0) (size 2 2) (layers \"F.Cu\") (roundrect_rratio 0)\n"
           "      (chamfer_ratio 0.25) (chamfer top_left)))\n");
  const Image& image = board.images.at(0);
  ASSERT_EQ(image.pins.size(), 8u) << "the non-plated hole is no pin";
  const auto stack = [&](std::size_t pin) -> const Padstack& {
    return board.padstacks[static_cast<std::size_t>(image.pins[pin].padstack)];
  };
  // circle through both layers
  ASSERT_EQ(stack(0).shapes.size(), 2u);
  EXPECT_EQ(stack(0).shapes[0].shape.kind, ShapeKind::circle);
  EXPECT_EQ(stack(0).shapes[0].shape.width, mm(1.5));
  EXPECT_EQ(stack(0).shapes[1].layer, 1);
  // rect, y up
  ASSERT_EQ(stack(1).shapes.size(), 1u);
  EXPECT_EQ(stack(1).shapes[0].shape.kind, ShapeKind::rect);
  EXPECT_EQ(stack(1).shapes[0].shape.points, (std::vector<Point>{{mm(-1), mm(-0.5)}, {mm(1), mm(0.5)}}));
  // ovals: paths as wide as the short side
  EXPECT_EQ(stack(2).shapes[0].shape.kind, ShapeKind::path);
  EXPECT_EQ(stack(2).shapes[0].shape.width, mm(1));
  EXPECT_EQ(stack(2).shapes[0].shape.points, (std::vector<Point>{{mm(-1), 0}, {mm(1), 0}}));
  ASSERT_EQ(stack(3).shapes.size(), 2u);
  EXPECT_EQ(bounding_box(stack(3).shapes[0].shape).max, (Point{mm(0.5), mm(1.5)}));
  // roundrect: a polygon inside the rect touching its sides, corners rounded
  const Shape& rounded = stack(4).shapes[0].shape;
  EXPECT_EQ(rounded.kind, ShapeKind::polygon);
  EXPECT_GT(rounded.points.size(), 8u);
  EXPECT_EQ(bounding_box(rounded).min, (Point{mm(-1), mm(-0.5)}));
  EXPECT_EQ(bounding_box(rounded).max, (Point{mm(1), mm(0.5)}));
  for (const Point& p : rounded.points) {
    // corner radius 0.25 mm: the corners drawn by tangents, so the polygon
    // holds the true rounded corner and reaches at most 5 um beyond it
    const double dx = std::max(0.0, std::fabs(static_cast<double>(p.x)) - mm(0.75));
    const double dy = std::max(0.0, std::fabs(static_cast<double>(p.y)) - mm(0.25));
    EXPECT_LE(std::hypot(dx, dy), mm(0.25) + 5'000 + 1);
    EXPECT_GE(std::hypot(dx, dy) + 1, dx > 0 && dy > 0 ? mm(0.25) : 0);
  }
  // trapezoid: (rect_delta 0 0.5) widens the bottom (y down) -> lower side (y up)
  EXPECT_EQ(corners(stack(5).shapes[0].shape),
            (std::vector<std::pair<Coord, Coord>>{
                {mm(-1.25), mm(-1)}, {mm(-0.75), mm(1)}, {mm(0.75), mm(1)}, {mm(1.25), mm(-1)}}));
  // custom: the rect anchor and one shape per primitive, y up
  const Padstack& custom = stack(6);
  ASSERT_EQ(custom.shapes.size(), 3u);
  EXPECT_EQ(custom.shapes[0].shape.kind, ShapeKind::rect);
  EXPECT_EQ(custom.shapes[1].shape.kind, ShapeKind::polygon);
  EXPECT_EQ(custom.shapes[1].shape.points, (std::vector<Point>{{0, 0}, {mm(2), 0}, {0, mm(1)}}));
  EXPECT_EQ(custom.shapes[2].shape.kind, ShapeKind::path);
  EXPECT_EQ(custom.shapes[2].shape.width, mm(0.2));
  EXPECT_EQ(custom.shapes[2].shape.points, (std::vector<Point>{{0, 0}, {0, mm(-3)}}));
  // chamfered rect: five corners, the top-left (y down) one cut
  EXPECT_EQ(corners(stack(7).shapes[0].shape),
            (std::vector<std::pair<Coord, Coord>>{
                {mm(-1), mm(-1)}, {mm(-1), mm(0.5)}, {mm(-0.5), mm(1)}, {mm(1), mm(-1)}, {mm(1), mm(1)}}));
  // the hole: a keepout on every layer
  ASSERT_EQ(image.keepouts.size(), 1u);
  EXPECT_EQ(image.keepouts[0].layer, kAllLayers);
  EXPECT_EQ(image.keepouts[0].shape.kind, ShapeKind::circle);
  EXPECT_EQ(image.keepouts[0].shape.width, mm(3));
  EXPECT_EQ(image.keepouts[0].shape.points, (std::vector<Point>{{mm(35), 0}}));
}

// (drill D (offset X Y)): the hole stays at the pad's position and the
// copper moves by the offset, as pcbnew's PAD::ShapePos() places it (a
// TO-92 footprint of kicad-demos' complex_hierarchy has such pads).
TEST(KicadReader, DrillOffsetMovesTheCopperNotTheHole) {
  const Board board =
      read(kSquareOutline +
           "  (footprint \"L:TO92\" (layer \"F.Cu\") (at 50 50)\n"
           "    (fp_text reference \"Q1\" (at 0 0) (layer \"F.SilkS\"))\n"
           "    (pad \"1\" thru_hole rect (at 0 0) (size 1.1 1.8) (drill 0.75 (offset 0 0.4)) (layers *.Cu))\n"
           "    (pad \"2\" np_thru_hole circle (at 5 0) (size 1 1) (drill 1 (offset 0 0.4)) (layers *.Cu)))\n");
  const PinRef pin = pin_named(board, "Q1", "1");
  EXPECT_EQ(pin_position(board, pin), (Point{mm(50), mm(-50)}));
  const std::vector<PinCopper> copper = copper_of(board, pin);
  ASSERT_FALSE(copper.empty());
  // 0.4 mm down as KiCad draws (y down) is 0.4 mm lower here (y up).
  const Box box = bounding_box(copper.front().shape);
  EXPECT_EQ(box.min, (Point{mm(50 - 0.55), mm(-50 - 0.4 - 0.9)}));
  EXPECT_EQ(box.max, (Point{mm(50 + 0.55), mm(-50 - 0.4 + 0.9)}));
  // The hole of the unplated pad is a keepout where the hole is.
  const Image& image = board.images.at(0);
  ASSERT_EQ(image.keepouts.size(), 1u);
  EXPECT_EQ(image.keepouts[0].shape.points.front(), (Point{mm(5), 0}));
}

TEST(KicadReader, IdenticalFootprintsShareAnImageAndRepeatedNumbersGetSuffixes) {
  std::string body = kSquareOutline;
  for (const char* ref : {"R1", "R2"}) {
    body += std::string("  (footprint \"Lib:R\" (layer \"F.Cu\") (at 20 20)\n") + "    (fp_text reference \"" + ref +
            "\" (at 0 0) (layer \"F.SilkS\"))\n"
            "    (pad \"1\" smd rect (at 0 0) (size 1 1) (layers \"F.Cu\"))\n"
            "    (pad \"1\" smd rect (at 2 0) (size 1 1) (layers \"F.Cu\")))\n";
  }
  body +=
      "  (footprint \"Lib:R\" (layer \"F.Cu\") (at 30 30)\n"
      "    (fp_text reference \"R3\" (at 0 0) (layer \"F.SilkS\"))\n"
      "    (pad \"1\" smd rect (at 0 0) (size 2 1) (layers \"F.Cu\")))\n";
  const Board board = read(body);
  ASSERT_EQ(board.images.size(), 2u);
  EXPECT_EQ(board.components[0].image, board.components[1].image);
  EXPECT_EQ(board.images[0].name, "Lib:R");
  EXPECT_EQ(board.images[1].name, "Lib:R::1");
  EXPECT_EQ(board.images[0].pins[1].name, "1@1");
  EXPECT_EQ(board.padstacks.size(), 3u) << "two pad shapes and the default via";
}

// ----------------------------------------------------------------- outline

TEST(KicadReader, OutlineOfLinesAndAnArcChainsIntoOnePolygon) {
  // Pieces out of order and one reversed; the arc bulges down (y down) to 15.
  const Board board = read(
      "  (gr_line (start 10 10) (end 10 0) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (gr_line (start 0 0) (end 10 0) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (gr_arc (start 10 10) (mid 5 15) (end 0 10) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (gr_line (start 0 10) (end 0 0) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (gr_line (start 1 1) (end 5 5) (layer \"F.SilkS\") (width 0.1))\n"
      "  (gr_rect (start 2 2) (end 4 4) (layer \"Edge.Cuts\") (width 0.1))\n");
  ASSERT_EQ(board.boundary.size(), 1u);
  const Shape& edge = board.boundary[0];
  EXPECT_EQ(edge.kind, ShapeKind::polygon);
  const Box box = bounding_box(edge);
  EXPECT_EQ(box.min, (Point{0, mm(-15)}));
  EXPECT_EQ(box.max, (Point{mm(10), 0}));
  // The arc's vertices lie on its circle (centre (5, -10), radius 5).
  int on_arc = 0;
  for (const Point& p : edge.points) {
    if (p.y >= mm(-10)) continue;
    ++on_arc;
    EXPECT_NEAR(std::hypot(static_cast<double>(p.x - mm(5)), static_cast<double>(p.y + mm(10))), mm(5), 1.0);
  }
  // Chords within 5 um of a 5 mm radius: at least pi / (2 acos(1 - 0.001)) ~ 35.
  EXPECT_GE(on_arc, 34);
  // The area: the square plus half the disc, less what the chords cut off.
  double twice = 0;
  for (std::size_t i = 0; i < edge.points.size(); ++i) {
    const Point a = edge.points[i], b = edge.points[(i + 1) % edge.points.size()];
    twice += static_cast<double>(a.x) * static_cast<double>(b.y) - static_cast<double>(b.x) * static_cast<double>(a.y);
  }
  const double area_mm2 = std::fabs(twice) / 2 / 1e12;
  EXPECT_NEAR(area_mm2, 100 + std::numbers::pi * 25 / 2, 0.05);
  // The rect inside is a cutout.
  ASSERT_EQ(board.keepouts.size(), 1u);
  EXPECT_EQ(board.keepouts[0].name, "edge_cutout");
  EXPECT_EQ(bounding_box(board.keepouts[0].shape).min, (Point{mm(2), mm(-4)}));
  EXPECT_TRUE(inside_boundary(board, {mm(5), mm(-14)}));
  EXPECT_FALSE(inside_boundary(board, {mm(0.5), mm(-14)}));
}

TEST(KicadReader, FootprintEdgeCutsJoinTheOutline) {
  // Half the outline on the board, half inside a footprint turned 180.
  const Board board = read(
      "  (gr_line (start 0 0) (end 10 0) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (gr_line (start 0 0) (end 0 10) (layer \"Edge.Cuts\") (width 0.1))\n"
      "  (footprint \"Lib:Edge\" (layer \"F.Cu\") (at 10 10 180)\n"
      "    (fp_line (start 0 0) (end 10 0) (layer \"Edge.Cuts\") (width 0.1))\n"
      "    (fp_line (start 0 0) (end 0 10) (layer \"Edge.Cuts\") (width 0.1)))\n");
  ASSERT_EQ(board.boundary.size(), 1u);
  EXPECT_EQ(corners(board.boundary[0]),
            (std::vector<std::pair<Coord, Coord>>{{0, mm(-10)}, {0, 0}, {mm(10), mm(-10)}, {mm(10), 0}}));
}

// ------------------------------------------------------- tracks, vias, zones

TEST(KicadReader, TracksAndVias) {
  const Board board = read(kSquareOutline +
                           "  (segment (start 10 10) (end 20 10) (width 0.25) (layer \"F.Cu\") (net 1) (tstamp 1))\n"
                           "  (segment locked (start 20 10) (end 20 20) (width 0.3) (layer \"B.Cu\") (net 2))\n"
                           "  (arc (start 30 10) (mid 35 15) (end 40 10) (width 0.2) (layer \"B.Cu\") (net 2))\n"
                           "  (via (at 20 10) (size 0.6) (drill 0.3) (layers \"F.Cu\" \"B.Cu\") (net 1))\n"
                           "  (via (at 25 25) (size 0.6) (drill 0.3) (layers \"F.Cu\" \"B.Cu\") (net 0))\n");
  ASSERT_EQ(board.wires.size(), 3u);
  EXPECT_EQ(board.wires[0].layer, 0);
  EXPECT_EQ(board.wires[0].net, 0);
  EXPECT_EQ(board.wires[0].shape.kind, ShapeKind::path);
  EXPECT_EQ(board.wires[0].shape.width, mm(0.25));
  EXPECT_EQ(board.wires[0].shape.points, (std::vector<Point>{{mm(10), mm(-10)}, {mm(20), mm(-10)}}));
  EXPECT_EQ(board.wires[0].type, WiringType::normal);
  EXPECT_EQ(board.wires[1].layer, 1);
  EXPECT_EQ(board.wires[1].net, 1);
  EXPECT_EQ(board.wires[1].type, WiringType::protect);
  const Shape& arc = board.wires[2].shape;
  EXPECT_GT(arc.points.size(), 10u);
  EXPECT_EQ(arc.points.front(), (Point{mm(30), mm(-10)}));
  EXPECT_EQ(arc.points.back(), (Point{mm(40), mm(-10)}));
  EXPECT_EQ(bounding_box(arc).min.y, mm(-15) - mm(0.1));
  ASSERT_EQ(board.vias.size(), 2u);
  EXPECT_EQ(board.vias[0].position, (Point{mm(20), mm(-10)}));
  EXPECT_EQ(board.vias[0].net, 0);
  EXPECT_EQ(board.vias[1].net, -1);
  EXPECT_EQ(board.vias[0].padstack, board.vias[1].padstack);
  const Padstack& via = board.padstacks[static_cast<std::size_t>(board.vias[0].padstack)];
  EXPECT_EQ(via.name, "Via[0-1]_600:300_um");
  ASSERT_EQ(via.shapes.size(), 2u);
  EXPECT_EQ(via.shapes[0].shape.width, mm(0.6));
  // The default via for routing: KiCad's 0.8 / 0.4 without a project.
  ASSERT_EQ(board.via_padstacks.size(), 1u);
  EXPECT_EQ(board.padstacks[static_cast<std::size_t>(board.via_padstacks[0])].name, "Via[0-1]_800:400_um");
  EXPECT_EQ(board.rules.width, mm(0.25));
  EXPECT_EQ(board.rules.clearance, mm(0.2));
  ASSERT_EQ(board.classes.size(), 1u);
  EXPECT_EQ(board.classes[0].nets, (std::vector<int>{0, 1}));
}

TEST(KicadReader, KeepoutsAndPlanes) {
  const Board board = read(
      kSquareOutline +
      "  (zone (net 0) (net_name \"\") (layer \"F.Cu\") (hatch edge 0.508)\n"
      "    (name \"no tracks\")\n"
      "    (keepout (tracks not_allowed) (vias allowed) (pads allowed) (copperpour allowed) (footprints allowed))\n"
      "    (fill (thermal_gap 0.508) (thermal_bridge_width 0.508))\n"
      "    (polygon (pts (xy 10 10) (xy 20 10) (xy 20 20) (xy 10 20))))\n"
      "  (zone (net 0) (net_name \"\") (layers *.Cu) (hatch edge 0.508)\n"
      "    (keepout (tracks not_allowed) (vias not_allowed) (pads allowed) (copperpour allowed) (footprints allowed))\n"
      "    (polygon (pts (xy 30 30) (xy 40 30) (xy 40 40))))\n"
      "  (zone (net 0) (net_name \"\") (layers \"B.Cu\") (hatch edge 0.508)\n"
      "    (keepout (tracks allowed) (vias not_allowed) (pads allowed) (copperpour allowed) (footprints allowed))\n"
      "    (polygon (pts (xy 50 50) (xy 60 50) (xy 60 60))))\n"
      "  (zone (net 0) (net_name \"\") (layer \"F.Cu\") (hatch edge 0.508)\n"
      "    (keepout (tracks allowed) (vias allowed) (pads not_allowed) (copperpour not_allowed) (footprints allowed))\n"
      "    (polygon (pts (xy 70 70) (xy 80 70) (xy 80 80))))\n"
      "  (zone (net 1) (net_name \"GND\") (layer \"B.Cu\") (hatch edge 0.508)\n"
      "    (connect_pads (clearance 0.508)) (min_thickness 0.254)\n"
      "    (fill yes (thermal_gap 0.508) (thermal_bridge_width 0.508))\n"
      "    (polygon (pts (xy 1 1) (xy 99 1) (xy 99 99) (xy 1 99)))\n"
      "    (filled_polygon (layer \"B.Cu\") (pts (xy 2 2) (xy 98 2) (xy 98 98))))\n");
  ASSERT_EQ(board.keepouts.size(), 3u) << "the pour-only rule area is no routing keepout";
  EXPECT_EQ(board.keepouts[0].kind, KeepoutKind::wire_keepout);
  EXPECT_EQ(board.keepouts[0].name, "no tracks");
  EXPECT_EQ(board.keepouts[0].layer, 0);
  EXPECT_EQ(corners(board.keepouts[0].shape),
            (std::vector<std::pair<Coord, Coord>>{
                {mm(10), mm(-20)}, {mm(10), mm(-10)}, {mm(20), mm(-20)}, {mm(20), mm(-10)}}));
  EXPECT_EQ(board.keepouts[1].kind, KeepoutKind::keepout);
  EXPECT_EQ(board.keepouts[1].layer, kAllLayers);
  EXPECT_EQ(board.keepouts[2].kind, KeepoutKind::via_keepout);
  EXPECT_EQ(board.keepouts[2].layer, 1);
  ASSERT_EQ(board.planes.size(), 1u);
  EXPECT_EQ(board.planes[0].net, 0);
  EXPECT_EQ(board.planes[0].net_name, "GND");
  EXPECT_EQ(board.planes[0].layer, 1);
  EXPECT_EQ(board.planes[0].shape.points.size(), 4u) << "the outline, not the fill";
}

// ---------------------------------------------------------------- project

Box box_of(const CopperGraphic& graphic) {
  Box box;
  for (const Shape& shape : graphic.shapes) box.include(bounding_box(shape));
  return box;
}

TEST(KicadReader, TextAndDrawingsOnCopperAreCopperOfNoNet) {
  const Board board =
      read(kSquareOutline +
           "  (gr_text \"VCC ON\" (at 50 50) (layer \"F.Cu\")\n"
           "    (effects (font (size 2.032 1.524) (thickness 0.3048))))\n"
           "  (gr_text \"hidden\" (at 50 60) (layer \"F.Cu\") hide (effects (font (size 1 1) (thickness 0.1))))\n"
           "  (gr_text \"silk\" (at 50 70) (layer \"F.SilkS\") (effects (font (size 1 1) (thickness 0.1))))\n"
           "  (gr_line (start 10 10) (end 20 10) (layer \"B.Cu\") (width 0.5))\n"
           "  (gr_poly (pts (xy 30 30) (xy 32 30) (xy 32 32)) (layer \"F.Cu\") (width 0) (fill solid))\n"
           "  (footprint \"L:F\" (layer \"F.Cu\") (at 80 20 90)\n"
           "    (fp_text reference \"U1\" (at 0 0) (layer \"F.SilkS\") (effects (font (size 1 1) (thickness 0.1))))\n"
           "    (fp_rect (start 1 0) (end 2 1) (layer \"F.Cu\") (width 0) (fill solid)))\n");
  ASSERT_EQ(board.copper_graphics.size(), 4u);
  const CopperGraphic& text = board.copper_graphics[0];
  EXPECT_EQ(text.layer, 0);
  EXPECT_NE(text.description.find("VCC ON"), std::string::npos) << text.description;
  EXPECT_EQ(text.shapes.size(), 5u) << "one box per glyph, none for the space";
  // KiCad 6's own box of this text (pcbnew's GetTextBox): x 158.393 to
  // 167.407 mm about an anchor at 162.9, so 4.507 either side, and 1.864
  // above and below. The strokes fill most of its width; their round ends
  // may reach a few micrometres past its sides (the box holds the glyphs'
  // advances, not the pen), and the boxes add a margin of 0.25 font units.
  const Box box = box_of(text);
  EXPECT_GE(box.min.x, mm(50 - 4.507 - 0.03));
  EXPECT_LE(box.max.x, mm(50 + 4.507 + 0.03));
  EXPECT_GT(box.max.x - box.min.x, mm(8.0));
  EXPECT_GE(box.min.y, mm(-50 - 1.864));
  EXPECT_LE(box.max.y, mm(-50 + 1.864));
  // Capitals are 2.032 mm tall with 0.3 mm strokes.
  EXPECT_GT(box.max.y - box.min.y, mm(2.3));

  const CopperGraphic& line = board.copper_graphics[1];
  EXPECT_EQ(line.layer, 1);
  ASSERT_EQ(line.shapes.size(), 1u);
  EXPECT_EQ(line.shapes[0].kind, ShapeKind::path);
  EXPECT_EQ(line.shapes[0].width, mm(0.5));
  EXPECT_EQ(board.copper_graphics[2].shapes[0].kind, ShapeKind::polygon);
  // The footprint's rectangle, turned a quarter counter-clockwise with it:
  // local x 1..2 (right) goes up, local y 0..1 (down) goes right, so it
  // lands at board x 80..81, y -19..-18 (y up, the footprint at y -20).
  const CopperGraphic& rect = board.copper_graphics[3];
  EXPECT_NE(rect.description.find("U1"), std::string::npos) << rect.description;
  const Box placed = box_of(rect);
  EXPECT_EQ(placed.min, (Point{mm(80), mm(-19)}));
  EXPECT_EQ(placed.max, (Point{mm(81), mm(-18)}));
}

// Degenerate drawings a broken or hand-edited file may hold read without
// harm: no points, no radius, no text.
TEST(KicadReader, DegenerateCopperDrawingsAreReadWithoutHarm) {
  const Board board = read(kSquareOutline +
                           "  (gr_poly (pts) (layer \"F.Cu\") (width 0.1) (fill none))\n"
                           "  (gr_poly (pts) (layer \"F.Cu\") (width 0.1))\n"
                           "  (gr_circle (center 5 5) (end 5 5) (layer \"F.Cu\") (width 0) (fill solid))\n"
                           "  (gr_text \"\" (at 1 1) (layer \"F.Cu\"))\n"
                           "  (gr_text \"x\" (at 1 1) (layer \"B.Cu\"))\n");
  ASSERT_EQ(board.copper_graphics.size(), 2u);
  EXPECT_EQ(board.copper_graphics[0].description.find("circle"), 0u);
  EXPECT_EQ(board.copper_graphics[1].layer, 1) << "a text without effects takes KiCad's default size";
  const DrcReport report = check_design_rules(board);
  EXPECT_TRUE(report.routing.empty());
}

// A line with characters outside printable ASCII is one box over the whole
// line, as wide as each byte taken for the widest glyph: it holds the real
// glyphs wherever they sit.
TEST(KicadReader, TextBeyondAsciiIsOneBoxOverItsLine) {
  const Board board =
      read(kSquareOutline +
           "  (gr_text \"10 \xC2\xB5H\" (at 50 50) (layer \"F.Cu\") (effects (font (size 1 1) (thickness 0.1))))\n"
           "  (gr_text \"10 uH\" (at 50 60) (layer \"F.Cu\") (effects (font (size 1 1) (thickness 0.1))))\n");
  ASSERT_EQ(board.copper_graphics.size(), 2u);
  EXPECT_EQ(board.copper_graphics[0].shapes.size(), 1u);
  const Box guessed = box_of(board.copper_graphics[0]);
  const Box ascii = box_of(board.copper_graphics[1]);
  EXPECT_GT(guessed.max.x - guessed.min.x, ascii.max.x - ascii.min.x);
  EXPECT_GT(guessed.max.y - guessed.min.y, ascii.max.y - ascii.min.y);
}

TEST(KicadReader, TurnedJustifiedAndMirroredTextStaysOnItsSide) {
  const Board board = read(kSquareOutline +
                           "  (gr_text \"AB\" (at 50 50 90) (layer \"F.Cu\")\n"
                           "    (effects (font (size 1 1) (thickness 0.1)) (justify left)))\n"
                           "  (gr_text \"AB\" (at 50 50) (layer \"B.Cu\")\n"
                           "    (effects (font (size 1 1) (thickness 0.1)) (justify left mirror)))\n");
  ASSERT_EQ(board.copper_graphics.size(), 2u);
  // Left-justified and turned a quarter: it runs up from the anchor.
  const Box up = box_of(board.copper_graphics[0]);
  EXPECT_GT(up.min.y, mm(-50));
  EXPECT_GT(up.max.y - up.min.y, up.max.x - up.min.x);
  // Mirrored: it runs left of the anchor.
  const Box left = box_of(board.copper_graphics[1]);
  EXPECT_LT(left.max.x, mm(50));
}

// A KiCad 5.1 board: (module ...), arcs by centre and angle, and net
// classes kept in the board.
TEST(KicadReader, KiCad5BoardsAreRead) {
  const std::string body =
      kSquareOutline +
      "  (net_class Default \"default\" (clearance 0.15) (trace_width 0.2) (via_dia 0.6) (via_drill 0.3)\n"
      "    (add_net SIG))\n"
      "  (net_class Power \"\" (clearance 0.3) (trace_width 0.5) (via_dia 1) (via_drill 0.5) (add_net GND))\n"
      "  (module R_0603 (layer F.Cu) (tedit 5B301BBD) (tstamp 5C1A2B3D) (at 40 40)\n"
      "    (fp_text reference R1 (at 0 -1.5) (layer F.SilkS) (effects (font (size 1 1) (thickness 0.15))))\n"
      "    (fp_arc (start 0 0) (end 1 0) (angle 90) (layer F.Cu) (width 0.2))\n"
      "    (pad 1 smd rect (at -0.8 0) (size 0.8 0.9) (layers F.Cu F.Paste F.Mask) (net 1 GND))\n"
      "    (pad 2 smd rect (at 0.8 0) (size 0.8 0.9) (layers F.Cu F.Paste F.Mask) (net 2 SIG)))\n";
  const Board board = read_kicad_pcb(board_text(body, "20171130"), "five.kicad_pcb");
  ASSERT_EQ(board.components.size(), 1u);
  EXPECT_EQ(board.components[0].reference, "R1");
  EXPECT_EQ(board.nets[0].pins.size(), 1u);
  EXPECT_EQ(board.rules.clearance, mm(0.15));
  ASSERT_EQ(board.classes.size(), 2u);
  EXPECT_EQ(board.classes[1].name, "Power");
  EXPECT_EQ(board.classes[1].nets, (std::vector<int>{0}));
  EXPECT_EQ(board.classes[1].rules.width, mm(0.5));
  // The arc turns 90 degrees from (41, 40) clockwise as KiCad draws (y
  // down), so it ends at (40, 41): below the centre, y -41 here.
  ASSERT_EQ(board.copper_graphics.size(), 1u);
  const std::vector<Point>& arc = board.copper_graphics[0].shapes[0].points;
  EXPECT_EQ(arc.front(), (Point{mm(41), mm(-40)}));
  EXPECT_EQ(arc.back(), (Point{mm(40), mm(-41)}));
}

// Local clearance overrides: a pad's own, else its footprint's; 0 is none.
TEST(KicadReader, PadAndFootprintClearanceOverrides) {
  const Board board =
      read(kSquareOutline +
           "  (footprint \"L:F\" (layer \"F.Cu\") (at 20 20) (clearance 0.2)\n"
           "    (fp_text reference \"JP1\" (at 0 0) (layer \"F.SilkS\") (effects (font (size 1 1))))\n"
           "    (pad \"1\" smd rect (at -1 0) (size 1 1) (layers \"F.Cu\") (net 1 \"GND\"))\n"
           "    (pad \"2\" smd rect (at 1 0) (size 1 1) (layers \"F.Cu\") (net 2 \"SIG\") (clearance 0.4)))\n"
           "  (footprint \"L:F\" (layer \"F.Cu\") (at 40 20) (clearance 0)\n"
           "    (fp_text reference \"JP2\" (at 0 0) (layer \"F.SilkS\") (effects (font (size 1 1))))\n"
           "    (pad \"1\" smd rect (at -1 0) (size 1 1) (layers \"F.Cu\"))\n"
           "    (pad \"2\" smd rect (at 1 0) (size 1 1) (layers \"F.Cu\")))\n");
  EXPECT_EQ(pin_clearance_override(board, pin_named(board, "JP1", "1")), mm(0.2));
  EXPECT_EQ(pin_clearance_override(board, pin_named(board, "JP1", "2")), mm(0.4));
  EXPECT_EQ(pin_clearance_override(board, pin_named(board, "JP2", "1")), std::nullopt);
}

// KiCad's user layer names are what its Specctra export and session import
// use; KiCad 5 wrote them in place of the canonical names.
TEST(KicadReader, UserLayerNamesAreTheSpecctraNames) {
  const auto with_front = [](std::string text, const std::string& entry) {
    const std::string canonical = "(0 \"F.Cu\" signal)";
    text.replace(text.find(canonical), canonical.size(), entry);
    return text;
  };
  const Board six =
      read_kicad_pcb(with_front(board_text(kSquareOutline), "(0 \"F.Cu\" signal \"top_layer\")"), "six.kicad_pcb");
  EXPECT_EQ(six.layers[0].name, "F.Cu");
  EXPECT_EQ(six.layers[0].specctra_name, "top_layer");
  EXPECT_EQ(six.layers[1].specctra_name, "");
  const std::string track = "  (segment (start 1 1) (end 5 1) (width 0.25) (layer top_layer) (net 1))\n";
  const Board five = read_kicad_pcb(with_front(board_text(kSquareOutline + track, "20171130"), "(0 top_layer signal)"),
                                    "five.kicad_pcb");
  EXPECT_EQ(five.layers[0].name, "F.Cu");
  EXPECT_EQ(five.layers[0].specctra_name, "top_layer");
  ASSERT_EQ(five.wires.size(), 1u);
  EXPECT_EQ(five.wires[0].layer, 0);
}

TEST(KicadReader, NetClassesFromAKiCad6Project) {
  const std::string project = R"({
    "board": {"design_settings": {}},
    "net_settings": {
      "classes": [
        {"name": "Default", "clearance": 0.15, "track_width": 0.2, "via_diameter": 0.6, "via_drill": 0.3, "nets": []},
        {"name": "Power", "clearance": 0.3, "track_width": 0.8, "via_diameter": 1.0, "via_drill": 0.5,
         "nets": ["GND"]}
      ],
      "meta": {"version": 2}
    }
  })";
  const Board board = read(kSquareOutline, project);
  EXPECT_EQ(board.rules.width, mm(0.2));
  EXPECT_EQ(board.rules.clearance, mm(0.15));
  ASSERT_EQ(board.classes.size(), 2u);
  EXPECT_EQ(board.classes[0].name, "Default");
  EXPECT_EQ(board.classes[0].nets, (std::vector<int>{1}));
  EXPECT_EQ(board.classes[1].name, "Power");
  EXPECT_EQ(board.classes[1].nets, (std::vector<int>{0}));
  EXPECT_EQ(board.classes[1].rules.width, mm(0.8));
  EXPECT_EQ(board.classes[1].rules.clearance, mm(0.3));
  ASSERT_EQ(board.classes[1].vias.size(), 1u);
  EXPECT_EQ(board.padstacks[static_cast<std::size_t>(board.classes[1].vias[0])].name, "Via[0-1]_1000:500_um");
  ASSERT_EQ(board.via_padstacks.size(), 2u);
  EXPECT_EQ(board.padstacks[static_cast<std::size_t>(board.via_padstacks[0])].name, "Via[0-1]_600:300_um");
}

// The board's minimum track width is what a wire may neck down to: the
// project's, else KiCad 5's (setup (trace_min ...)), else KiCad 6's default
// 0.2 mm (also where a later KiCad says 0, no minimum).
TEST(KicadReader, TheMinimumTrackWidthIsTheNeckDownWidth) {
  EXPECT_EQ(read(kSquareOutline).rules.neck_down_width, mm(0.2));
  const auto with_rules = [](const std::string& rules) {
    return R"({"board": {"design_settings": {"rules": )" + rules + "}}}";
  };
  EXPECT_EQ(read(kSquareOutline, with_rules(R"({"min_track_width": 0.127})")).rules.neck_down_width, mm(0.127));
  EXPECT_EQ(read(kSquareOutline, with_rules(R"({"min_track_width": 0.0})")).rules.neck_down_width, mm(0.2));
  EXPECT_EQ(read(kSquareOutline, with_rules("{}")).rules.neck_down_width, mm(0.2));
  std::string five_text = board_text(kSquareOutline, "20171130");
  const std::string setup = "(setup (pad_to_mask_clearance 0)";
  five_text.insert(five_text.find(setup) + setup.size(), " (trace_min 0.15)");
  const Board five = read_kicad_pcb(five_text, "five.kicad_pcb");
  EXPECT_EQ(five.rules.neck_down_width, mm(0.15));
  EXPECT_THROW(read(kSquareOutline, with_rules(R"({"min_track_width": "thin"})")), InputError);
  EXPECT_THROW(read(kSquareOutline, with_rules(R"({"min_track_width": -1})")), InputError);
}

TEST(KicadReader, NetClassPatternsFromAKiCad7Project) {
  const std::string project = R"({
    "net_settings": {
      "classes": [{"name": "Default", "clearance": 0.2, "track_width": 0.25},
                  {"name": "Fast", "clearance": 0.1, "track_width": 0.1}],
      "netclass_assignments": null,
      "netclass_patterns": [{"netclass": "Fast", "pattern": "S?G*"}]
    }
  })";
  const Board board = read(kSquareOutline, project);
  ASSERT_EQ(board.classes.size(), 2u);
  EXPECT_EQ(board.classes[1].nets, (std::vector<int>{1}));
  EXPECT_EQ(board.classes[0].nets, (std::vector<int>{0}));
}

// -------------------------------------------------------------- demo boards

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream whole;
  whole << in.rdbuf();
  return std::move(whole).str();
}

// Reads the same board from KiCad's .kicad_pcb and KiCad's DSN export of it.
struct DemoPair {
  Board kicad;
  Board dsn;
};

std::optional<DemoPair> demo_pair(const std::string& pcb, const std::string& dsn, std::string& why_not) {
  const fs::path pcb_path = fs::path("/usr/share/kicad/demos") / pcb;
  if (!fs::exists(pcb_path)) {
    why_not = pcb_path.string() + " is missing (Debian package kicad-demos; scripts/setup installs it)";
    return std::nullopt;
  }
  const char* boards = std::getenv("TRELLIS_BOARDS_DIR");
  const fs::path dsn_path = fs::path(boards == nullptr ? "" : boards) / "kicad" / dsn;
  if (boards == nullptr || !fs::exists(dsn_path)) {
    why_not = "TRELLIS_BOARDS_DIR/kicad/" + dsn + " is missing (ctest sets TRELLIS_BOARDS_DIR)";
    return std::nullopt;
  }
  return DemoPair{read_kicad_pcb(pcb_path), read_dsn_file(dsn_path)};
}

// "REF-PIN" for every pin of a net, the "@k" of repeated pad numbers dropped.
std::multiset<std::string> pin_names(const Board& board, const Net& net) {
  std::multiset<std::string> names;
  for (const PinRef& pin : net.pins) {
    const Component& component = board.components[static_cast<std::size_t>(pin.component)];
    const std::string& name =
        board.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pin.pin)].name;
    names.insert(component.reference + "-" + name.substr(0, name.find('@')));
  }
  return names;
}

void expect_same_as_kicad_export(const DemoPair& pair) {
  const Board& kicad = pair.kicad;
  const Board& dsn = pair.dsn;
  EXPECT_EQ(kicad.components.size(), dsn.components.size());
  EXPECT_EQ(kicad.nets.size(), dsn.nets.size());
  EXPECT_EQ(kicad.layers.size(), dsn.layers.size());
  std::map<std::string, const Net*> kicad_nets;
  for (const Net& net : kicad.nets) kicad_nets.emplace(net.name, &net);
  std::size_t pins_compared = 0;
  for (const Net& net : dsn.nets) {
    const auto found = kicad_nets.find(net.name);
    ASSERT_NE(found, kicad_nets.end()) << net.name;
    EXPECT_EQ(pin_names(kicad, *found->second), pin_names(dsn, net)) << net.name;
    // Every pin where KiCad's export puts it, within 1 um.
    for (const PinRef& pin : net.pins) {
      const Component& component = dsn.components[static_cast<std::size_t>(pin.component)];
      const std::string& name =
          dsn.images[static_cast<std::size_t>(component.image)].pins[static_cast<std::size_t>(pin.pin)].name;
      const Point expected = pin_position(dsn, pin);
      const Point got = pin_position(kicad, pin_named(kicad, component.reference, name));
      EXPECT_NEAR(got.x, expected.x, 1000) << component.reference << "-" << name;
      EXPECT_NEAR(got.y, expected.y, 1000) << component.reference << "-" << name;
      ++pins_compared;
    }
  }
  EXPECT_GT(pins_compared, 20u);
  // Each component on the same side, and the outline over the same box.
  for (const Component& component : dsn.components) {
    EXPECT_EQ(component_named(kicad, component.reference).side, component.side) << component.reference;
  }
  const Box kicad_box = boundary_box(kicad), dsn_box = boundary_box(dsn);
  EXPECT_NEAR(kicad_box.min.x, dsn_box.min.x, 1000);
  EXPECT_NEAR(kicad_box.min.y, dsn_box.min.y, 1000);
  EXPECT_NEAR(kicad_box.max.x, dsn_box.max.x, 1000);
  EXPECT_NEAR(kicad_box.max.y, dsn_box.max.y, 1000);
  EXPECT_EQ(kicad.planes.size(), dsn.planes.size());
  EXPECT_TRUE(kicad.warnings.empty()) << kicad.warnings.front();
}

TEST(KicadDemoBoards, PicProgrammerMatchesKiCadsOwnExport) {
  std::string why_not;
  const std::optional<DemoPair> pair =
      demo_pair("pic_programmer/pic_programmer.kicad_pcb", "pic_programmer.unrouted.dsn", why_not);
  if (!pair) GTEST_SKIP() << why_not;
  expect_same_as_kicad_export(*pair);
  // The rules come from pic_programmer.kicad_pro: Default 0.5 mm tracks,
  // 0.25 mm clearance; POWER (GND, VCC) 0.8 mm tracks.
  const Board& kicad = pair->kicad;
  EXPECT_EQ(kicad.rules.width, mm(0.5));
  EXPECT_EQ(kicad.rules.clearance, mm(0.25));
  ASSERT_EQ(kicad.classes.size(), 2u);
  EXPECT_EQ(kicad.classes[1].name, "POWER");
  EXPECT_EQ(kicad.classes[1].rules.width, mm(0.8));
  ASSERT_EQ(kicad.classes[1].nets.size(), 2u);
  EXPECT_EQ(kicad.nets[static_cast<std::size_t>(kicad.classes[1].nets[0])].name, "GND");
  EXPECT_EQ(kicad.classes[0].nets.size() + 2, kicad.nets.size());
  EXPECT_EQ(kicad.padstacks[static_cast<std::size_t>(kicad.via_padstacks.at(0))].name, "Via[0-1]_1600:600_um");
  // KiCad's export of these boards was made without the project: its rules
  // are KiCad's defaults, which the reader gives without a project too
  // (the export adds 0.1 um to clearances).
  const Board bare = read_kicad_pcb(read_text("/usr/share/kicad/demos/pic_programmer/pic_programmer.kicad_pcb"),
                                    "pic_programmer.kicad_pcb");
  EXPECT_EQ(bare.rules.width, pair->dsn.rules.width);
  EXPECT_NEAR(static_cast<double>(*bare.rules.clearance), static_cast<double>(*pair->dsn.rules.clearance), 100);
  EXPECT_EQ(bare.padstacks[static_cast<std::size_t>(bare.via_padstacks.at(0))].name,
            pair->dsn.padstacks[static_cast<std::size_t>(pair->dsn.via_padstacks.at(0))].name);
  EXPECT_EQ(pair->kicad.vias.size(), 6u);
  EXPECT_GT(pair->kicad.wires.size(), 300u);
}

TEST(KicadDemoBoards, Ecc83MatchesKiCadsOwnExport) {
  std::string why_not;
  const std::optional<DemoPair> pair = demo_pair("ecc83/ecc83-pp_v2.kicad_pcb", "ecc83-pp_v2.unrouted.dsn", why_not);
  if (!pair) GTEST_SKIP() << why_not;
  expect_same_as_kicad_export(*pair);
}

// ------------------------------------------------------------------ errors

struct BadBoard {
  const char* what;
  std::string text;
  std::size_t line;
};

std::vector<BadBoard> bad_boards() {
  const std::string fp_head = "  (footprint \"L:F\" (layer \"F.Cu\") (at 1 1)\n";
  return {
      {"empty", "", 0},
      {"not kicad", "(pcb x)\n", 1},
      {"truncated", board_text("").substr(0, 60), 2},
      {"unclosed string", "(kicad_pcb (version 20211014)\n (net 1 \"GND))\n", 2},
      {"text after the board", board_text("") + "(x)\n", 14},
      {"no version", "(kicad_pcb (generator pcbnew))\n", 1},
      {"older than KiCad 5.1", board_text("", "20160815"), 1},
      {"newer than KiCad 9", board_text("", "20990101"), 1},
      {"garbage version", board_text("", "soon"), 1},
      {"garbage number", board_text("  (segment (start 1.2.3 0) (end 1 1) (width 0.2) (layer \"F.Cu\") (net 1))\n"),
       13},
      {"NaN", board_text("  (segment (start nan 0) (end 1 1) (width 0.2) (layer \"F.Cu\") (net 1))\n"), 13},
      {"huge", board_text("  (via (at 1e20 0) (size 0.6) (drill 0.3) (layers \"F.Cu\" \"B.Cu\") (net 1))\n"), 13},
      {"negative width", board_text("  (segment (start 0 0) (end 1 1) (width -0.2) (layer \"F.Cu\") (net 1))\n"), 13},
      {"unknown net",
       board_text(fp_head + "    (pad \"1\" smd rect (at 0 0) (size 1 1) (layers \"F.Cu\") (net 7 \"X\")))\n"), 14},
      {"net name mismatch",
       board_text(fp_head + "    (pad \"1\" smd rect (at 0 0) (size 1 1) (layers \"F.Cu\") (net 1 \"VCC\")))\n"), 14},
      {"unknown pad shape", board_text(fp_head + "    (pad \"1\" smd star (at 0 0) (size 1 1) (layers \"F.Cu\")))\n"),
       14},
      {"zero pad size", board_text(fp_head + "    (pad \"1\" smd rect (at 0 0) (size 0 1) (layers \"F.Cu\")))\n"), 14},
      {"unknown copper layer", board_text("  (segment (start 0 0) (end 1 1) (width 0.2) (layer \"In3.Cu\") (net 1))\n"),
       13},
      {"track on silkscreen", board_text("  (segment (start 0 0) (end 1 1) (width 0.2) (layer \"F.SilkS\") (net 1))\n"),
       13},
      {"open outline",
       board_text("  (gr_line (start 0 0) (end 10 0) (layer \"Edge.Cuts\") (width 0.1))\n"
                  "  (gr_line (start 10 0) (end 10 10) (layer \"Edge.Cuts\") (width 0.1))\n"),
       13},
      {"footprint side", board_text("  (footprint \"L:F\" (layer \"In1.Cu\") (at 1 1))\n"), 13},
      {"duplicate net", board_text("  (net 2 \"OTHER\")\n"), 13},
      {"collapsed trapezoid",
       board_text(fp_head + "    (pad \"1\" smd trapezoid (at 0 0) (size 1 1) (rect_delta 1 0) (layers \"F.Cu\")))\n"),
       14},
      {"nested too deep", "(kicad_pcb (version 20211014)\n" + std::string(100, '(') + std::string(100, ')') + ")\n", 2},
  };
}

TEST(KicadErrors, EveryProblemNamesTheFileAndLine) {
  for (const BadBoard& bad : bad_boards()) {
    try {
      read_kicad_pcb(bad.text, "bad.kicad_pcb");
      ADD_FAILURE() << bad.what << ": no error";
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "bad.kicad_pcb") << bad.what;
      EXPECT_EQ(error.line(), bad.line) << bad.what << ": " << error.what();
      EXPECT_FALSE(error.problem().empty()) << bad.what;
    }
  }
}

TEST(KicadErrors, OldVersionsAreRefusedWithAClearMessage) {
  try {
    read_kicad_pcb(board_text("", "20160815"), "old.kicad_pcb");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(error.problem().find("KiCad 5.1"), std::string::npos) << error.what();
  }
}

TEST(KicadErrors, BadProjectFiles) {
  const std::string good = board_text(kSquareOutline);
  const auto problem = [&](const std::string& project) -> std::optional<InputError> {
    try {
      read_kicad_pcb(good, "b.kicad_pcb", KicadProject{project, "b.kicad_pro"});
    } catch (const InputError& error) {
      return error;
    }
    return std::nullopt;
  };
  const std::optional<InputError> not_json = problem("{\n  \"net_settings\": {\n    \"classes\": [,]\n}");
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->file(), "b.kicad_pro");
  EXPECT_EQ(not_json->line(), 3u);
  const std::optional<InputError> wrong_type =
      problem(R"({"net_settings": {"classes": [{"name": "Default", "clearance": "wide"}]}})");
  ASSERT_TRUE(wrong_type);
  EXPECT_NE(wrong_type->problem().find("clearance"), std::string::npos);
  EXPECT_TRUE(problem(R"({"net_settings": {"classes": [{"name": "Default", "clearance": -1}]}})"));
  EXPECT_FALSE(problem(R"({"board": {}})")) << "no net settings: defaults";
}

TEST(KicadErrors, AMissingFileIsAnInputError) {
  EXPECT_THROW(read_kicad_pcb(fs::path("/nonexistent/board.kicad_pcb")), InputError);
}

// Cutting a valid board anywhere gives an InputError, never a crash or a
// partial board.
TEST(KicadErrors, EveryTruncationIsAnError) {
  const std::string good =
      board_text(kSquareOutline +
                 "  (footprint \"L:F\" (layer \"B.Cu\") (at 5 5 45)\n"
                 "    (pad \"1\" thru_hole roundrect (at 0 0 45) (size 1 2) (drill 0.5) (layers *.Cu) "
                 "(roundrect_rratio 0.25) (net 1 \"GND\")))\n"
                 "  (arc (start 30 10) (mid 35 15) (end 40 10) (width 0.2) (layer \"B.Cu\") (net 2))\n");
  ASSERT_NO_THROW(read_kicad_pcb(good, "good.kicad_pcb"));
  for (std::size_t length = 0; length + 2 < good.size(); length += 3) {
    EXPECT_THROW(read_kicad_pcb(std::string_view(good).substr(0, length), "cut.kicad_pcb"), InputError) << length;
  }
}

}  // namespace
}  // namespace trellis::route
