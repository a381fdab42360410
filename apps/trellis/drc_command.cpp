// `trellis drc BOARD.dsn|BOARD.kicad_pcb [ROUTES.ses] [--json] [-o FILE]
// [--fail-on-violations]`: the independent design-rule check of a board's
// copper. The board is a Specctra DSN file or a KiCad board (.kicad_pcb, with
// its .kicad_pro beside it when present), told apart by the extension.
// Without ROUTES the copper checked is the wiring the board file holds; with a Specctra session
// (a router's output) it is that wiring plus the session's routes, copper
// the session repeats from the board counted once (route::with_board_wiring).
//
// Exit codes: 0 when the check ran, whatever it found (so scripts can read
// the report); with --fail-on-violations, 1 when routing introduced a
// clearance violation or a net is left unconnected (input conflicts alone
// do not fail: the routing did not cause them); 2 for bad input.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "drc_report.hpp"
#include "route_report.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board_file.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/session.hpp"

namespace trellis::cli {
namespace {

using route::Board;
using route::DrcReport;
using route::millimetres;
using route::Violation;

struct DrcCommand {
  std::string board_path;
  std::string routes_path;  // a session (.ses); empty: the board's own wiring
  std::string output;
  bool json = false;
  bool fail_on_violations = false;
};

void write_violations(std::ostream& out, const Board& board, const char* title, const std::vector<Violation>& list) {
  out << title << " (" << list.size() << ")\n";
  for (const Violation& v : list) {
    out << fmt::format("  {:<9} {:<8} at ({:.4f}, {:.4f}) mm: {} [{}] and {} [{}]: {:.4f} mm, needs {:.4f} mm\n",
                       route::to_string(v.kind), layer_name(board, v.layer),
                       millimetres(static_cast<double>(v.position.x)), millimetres(static_cast<double>(v.position.y)),
                       v.first.name, v.first.net_name, v.second.name, v.second.net_name, millimetres(v.measured),
                       millimetres(static_cast<double>(v.required)));
  }
}

std::string text_report(const Board& board, const DrcReport& report) {
  std::ostringstream out;
  write_violations(out, board, "violations introduced by routing", report.routing);
  write_violations(out, board, "conflicts already in the input", report.input_conflicts);
  out << "unconnected nets (" << report.unconnected.size() << ")\n";
  for (const route::UnconnectedNet& net : report.unconnected) {
    out << "  " << net.name << ":";
    for (const auto& group : net.groups) {
      out << " {";
      for (std::size_t i = 0; i < group.size(); ++i) out << (i ? " " : "") << route::pin_name(board, group[i]);
      out << "}";
    }
    out << "\n";
  }
  out << "pads joined by their net's pour once refilled (" << report.pours.size() << " islands)\n";
  for (const route::PourIsland& island : report.pours) {
    out << "  " << board.nets[static_cast<std::size_t>(island.net)].name << " on " << layer_name(board, island.layer)
        << ":";
    for (const route::PinRef& pin : island.pins) out << " " << route::pin_name(board, pin);
    out << "\n";
  }
  return out.str();
}

void run(const DrcCommand& command, const GlobalOptions& globals) {
  const Board board = route::read_board_file(command.board_path);
  if (!globals.quiet) {
    for (const std::string& warning : board.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  // The session is read whole before anything is written: bad input leaves no report behind.
  const DrcReport report =
      command.routes_path.empty()
          ? route::check_design_rules(board)
          : route::check_design_rules(
                board, route::with_board_wiring(
                           board, route::read_session(std::filesystem::path(command.routes_path), board)));
  const std::string text = command.json ? drc_report_json(board, report).dump(2) + "\n" : text_report(board, report);
  if (command.output.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    AtomicOutputFile out(command.output);
    out.stream() << text;
    out.commit();
  }
  if (!globals.quiet) {
    std::fprintf(stderr, "%s\n",
                 fmt::format("drc {}{}{}: {} routing violations, {} input conflicts, {} of {} nets unconnected "
                             "({} pads, {} wires, {} vias; {:.1f} ms)",
                             command.board_path, command.routes_path.empty() ? "" : " + ", command.routes_path,
                             report.routing.size(), report.input_conflicts.size(), report.unconnected.size(),
                             report.nets_checked, report.pads, report.wires, report.vias, report.seconds * 1e3)
                     .c_str());
  }
  if (command.fail_on_violations && (!report.routing.empty() || !report.unconnected.empty())) {
    // A plain Error: main reports it and exits 1.
    throw Error(fmt::format("the routing has {} violations and {} unconnected nets", report.routing.size(),
                            report.unconnected.size()));
  }
}

}  // namespace

void add_drc_command(CLI::App& app, const GlobalOptions& globals) {
  auto command = std::make_shared<DrcCommand>();
  CLI::App* drc = app.add_subcommand(
      "drc",
      "Design-rule check of a board (Specctra DSN, or KiCad .kicad_pcb with its .kicad_pro) and its wiring: "
      "clearance between copper of different nets per layer (pads, wires, vias, keepouts, outline) and connectivity of "
      "every net. Lists violations introduced by "
      "the routing apart from conflicts already in the input. Without ROUTES the copper checked is the board's own "
      "wiring; with a Specctra session (.ses, a router's output) it is the board's wiring plus the session's routes "
      "(copper the session repeats from the board counted once).");
  drc->add_option("board", command->board_path, "Board (.dsn, or .kicad_pcb)")->required();
  drc->add_option("routes", command->routes_path,
                  "Routes to check on the board: a Specctra session (.ses) written for this board");
  drc->add_flag("--json", command->json, "Write the report as JSON");
  drc->add_option("-o,--out", command->output, "Write the report here (whole or not at all) instead of stdout");
  drc->add_flag("--fail-on-violations", command->fail_on_violations,
                "Exit 1 when routing introduced a violation or a net is unconnected");
  drc->callback([command, &globals] { run(*command, globals); });
}

}  // namespace trellis::cli
