#include "copper_from_paths.hpp"

#include <cmath>
#include <set>

namespace trellis::route::router_detail {
Coord length_of(const std::vector<Point>& points) {
  double total = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    total += std::hypot(static_cast<double>(points[i].x - points[i - 1].x),
                        static_cast<double>(points[i].y - points[i - 1].y));
  }
  return static_cast<Coord>(std::llround(total));
}

// Drops repeated points and the middle of three collinear points that keep
// one direction; what is left are the path's corners.
std::vector<Point> corners_only(const std::vector<Point>& points) {
  std::vector<Point> kept;
  for (const Point p : points) {
    if (!kept.empty() && kept.back() == p) continue;
    if (kept.size() >= 2) {
      const Point a = kept[kept.size() - 2];
      const Point b = kept.back();
      // Exact in 64 bits: points are on a board, less than a metre apart.
      const Coord cross = (b.x - a.x) * (p.y - b.y) - (b.y - a.y) * (p.x - b.x);
      const Coord dot = (b.x - a.x) * (p.x - b.x) + (b.y - a.y) * (p.y - b.y);
      if (cross == 0 && dot > 0)
        kept.back() = p;
      else
        kept.push_back(p);
    } else {
      kept.push_back(p);
    }
  }
  return kept;
}

Coord add_net_copper(const Lattice& lattice, int net, const std::vector<std::vector<int>>& paths,
                     RoutedCopper& copper) {
  const RuleGroup& group =
      lattice.groups[static_cast<std::size_t>(lattice.group_of_net[static_cast<std::size_t>(net)])];
  const auto on_layer = [&](int node) {
    return lattice.is_grid(node) || lattice.is_pad(node) || lattice.is_stub(node) || lattice.is_mid(node);
  };
  Coord length = 0;
  std::set<int> via_sites;
  for (const std::vector<int>& path : paths) {
    std::vector<Point> line;
    int line_slot = -1;
    const auto emit = [&](const std::vector<Point>& along, Coord width) {
      const std::vector<Point> points = corners_only(along);
      if (points.size() < 2) return;
      length += length_of(points);
      Wire wire;
      wire.layer = lattice.board_layer[static_cast<std::size_t>(line_slot)];
      wire.shape = Shape{ShapeKind::path, width, points};
      wire.net = net;
      copper.wires.push_back(std::move(wire));
    };
    const auto flush = [&] {
      emit(line, group.width);
      line.clear();
    };
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      const int a = path[i];
      const int b = path[i + 1];
      const int slot_a = lattice.slot[static_cast<std::size_t>(a)];
      if (on_layer(a) && on_layer(b) && slot_a == lattice.slot[static_cast<std::size_t>(b)]) {
        const Point from = lattice.position[static_cast<std::size_t>(a)];
        const Point to = lattice.position[static_cast<std::size_t>(b)];
        // A bent stub (between a pad and its stub node) turns on the way.
        const int stub = lattice.is_stub(a) ? a : lattice.is_stub(b) ? b : -1;
        const bool stub_wire = stub >= 0 && (lattice.is_pad(a) || lattice.is_pad(b));
        std::vector<Point> bends;
        if (stub_wire) {
          bends = lattice.stub_of(stub).bends;  // from the pad on
          if (lattice.is_pad(b)) std::reverse(bends.begin(), bends.end());
        }
        if (stub_wire && lattice.stub_of(stub).width != group.width) {
          // A necked-down stub is a wire of its own width between the pad
          // and the lattice.
          flush();
          line_slot = slot_a;
          std::vector<Point> neck{from};
          neck.insert(neck.end(), bends.begin(), bends.end());
          neck.push_back(to);
          emit(neck, lattice.stub_of(stub).width);
          line.push_back(to);
          continue;
        }
        if (line.empty()) {
          line.push_back(from);
          line_slot = slot_a;
        }
        line.insert(line.end(), bends.begin(), bends.end());
        line.push_back(to);
        continue;
      }
      flush();
      if (lattice.is_via(b)) via_sites.insert(b);
    }
    flush();
  }
  for (const int site : via_sites) {
    const int padstack = group.via_padstacks[static_cast<std::size_t>(lattice.via_kind_of(site))];
    copper.vias.push_back(Via{padstack, lattice.position[static_cast<std::size_t>(site)], net, WiringType::normal});
  }
  return length;
}

}  // namespace trellis::route::router_detail
