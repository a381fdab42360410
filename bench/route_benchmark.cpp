#include "route_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "route_backplane.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::bench {
namespace {

namespace fs = std::filesystem;
using route::Board;
using route::millimetres;

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kUnroutedSuffix = ".unrouted.dsn";
constexpr const char* kReferenceSuffix = ".reference-routed.dsn";
constexpr const char* kBackplaneName = "backplane";
constexpr const char* kDefaultBoardsDir = "../shared/boards";

// The human routing of a board, NaN where unknown.
struct HumanRouting {
  double wire_mm = kNotMeasured;
  double vias = kNotMeasured;
  // Nets the reference routing joins with a copper plane (a pour the
  // unrouted board lacks, so the router wires them), and the human wire on
  // the other nets.
  std::set<std::string> poured_nets;
  double wire_mm_unpoured = kNotMeasured;
};

// FreeRouting 1.9.0 as pcbench/index.json reports it, NaN where missing.
struct FreeRouting {
  double unrouted = kNotMeasured;
  double violations = kNotMeasured;
  double router_seconds = kNotMeasured;
};

struct BoardEntry {
  std::string suite;  // pcbench, dac2020 or kicad
  std::string name;
  fs::path unrouted;
  fs::path ground_truth;  // pcbench: ground_truth.json, when present
  fs::path reference;     // a human-routed DSN of the same board, when present
  std::optional<FreeRouting> freerouting;
};

fs::path boards_folder(const std::string& given) {
  if (given.empty()) {
    const fs::path fallback = kDefaultBoardsDir;
    if (!fs::is_directory(fallback)) {
      throw UsageError(fmt::format(
          "no boards folder: {} does not exist from the current directory {}; give --boards DIR (the folder "
          "holding pcbench/, dac2020/ and kicad/)",
          fallback.string(), fs::current_path().string()));
    }
    return fallback;
  }
  if (!fs::is_directory(given)) throw UsageError(fmt::format("--boards {}: no such folder", given));
  const fs::path dir(given);
  if (!fs::is_directory(dir / "pcbench") && !fs::is_directory(dir / "dac2020") && !fs::is_directory(dir / "kicad")) {
    throw UsageError(fmt::format("--boards {}: holds none of pcbench/, dac2020/ and kicad/", given));
  }
  return dir;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool wanted(const std::string& name, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  const std::string lower = lowercase(name);
  return std::any_of(only.begin(), only.end(),
                     [&](const std::string& filter) { return lower.find(lowercase(filter)) != std::string::npos; });
}

// A number that JSON files give as a number or as a string; NaN otherwise.
double json_number(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    try {
      std::size_t used = 0;
      const std::string text = value.get<std::string>();
      const double parsed = std::stod(text, &used);
      return used == text.size() ? parsed : kNotMeasured;
    } catch (const std::exception&) {
      return kNotMeasured;
    }
  }
  return kNotMeasured;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string(), 0, "cannot open");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    throw InputError(path.string(), 0, error.what());
  }
}

// FreeRouting 1.9.0 by pcbench board name.
std::map<std::string, FreeRouting> freerouting_results(const fs::path& index, std::vector<std::string>& notes) {
  std::map<std::string, FreeRouting> results;
  if (!fs::exists(index)) return results;
  try {
    const nlohmann::json entries = read_json(index);
    for (const nlohmann::json& entry : entries) {
      if (!entry.contains("board") || !entry.contains("freerouting_1_9_0")) continue;
      const nlohmann::json& run = entry["freerouting_1_9_0"];
      FreeRouting result;
      if (run.contains("unrouted")) result.unrouted = json_number(run["unrouted"]);
      if (run.contains("viol")) result.violations = json_number(run["viol"]);
      if (run.contains("router")) result.router_seconds = json_number(run["router"]);
      results[entry["board"].get<std::string>()] = result;
    }
  } catch (const std::exception& error) {
    notes.push_back(fmt::format("FreeRouting figures left out: {}", error.what()));
  }
  return results;
}

