#include "copper_checks.hpp"

namespace trellis::route::router_detail {

std::vector<std::vector<Point>> junctions_of_nets(const Board& board, const RoutedCopper& routed) {
  std::vector<std::vector<Point>> junctions(board.nets.size());
  const auto note = [&](int net, Point p) {
    if (net >= 0 && static_cast<std::size_t>(net) < junctions.size())
      junctions[static_cast<std::size_t>(net)].push_back(p);
  };
  for (const std::vector<Wire>* wires : {&board.wires, static_cast<const std::vector<Wire>*>(&routed.wires)}) {
    for (const Wire& w : *wires) {
      if (w.shape.kind != ShapeKind::path || w.shape.points.empty()) continue;
      note(w.net, w.shape.points.front());
      note(w.net, w.shape.points.back());
    }
  }
  for (const std::vector<Via>* vias : {&board.vias, static_cast<const std::vector<Via>*>(&routed.vias)}) {
    for (const Via& v : *vias) note(v.net, v.position);
  }
  return junctions;
}

DrcReport check_after_board_wiring(const Board& board, const RoutedCopper& routed) {
  RoutedCopper all{board.wires, board.vias};
  all.wires.insert(all.wires.end(), routed.wires.begin(), routed.wires.end());
  all.vias.insert(all.vias.end(), routed.vias.begin(), routed.vias.end());
  return check_design_rules(board, all);
}

std::set<int> unconnected_nets(const DrcReport& report) {
  std::set<int> nets;
  for (const UnconnectedNet& u : report.unconnected) nets.insert(u.net);
  return nets;
}

}  // namespace trellis::route::router_detail
