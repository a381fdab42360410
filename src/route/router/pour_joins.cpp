// Pin groups that pours join, and the lattice's pins to connect reduced to
// one a group.
#include "pour_joins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

namespace trellis::route::router_detail {
namespace {

using PinKey = std::pair<int, int>;

PinKey key(const PinRef& pin) { return {pin.component, pin.pin}; }

// Union-find over pins named by their keys.
class PinSets {
 public:
  int node(const PinRef& pin) {
    const auto [at, inserted] = index_.emplace(key(pin), static_cast<int>(parent_.size()));
    if (inserted) {
      parent_.push_back(at->second);
      pins_.push_back(pin);
    }
    return at->second;
  }
  int find(int x) {
    while (parent_[static_cast<std::size_t>(x)] != x)
      x = parent_[static_cast<std::size_t>(x)] =
          parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(x)])];
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }
  // Groups of two or more, pins sorted, groups by their first pin.
  PinGroups groups() {
    std::map<int, std::vector<PinRef>> by_root;
    for (std::size_t i = 0; i < pins_.size(); ++i) by_root[find(static_cast<int>(i))].push_back(pins_[i]);
    PinGroups out;
    for (auto& [root, pins] : by_root) {
      if (pins.size() < 2) continue;
      std::sort(pins.begin(), pins.end(), [](const PinRef& a, const PinRef& b) { return key(a) < key(b); });
      out.push_back(std::move(pins));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return key(a.front()) < key(b.front()); });
    return out;
  }
  const std::map<PinKey, int>& index() const { return index_; }

 private:
  std::map<PinKey, int> index_;
  std::vector<int> parent_;
  std::vector<PinRef> pins_;
};

// The board's own wiring and the routed copper.
RoutedCopper with_board_wiring(const Board& board, const RouteResult& result) {
  RoutedCopper all{board.wires, board.vias};
  all.wires.insert(all.wires.end(), result.copper.wires.begin(), result.copper.wires.end());
  all.vias.insert(all.vias.end(), result.copper.vias.begin(), result.copper.vias.end());
  return all;
}

// Adds the nets in scope the copper and the pours leave apart to the unrouted ones;
// returns the connections missing (groups apart less one, over the nets).
std::size_t record_unconnected(const Board& board, const std::vector<bool>& in_scope, RouteResult& result) {
  std::size_t missing = 0;
  for (const UnconnectedNet& net : check_design_rules(board, with_board_wiring(board, result)).unconnected) {
    if (!in_scope[static_cast<std::size_t>(net.net)]) continue;
    missing += net.groups.size() - 1;
    if (std::find(result.unrouted_nets.begin(), result.unrouted_nets.end(), net.net) == result.unrouted_nets.end()) {
      result.unrouted_nets.push_back(net.net);
    }
  }
  std::sort(result.unrouted_nets.begin(), result.unrouted_nets.end());
  result.converged = result.converged && result.unrouted_nets.empty();
  return missing;
}

}  // namespace

PinGroups pour_groups(const std::vector<PourIsland>& islands) {
  PinSets sets;
  for (const PourIsland& island : islands) {
    for (std::size_t i = 1; i < island.pins.size(); ++i)
      sets.unite(sets.node(island.pins[0]), sets.node(island.pins[i]));
  }
  return sets.groups();
}

PinGroups common_groups(const PinGroups& a, const PinGroups& b) {
  std::map<PinKey, std::size_t> group_in_b;
  for (std::size_t g = 0; g < b.size(); ++g) {
    for (const PinRef& pin : b[g]) group_in_b[key(pin)] = g;
  }
  PinSets sets;
  for (const auto& group : a) {
    std::map<std::size_t, int> first_of;  // b's group -> the first pin of it met here
    for (const PinRef& pin : group) {
      const auto found = group_in_b.find(key(pin));
      if (found == group_in_b.end()) continue;
      const int node = sets.node(pin);
      const auto [at, inserted] = first_of.emplace(found->second, node);
      if (!inserted) sets.unite(at->second, node);
    }
  }
  return sets.groups();
}

bool groups_hold(const PinGroups& assumed, const PinGroups& held) { return common_groups(assumed, held) == assumed; }

void join_pins(Lattice& lattice, const PinGroups& groups) {
  if (groups.empty()) return;
  std::map<PinKey, std::size_t> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const PinRef& pin : groups[g]) group_of[key(pin)] = g;
  }
  const auto group_at = [&](int node) -> std::optional<std::size_t> {
    const auto found = group_of.find(key(lattice.pin_of[static_cast<std::size_t>(node - lattice.pin_base)]));
    if (found == group_of.end()) return std::nullopt;
    return found->second;
  };
  for (std::vector<int>& pins : lattice.net_pins) {
    if (pins.size() < 2) continue;
    std::map<std::size_t, int> kept;  // group -> the pin kept for it
    std::map<std::size_t, double> kept_distance;
    for (const int node : pins) {
      const std::optional<std::size_t> group = group_at(node);
      if (!group) continue;
      // Distance to the nearest pin of the net outside the group.
      double nearest = std::numeric_limits<double>::infinity();
      const Point at = lattice.position[static_cast<std::size_t>(node)];
      for (const int other : pins) {
        if (group_at(other) == group) continue;
        const Point p = lattice.position[static_cast<std::size_t>(other)];
        nearest = std::min(nearest, std::hypot(static_cast<double>(p.x - at.x), static_cast<double>(p.y - at.y)));
      }
      if (!kept.contains(*group) || nearest < kept_distance[*group]) {
        kept[*group] = node;
        kept_distance[*group] = nearest;
      }
    }
    if (kept.empty()) continue;
    std::erase_if(pins, [&](int node) {
      const std::optional<std::size_t> group = group_at(node);
      return group && kept[*group] != node;
    });
  }
}

RouteResult route_with_pours(const Board& board, const std::vector<bool>& in_scope,
                             const std::function<RouteResult(const PinGroups&)>& route) {
  PinGroups assumed = pour_groups(pour_islands(board, {board.wires, board.vias}));
  std::optional<RouteResult> best;
  std::pair<std::size_t, std::size_t> best_score;  // unrouted nets, missing connections
  const auto keep = [&](RouteResult result, std::size_t missing) {
    const std::pair score{result.unrouted_nets.size(), missing};
    if (!best || score < best_score) {
      best = std::move(result);
      best_score = score;
    }
  };
  for (int round = 1; round <= kPourRounds; ++round) {
    RouteResult result = route(assumed);
    std::vector<PourIsland> held = pour_islands(board, with_board_wiring(board, result));
    const PinGroups held_groups = pour_groups(held);
    // The copper and the pours as they are now decide what is connected.
    const std::size_t missing = record_unconnected(board, in_scope, result);
    std::erase_if(held, [](const PourIsland& island) { return island.pins.size() < 2; });
    result.pour_joins = std::move(held);
    keep(std::move(result), missing);
    if (groups_hold(assumed, held_groups)) break;
    assumed = common_groups(assumed, held_groups);
  }
  if (!best->unrouted_nets.empty() && !assumed.empty()) {
    // Every net routed by wires alone, the pours joining what they join
    // all the same: where wires cut a pour to pieces this may leave fewer
    // nets apart.
    RouteResult plain = route({});
    const std::size_t missing = record_unconnected(board, in_scope, plain);
    plain.pour_joins = pour_islands(board, with_board_wiring(board, plain));
    std::erase_if(plain.pour_joins, [](const PourIsland& island) { return island.pins.size() < 2; });
    keep(std::move(plain), missing);
  }
  return std::move(*best);
}

}  // namespace trellis::route::router_detail