std::vector<BoardEntry> find_boards(const fs::path& dir, std::vector<std::string>& notes) {
  std::vector<BoardEntry> boards;
  const fs::path pcbench = dir / "pcbench";
  if (fs::is_directory(pcbench)) {
    const std::map<std::string, FreeRouting> freerouting = freerouting_results(pcbench / "index.json", notes);
    std::vector<BoardEntry> suite;
    for (const auto& entry : fs::directory_iterator(pcbench)) {
      if (!entry.is_directory() || !fs::exists(entry.path() / "unrouted.dsn")) continue;
      BoardEntry board{"pcbench", entry.path().filename().string(), entry.path() / "unrouted.dsn", {}, {}, {}};
      if (fs::exists(entry.path() / "ground_truth.json")) board.ground_truth = entry.path() / "ground_truth.json";
      if (fs::exists(entry.path() / "reference-routed.dsn")) board.reference = entry.path() / "reference-routed.dsn";
      const auto found = freerouting.find(board.name);
      if (found != freerouting.end()) board.freerouting = found->second;
      suite.push_back(std::move(board));
    }
    std::sort(suite.begin(), suite.end(), [](const BoardEntry& a, const BoardEntry& b) { return a.name < b.name; });
    boards.insert(boards.end(), suite.begin(), suite.end());
  }
  for (const char* folder : {"dac2020", "kicad"}) {
    if (!fs::is_directory(dir / folder)) continue;
    std::vector<BoardEntry> suite;
    for (const auto& entry : fs::directory_iterator(dir / folder)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file() || !ends_with(file, kUnroutedSuffix)) continue;
      BoardEntry board{folder, file.substr(0, file.size() - std::string(kUnroutedSuffix).size()), entry.path(), {}, {},
                       {}};
      const fs::path reference = entry.path().parent_path() / (board.name + kReferenceSuffix);
      if (fs::exists(reference)) board.reference = reference;
      suite.push_back(std::move(board));
    }
    std::sort(suite.begin(), suite.end(), [](const BoardEntry& a, const BoardEntry& b) { return a.name < b.name; });
    boards.insert(boards.end(), suite.begin(), suite.end());
  }
  return boards;
}

double path_length(const route::Shape& shape) {
  double length = 0;
  for (std::size_t i = 1; i < shape.points.size(); ++i) {
    length += std::hypot(static_cast<double>(shape.points[i].x - shape.points[i - 1].x),
                         static_cast<double>(shape.points[i].y - shape.points[i - 1].y));
  }
  return length;
}

// Whether the human routing pours net `net` (an index into board.nets,
// -1 for none).
bool poured(const HumanRouting& human, const Board& board, int net) {
  return net >= 0 && human.poured_nets.contains(board.nets[static_cast<std::size_t>(net)].name);
}

// The length of the wires on nets the human routing does not pour.
double unpoured_wire_mm(const HumanRouting& human, const Board& board, const std::vector<route::Wire>& wires) {
  double length = 0;
  for (const route::Wire& wire : wires) {
    if (wire.shape.kind == route::ShapeKind::path && !poured(human, board, wire.net)) length += path_length(wire.shape);
  }
  return millimetres(length);
}

// The human routing: measured on the reference-routed DSN where there is
// one (path wires' centre lines, as the router's wire is measured; polygon
// wires have none), else pcbench's ground_truth.json. That file's
// approximate_track_length_mm leaves out some nets' wiring (on
// kitspace_beehive exactly the GND wires' 291.8 mm) and its via_count
// counts vias the routing does not place (stitching vias), so the two
// routings are compared on the same measure.
HumanRouting human_routing(const BoardEntry& entry) {
  HumanRouting human;
  if (!entry.reference.empty()) {
    const Board reference = route::read_dsn_file(entry.reference);
    double length = 0;
    for (const route::Wire& wire : reference.wires) {
      if (wire.shape.kind == route::ShapeKind::path) length += path_length(wire.shape);
    }
    human.wire_mm = millimetres(length);
    for (const route::Plane& plane : reference.planes) human.poured_nets.insert(plane.net_name);
    human.wire_mm_unpoured = unpoured_wire_mm(human, reference, reference.wires);
    human.vias = static_cast<double>(reference.vias.size());
  } else if (!entry.ground_truth.empty()) {
    const nlohmann::json truth = read_json(entry.ground_truth);
    if (truth.contains("approximate_track_length_mm"))
      human.wire_mm = json_number(truth["approximate_track_length_mm"]);
    if (truth.contains("via_count")) human.vias = json_number(truth["via_count"]);
  }
  return human;
}

// A count that may be unknown (NaN): an integer cell, or "-" (null in JSON).
Table::Cell count(double value) {
  return std::isfinite(value) ? Table::Cell{static_cast<std::int64_t>(std::llround(value))} : number(value, 0);
}

