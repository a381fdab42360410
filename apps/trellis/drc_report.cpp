// The JSON report of a design-rule check (drc_report.hpp).
#include "drc_report.hpp"

#include "route_report.hpp"

namespace trellis::cli {

using route::Board;
using route::DrcReport;
using route::millimetres;
using route::Violation;

std::string layer_name(const Board& board, int layer) {
  return layer >= 0 && static_cast<std::size_t>(layer) < board.layers.size()
             ? board.layers[static_cast<std::size_t>(layer)].name
             : "?";
}

namespace {

nlohmann::json object_json(const route::DrcObject& object) {
  return {{"kind", route::to_string(object.kind)}, {"name", object.name}, {"net", object.net_name}};
}

nlohmann::json violations_json(const Board& board, const std::vector<Violation>& violations) {
  nlohmann::json list = nlohmann::json::array();
  for (const Violation& v : violations) {
    list.push_back({{"kind", route::to_string(v.kind)},
                    {"layer", layer_name(board, v.layer)},
                    {"x_mm", millimetres(static_cast<double>(v.position.x))},
                    {"y_mm", millimetres(static_cast<double>(v.position.y))},
                    {"x_nm", v.position.x},
                    {"y_nm", v.position.y},
                    {"first", object_json(v.first)},
                    {"second", object_json(v.second)},
                    {"measured_mm", millimetres(v.measured)},
                    {"required_mm", millimetres(static_cast<double>(v.required))},
                    {"measured_nm", v.measured},
                    {"required_nm", v.required}});
  }
  return list;
}

}  // namespace

nlohmann::json drc_report_json(const Board& board, const DrcReport& report) {
  nlohmann::json unconnected = nlohmann::json::array();
  for (const route::UnconnectedNet& net : report.unconnected) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& group : net.groups) {
      nlohmann::json pins = nlohmann::json::array();
      for (const route::PinRef& pin : group) pins.push_back(route::pin_name(board, pin));
      groups.push_back(std::move(pins));
    }
    unconnected.push_back({{"net", net.name}, {"groups", std::move(groups)}});
  }
  return {{"board", board.name},
          {"pads", report.pads},
          {"wires", report.wires},
          {"vias", report.vias},
          {"nets_checked", report.nets_checked},
          {"routing_violations", violations_json(board, report.routing)},
          {"input_conflicts", violations_json(board, report.input_conflicts)},
          {"unconnected_nets", std::move(unconnected)},
          {"pour_joins", pour_joins_json(board, report.pours)}};
}

}  // namespace trellis::cli
