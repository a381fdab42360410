#include "copper_checks.hpp"

#include <algorithm>

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

PiecesApart pieces_apart(const DrcReport& report) {
  PiecesApart pieces;
  for (const UnconnectedNet& u : report.unconnected) pieces[u.net] = u.groups.size();
  return pieces;
}

std::vector<int> split_further(const PiecesApart& before, const DrcReport& after) {
  std::vector<int> nets;
  for (const UnconnectedNet& u : after.unconnected) {
    const auto found = before.find(u.net);
    if (u.groups.size() > (found == before.end() ? 1 : found->second)) nets.push_back(u.net);
  }
  return nets;
}

bool has_pour_on(const Board& board, int net, int layer) {
  return std::any_of(board.planes.begin(), board.planes.end(),
                     [&](const Plane& p) { return p.pour && p.net == net && p.layer == layer; });
}

}  // namespace trellis::route::router_detail