double as_double(std::size_t value) { return static_cast<double>(value); }

// One row of the boards table; NaN numbers print as "-" (not measured).
struct BoardRow {
  std::string board;
  std::string suite;
  std::string backend;
  double layers = kNotMeasured;
  double nets = kNotMeasured;
  double routed = kNotMeasured;
  double unrouted = kNotMeasured;
  double routing_violations = kNotMeasured;
  double unconnected = kNotMeasured;
  std::string complete = "no";
  double wire_mm = kNotMeasured;
  double human_wire_mm = kNotMeasured;
  double wire_ratio = kNotMeasured;
  double wire_ratio_unpoured = kNotMeasured;  // over the nets the human routing wires without a pour
  double vias = kNotMeasured;
  double human_vias = kNotMeasured;
  double iterations = kNotMeasured;
  double router_seconds = kNotMeasured;
  route::RoutePhases phases{kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured};
  FreeRouting freerouting;
  double speed_up = kNotMeasured;
  std::string notes;

  static std::vector<std::string> columns() {
    return {"board",
            "suite",
            "backend",
            "layers",
            "nets",
            "routed",
            "unrouted",
            "routing violations",
            "unconnected (DRC)",
            "complete",
            "wire mm",
            "human wire mm",
            "wire / human",
            "wire / human, nets not poured",
            "vias",
            "human vias",
            "iterations",
            "router s",
            "lattice s",
            "negotiation s",
            "repair s",
            "clean-up s",
            "geometry s",
            "FreeRouting unrouted",
            "FreeRouting violations",
            "FreeRouting s",
            "speed-up vs FreeRouting",
            "notes"};
  }
  std::vector<Table::Cell> cells() const {
    return {board,
            suite,
            backend,
            count(layers),
            count(nets),
            count(routed),
            count(unrouted),
            count(routing_violations),
            count(unconnected),
            complete,
            number(wire_mm, 1),
            number(human_wire_mm, 1),
            number(wire_ratio, 2),
            number(wire_ratio_unpoured, 2),
            count(vias),
            count(human_vias),
            count(iterations),
            number(router_seconds, 3),
            number(phases.lattice, 3),
            number(phases.negotiation, 3),
            number(phases.repair, 3),
            number(phases.cleanup, 3),
            number(phases.geometry, 3),
            count(freerouting.unrouted),
            count(freerouting.violations),
            number(freerouting.router_seconds, 2),
            number(speed_up, 2),
            notes};
  }
};

// One row of the backplane table.
struct BackplaneRow {
  std::string board;
  std::string backend;
  double layers = kNotMeasured;
  double nets = kNotMeasured;
  double routed = kNotMeasured;
  double overused_nodes = kNotMeasured;
  double overused_last_iteration = kNotMeasured;
  std::string converged = "no";
  double iterations = kNotMeasured;
  double wire_mm = kNotMeasured;
  double vias = kNotMeasured;
  double routing_violations = kNotMeasured;
  double unconnected = kNotMeasured;
  double router_seconds = kNotMeasured;
  double drc_seconds = kNotMeasured;
  std::string lattice;
  double grid_nodes = kNotMeasured;
  double graph_nodes = kNotMeasured;
  std::string notes;

  static std::vector<std::string> columns() {
    return {"board",
            "backend",
            "layers",
            "nets",
            "routed",
            "overused nodes",
            "overused (last iteration)",
            "converged",
            "iterations",
            "wire mm",
            "vias",
            "routing violations",
            "unconnected (DRC)",
            "router s",
            "DRC s",
            "lattice",
            "grid nodes",
            "graph nodes",
            "notes"};
  }
  std::vector<Table::Cell> cells() const {
    return {board,
            backend,
            count(layers),
            count(nets),
            count(routed),
            count(overused_nodes),
            count(overused_last_iteration),
            converged,
            count(iterations),
            number(wire_mm, 1),
            count(vias),
            count(routing_violations),
            count(unconnected),
            number(router_seconds, 2),
            number(drc_seconds, 2),
            lattice,
            count(grid_nodes),
            count(graph_nodes),
            notes};
  }
};

// Geometric mean of positive ratios.
struct GeometricMean {
  double log_sum = 0;
  std::size_t count = 0;
  void add(double ratio) {
    if (std::isfinite(ratio) && ratio > 0) {
      log_sum += std::log(ratio);
      ++count;
    }
  }
  double value() const { return count == 0 ? kNotMeasured : std::exp(log_sum / static_cast<double>(count)); }
};

