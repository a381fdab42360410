// Specctra sessions: written and read back equal, what KiCad's importer
// needs is in the text, bad files name their line, and the design-rule
// check sees the same copper through a session as through the DSN.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "trellis/core/error.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

namespace fs = std::filesystem;

Shape circle(Coord diameter) { return {ShapeKind::circle, diameter, {{0, 0}}}; }
Shape rect(Point lo, Point hi) { return {ShapeKind::rect, 0, {lo, hi}}; }
Shape path(Coord width, std::vector<Point> points) { return {ShapeKind::path, width, std::move(points)}; }

// Four layers (one named with a space and parentheses), parts on both
// sides, nets and padstacks whose names need quoting; um / 10 like KiCad.
Board awkward_board() {
  Board board;
  board.name = "demo board";
  board.resolution_unit = "um";
  board.resolution_per_unit = 10;
  board.layers = {{"F.Cu", LayerType::signal, 0},
                  {"In1.Cu", LayerType::signal, 1},
                  {"In2 (power)", LayerType::power, 2},
                  {"B.Cu", LayerType::signal, 3}};
  board.boundary = {rect({0, 0}, {50'000'000, 40'000'000})};
  board.rules.width = 250'000;
  board.rules.clearance = 200'000;
  std::vector<LayerShape> via_shapes;
  for (int layer = 0; layer < 4; ++layer) via_shapes.push_back({layer, circle(600'000)});
  board.padstacks.push_back({"Via[0-3]_600:300_um", via_shapes, true});
  board.padstacks.push_back({"Round Pad", {{0, circle(1'000'000)}, {3, circle(1'000'000)}}, true});
  board.padstacks.push_back({"small via", {{0, circle(400'000)}, {1, circle(400'000)}}, false});
  board.images.push_back({"Resistor (0805)", {{"1", 1, {-1'000'000, 0}, 0, {}}, {"2", 1, {1'000'000, 0}, 0, {}}}, {}});
  board.images.push_back({"TP", {{"1", 1, {0, 0}, 0, {}}}, {}});
  board.components.push_back({"R1", 0, {10'000'000, 10'000'000}, Side::front, 0, {}});
  board.components.push_back({"R-2", 0, {30'000'000, 10'000'000}, Side::back, 90, {}});
  board.components.push_back({"TP 1", 1, {20'000'000, 30'000'000}, Side::back, 45.5, {}});
  board.nets.push_back({"GND", {{0, 0}, {1, 0}}, {}});
  board.nets.push_back({"Net-(R1-Pad2)", {{0, 1}, {2, 0}}, {}});
  board.nets.push_back({"#reset 50%", {{1, 1}}, {}});
  board.nets.push_back({"{bus}", {}, {}});
  return board;
}

RoutedCopper awkward_routes() {
  RoutedCopper routed;
  routed.wires.push_back({0, path(250'000, {{9'000'000, 10'000'000}, {9'000'000, 5'000'000}, {29'000'000, 5'000'000}}),
                          0, WiringType::normal});
  routed.wires.push_back(
      {2, path(300'000, {{11'000'000, 10'000'000}, {20'000'000, 30'000'000}}), 1, WiringType::protect});
  routed.wires.push_back({3, path(250'000, {{29'000'000, 5'000'000}, {29'000'000, 10'000'000}}), 0, WiringType::fix});
  routed.wires.push_back({1, path(200'000, {{40'000'000, 1'000'000}}), -1, WiringType::normal});  // a dot of no net
  routed.wires.push_back(
      {1,
       {ShapeKind::polygon, 0, {{1'000'000, 1'000'000}, {2'000'000, 1'000'000}, {1'500'000, 2'000'000}}},
       3,
       WiringType::normal});
  routed.vias.push_back({0, {29'000'000, 5'000'000}, 0, WiringType::normal});
  routed.vias.push_back({2, {15'000'000, 20'000'100}, 1, WiringType::route});
  routed.vias.push_back({0, {20'000'000, 5'300'000}, 2, WiringType::normal});  // too close to GND's wire
  return routed;
}

// What read_session gives back: net by net in the board's order, copper of
// no net last, each net's copper in the order written.
RoutedCopper grouped_by_net(RoutedCopper routed) {
  const auto key = [](int net) { return net == -1 ? INT_MAX : net; };
  std::stable_sort(routed.wires.begin(), routed.wires.end(),
                   [&](const Wire& a, const Wire& b) { return key(a.net) < key(b.net); });
  std::stable_sort(routed.vias.begin(), routed.vias.end(),
                   [&](const Via& a, const Via& b) { return key(a.net) < key(b.net); });
  return routed;
}

std::string session_text(const Board& board, const RoutedCopper& routed) {
  std::ostringstream out;
  write_session(board, routed, out);
  return out.str();
}

// Equal up to `tolerance` nanometres in every coordinate and width.
void expect_same_copper(const RoutedCopper& expected, const RoutedCopper& actual, Coord tolerance,
                        const std::string& where) {
  ASSERT_EQ(expected.wires.size(), actual.wires.size()) << where;
  ASSERT_EQ(expected.vias.size(), actual.vias.size()) << where;
  const auto near = [&](Coord a, Coord b) { return std::llabs(a - b) <= tolerance; };
  for (std::size_t i = 0; i < expected.wires.size(); ++i) {
    const Wire& e = expected.wires[i];
    const Wire& a = actual.wires[i];
    ASSERT_EQ(e.layer, a.layer) << where << " wire " << i;
    ASSERT_EQ(e.net, a.net) << where << " wire " << i;
    ASSERT_EQ(e.type, a.type) << where << " wire " << i;
    ASSERT_EQ(e.shape.kind, a.shape.kind) << where << " wire " << i;
    ASSERT_TRUE(near(e.shape.width, a.shape.width)) << where << " wire " << i;
    ASSERT_EQ(e.shape.points.size(), a.shape.points.size()) << where << " wire " << i;
    for (std::size_t p = 0; p < e.shape.points.size(); ++p) {
      ASSERT_TRUE(near(e.shape.points[p].x, a.shape.points[p].x) && near(e.shape.points[p].y, a.shape.points[p].y))
          << where << " wire " << i << " point " << p;
    }
  }
  for (std::size_t i = 0; i < expected.vias.size(); ++i) {
    const Via& e = expected.vias[i];
    const Via& a = actual.vias[i];
    ASSERT_EQ(e.padstack, a.padstack) << where << " via " << i;
    ASSERT_EQ(e.net, a.net) << where << " via " << i;
    ASSERT_EQ(e.type, a.type) << where << " via " << i;
    ASSERT_TRUE(near(e.position.x, a.position.x) && near(e.position.y, a.position.y)) << where << " via " << i;
  }
}

TEST(SessionRoundTrip, HandBuiltBoardReadsBackEqual) {
  const Board board = awkward_board();
  const RoutedCopper routed = awkward_routes();
  const std::string text = session_text(board, routed);
  expect_same_copper(grouped_by_net(routed), read_session(text, "demo.ses", board), 0, "demo");
}

TEST(SessionRoundTrip, EmptyRoutesAndNoComponents) {
  Board board = awkward_board();
  board.components.clear();
  board.nets.clear();
  const std::string text = session_text(board, {});
  const RoutedCopper back = read_session(text, "empty.ses", board);
  EXPECT_TRUE(back.wires.empty());
  EXPECT_TRUE(back.vias.empty());
  EXPECT_NE(text.find("(library_out\n    )"), std::string::npos) << text;
}

TEST(SessionRoundTrip, ThroughAFileWrittenWhole) {
  const Board board = awkward_board();
  const RoutedCopper routed = awkward_routes();
  const fs::path dir = fs::temp_directory_path() / ("trellis_session_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "routes.ses";
  write_session(board, routed, file);
  expect_same_copper(grouped_by_net(routed), read_session(file, board), 0, "file");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temporary left
  fs::remove_all(dir);
  try {
    read_session(dir / "missing.ses", board);
    FAIL() << "a missing file was read";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 0u);
  }
}

// A KiCad board's layers have user names ("top_layer" for F.Cu) that its
// Specctra export uses and its session import looks up: the session
// writes those, and reads them back as well as the canonical names.
TEST(SessionRoundTrip, LayersGoByTheirSpecctraNames) {
  Board board = awkward_board();
  for (Layer& layer : board.layers) layer.specctra_name = "user " + layer.name;
  const RoutedCopper routed = awkward_routes();
  const std::string text = session_text(board, routed);
  for (const Layer& layer : board.layers) {
    EXPECT_EQ(text.find("(path " + layer.name + " "), std::string::npos) << layer.name << " in\n" << text;
  }
  EXPECT_NE(text.find("(path \"user "), std::string::npos) << text;
  expect_same_copper(grouped_by_net(routed), read_session(text, "user.ses", board), 0, "user names");
  Board canonical = board;
  for (Layer& layer : canonical.layers) layer.specctra_name.clear();
  expect_same_copper(grouped_by_net(routed), read_session(session_text(canonical, routed), "canonical.ses", board), 0,
                     "canonical names");
}

TEST(SessionRoundTrip, NamesHoldingDoubleQuotesSwitchTheQuoteCharacter) {
  Board board = awkward_board();
  board.nets[3].name = "say \"hi\"";
  board.layers[1].name = "In1 \"inner\"";
  const RoutedCopper routed = awkward_routes();
  const std::string text = session_text(board, routed);
  EXPECT_NE(text.find("(string_quote ')"), std::string::npos) << text;
  EXPECT_NE(text.find("'say \"hi\"'"), std::string::npos) << text;
  expect_same_copper(grouped_by_net(routed), read_session(text, "quotes.ses", board), 0, "quotes");
}

TEST(SessionRoundTrip, OffGridCopperRoundsToTheResolution) {
  const Board board = awkward_board();  // steps of 100 nm
  RoutedCopper routed;
  routed.wires.push_back({0, path(250'049, {{1'234'567, 7'654'321}, {-49, 151}}), 0, WiringType::normal});
  routed.vias.push_back({0, {5'000'050, -5'000'049}, 1, WiringType::normal});
  const RoutedCopper back = read_session(session_text(board, routed), "grid.ses", board);
  expect_same_copper(routed, back, 50, "grid");
  EXPECT_EQ(back.wires[0].shape.points[0], (Point{1'234'600, 7'654'300}));
  EXPECT_EQ(back.vias[0].position, (Point{5'000'100, -5'000'000}));
}

TEST(SessionRoundTrip, BoardWithoutResolutionIsWrittenInNanometres) {
  Board board = awkward_board();
  board.resolution_unit.clear();
  board.resolution_per_unit = 0;
  RoutedCopper routed;
  routed.wires.push_back({0, path(123'457, {{1, -3}, {987'654'321, 7}}), 0, WiringType::normal});
  const std::string text = session_text(board, routed);
  EXPECT_NE(text.find("(resolution um 1000)"), std::string::npos) << text;
  expect_same_copper(routed, read_session(text, "nm.ses", board), 0, "nm");
}

TEST(SessionWriter, RefusesCopperTheBoardCannotHold) {
  const Board board = awkward_board();
  std::ostringstream out;
  EXPECT_THROW(write_session(board, {{{7, path(1, {{0, 0}}), 0, WiringType::normal}}, {}}, out), UsageError);
  EXPECT_THROW(write_session(board, {{{0, path(1, {{0, 0}}), 9, WiringType::normal}}, {}}, out), UsageError);
  EXPECT_THROW(write_session(board, {{}, {{5, {0, 0}, 0, WiringType::normal}}}, out), UsageError);
  Board odd_unit = board;
  odd_unit.resolution_unit = "furlong";
  EXPECT_THROW(write_session(odd_unit, {}, out), UsageError);
}

TEST(SessionWriter, TextHasWhatKiCadsImporterNeeds) {
  const Board board = awkward_board();
  const std::string text = session_text(board, awkward_routes());
  const auto has = [&](const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(
      text.starts_with("(session \"demo board\"\n  (base_design \"demo board\")\n  (placement\n"
                       "    (resolution um 10)\n"))
      << text;
  // Placement repeats the board's, in file steps, grouped by image.
  EXPECT_TRUE(
      has("    (component \"Resistor (0805)\"\n      (place R1 100000 100000 front 0)\n"
          "      (place \"R-2\" 300000 100000 back 90)\n    )\n"))
      << text;
  EXPECT_TRUE(has("(place \"TP 1\" 200000 300000 back 45.5)")) << text;
  EXPECT_TRUE(
      has("  (was_is)\n  (routes\n    (resolution um 10)\n    (parser\n      (string_quote \")\n"
          "      (host_cad \"trellis\")\n"))
      << text;
  // Only the padstacks vias use, with the board's copper.
  EXPECT_TRUE(
      has("(library_out\n      (padstack \"Via[0-3]_600:300_um\"\n        (shape (circle F.Cu 6000))\n"
          "        (shape (circle In1.Cu 6000))\n        (shape (circle \"In2 (power)\" 6000))\n"
          "        (shape (circle B.Cu 6000))\n      )\n      (padstack \"small via\"\n"
          "        (shape (circle F.Cu 4000))\n        (shape (circle In1.Cu 4000))\n        (attach off)\n"))
      << text;
  EXPECT_FALSE(has("Round Pad")) << text;
  EXPECT_TRUE(
      has("(network_out\n      (net GND\n        (wire (path F.Cu 2500 90000 100000 90000 50000 290000 50000))\n"
          "        (wire (path B.Cu 2500 290000 50000 290000 100000) (type fix))\n"
          "        (via \"Via[0-3]_600:300_um\" 290000 50000)\n      )\n"))
      << text;
  EXPECT_TRUE(
      has("(net \"Net-(R1-Pad2)\"\n        (wire (path \"In2 (power)\" 3000 110000 100000 200000 300000) "
          "(type protect))\n        (via \"small via\" 150000 200001 (type route))\n"))
      << text;
  EXPECT_TRUE(has("(net \"#reset 50%\"\n")) << text;
  EXPECT_TRUE(has("(net \"{bus}\"\n        (wire (polygon In1.Cu 0 10000 10000 20000 10000 15000 20000))")) << text;
  EXPECT_TRUE(has("(net \"\"\n        (wire (path In1.Cu 2000 400000 10000))\n      )\n    )\n  )\n)\n")) << text;
}

// ---- errors: the file and the line, nothing else thrown

struct BadSession {
  std::string what;
  std::string text;
  std::size_t line;
  std::string message_part;
};

// Lines as the reader counts them: the last line that holds text.
std::size_t text_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n' ? 1 : 0);
}

std::string minimal_session(const std::string& routes_body, const std::string& before_routes = "") {
  return "(session s\n(base_design s)\n" + before_routes + "(routes\n(resolution um 10)\n(library_out)\n" +
         routes_body + ")\n)\n";
}

TEST(SessionReader, BadInputNamesTheLine) {
  const Board board = awkward_board();
  const std::string good = session_text(board, awkward_routes());
  const std::vector<BadSession> cases = {
      {"empty", "", 0, "empty"},
      {"not a session", "(pcb x)\n", 1, "expected (session"},
      {"truncated", good.substr(0, good.size() / 2), text_lines(good.substr(0, good.size() / 2)), "cut short"},
      {"no routes", "(session s\n(base_design s)\n)\n", 1, "no (routes"},
      {"no library_out", "(session s\n(routes\n(resolution um 10)\n)\n)\n", 2, "library_out"},
      {"unknown unit", "(session s\n(routes\n(resolution furlong 10)\n(library_out))\n)\n", 3, "unknown unit"},
      {"zero steps", "(session s\n(routes\n(resolution um 0)\n(library_out))\n)\n", 3, "steps per unit"},
      {"unknown layer", minimal_session("(network_out (net GND\n(wire (path Top 2500 0 0 10 10))))\n"), 7,
       "unknown layer"},
      {"unknown net", minimal_session("(network_out\n(net VCC (wire (path F.Cu 2500 0 0 10 10))))\n"), 7,
       "unknown net"},
      {"unknown padstack", minimal_session("(network_out (net GND\n(via Via_X 0 0)))\n"), 7, "unknown padstack"},
      {"library padstack not on the board",
       "(session s\n(routes\n(resolution um 10)\n(library_out\n(padstack Other (shape (circle F.Cu 10)))))\n)\n", 5,
       "not in the board's library"},
      {"library shape on an unknown layer",
       "(session s\n(routes\n(resolution um 10)\n(library_out\n(padstack \"small via\"\n(shape (circle X.Cu "
       "10)))))\n)\n",
       6, "unknown layer"},
      {"huge coordinate", minimal_session("(network_out (net GND\n(wire (path F.Cu 2500 0 0 1e30 10))))\n"), 7,
       "out of range"},
      {"not a number", minimal_session("(network_out (net GND (wire (path F.Cu 2500\n0 zero))))\n"), 7, "a number"},
      {"x without y", minimal_session("(network_out (net GND\n(via \"small via\" 10)))\n"), 7, "no y"},
      {"degenerate arc", minimal_session("(network_out (net GND\n(wire (qarc F.Cu 10 0 0 0 0 5 5))))\n"), 7, "qarc"},
      {"wire without a shape", minimal_session("(network_out (net GND\n(wire (type route))))\n"), 7, "no path"},
      {"coordinate before resolution",
       "(session s\n(routes\n(library_out)\n(network_out (net GND\n(wire (path F.Cu 2500 0 0 1 1))))))\n", 5,
       "before the (resolution"},
      {"unknown component",
       minimal_session("", "(placement (resolution um 10)\n(component X (place Q9 0 0 front 0)))\n"), 4,
       "does not have"},
      {"moved component", minimal_session("", "(placement (resolution um 10) (component X\n(place R1 0 0 front 0)))\n"),
       4, "elsewhere"},
      {"flipped component",
       minimal_session("", "(placement (resolution um 10) (component X\n(place R1 100000 100000 back 0)))\n"), 4,
       "elsewhere"},
      {"bad wiring type", minimal_session("(network_out (net GND (wire (path F.Cu 1 0 0)\n(type sticky))))\n"), 7,
       "wiring type"},
      {"two routes", "(session s\n(routes (resolution um 10) (library_out))\n(routes (library_out)))\n", 3,
       "second (routes"},
      {"text after the session", minimal_session("") + "(extra)\n", 8, "end of the file"},
  };
  for (const BadSession& bad : cases) {
    try {
      read_session(bad.text, "bad.ses", board);
      ADD_FAILURE() << bad.what << ": accepted";
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "bad.ses") << bad.what;
      EXPECT_EQ(error.line(), bad.line) << bad.what << ": " << error.what();
      EXPECT_NE(error.problem().find(bad.message_part), std::string::npos) << bad.what << ": " << error.what();
    }
  }
}

// A wire written as an arc (qarc F.Cu width start end centre) comes back
// as a path of chords along the shorter arc, its ends as written.
TEST(SessionReader, ArcWiresAreReadAsChords) {
  const Board board = awkward_board();
  const RoutedCopper routed = read_session(
      minimal_session("(network_out (net GND\n(wire (qarc F.Cu 25 0 0 100000 100000 100000 0))))\n"), "arc.ses", board);
  ASSERT_EQ(routed.wires.size(), 1u);
  const Shape& wire = routed.wires[0].shape;
  EXPECT_EQ(wire.kind, ShapeKind::path);
  EXPECT_EQ(wire.width, 2500);  // 25 units of 100 nm
  ASSERT_GE(wire.points.size(), 3u);
  EXPECT_EQ(wire.points.front(), (Point{0, 0}));
  EXPECT_EQ(wire.points.back(), (Point{10'000'000, 10'000'000}));
  for (const Point& p : wire.points) {
    EXPECT_NEAR(std::hypot(static_cast<double>(p.x - 10'000'000), static_cast<double>(p.y)), 10'000'000.0, 1.0);
  }
}

TEST(SessionReader, AcceptsWhatOtherRoutersWrite) {
  // FreeRouting-style: several positions per via, a (net) inside a wire,
  // properties and lists this reader skips, a placement without positions.
  const Board board = awkward_board();
  const std::string text =
      "(session \"x.ses\"\n(base_design x.dsn)\n(placement (resolution um 10) (component \"Resistor (0805)\" (place "
      "R1)))\n"
      "(was_is (pins R1-1 R1-2))\n(routes\n(resolution mil 1000)\n(parser (host_cad FreeRouting) (host_version 1.9))\n"
      "(library_out (padstack \"small via\" (shape (circle F.Cu 16 0 0)) (shape (circle In1.Cu 16)) (attach off)))\n"
      "(network_out\n(net GND (net_number 1)\n(wire (path F.Cu 10 0 0 1000 0) (net GND) (type protect) (attr test))\n"
      "(via \"small via\" 1000 0 2000 0 (type protect))\n))))\n";
  const RoutedCopper routed = read_session(text, "freerouting.ses", board);
  ASSERT_EQ(routed.wires.size(), 1u);
  ASSERT_EQ(routed.vias.size(), 2u);
  EXPECT_EQ(routed.wires[0].shape.width, 254);  // 10 / 1000 mil
  EXPECT_EQ(routed.wires[0].shape.points[1], (Point{25'400, 0}));
  EXPECT_EQ(routed.wires[0].type, WiringType::protect);
  EXPECT_EQ(routed.vias[1].position, (Point{50'800, 0}));
  EXPECT_EQ(routed.vias[1].type, WiringType::protect);
  EXPECT_EQ(routed.vias[1].padstack, 2);
}

// ---- the design-rule check through a session

struct ViolationSummary {
  ViolationKind kind;
  int layer;
  Point position;
  std::string first_net, second_net;
  Coord required;
  friend bool operator==(const ViolationSummary&, const ViolationSummary&) = default;
};

// What a report says, without the objects' positions in their lists
// (a session groups wires by net, so "wire 12" may be another number).
std::vector<ViolationSummary> summary(const std::vector<Violation>& violations) {
  std::vector<ViolationSummary> list;
  for (const Violation& v : violations) {
    ViolationSummary s{v.kind, v.layer, v.position, v.first.net_name, v.second.net_name, v.required};
    if (s.second_net < s.first_net) std::swap(s.first_net, s.second_net);
    list.push_back(s);
  }
  std::sort(list.begin(), list.end(), [](const ViolationSummary& a, const ViolationSummary& b) {
    return std::tie(a.layer, a.position.x, a.position.y, a.kind, a.first_net, a.second_net) <
           std::tie(b.layer, b.position.x, b.position.y, b.kind, b.first_net, b.second_net);
  });
  return list;
}

void expect_same_report(const DrcReport& expected, const DrcReport& actual, const std::string& where) {
  EXPECT_EQ(expected.wires, actual.wires) << where;
  EXPECT_EQ(expected.vias, actual.vias) << where;
  EXPECT_EQ(expected.nets_checked, actual.nets_checked) << where;
  EXPECT_TRUE(summary(expected.routing) == summary(actual.routing))
      << where << ": " << expected.routing.size() << " vs " << actual.routing.size() << " routing violations";
  EXPECT_TRUE(summary(expected.input_conflicts) == summary(actual.input_conflicts)) << where;
  ASSERT_EQ(expected.unconnected.size(), actual.unconnected.size()) << where;
  for (std::size_t i = 0; i < expected.unconnected.size(); ++i) {
    EXPECT_EQ(expected.unconnected[i].name, actual.unconnected[i].name) << where;
    EXPECT_EQ(expected.unconnected[i].groups.size(), actual.unconnected[i].groups.size()) << where;
  }
}

TEST(SessionDrc, HandBuiltBoardGivesTheSameReport) {
  Board board = awkward_board();
  const RoutedCopper routed = awkward_routes();
  const RoutedCopper back = read_session(session_text(board, routed), "demo.ses", board);
  expect_same_report(check_design_rules(board, routed), check_design_rules(board, back), "demo");
  EXPECT_FALSE(check_design_rules(board, back).routing.empty());  // the test is not vacuous
  // The board's own wiring plus a session that repeats it is the wiring once.
  board.wires = routed.wires;
  board.vias = routed.vias;
  const RoutedCopper merged = with_board_wiring(board, back);
  EXPECT_EQ(merged.wires.size(), routed.wires.size());
  EXPECT_EQ(merged.vias.size(), routed.vias.size());
  RoutedCopper extra = back;
  extra.vias.push_back({0, {1'000'000, 39'000'000}, 0, WiringType::normal});
  EXPECT_EQ(with_board_wiring(board, extra).vias.size(), routed.vias.size() + 1);
}

// ---- every pcbench board's human routing through a session

double nanometres_per(const std::string& unit) {
  if (unit == "inch") return 25'400'000.0;
  if (unit == "mil") return 25'400.0;
  if (unit == "cm") return 10'000'000.0;
  if (unit == "mm") return 1'000'000.0;
  return 1'000.0;
}

fs::path pcbench_dir() {
  const char* dir = std::getenv("TRELLIS_BOARDS_DIR");
  if (dir == nullptr || *dir == '\0') return {};
  const fs::path pcbench = fs::path(dir) / "pcbench";
  return fs::is_directory(pcbench) ? pcbench : fs::path();
}

TEST(SessionSharedBoards, ReferenceRoutingRoundTripsAndChecksTheSame) {
  const fs::path dir = pcbench_dir();
  if (dir.empty()) GTEST_SKIP() << "TRELLIS_BOARDS_DIR with a pcbench folder is not set (ctest sets it)";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (fs::exists(entry.path() / "reference-routed.dsn")) files.push_back(entry.path() / "reference-routed.dsn");
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    const std::string where = file.parent_path().filename().string();
    const Board board = read_dsn_file(file);
    const RoutedCopper wiring{board.wires, board.vias};
    const std::string text = session_text(board, wiring);
    const RoutedCopper back = read_session(text, where + ".ses", board);
    const Coord tolerance =
        static_cast<Coord>(std::ceil(nanometres_per(board.resolution_unit) / board.resolution_per_unit / 2));
    expect_same_copper(grouped_by_net(wiring), back, tolerance, where);
    EXPECT_FALSE(back.wires.empty()) << where;
    expect_same_report(check_design_rules(board), check_design_rules(board, back), where);
    // `trellis drc BOARD ROUTES` on the board's own routing as a session.
    const RoutedCopper merged = with_board_wiring(board, back);
    expect_same_report(check_design_rules(board), check_design_rules(board, merged), where + " merged");
  }
}

}  // namespace
}  // namespace trellis::route
