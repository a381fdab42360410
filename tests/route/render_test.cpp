// Board pictures: the SVG's structure and geometry (groups per layer back to
// front, wires of their width, vias, the y flip, the extent), the files
// written, PNG size (or its refusal without cairo) and degenerate boards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "route/render/palette.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/render.hpp"

namespace trellis::route {
namespace {

namespace fs = std::filesystem;

constexpr Coord mm(double value) { return static_cast<Coord>(value * 1'000'000); }
Point at(double x, double y) { return {mm(x), mm(y)}; }

// A 20 x 10 mm two-layer board: two two-pin parts with through-hole pads,
// a ground plane on the back and a keepout on the front. With the 1 mm
// margin at 20 pixels per millimetre the picture is 440 x 240 pixels and
// board point (x, y) lands on pixel ((x + 1) * 20, (11 - y) * 20).
Board small_board() {
  Board board;
  board.name = "small";
  board.layers = {{"F.Cu", LayerType::signal, 0}, {"B.Cu", LayerType::signal, 1}};
  board.boundary = {{ShapeKind::rect, 0, {at(0, 0), at(20, 10)}}};
  board.padstacks = {
      {"pad", {{0, {ShapeKind::circle, mm(1), {at(0, 0)}}}, {1, {ShapeKind::circle, mm(1), {at(0, 0)}}}}, true},
      {"via", {{0, {ShapeKind::circle, mm(0.6), {at(0, 0)}}}, {1, {ShapeKind::circle, mm(0.6), {at(0, 0)}}}}, true},
  };
  board.via_padstacks = {1};
  board.images = {{"R", {{"1", 0, at(-1, 0), 0, {}}, {"2", 0, at(1, 0), 0, {}}}, {}}};
  board.components = {{"R1", 0, at(5, 5), Side::front, 0}, {"R2", 0, at(15, 5), Side::front, 0}};
  board.nets = {{"A", {{0, 0}, {1, 0}}, {}}, {"GND", {{0, 1}, {1, 1}}, {}}};
  board.planes = {{"GND", 1, 1, {ShapeKind::polygon, 0, {at(0, 0), at(20, 0), at(20, 4), at(0, 4)}}}};
  board.keepouts = {{KeepoutKind::keepout, "K1", 0, {ShapeKind::rect, 0, {at(8, 6), at(12, 7)}}}};
  return board;
}

// A wire on each layer, the front one higher on the board, and a via.
RoutedCopper small_copper() {
  RoutedCopper copper;
  copper.wires = {{0, {ShapeKind::path, mm(0.25), {at(2, 8), at(18, 8)}}, 0, WiringType::route},
                  {1, {ShapeKind::path, mm(0.5), {at(2, 2), at(10, 2), at(18, 3)}}, 1, WiringType::route}};
  copper.vias = {{1, at(10, 5), 0, WiringType::route}};
  return copper;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The text of the group with this id, nested groups included; empty when
// there is none.
std::string group(const std::string& svg, const std::string& id) {
  const std::size_t start = svg.find("<g id=\"" + id + "\"");
  if (start == std::string::npos) return {};
  int depth = 0;
  for (std::size_t at = start; at < svg.size(); ++at) {
    if (svg.compare(at, 2, "<g") == 0) ++depth;
    if (svg.compare(at, 4, "</g>") == 0 && --depth == 0) return svg.substr(start, at + 4 - start);
  }
  return {};
}

struct Polyline {
  std::vector<std::array<double, 2>> points;
  double stroke_width = 0;
};

std::vector<Polyline> polylines(const std::string& svg) {
  std::vector<Polyline> found;
  static const std::regex element(R"re(<polyline points="([^"]*)"[^>]*stroke-width="([^"]*)")re");
  static const std::regex point(R"((-?[0-9.]+),(-?[0-9.]+))");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element); it != std::sregex_iterator(); ++it) {
    Polyline polyline;
    const std::string points = (*it)[1];
    for (auto p = std::sregex_iterator(points.begin(), points.end(), point); p != std::sregex_iterator(); ++p) {
      polyline.points.push_back({std::stod((*p)[1]), std::stod((*p)[2])});
    }
    polyline.stroke_width = std::stod((*it)[2]);
    found.push_back(polyline);
  }
  return found;
}

std::string attribute(const std::string& element, const std::string& name) {
  const std::regex pattern(" " + name + R"re(="([^"]*)")re");
  std::smatch match;
  return std::regex_search(element, match, pattern) ? match[1].str() : std::string();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh folder per test, removed afterwards.
class RenderFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trellis_render_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

struct PngSize {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

// The signature, then the IHDR chunk: length, "IHDR", big-endian width and height.
PngSize png_size(const std::string& bytes) {
  const std::string signature = "\x89PNG\r\n\x1a\n";
  EXPECT_EQ(bytes.substr(0, 8), signature);
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  const auto big_endian = [&](std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    return value;
  };
  return bytes.size() >= 24 ? PngSize{big_endian(16), big_endian(20)} : PngSize{};
}

TEST(RenderSvg, IsOneSvgElementSizedFromTheOutline) {
  const std::string svg = board_svg(small_board(), small_copper());
  EXPECT_TRUE(svg.starts_with("<svg "));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "<g"), count(svg, "</g>"));
  EXPECT_NE(svg.find(R"(width="440" height="240" viewBox="0 0 440 240")"), std::string::npos) << svg.substr(0, 300);
  EXPECT_NE(svg.find("<title>small</title>"), std::string::npos);
}

TEST(RenderSvg, HasOneGroupPerLayerBackToFront) {
  const std::string svg = board_svg(small_board(), small_copper());
  EXPECT_EQ(count(svg, "<g id=\"layer-"), 2u);
  const std::size_t back = svg.find("<g id=\"layer-B.Cu\"");
  const std::size_t front = svg.find("<g id=\"layer-F.Cu\"");
  ASSERT_NE(back, std::string::npos);
  ASSERT_NE(front, std::string::npos);
  EXPECT_LT(back, front);  // the front is drawn last, on top
  EXPECT_NE(group(svg, "layer-F.Cu").find("<title>F.Cu</title>"), std::string::npos);
  EXPECT_NE(group(svg, "layer-B.Cu").find("<title>B.Cu</title>"), std::string::npos);
  EXPECT_NE(attribute(group(svg, "layer-F.Cu"), "stroke"), attribute(group(svg, "layer-B.Cu"), "stroke"));
}

TEST(RenderSvg, DrawsWiresAsPolylinesOfTheirWidthWithYFlipped) {
  const std::string svg = board_svg(small_board(), small_copper());
  const std::vector<Polyline> front = polylines(group(svg, "layer-F.Cu"));
  const std::vector<Polyline> back = polylines(group(svg, "layer-B.Cu"));
  ASSERT_EQ(front.size(), 1u);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_DOUBLE_EQ(front[0].stroke_width, 5);  // 0.25 mm at 20 pixels per mm
  EXPECT_DOUBLE_EQ(back[0].stroke_width, 10);
  ASSERT_EQ(front[0].points.size(), 2u);
  ASSERT_EQ(back[0].points.size(), 3u);
  EXPECT_DOUBLE_EQ(front[0].points[0][0], 60);
  EXPECT_DOUBLE_EQ(front[0].points[0][1], 60);
  EXPECT_DOUBLE_EQ(front[0].points[1][0], 380);
  EXPECT_DOUBLE_EQ(back[0].points[2][0], 380);
  EXPECT_DOUBLE_EQ(back[0].points[2][1], 160);
  // Higher on the board is higher in the picture: smaller y.
  EXPECT_LT(front[0].points[0][1], back[0].points[0][1]);
  EXPECT_LT(back[0].points[2][1], back[0].points[1][1]);
  EXPECT_NE(svg.find(R"(stroke-linecap="round" stroke-linejoin="round")"), std::string::npos);
  EXPECT_NE(svg.find("<title>net GND</title>"), std::string::npos);
}

TEST(RenderSvg, DrawsOneCirclePerVia) {
  const std::string vias = group(board_svg(small_board(), small_copper()), "vias");
  ASSERT_EQ(count(vias, "<circle"), 1u);
  const std::string circle = vias.substr(vias.find("<circle"));
  // A ring from the 0.3 mm radius of copper down to a drill of half of it.
  EXPECT_EQ(attribute(circle, "cx"), "220");
  EXPECT_EQ(attribute(circle, "cy"), "120");
  EXPECT_EQ(attribute(circle, "r"), "4.5");
  EXPECT_EQ(attribute(circle, "stroke-width"), "3");
}

TEST(RenderSvg, DrawsPadsPerLayerUnlessTurnedOff) {
  const Board board = small_board();
  const std::string svg = board_svg(board, small_copper());
  for (const char* layer : {"layer-F.Cu", "layer-B.Cu"}) {
    EXPECT_EQ(count(group(svg, layer), "<circle"), 4u) << layer;
    EXPECT_EQ(count(group(svg, layer), R"(r="10")"), 4u) << layer;
  }
  EXPECT_NE(svg.find("<title>pin R1-1, net A</title>"), std::string::npos);

  RenderOptions options;
  options.show_pads = false;
  const std::string bare = board_svg(board, small_copper(), options);
  EXPECT_EQ(count(group(bare, "layer-F.Cu"), "<circle"), 0u);
  EXPECT_EQ(count(group(bare, "layer-B.Cu"), "<circle"), 0u);
}

TEST(RenderSvg, DrawsPlanesKeepoutsAndOutline) {
  const std::string svg = board_svg(small_board(), small_copper());
  const std::string back = group(svg, "layer-B.Cu");
  EXPECT_NE(back.find("<g opacity="), std::string::npos);  // the faint plane
  EXPECT_NE(back.find(R"(<polygon points="20,220 420,220 420,140 20,140")"), std::string::npos);
  const std::string keepouts = group(svg, "keepouts");
  EXPECT_EQ(count(keepouts, "<polygon"), 1u);
  EXPECT_NE(keepouts.find("url(#keepout-hatch)"), std::string::npos);
  EXPECT_NE(keepouts.find("<title>keepout K1 on F.Cu</title>"), std::string::npos);
  EXPECT_NE(svg.find("<pattern id=\"keepout-hatch\""), std::string::npos);
  const std::string outline = group(svg, "outline");
  EXPECT_NE(outline.find(R"(<polygon points="20,220 420,220 420,20 20,20")"), std::string::npos);
}

TEST(RenderSvg, ScalesWithPixelsPerMillimetre) {
  RenderOptions options;
  options.pixels_per_millimetre = 10;
  const std::string svg = board_svg(small_board(), small_copper(), options);
  EXPECT_NE(svg.find(R"(width="220" height="120")"), std::string::npos);
  const std::vector<Polyline> front = polylines(group(svg, "layer-F.Cu"));
  ASSERT_EQ(front.size(), 1u);
  EXPECT_DOUBLE_EQ(front[0].stroke_width, 2.5);
}

TEST(RenderSvg, RejectsScalesThatAreNotPositiveOrTooLarge) {
  for (const double scale : {0.0, -1.0, std::nan(""), HUGE_VAL, 1e7}) {
    RenderOptions options;
    options.pixels_per_millimetre = scale;
    EXPECT_THROW(board_svg(small_board(), small_copper(), options), UsageError) << scale;
  }
}

TEST(RenderSvg, EscapesNamesAndKeepsIdsValid) {
  Board board = small_board();
  board.name = R"(a<b & "c")";
  board.layers[1].name = "Inner & <1>";
  const std::string svg = board_svg(board, small_copper());
  EXPECT_NE(svg.find("<title>a&lt;b &amp; &quot;c&quot;</title>"), std::string::npos);
  EXPECT_NE(svg.find(R"(<g id="layer-Inner____1_")"), std::string::npos);
  EXPECT_NE(svg.find("<title>Inner &amp; &lt;1&gt;</title>"), std::string::npos);
}

TEST(RenderSvg, WithoutBoundaryFramesTheCopper) {
  Board board;
  RoutedCopper copper;
  copper.wires = {{0, {ShapeKind::path, mm(1), {at(0, 0), at(10, 0)}}, -1, WiringType::route}};
  const std::string svg = board_svg(board, copper);
  // 11 x 1 mm of copper (the wire's round ends) and a 1 mm margin.
  EXPECT_NE(svg.find(R"(width="260" height="60")"), std::string::npos) << svg.substr(0, 300);
  const std::vector<Polyline> wires = polylines(svg);
  ASSERT_EQ(wires.size(), 1u);
  EXPECT_DOUBLE_EQ(wires[0].points[0][0], 30);
  EXPECT_DOUBLE_EQ(wires[0].points[0][1], 30);
  EXPECT_EQ(count(svg, "<g id=\"layer-"), 1u);  // a layer the board does not list is still drawn
}

TEST(RenderSvg, DrawsPathsThatStayOnOnePointAsDiscs) {
  RoutedCopper copper = small_copper();
  copper.wires.push_back({0, {ShapeKind::path, mm(1), {at(4, 4), at(4, 4)}}, -1, WiringType::route});
  const std::string front = group(board_svg(small_board(), copper), "layer-F.Cu");
  EXPECT_EQ(polylines(front).size(), 1u);
  EXPECT_NE(front.find(R"(<circle cx="100" cy="140" r="10")"), std::string::npos);
}

TEST(RenderSvg, EmptyBoardGivesASmallPicture) {
  const std::string svg = board_svg(Board{}, RoutedCopper{});
  EXPECT_TRUE(svg.starts_with("<svg "));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_NE(svg.find(R"(width="40" height="40")"), std::string::npos);
  EXPECT_EQ(count(svg, "<g id=\"layer-"), 0u);
  EXPECT_EQ(count(svg, "<g"), count(svg, "</g>"));
}

TEST(RenderPalette, LayersHaveDistinctColoursFrontRedBackBlue) {
  constexpr int kLayers = 6;
  std::set<std::string> colours;
  for (int layer = 0; layer < kLayers; ++layer) colours.insert(render_detail::layer_colour(layer, kLayers).hex());
  EXPECT_EQ(colours.size(), static_cast<std::size_t>(kLayers));
  const render_detail::Colour front = render_detail::layer_colour(0, kLayers);
  const render_detail::Colour back = render_detail::layer_colour(kLayers - 1, kLayers);
  EXPECT_GT(front.red, front.blue);
  EXPECT_GT(back.blue, back.red);
}

TEST_F(RenderFiles, WriteSvgWritesThePicture) {
  const fs::path path = dir_ / "board.svg";
  write_svg(small_board(), small_copper(), path);
  EXPECT_EQ(read_file(path), board_svg(small_board(), small_copper()));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary left
}

TEST_F(RenderFiles, WritePngWritesAPictureOfTheSvgsSize) {
  const fs::path path = dir_ / "board.png";
  if (!png_available()) {
    EXPECT_THROW(write_png(small_board(), small_copper(), path), UsageError);
    EXPECT_FALSE(fs::exists(path));
    return;
  }
  write_png(small_board(), small_copper(), path);
  const PngSize size = png_size(read_file(path));
  EXPECT_EQ(size.width, 440u);
  EXPECT_EQ(size.height, 240u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(RenderFiles, WritePngOfAnEmptyBoard) {
  if (!png_available()) GTEST_SKIP() << "built without cairo";
  const fs::path path = dir_ / "empty.png";
  write_png(Board{}, RoutedCopper{}, path);
  const PngSize size = png_size(read_file(path));
  EXPECT_EQ(size.width, 40u);
  EXPECT_EQ(size.height, 40u);
}

TEST_F(RenderFiles, FailedWritesLeaveNoFile) {
  RenderOptions options;
  options.pixels_per_millimetre = 0;
  EXPECT_THROW(write_svg(small_board(), small_copper(), dir_ / "bad.svg", options), UsageError);
  EXPECT_THROW(write_png(small_board(), small_copper(), dir_ / "bad.png", options), UsageError);
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace trellis::route
