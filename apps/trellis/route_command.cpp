// `trellis route BOARD.dsn|BOARD.kicad_pcb [-o routes.ses|routed.kicad_pcb]
// [--svg FILE] [--png FILE] [--report FILE.json] [--max-iterations N]
// [--pitch MM] [--via-cost STEPS] [--corners 45|90] [--directions
// board|alternate|none] [--against-cost STEPS] [--pour-cost STEPS]
// [--cleanup-passes N] [--cleanup-via-cost STEPS]`: routes every net of a board with PathFinder on the
// routing lattice, checks the result with the independent
// design-rule check, and writes what was asked for. Everything is computed
// before the first file is written, and each file appears whole or not at
// all. A progress line per iteration goes to stderr.
//
// Exit codes: 0 when routing ran (the summary says what is left unrouted),
// 2 for bad input or options.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "route_report.hpp"
#include "route_settings.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board_file.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
#include "trellis/route/render.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::cli {
namespace {

using route::Board;
using route::millimetres;

// The settings (route_settings.hpp) and the files.
struct RouteCommand : RouteSettings {
  std::string board_path;
  std::string output;
  std::string svg;
  std::string png;
  std::string report;
};

void run(const RouteCommand& command, const GlobalOptions& globals) {
  const std::filesystem::path board_path(command.board_path);
  const Board board = route::read_board_file(board_path);
  if (!globals.quiet) {
    for (const std::string& warning : board.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  if (!command.output.empty() && route::is_kicad_board(command.output) && !route::is_kicad_board(board_path)) {
    throw UsageError("a routed .kicad_pcb can only be written for a .kicad_pcb input; write a session (.ses) instead");
  }
  if (!command.png.empty() && !route::png_available()) {
    throw UsageError("this build has no PNG output (built without cairo); use --svg");
  }
  const route::RouterOptions options = router_options(command, globals.requested_backend());
  route::Coord last_pitch = 0;
  const auto progress = [&](const route::RouteIteration& it) {
    if (globals.quiet) return;
    if (it.iteration == 1 && last_pitch != 0) {
      const auto mm = [](route::Coord pitch) { return static_cast<double>(pitch) / route::kNanometresPerMillimetre; };
      std::fprintf(stderr, "%s\n",
                   (it.pitch < last_pitch
                        ? fmt::format("routing again on a lattice of {:.4f} mm: nets stayed unrouted on {:.4f} mm",
                                      mm(it.pitch), mm(last_pitch))
                        : fmt::format("routing again on a lattice of {:.4f} mm", mm(it.pitch)))
                       .c_str());
    }
    last_pitch = it.pitch;
    std::fprintf(
        stderr, "%s\n",
        fmt::format("iteration {:>3}: {:>5} nets routed, {:>5} connections searched in {:>4} rounds "
                    "({} again), {:>6} overused nodes, {} failed connections, pres_fac {:.3g}, {:.3f} s",
                    it.iteration, it.nets_routed, it.connections_searched, it.search_rounds, it.paths_searched_again,
                    it.overused_nodes, it.failed_connections, it.present_factor, it.seconds)
            .c_str());
  };
  const route::RouteResult result = route::route_board(board, options, progress);
  const route::DrcReport drc = route::check_design_rules(board, route::with_board_wiring(board, result.copper));

  if (!command.output.empty()) {
    if (route::is_kicad_board(command.output)) {
      route::write_routed_kicad_pcb(board_path, board, result.copper, command.output);
    } else {
      route::write_session(board, result.copper, std::filesystem::path(command.output));
    }
  }
  if (!command.svg.empty()) route::write_svg(board, route::with_board_wiring(board, result.copper), command.svg);
  if (!command.png.empty()) route::write_png(board, route::with_board_wiring(board, result.copper), command.png);
  if (!command.report.empty()) {
    write_file_atomically(command.report, route_report_json(board, result, drc).dump(2) + "\n");
  }

  if (!globals.quiet) {
    for (const std::string& warning : result.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    std::fprintf(
        stderr, "%s\n",
        fmt::format("route {}: {} of {} nets routed{}, {} iterations, {:.1f} mm of wire, {} vias, "
                    "DRC {} routing violations, {} unconnected nets ({} backend, lattice {} x {} x {} at {:.4f} mm, "
                    "{:.2f} s)",
                    command.board_path, result.nets_to_route - result.unrouted_nets.size(), result.nets_to_route,
                    result.converged ? "" : " (not converged)", result.iterations.size(),
                    millimetres(static_cast<double>(result.wire_length)), result.via_count, drc.routing.size(),
                    drc.unconnected.size(), to_string(result.backend), result.lattice.columns, result.lattice.rows,
                    result.lattice.layers, millimetres(static_cast<double>(result.lattice.pitch)), result.seconds)
            .c_str());
    for (const int net : result.unrouted_nets) {
      const bool blocked = std::ranges::find(result.blocked_nets, net) != result.blocked_nets.end();
      std::fprintf(stderr, "unrouted: %s%s\n", board.nets[static_cast<std::size_t>(net)].name.c_str(),
                   blocked ? " (blocked by its own rules)" : "");
    }
    for (const route::PourIsland& island : result.pour_joins) {
      std::fprintf(
          stderr, "%s\n",
          fmt::format("joined by the {} pour on {}: {} pads", board.nets[static_cast<std::size_t>(island.net)].name,
                      board.layers[static_cast<std::size_t>(island.layer)].name, island.pins.size())
              .c_str());
    }
  }
}

}  // namespace

void add_route_command(CLI::App& app, const GlobalOptions& globals) {
  auto command = std::make_shared<RouteCommand>();
  CLI::App* route = app.add_subcommand(
      "route",
      "Route a board (Specctra DSN, or KiCad .kicad_pcb with its .kicad_pro) with PathFinder negotiated congestion "
      "on a routing lattice, check the result with the design-rule check, and write a Specctra session (.ses, for "
      "KiCad's Import Specctra Session) or a routed copy of a .kicad_pcb, pictures and a JSON report.");
  route->add_option("board", command->board_path, "Board (.dsn, or .kicad_pcb)")->required();
  route->add_option("-o,--out", command->output,
                    "Routes: a Specctra session (.ses), or for a .kicad_pcb input a routed copy (.kicad_pcb)");
  route->add_option("--svg", command->svg, "Picture of the routed board (SVG)");
  route->add_option("--png", command->png, "Picture of the routed board (PNG, through cairo)");
  route->add_option("--report", command->report,
                    "Report (JSON): lattice, iterations, unrouted nets, wire length, vias, DRC");
  route->add_option("--max-iterations", command->max_iterations, "PathFinder iterations at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  route->add_option("--pitch", command->pitch_mm, "Lattice pitch in mm (default: wire width + clearance)");
  route->add_option("--via-cost", command->via_cost, "Cost of a via in grid steps")->capture_default_str();
  route
      ->add_option("--corners", command->corners,
                   "45: pull wires tight at 45 degrees and cut the right-angle corners left, where the clearance "
                   "allows; 90: keep the lattice's right angles")
      ->capture_default_str()
      ->check(CLI::IsMember({45, 90}));
  route
      ->add_option("--directions", command->directions,
                   "Preferred layer directions: the board's (Specctra (direction ...)), horizontal and vertical "
                   "alternating from the front layer, or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"board", "alternate", "none"}));
  route
      ->add_option("--against-cost", command->against_cost,
                   "Cost of a grid step against its layer's preferred direction, in grid steps (at least 1)")
      ->capture_default_str();
  route
      ->add_option("--pour-cost", command->pour_cost,
                   "Extra cost of a grid step inside another net's copper pour on its layer, in grid steps "
                   "(0: none)")
      ->capture_default_str();
  route
      ->add_option("--present-factor-growth", command->present_factor_growth,
                   "PathFinder's present-congestion factor is multiplied by this each iteration after the second "
                   "(at least 1; larger converges in fewer iterations, with less room to negotiate)")
      ->capture_default_str();
  route
      ->add_option("--history-factor", command->history_factor,
                   "PathFinder's history cost added per unit of overuse at each iteration's end (0 or more)")
      ->capture_default_str();
  route
      ->add_option("--batch-size", command->batch_size,
                   "Nets searched together at most; each path found is placed only if the paths placed "
                   "before it left its price as searched, else searched again")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  route
      ->add_option("--device-round-min", command->device_round_min,
                   "With --backend cuda: a round of fewer searches than this runs on the host's cores (the "
                   "same paths); 0: more than the host's threads; 1: every round on the device")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  route->add_flag("--nets-apart", command->nets_apart,
                  "After the first iteration, batch only nets whose reaches do not overlap (one net after "
                  "another's routes at any batch size)");
  route
      ->add_option("--concurrent-nets", command->concurrent_nets,
                   "After the first iteration, route this many nets at once against the same copper whatever "
                   "their reaches, placing every path found unchecked (0: off)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  route->add_flag("--concurrency-follows-overuse", command->concurrency_follows_overuse,
                  "With --concurrent-nets N: each iteration shares batches among one net for every "
                  "--overuse-per-concurrent-net nodes overused, at most N, down to one net after another");
  route
      ->add_option("--overuse-per-concurrent-net", command->overuse_per_concurrent_net,
                   "Overused nodes per concurrent net with --concurrency-follows-overuse")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 30));
  route
      ->add_option("--cleanup-passes", command->cleanup_passes,
                   "After the negotiation, passes routing each complete net again alone round the others' "
                   "copper, kept where cheaper (fewer steps and vias); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  route
      ->add_option("--cleanup-via-cost", command->cleanup_via_cost,
                   "What a via costs in the clean-up, in grid steps (--via-cost where that is more)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  route->add_flag("--exact-stub-claims", command->exact_stub_claims,
                  "Stubs (a pad's wire to the lattice) claim only the grid nodes and edges their clearance asks, "
                  "on every lattice (default: cautious claims, the exact ones tried last where nets stay unrouted)");
  route
      ->add_option("--neck-down-width", command->neck_down_width_mm,
                   "Width in mm a wire may narrow to between a pad and the lattice where no wire of its net's "
                   "width leaves the pad (default: the board's rule, else 0.15; 0: none)")
      ->check(CLI::Range(0.0, 100.0));
  route->add_option("--net", command->nets,
                    "Route only this net (by name; repeat for more); the others' pads and the board's wiring stay "
                    "in the way (default: every net)");
  route->callback([command, &globals] { run(*command, globals); });
}

}  // namespace trellis::cli
