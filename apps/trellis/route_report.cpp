// The JSON report of a routing, shared by `trellis route` and `trellis demo`.
#include "route_report.hpp"

namespace trellis::cli {

nlohmann::json pour_joins_json(const route::Board& board, const std::vector<route::PourIsland>& islands) {
  nlohmann::json list = nlohmann::json::array();
  for (const route::PourIsland& island : islands) {
    if (island.pins.size() < 2) continue;
    nlohmann::json pads = nlohmann::json::array();
    for (const route::PinRef& pin : island.pins) pads.push_back(route::pin_name(board, pin));
    list.push_back({{"net", board.nets[static_cast<std::size_t>(island.net)].name},
                    {"layer", board.layers[static_cast<std::size_t>(island.layer)].name},
                    {"pads", std::move(pads)}});
  }
  return list;
}

nlohmann::json route_report_json(const route::Board& board, const route::RouteResult& result,
                                 const route::DrcReport& drc) {
  nlohmann::json iterations = nlohmann::json::array();
  for (const route::RouteIteration& it : result.iterations) {
    iterations.push_back({{"iteration", it.iteration},
                          {"pitch_mm", static_cast<double>(it.pitch) / route::kNanometresPerMillimetre},
                          {"nets_routed", it.nets_routed},
                          {"connections_searched", it.connections_searched},
                          {"search_rounds", it.search_rounds},
                          {"paths_searched_again", it.paths_searched_again},
                          {"overused_nodes", it.overused_nodes},
                          {"failed_connections", it.failed_connections},
                          {"present_factor", it.present_factor},
                          {"seconds", it.seconds}});
  }
  nlohmann::json unrouted = nlohmann::json::array();
  for (const int net : result.unrouted_nets) unrouted.push_back(board.nets[static_cast<std::size_t>(net)].name);
  nlohmann::json blocked = nlohmann::json::array();
  for (const int net : result.blocked_nets) blocked.push_back(board.nets[static_cast<std::size_t>(net)].name);
  // What the reader noticed in the board, then what the router did.
  std::vector<std::string> warnings = board.warnings;
  warnings.insert(warnings.end(), result.warnings.begin(), result.warnings.end());
  return {{"board", board.name},
          {"backend", to_string(result.backend)},
          {"lattice",
           {{"pitch_mm", route::millimetres(static_cast<double>(result.lattice.pitch))},
            {"columns", result.lattice.columns},
            {"rows", result.lattice.rows},
            {"layers", result.lattice.layers},
            {"nodes", result.lattice.nodes},
            {"edges", result.lattice.edges},
            {"usable_grid_nodes", result.lattice.usable_grid_nodes}}},
          {"nets_to_route", result.nets_to_route},
          {"nets_routed", result.nets_to_route - result.unrouted_nets.size()},
          {"unrouted_nets", std::move(unrouted)},
          {"blocked_nets", std::move(blocked)},
          {"pour_joins", pour_joins_json(board, result.pour_joins)},
          {"converged", result.converged},
          {"overused_nodes", result.overused_nodes},
          {"wire_length_mm", route::millimetres(static_cast<double>(result.wire_length))},
          {"vias", result.via_count},
          {"mitred_corners", result.mitred_corners},
          {"seconds", result.seconds},
          {"phase_seconds",
           {{"lattice", result.phases.lattice},
            {"negotiation", result.phases.negotiation},
            {"repair", result.phases.repair},
            {"cleanup", result.phases.cleanup},
            {"geometry", result.phases.geometry}}},
          {"iterations", std::move(iterations)},
          {"drc",
           {{"routing_violations", drc.routing.size()},
            {"input_conflicts", drc.input_conflicts.size()},
            {"unconnected_nets", drc.unconnected.size()},
            {"nets_checked", drc.nets_checked}}},
          {"warnings", warnings}};
}

}  // namespace trellis::cli
