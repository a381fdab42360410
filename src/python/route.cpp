// trellis._native.route: route a board file and check design rules, with
// the same reports as `trellis route --report` and `trellis drc --json`
// (returned as JSON text; the package parses it). Routing releases the GIL;
// the progress callback takes it back once an iteration, and Ctrl-C (or an
// exception in the callback) stops the routing there, before any file is
// written.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "drc_report.hpp"
#include "route_report.hpp"
#include "route_settings.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board_file.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using route::Board;

nlohmann::json copper_json(const Board& board, const route::RoutedCopper& copper) {
  nlohmann::json wires = nlohmann::json::array();
  for (const route::Wire& wire : copper.wires) {
    nlohmann::json points = nlohmann::json::array();
    for (const route::Point& p : wire.shape.points) {
      points.push_back({route::millimetres(static_cast<double>(p.x)), route::millimetres(static_cast<double>(p.y))});
    }
    wires.push_back({{"layer", cli::layer_name(board, wire.layer)},
                     {"net", wire.net >= 0 ? board.nets[static_cast<std::size_t>(wire.net)].name : ""},
                     {"width_mm", route::millimetres(static_cast<double>(wire.shape.width))},
                     {"points_mm", std::move(points)}});
  }
  nlohmann::json vias = nlohmann::json::array();
  for (const route::Via& via : copper.vias) {
    vias.push_back({{"x_mm", route::millimetres(static_cast<double>(via.position.x))},
                    {"y_mm", route::millimetres(static_cast<double>(via.position.y))},
                    {"net", via.net >= 0 ? board.nets[static_cast<std::size_t>(via.net)].name : ""},
                    {"padstack", board.padstacks[static_cast<std::size_t>(via.padstack)].name}});
  }
  nlohmann::json outline = nlohmann::json::array();
  if (!board.boundary.empty()) {
    for (const route::Point& p : board.boundary.front().points) {
      outline.push_back({route::millimetres(static_cast<double>(p.x)), route::millimetres(static_cast<double>(p.y))});
    }
  }
  return {{"wires", std::move(wires)}, {"vias", std::move(vias)}, {"outline_mm", std::move(outline)}};
}

std::string route_file(const std::string& board_path, const std::string& out, const std::string& backend,
                       const cli::RouteSettings& settings, nb::object progress) {
  const std::filesystem::path path(board_path);
  const route::RouterOptions options = cli::router_options(settings, parse_backend(backend));
  const auto report_progress = [&](const route::RouteIteration& it) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();  // Ctrl-C
    if (!progress.is_none()) {
      nb::dict line;
      line["iteration"] = it.iteration;
      line["pitch_mm"] = route::millimetres(static_cast<double>(it.pitch));
      line["nets_routed"] = it.nets_routed;
      line["connections_searched"] = it.connections_searched;
      line["search_rounds"] = it.search_rounds;
      line["paths_searched_again"] = it.paths_searched_again;
      line["overused_nodes"] = it.overused_nodes;
      line["failed_connections"] = it.failed_connections;
      line["seconds"] = it.seconds;
      progress(line);  // an exception here unwinds the routing
    }
  };

  nlohmann::json report;
  {
    nb::gil_scoped_release release;
    const Board board = route::read_board_file(path);
    if (!out.empty() && route::is_kicad_board(out) && !route::is_kicad_board(path)) {
      throw UsageError(
          "a routed .kicad_pcb can only be written for a .kicad_pcb input; write a session (.ses) instead");
    }
    const route::RouteResult result = route::route_board(board, options, report_progress);
    const route::RoutedCopper copper = route::with_board_wiring(board, result.copper);
    const route::DrcReport drc = route::check_design_rules(board, copper);
    if (!out.empty()) {
      if (route::is_kicad_board(out)) {
        route::write_routed_kicad_pcb(path, board, result.copper, out);
      } else {
        route::write_session(board, result.copper, std::filesystem::path(out));
      }
    }
    report = cli::route_report_json(board, result, drc);
    report["copper"] = copper_json(board, result.copper);
  }
  return report.dump();
}

std::string drc_file(const std::string& board_path, const std::optional<std::string>& session) {
  nb::gil_scoped_release release;
  const Board board = route::read_board_file(board_path);
  const route::DrcReport report =
      session ? route::check_design_rules(
                    board, route::with_board_wiring(board, route::read_session(std::filesystem::path(*session), board)))
              : route::check_design_rules(board);
  return cli::drc_report_json(board, report).dump();
}

}  // namespace

void bind_route(nb::module_& m) {
  using cli::RouteSettings;
  nb::class_<RouteSettings>(m, "RouteSettings", "The options of trellis route (route_settings.hpp)")
      .def(nb::init<>())
      .def_rw("max_iterations", &RouteSettings::max_iterations)
      .def_rw("pitch_mm", &RouteSettings::pitch_mm)
      .def_rw("via_cost", &RouteSettings::via_cost)
      .def_rw("corners", &RouteSettings::corners)
      .def_rw("directions", &RouteSettings::directions)
      .def_rw("against_cost", &RouteSettings::against_cost)
      .def_rw("pour_cost", &RouteSettings::pour_cost)
      .def_rw("present_factor_growth", &RouteSettings::present_factor_growth)
      .def_rw("history_factor", &RouteSettings::history_factor)
      .def_rw("concurrent_nets", &RouteSettings::concurrent_nets)
      .def_rw("batch_size", &RouteSettings::batch_size)
      .def_rw("nets_apart", &RouteSettings::nets_apart)
      .def_rw("device_round_min", &RouteSettings::device_round_min)
      .def_rw("concurrency_follows_overuse", &RouteSettings::concurrency_follows_overuse)
      .def_rw("overuse_per_concurrent_net", &RouteSettings::overuse_per_concurrent_net)
      .def_rw("cleanup_passes", &RouteSettings::cleanup_passes)
      .def_rw("cleanup_via_cost", &RouteSettings::cleanup_via_cost)
      .def_rw("exact_stub_claims", &RouteSettings::exact_stub_claims)
      .def_rw("neck_down_width_mm", &RouteSettings::neck_down_width_mm)
      .def_rw("nets", &RouteSettings::nets);
  m.def("route", &route_file, nb::arg("board"), nb::arg("out"), nb::arg("backend"), nb::arg("settings"),
        nb::arg("progress").none(),
        "Routes a .dsn or .kicad_pcb; writes `out` (.ses or .kicad_pcb) when given; returns the report as JSON text.");
  m.def("drc", &drc_file, nb::arg("board"), nb::arg("session").none(),
        "The design-rule check of a board's wiring (plus a session's routes); returns the report as JSON text.");
}

}  // namespace trellis::python
