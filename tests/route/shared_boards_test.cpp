// Every board under ../shared/boards (pcbench, dac2020, kicad) read with
// checks that catch wrong geometry, not only parse failures. The boards
// are not part of the repository: TRELLIS_BOARDS_DIR points at them, and
// these tests skip when it is unset or the folder is missing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

namespace fs = std::filesystem;

struct BoardFile {
  fs::path path;
  std::string pcbench_board;  // the folder name for pcbench boards, else empty
  bool reference_routed = false;
};

// The folder, or empty with the reason for skipping.
fs::path boards_dir(std::string& why_not) {
  const char* dir = std::getenv("TRELLIS_BOARDS_DIR");
  if (dir == nullptr || *dir == '\0') {
    why_not = "TRELLIS_BOARDS_DIR is not set (ctest sets it to ../shared/boards)";
    return {};
  }
  if (!fs::is_directory(fs::path(dir) / "pcbench")) {
    why_not = std::string("TRELLIS_BOARDS_DIR=") + dir + " has no pcbench folder";
    return {};
  }
  return dir;
}

std::vector<BoardFile> board_files(const fs::path& dir) {
  std::vector<BoardFile> files;
  for (const auto& entry : fs::directory_iterator(dir / "pcbench")) {
    if (!entry.is_directory()) continue;
    for (const char* name : {"unrouted.dsn", "reference-routed.dsn"}) {
      const fs::path path = entry.path() / name;
      if (fs::exists(path)) {
        files.push_back({path, entry.path().filename().string(), std::string(name) == "reference-routed.dsn"});
      }
    }
  }
  for (const char* folder : {"dac2020", "kicad"}) {
    if (!fs::is_directory(dir / folder)) continue;
    for (const auto& entry : fs::directory_iterator(dir / folder)) {
      if (entry.path().extension() != ".dsn") continue;
      const bool routed = entry.path().filename().string().find("reference-routed") != std::string::npos;
      files.push_back({entry.path(), "", routed});
    }
  }
  std::sort(files.begin(), files.end(), [](const BoardFile& a, const BoardFile& b) { return a.path < b.path; });
  return files;
}

// Parsed once for all tests in this file: reading is what the first test
// times, the others check what was read.
struct ParsedBoard {
  BoardFile file;
  Board board;
  double seconds = 0;
};