struct BackendSummary {
  std::size_t boards = 0;
  std::size_t complete = 0;
  std::size_t failed = 0;  // boards that did not read or route
  std::size_t nets = 0;
  std::size_t routed = 0;
  std::size_t unrouted = 0;
  std::size_t violations = 0;
  std::size_t unconnected = 0;
  std::size_t vias = 0;
  double router_seconds = 0;
  GeometricMean wire_ratio;
  GeometricMean wire_ratio_unpoured;
  GeometricMean speed_up;
};

class Log {
 public:
  explicit Log(bool quiet) : quiet_(quiet || Progress::quiet()) {}
  template <typename... Args>
  void line(fmt::format_string<Args...> format, Args&&... args) const {
    if (quiet_) return;
    std::fprintf(stderr, "%s\n", fmt::format(format, std::forward<Args>(args)...).c_str());
    std::fflush(stderr);
  }

 private:
  bool quiet_;
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

void route_boards(const std::vector<BoardEntry>& boards, const std::vector<Backend>& backends,
                  const RouteBenchmarkOptions& options, const Log& log, RouteBenchmarkTables& tables) {
  std::vector<BackendSummary> summaries(backends.size());
  const std::size_t runs = boards.size() * backends.size();
  std::size_t run = 0;
  for (const BoardEntry& entry : boards) {
    std::optional<Board> board;
    std::vector<std::string> board_notes;
    try {
      board = route::read_dsn_file(entry.unrouted);
    } catch (const std::exception& error) {
      board_notes.push_back(fmt::format("read failed: {}", error.what()));
    }
    HumanRouting human;
    try {
      human = human_routing(entry);
    } catch (const std::exception& error) {
      board_notes.push_back(fmt::format("human routing unknown: {}", error.what()));
    }
    if (board && (!board->wires.empty() || !board->vias.empty())) {
      const std::size_t own = route::check_design_rules(*board).routing.size();
      if (own > 0) board_notes.push_back(fmt::format("the board's own wiring has {} routing violations", own));
    }

    for (std::size_t b = 0; b < backends.size(); ++b) {
      BackendSummary& summary = summaries[b];
      ++summary.boards;
      ++run;
      const std::string label =
          fmt::format("bench route [{}/{}] {}/{} ({})", run, runs, entry.suite, entry.name, to_string(backends[b]));
      BoardRow row;
      row.board = entry.name;
      row.suite = entry.suite;
      row.backend = to_string(backends[b]);
      row.human_wire_mm = human.wire_mm;
      row.human_vias = human.vias;
      row.freerouting = entry.freerouting.value_or(FreeRouting{});
      std::vector<std::string> notes = board_notes;
      if (board) {
        row.layers = as_double(board->layers.size());
        try {
          route::RouterOptions router_options;
          router_options.backend = backends[b];
          router_options.max_iterations = options.max_iterations;
          router_options.concurrent_nets = options.concurrent_nets;
          router_options.checked_batches = !options.nets_apart;
          router_options.device_round_min = options.device_round_min;
          router_options.batch_size = options.batch_size;
          router_options.concurrency_follows_overuse = options.concurrency_follows_overuse;
          router_options.cleanup_passes = options.cleanup_passes;
          router_options.exact_stub_claims = options.exact_stub_claims;
          const route::RouteResult result = route::route_board(*board, router_options);
          const route::DrcReport drc =
              route::check_design_rules(*board, route::with_board_wiring(*board, result.copper));
          const std::size_t routed = result.nets_to_route - result.unrouted_nets.size();
          const bool complete = result.unrouted_nets.empty() && drc.unconnected.empty() && drc.routing.empty();
          row.backend = to_string(result.backend);
          row.nets = as_double(result.nets_to_route);
          row.routed = as_double(routed);
          row.unrouted = as_double(result.unrouted_nets.size());
          row.routing_violations = as_double(drc.routing.size());
          row.unconnected = as_double(drc.unconnected.size());
          row.complete = complete ? "yes" : "no";
          row.wire_mm = millimetres(static_cast<double>(result.wire_length));
          row.wire_ratio = row.wire_mm / human.wire_mm;
          row.wire_ratio_unpoured = unpoured_wire_mm(human, *board, result.copper.wires) / human.wire_mm_unpoured;
          row.vias = as_double(result.via_count);
          row.iterations = as_double(result.iterations.size());
          row.router_seconds = result.seconds;
          row.phases = result.phases;
          row.speed_up = row.freerouting.router_seconds / result.seconds;
          if (!result.warnings.empty()) notes.push_back(fmt::format("{} router warnings", result.warnings.size()));
          // The nets the router finds blocked by their own rules, with the pins and the rule.
          for (const int net : result.blocked_nets) {
            const std::string prefix =
                fmt::format("net '{}' is blocked", board->nets[static_cast<std::size_t>(net)].name);
            for (const std::string& warning : result.warnings) {
              if (warning.starts_with(prefix)) notes.push_back(warning);
            }
          }
          if (!result.converged && result.overused_nodes > 0) {
            notes.push_back(fmt::format("not converged: {} overused nodes", result.overused_nodes));
          }
          summary.complete += complete ? 1 : 0;
          summary.nets += result.nets_to_route;
          summary.routed += routed;
          summary.unrouted += result.unrouted_nets.size();
          summary.violations += drc.routing.size();
          summary.unconnected += drc.unconnected.size();
          summary.vias += result.via_count;
          summary.router_seconds += result.seconds;
          if (complete) {  // partial routings are short by design
            summary.wire_ratio.add(row.wire_ratio);
            summary.wire_ratio_unpoured.add(row.wire_ratio_unpoured);
          }
          summary.speed_up.add(row.speed_up);
          log.line("{}: {} of {} nets routed, {} routing violations, {} unconnected, {} iterations, {:.2f} s", label,
                   routed, result.nets_to_route, drc.routing.size(), drc.unconnected.size(), result.iterations.size(),
                   result.seconds);
        } catch (const std::exception& error) {
          ++summary.failed;
          notes.push_back(fmt::format("routing failed: {}", error.what()));
          log.line("{}: routing failed: {}", label, error.what());
        }
      } else {
        ++summary.failed;
        log.line("{}: {}", label, join(notes));
      }
      row.notes = join(notes);
      tables.boards.add_row(row.cells());
    }
  }
  for (std::size_t b = 0; b < backends.size(); ++b) {
    const BackendSummary& s = summaries[b];
    BoardRow row;
    row.board = "all boards";
    row.backend = to_string(backends[b]);
    row.nets = as_double(s.nets);
    row.routed = as_double(s.routed);
    row.unrouted = as_double(s.unrouted);
    row.routing_violations = as_double(s.violations);
    row.unconnected = as_double(s.unconnected);
    row.complete = fmt::format("{} of {}", s.complete, s.boards);
    row.wire_ratio = s.wire_ratio.value();
    row.wire_ratio_unpoured = s.wire_ratio_unpoured.value();
    row.vias = as_double(s.vias);
    row.router_seconds = s.router_seconds;
    row.speed_up = s.speed_up.value();
    row.notes = fmt::format("{} of {} boards fully routed with 0 routing violations", s.complete, s.boards);
    if (s.failed > 0) row.notes += fmt::format("; {} failed to read or route", s.failed);
    row.notes += fmt::format("; geometric means: wire / human over {} complete boards, speed-up over {} boards",
                             s.wire_ratio.count, s.speed_up.count);
    tables.boards.add_row(row.cells());
  }
}

// The most nets whose pins' x-interval covers one x (at a pin): how many
// must cross that vertical line somewhere between the connector rows.
std::size_t crossing_density(const Board& board) {
  std::vector<std::pair<route::Coord, route::Coord>> spans;
  for (const route::Net& net : board.nets) {
    const route::Coord a = route::pin_position(board, net.pins.front()).x;
    const route::Coord b = route::pin_position(board, net.pins.back()).x;
    spans.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::size_t most = 0;
  for (const auto& [x, unused] : spans) {
    const auto covering =
        std::count_if(spans.begin(), spans.end(), [x = x](const auto& s) { return s.first <= x && x <= s.second; });
    most = std::max(most, static_cast<std::size_t>(covering));
  }
  return most;
}

// What a backplane is, for the notes.
std::string describe_backplane(const BackplaneSpec& spec, const Board& board) {
  const route::Box outline = boundary_box(board);
  route::Coord last_bottom_row = std::numeric_limits<route::Coord>::min();
  route::Coord first_top_row = std::numeric_limits<route::Coord>::max();
  for (const route::Net& net : board.nets) {
    last_bottom_row = std::max(last_bottom_row, route::pin_position(board, net.pins.front()).y);
    first_top_row = std::min(first_top_row, route::pin_position(board, net.pins.back()).y);
  }
  return fmt::format(
      "{}: {:.1f} x {:.1f} mm, {} signal layers (horizontal and vertical alternating), 0.2 mm wires "
      "with 0.2 mm clearance (lattice pitch 0.4 mm), "
      "0.6 mm {}; two rows of {} connectors of {} x {} through-hole pins (1.0 mm circles on every layer, 2.0 mm "
      "apart across, 1.2 mm deep) at opposite edges; {} two-pin nets from bottom pin i to top pin permutation[i] "
      "({}Fisher-Yates on mt19937_64, seed {}); {:.1f} mm between the centres of the connector rows' facing pins, "
      "and up to {} nets must cross one vertical line. grid nodes = columns x rows x layers; graph nodes add the "
      "via sites and pad nodes.",
      board.name, millimetres(static_cast<double>(outline.max.x - outline.min.x)),
      millimetres(static_cast<double>(outline.max.y - outline.min.y)), spec.layers,
      spec.buried_vias ? "buried vias joining each pair of neighbouring layers" : "through vias",
      spec.connectors_per_edge, spec.pin_columns, spec.pin_rows, spec.nets,
      spec.facing_connectors ? "each connector's pins among those of the connector facing it, seed + connector; " : "",
      spec.seed, millimetres(static_cast<double>(first_top_row - last_bottom_row)), crossing_density(board));
}

struct Backplane {
  BackplaneSpec spec;
  Board board;
};

// The scale backplane: 32 layers, 2,000 nets, eight connectors of 16 x 16
// pins an edge, each wired to the one facing it (about 2.3 million grid
// nodes). Run only when --only gives its whole name.
BackplaneSpec scale_backplane() {
  BackplaneSpec spec;
  spec.layers = 32;
  spec.nets = 2'000;
  spec.connectors_per_edge = 8;
  spec.pin_columns = 16;
  spec.pin_rows = 16;
  spec.target_grid_nodes = 2'000'000;  // the connectors' least height gives more
  spec.facing_connectors = true;
  return spec;
}

// Two backplanes: the scale (about 450,000 grid nodes), and the same
// layout with a taller open area between the connector rows (560,000). On
// the first the nets crossing the middle outnumber the horizontal tracks
// there (rows between the connector rows times the horizontal layers); the
// second has the room (bench/results/NOTES.md). Both run unless --only
// names backplanes: a filter that "backplane" contains names both, a
// backplane's whole name that one. The scale backplane runs only by its
// whole name.
std::vector<Backplane> chosen_backplanes(const RouteBenchmarkOptions& options) {
  if (!options.backplane) return {};
  BackplaneSpec taller;
  taller.target_grid_nodes = 560'000;
  std::vector<Backplane> all;
  for (const auto& [spec, suffix] : {std::pair{BackplaneSpec{}, ""}, std::pair{taller, "-taller"}}) {
    Board board = backplane_board(spec);
    board.name += suffix;
    all.push_back({spec, std::move(board)});
  }
  const auto names = [&](const std::string& filter, const Backplane& b) {
    return wanted(kBackplaneName, {filter}) || lowercase(b.board.name) == lowercase(filter);
  };
  const BackplaneSpec scale = scale_backplane();
  Board scale_board = backplane_board(scale);
  if (std::any_of(options.only.begin(), options.only.end(),
                  [&](const std::string& f) { return lowercase(f) == lowercase(scale_board.name); })) {
    return {Backplane{scale, std::move(scale_board)}};
  }
  const bool any_named = std::any_of(options.only.begin(), options.only.end(), [&](const std::string& filter) {
    return std::any_of(all.begin(), all.end(), [&](const Backplane& b) { return names(filter, b); });
  });
  if (!any_named) return all;
  std::vector<Backplane> chosen;
  for (Backplane& b : all) {
    if (std::any_of(options.only.begin(), options.only.end(), [&](const std::string& f) { return names(f, b); })) {
      chosen.push_back(std::move(b));
    }
  }
  return chosen;
}

// One backplane on every backend: a row each.
void route_backplane(const Backplane& backplane, const std::vector<Backend>& backends,
                     const RouteBenchmarkOptions& options, const Log& log, Table& table,
                     std::vector<std::string>& notes) {
  const Board& board = backplane.board;
  notes.push_back(describe_backplane(backplane.spec, board));
  for (const Backend backend : backends) {
    const std::string label = fmt::format("bench route {} ({})", board.name, to_string(backend));
    BackplaneRow row;
    row.board = board.name;
    row.backend = to_string(backend);
    row.layers = as_double(board.layers.size());
    row.nets = as_double(board.nets.size());
    try {
      route::RouterOptions router_options;
      router_options.backend = backend;
      router_options.max_iterations = options.max_iterations;
      router_options.concurrent_nets = options.concurrent_nets;
      router_options.checked_batches = !options.nets_apart;
      router_options.batch_size = options.batch_size;
      router_options.device_round_min = options.device_round_min;
      router_options.concurrency_follows_overuse = options.concurrency_follows_overuse;
      router_options.cleanup_passes = options.cleanup_passes;
      router_options.exact_stub_claims = options.exact_stub_claims;
      // The backplane is laid out for its lattice (channels on grid lines):
      // no second routing on a finer one.
      router_options.refine_pitch = false;
      const auto progress = [&](const route::RouteIteration& it) {
        log.line(
            "{}: iteration {}: {} nets routed, {} connections searched in {} rounds ({} again), {} overused nodes, "
            "{} failed connections, {:.2f} s",
            label, it.iteration, it.nets_routed, it.connections_searched, it.search_rounds, it.paths_searched_again,
            it.overused_nodes, it.failed_connections, it.seconds);
      };
      const route::RouteResult result = route::route_board(board, router_options, progress);
      SteadyTimer drc_timer;
      const route::DrcReport drc = route::check_design_rules(board, route::with_board_wiring(board, result.copper));
      row.drc_seconds = drc_timer.elapsed_ms() * 1e-3;
      const route::LatticeSummary& lattice = result.lattice;
      row.backend = to_string(result.backend);
      row.nets = as_double(result.nets_to_route);
      row.routed = as_double(result.nets_to_route - result.unrouted_nets.size());
      row.overused_nodes = as_double(result.overused_nodes);
      row.overused_last_iteration = result.iterations.empty() ? 0 : as_double(result.iterations.back().overused_nodes);
      row.converged = result.converged ? "yes" : "no";
      row.iterations = as_double(result.iterations.size());
      row.wire_mm = millimetres(static_cast<double>(result.wire_length));
      row.vias = as_double(result.via_count);
      row.routing_violations = as_double(drc.routing.size());
      row.unconnected = as_double(drc.unconnected.size());
      row.router_seconds = result.seconds;
      row.lattice = fmt::format("{} x {} x {} at {:.2f} mm", lattice.columns, lattice.rows, lattice.layers,
                                millimetres(static_cast<double>(lattice.pitch)));
      row.grid_nodes = static_cast<double>(lattice.columns) * lattice.rows * lattice.layers;
      row.graph_nodes = as_double(lattice.nodes);
      if (!drc.input_conflicts.empty()) {
        row.notes = fmt::format("{} input conflicts (pads against pads or the outline)", drc.input_conflicts.size());
      }
      log.line("{}: {} of {} nets routed, {} overused nodes, {} iterations, {:.2f} s", label,
               result.nets_to_route - result.unrouted_nets.size(), result.nets_to_route, result.overused_nodes,
               result.iterations.size(), result.seconds);
    } catch (const std::exception& error) {
      row.notes = fmt::format("routing failed: {}", error.what());
      log.line("{}: routing failed: {}", label, error.what());
    }
    table.add_row(row.cells());
  }
}

std::vector<Backend> chosen_backends(const std::vector<Backend>& requested) {
  std::vector<Backend> backends;
  if (requested.empty()) {
    backends.push_back(Backend::cpu);
    if (cuda_usable()) backends.push_back(Backend::cuda);
    return backends;
  }
  for (const Backend b : requested) {
    const Backend resolved = resolve(b);  // a cuda request without a device throws here, before any work
    if (std::find(backends.begin(), backends.end(), resolved) == backends.end()) backends.push_back(resolved);
  }
  return backends;
}

}  // namespace

RouteBenchmarkTables run_route_benchmark(const RouteBenchmarkOptions& options) {
  if (options.cleanup_passes < 0) {
    throw UsageError(fmt::format("--cleanup-passes must be 0 (none) or more, got {}", options.cleanup_passes));
  }
  if (options.concurrent_nets < 0) {
    throw UsageError(fmt::format("--concurrent-nets must be 0 (off) or more, got {}", options.concurrent_nets));
  }
  if (options.max_iterations < 1) {
    throw UsageError(fmt::format("--max-iterations must be positive, got {}", options.max_iterations));
  }
  const std::vector<Backend> backends = chosen_backends(options.backends);
  // "--only backplane" runs the backplanes alone, and needs no boards folder.
  const std::vector<Backplane> backplanes = chosen_backplanes(options);
  const auto names_a_backplane = [&](const std::string& filter) {
    return wanted(kBackplaneName, {filter}) ||
           std::any_of(backplanes.begin(), backplanes.end(),
                       [&](const Backplane& b) { return lowercase(b.board.name) == lowercase(filter); });
  };
  const bool backplane_named = std::any_of(options.only.begin(), options.only.end(), names_a_backplane);
  const bool backplane_alone =
      backplane_named && std::all_of(options.only.begin(), options.only.end(), names_a_backplane);
  const bool skip_boards = backplane_alone && options.boards_dir.empty() && !fs::is_directory(kDefaultBoardsDir);
  const fs::path dir = skip_boards ? fs::path() : boards_folder(options.boards_dir);
  RouteBenchmarkTables tables{Table(BoardRow::columns()), Table(BackplaneRow::columns()), {}};
  std::vector<BoardEntry> boards;
  if (!skip_boards) {
    for (BoardEntry& entry : find_boards(dir, tables.notes)) {
      if (wanted(entry.suite + "/" + entry.name, options.only)) boards.push_back(std::move(entry));
    }
  }
  if (boards.empty() && !backplane_named) {
    throw UsageError(options.only.empty() ? fmt::format("no boards (*.unrouted.dsn) under {}", dir.string())
                                          : fmt::format("no board under {} matches --only", dir.string()));
  }
  const Log log(options.quiet);
  std::vector<std::string>& notes = tables.notes;
  notes.push_back(fmt::format(
      "PathFinder at most {} iterations, default lattice pitch (wire width + clearance), batches of {}{}{}{}{}; "
      "router s: route_board's own time (lattice, negotiation and geometry), and its parts (RoutePhases).",
      options.max_iterations, options.batch_size, options.nets_apart ? " nets apart" : " nets, checked",
      options.concurrent_nets == 0
          ? std::string()
          : fmt::format(", {} concurrent nets after the first iteration{}", options.concurrent_nets,
                        options.concurrency_follows_overuse ? " (fewer as overuse falls)" : ""),
      options.cleanup_passes == route::RouterOptions{}.cleanup_passes
          ? std::string()
          : fmt::format(", {} clean-up passes", options.cleanup_passes),
      options.exact_stub_claims ? ", exact stub claims" : ""));
  if (!boards.empty()) {
    route_boards(boards, backends, options, log, tables);
    notes.push_back(fmt::format("Boards from {}.", dir.string()));
    notes.push_back(
        "nets: nets with two or more pins; routed / unrouted: as the router reports them. routing "
        "violations: the independent design-rule check of the board's own wiring plus the router's "
        "copper (violations involving a wire or a via); unconnected (DRC): nets whose pins that check "
        "finds in more than one group. complete: no unrouted net, no unconnected net and no routing "
        "violation.");
    notes.push_back(
        "Human routing: measured on the board's reference-routed DSN (centre-line length of path wires, as "
        "the router's wire is measured, and vias); pcbench's ground_truth.json only where a board has no "
        "such DSN (its approximate_track_length_mm leaves out some nets' wiring, its via_count counts "
        "stitching vias); dac2020 has none. wire / human, nets not poured: both routings' wire on the nets "
        "the reference routing does not join with a copper plane (the unrouted boards carry no planes, so "
        "the router wires the nets a human poured: tdstat's GND and +5V, DSP-ADAU1452's grounds and "
        "supplies); the same as wire / human where the reference has no plane.");
    notes.push_back(
        "FreeRouting: pcbench/index.json, FreeRouting 1.9.0's router time, unrouted nets and violations "
        "as PCBench measured them (other hardware); speed-up vs FreeRouting = its router time / ours.");
    notes.push_back(
        "Summary rows (all boards): sums over the boards that routed; wire / human is the geometric mean over the "
        "complete boards with a human routing, speed-up the geometric mean over the boards with a FreeRouting time.");
  }
  for (const Backplane& backplane : backplanes) {
    route_backplane(backplane, backends, options, log, tables.backplane, notes);
  }
  return tables;
}

}  // namespace trellis::bench