const std::vector<ParsedBoard>& parsed_boards(const fs::path& dir) {
  static const std::vector<ParsedBoard> boards = [&] {
    std::vector<ParsedBoard> all;
    for (const BoardFile& file : board_files(dir)) {
      const auto start = std::chrono::steady_clock::now();
      Board board;
      try {
        board = read_dsn_file(file.path);
      } catch (const InputError& error) {
        ADD_FAILURE() << error.what();
        continue;
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      all.push_back({file, std::move(board), took.count()});
    }
    return all;
  }();
  return boards;
}

#define BOARDS_OR_SKIP(dir)                 \
  std::string why_not;                      \
  const fs::path dir = boards_dir(why_not); \
  if (dir.empty()) GTEST_SKIP() << why_not

TEST(SharedBoards, EveryBoardParsesWithResolvedPinsOnTheBoard) {
  BOARDS_OR_SKIP(dir);
  const std::vector<BoardFile> files = board_files(dir);
  const auto& boards = parsed_boards(dir);
  ASSERT_EQ(boards.size(), files.size()) << "some boards failed to parse (see above)";
  EXPECT_GE(files.size(), 63u) << "expected 28 pcbench boards x2, 3 dac2020 and 4 kicad files";
  double slowest = 0;
  std::string slowest_name;
  for (const ParsedBoard& parsed : boards) {
    SCOPED_TRACE(parsed.file.path.string());
    const Board& board = parsed.board;
    if (parsed.seconds > slowest) {
      slowest = parsed.seconds;
      slowest_name = parsed.file.path.string();
    }
    EXPECT_GE(board.layers.size(), 2u);
    ASSERT_FALSE(board.boundary.empty());
    EXPECT_FALSE(board.nets.empty());
    EXPECT_FALSE(board.components.empty());
    EXPECT_FALSE(board.via_padstacks.empty());
    EXPECT_TRUE(board.rules.width && *board.rules.width > 0);
    EXPECT_TRUE(board.rules.clearance && *board.rules.clearance > 0);
    for (const Layer& layer : board.layers) EXPECT_EQ(&layer - board.layers.data(), layer.index);

    for (const Net& net : board.nets) {
      for (const PinRef& pin : net.pins) {
        ASSERT_GE(pin.component, 0);
        ASSERT_LT(static_cast<std::size_t>(pin.component), board.components.size());
        const Component& component = board.components[static_cast<std::size_t>(pin.component)];
        ASSERT_LT(static_cast<std::size_t>(pin.pin),
                  board.images[static_cast<std::size_t>(component.image)].pins.size());
      }
    }
    // Pad centres inside the outline's box; their copper may overhang the
    // edge by a little (edge connectors), never by more than a pad.
    const Box outline = boundary_box(board);
    std::size_t pads = 0;
    std::size_t unconnected_off_board = 0;
    for (const PinCopper& copper : pin_copper(board)) {
      ++pads;
      ASSERT_GE(copper.layer, 0);
      ASSERT_LT(static_cast<std::size_t>(copper.layer), board.layers.size());
      const Point centre = pin_position(board, copper.pin);
      if (copper.net < 0 && !outline.contains(centre)) {
        ++unconnected_off_board;  // must have been reported as a warning
        continue;
      }
      EXPECT_TRUE(outline.contains(centre))
          << board.components[static_cast<std::size_t>(copper.pin.component)].reference << " pin at " << centre.x
          << ", " << centre.y;
      const Box pad = bounding_box(copper.shape);
      EXPECT_TRUE(pad.contains(centre)) << "a pad's copper does not cover its own centre";
    }
    EXPECT_GT(pads, 0u);
    const auto off_board_warnings =
        std::count_if(board.warnings.begin(), board.warnings.end(),
                      [](const std::string& w) { return w.find("outside the board outline") != std::string::npos; });
    EXPECT_EQ(unconnected_off_board > 0, off_board_warnings > 0);
  }
  std::printf("[ boards   ] %zu files, slowest parse %.1f ms (%s)\n", boards.size(), slowest * 1e3,
              slowest_name.c_str());
  EXPECT_LT(slowest, 2.0) << "a board took more than 2 s to read";
}

TEST(SharedBoards, LayerAndNetCountsMatchTheIndex) {
  BOARDS_OR_SKIP(dir);
  std::ifstream index_file(dir / "pcbench" / "index.json");
  ASSERT_TRUE(index_file) << "no pcbench/index.json";
  const nlohmann::json index = nlohmann::json::parse(index_file);
  std::map<std::string, const nlohmann::json*> by_board;
  for (const nlohmann::json& entry : index) by_board[entry.at("board").get<std::string>()] = &entry;
  std::size_t compared = 0;
  for (const ParsedBoard& parsed : parsed_boards(dir)) {
    if (parsed.file.pcbench_board.empty()) continue;
    SCOPED_TRACE(parsed.file.path.string());
    const auto found = by_board.find(parsed.file.pcbench_board);
    ASSERT_NE(found, by_board.end()) << "board missing from index.json";
    const nlohmann::json& entry = *found->second;
    // index.json counts layers of the KiCad board; kitspace_Minisumo_V2.1
    // has 4 there but its DSN export declares only F.Cu and B.Cu.
    if (parsed.file.pcbench_board != "kitspace_Minisumo_V2.1") {
      EXPECT_EQ(parsed.board.layers.size(), entry.at("layers").get<std::size_t>());
    }
    EXPECT_EQ(parsed.board.components.size(), entry.at("components").get<std::size_t>());
    // Its "nets" is not the DSN's net count (0 for nixie-combo, 352 for
    // LimeSDR's 134 nets; it looks like FreeRouting's count of connections
    // left to route), so only a loose bound holds: pins connect nets.
    EXPECT_GT(parsed.board.nets.size(), 0u);
    ++compared;
  }
  EXPECT_EQ(compared, 2 * index.size());
}

TEST(SharedBoards, ReferenceRoutingIsOnDeclaredLayersAndNets) {
  BOARDS_OR_SKIP(dir);
  for (const ParsedBoard& parsed : parsed_boards(dir)) {
    if (!parsed.file.reference_routed) continue;
    SCOPED_TRACE(parsed.file.path.string());
    const Board& board = parsed.board;
    EXPECT_FALSE(board.wires.empty());
    for (const Wire& wire : board.wires) {
      ASSERT_GE(wire.layer, 0);
      ASSERT_LT(static_cast<std::size_t>(wire.layer), board.layers.size());
      ASSERT_GE(wire.net, 0) << "a routed wire without a net";
      ASSERT_LT(static_cast<std::size_t>(wire.net), board.nets.size());
      EXPECT_GT(wire.shape.width, 0);
    }
    for (const Via& via : board.vias) {
      ASSERT_GE(via.net, 0);
      ASSERT_LT(static_cast<std::size_t>(via.net), board.nets.size());
    }
  }
}

// The human routing ends on pads: if rotation, mirroring or layer flipping
// of placed components were wrong, wire ends would miss the pads of their
// own net. Counts pads of routed nets that some wire end or via of the same
// net touches on the pad's layer.
TEST(SharedBoards, ReferenceWiresEndOnPadsOfTheirNet) {
  BOARDS_OR_SKIP(dir);
  std::size_t all_back_pins = 0;
  std::size_t all_back_touched = 0;
  for (const ParsedBoard& parsed : parsed_boards(dir)) {
    if (!parsed.file.reference_routed) continue;
    SCOPED_TRACE(parsed.file.path.string());
    const Board& board = parsed.board;
    struct End {
      Point at;
      int layer;  // kAllLayers for vias
      int net;
    };
    std::vector<End> ends;
    for (const Wire& wire : board.wires) {
      if (wire.shape.kind != ShapeKind::path || wire.shape.points.empty()) continue;
      for (const Point p : wire.shape.points) ends.push_back({p, wire.layer, wire.net});
    }
    for (const Via& via : board.vias) ends.push_back({via.position, kAllLayers, via.net});
    std::vector<bool> net_routed(board.nets.size(), false);
    for (const End& end : ends) net_routed[static_cast<std::size_t>(end.net)] = true;

    // Per pin: touched when a wire end or via of its net lies on its copper
    // on any of its layers.
    std::map<std::pair<int, int>, bool> pin_touched;
    for (const PinCopper& copper : pin_copper(board)) {
      if (copper.net < 0 || !net_routed[static_cast<std::size_t>(copper.net)]) continue;
      const Box pad = bounding_box(copper.shape);
      const bool hit = std::any_of(ends.begin(), ends.end(), [&](const End& end) {
        return end.net == copper.net && (end.layer == kAllLayers || end.layer == copper.layer) && pad.contains(end.at);
      });
      pin_touched[{copper.pin.component, copper.pin.pin}] |= hit;
    }
    std::size_t pins = 0;
    std::size_t touched = 0;
    std::size_t back_pins = 0;
    std::size_t back_touched = 0;
    for (const auto& [pin, hit] : pin_touched) {
      const bool back = board.components[static_cast<std::size_t>(pin.first)].side == Side::back;
      ++pins;
      touched += hit ? 1 : 0;
      back_pins += back ? 1 : 0;
      back_touched += back && hit ? 1 : 0;
    }
    if (std::getenv("TRELLIS_VERBOSE") != nullptr) {
      std::printf("[ wires    ] %s: %zu/%zu pins reached, back side %zu/%zu\n", parsed.file.path.string().c_str(),
                  touched, pins, back_touched, back_pins);
    }
    // Some pins are reached through planes or zones instead of wires, so
    // not all; but most (the worst board: 79%).
    EXPECT_GT(touched * 4, pins * 3);
    all_back_pins += back_pins;
    all_back_touched += back_touched;
  }
  // Back-side placements are where mirroring and layer flipping could go
  // wrong; over all boards nearly every one is reached (97% when written).
  EXPECT_GT(all_back_touched * 100, all_back_pins * 95);
}

// Routes a shared board on cpu: every net routed, and the design-rule
// check finds no routing violation and no unconnected net.
RouteResult expect_routed_complete_and_clean(const fs::path& file) {
  const Board board = read_dsn_file(file);
  RouterOptions options;
  options.backend = Backend::cpu;
  RouteResult result = route_board(board, options);
  EXPECT_TRUE(result.unrouted_nets.empty());
  const DrcReport drc = check_design_rules(board, with_board_wiring(board, result.copper));
  EXPECT_TRUE(drc.routing.empty());
  EXPECT_TRUE(drc.unconnected.empty());
  return result;
}

// thegrid's +3V3 and the QFN's reset pin beside it leave neighbouring pins
// 0.5 mm apart and need 45-degree jogs in front of the part: only the bent
// stubs reaching further, tried where nets stay unrouted, complete it.
TEST(SharedBoards, ThegridCompletesWithBentStubsReachingFurther) {
  BOARDS_OR_SKIP(dir);
  expect_routed_complete_and_clean(dir / "pcbench" / "thegrid_pole_panellised" / "unrouted.dsn");
}

// divergence_meter's 0.8 mm high-voltage class must not keep its 0.2 mm
// nets out of the charger's QFN fan-out: with stubs claiming room at the
// clearance of the classes that can be there, every net routes on the
// first lattice (route-stub-claims-2026-12-07.md).
TEST(SharedBoards, DivergenceMeterCompletesOnItsFirstLattice) {
  BOARDS_OR_SKIP(dir);
  const RouteResult result =
      expect_routed_complete_and_clean(dir / "pcbench" / "divergence_meter_dm_control" / "unrouted.dsn");
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.lattice.pitch, 450'000);  // the board's 0.25 mm wire and 0.2 mm clearance
}

}  // namespace
}  // namespace trellis::route
