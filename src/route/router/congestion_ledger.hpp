// PathFinder's congestion state over the lattice: how many nets' copper is
// centred on each node (uses), how many keep other nets from it (claims),
// the uses within each rule group's claim stencils around it (near uses),
// and the history of overuse. Negotiation prices searches from it; with
// changes recorded, the entries changed since the last take_changes() are
// listed for a copy kept elsewhere (the cuda searches' copy on the device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lattice.hpp"
#include "window_search.hpp"

namespace trellis::route::router_detail {

class CongestionLedger {
 public:
  CongestionLedger(const Lattice& lattice, bool record_changes);

  // Adds (+1) or removes (-1) copper: its centres and its claims.
  void add(const std::vector<int>& uses, const std::vector<int>& claims, int sign);

  // One net's copper centred on the node and another's using or claiming it.
  bool overused(int node) const {
    const auto v = static_cast<std::size_t>(node);
    return uses_[v] >= 1 && uses_[v] + claims_[v] >= 2;
  }
  // Kept up to date by add(), so that asking costs nothing.
  std::size_t count_overused() const { return overused_count_; }
  // Adds factor x (the nets beyond the first) to the history of overused
  // grid nodes, via sites and edge midpoints, and factor x (its overused
  // claims) to that of each stub in `stubs_in_use` (the stub nodes nets'
  // trees pass through, each once).
  void raise_history(double factor, const std::vector<int>& stubs_in_use);
  // Sets every node's history back to 0.
  void clear_history();

  int uses(int node) const { return uses_[static_cast<std::size_t>(node)]; }
  const std::vector<int>& uses() const { return uses_; }
  const std::vector<int>& claims() const { return claims_; }
  const std::vector<int>& near_uses(std::size_t group) const { return near_uses_[group]; }
  const std::vector<float>& history() const { return history_; }
  CongestionCounts counts() const { return {uses_, claims_, near_uses_, history_}; }

  // The entries changed since the last call (only when recording).
  CountChanges take_changes();

  // Starts a new stretch of changes: changed_since_mark() then tells
  // whether a node's counts (uses, claims) or its near uses in a group
  // changed after this call, that is, whether a price read before it may
  // have moved since.
  void mark() { ++epoch_; }
  bool changed_since_mark(int node) const { return node_stamp_[static_cast<std::size_t>(node)] == epoch_; }
  bool near_changed_since_mark(std::size_t group, int node) const {
    return near_stamp_[group][static_cast<std::size_t>(node)] == epoch_;
  }

  // Calls visit(v) for every grid node or via site v whose room, in group
  // `group`'s claim stencils, holds the grid node or via site u (v != u):
  // the nodes whose conflicts copper centred on u counts toward. A grid node
  // v's room is its layer's grid nodes at wire_grid_claims and the sites of
  // the via kinds reaching its layer at wire_via_claims; a via site's room
  // is the grid nodes of every slot its kind reaches at via_grid_claims and
  // the sites of the kinds sharing a slot with it at via_via_claims.
  template <class Visit>
  void for_each_watcher(std::size_t group, int u, Visit&& visit) const;

 private:
  // Adds `sign` for each of `nodes` (grid nodes and via sites; others are
  // skipped) to the near uses of the nodes watching it, in every group.
  void add_near(const std::vector<int>& nodes, int sign);
  // Stamp a change with the current mark, and list it when recording.
  void note_node_change(int node);
  void note_near_change(std::size_t group, int node);
  // Adds `sign` to one count of a node, keeping overused_count_.
  void change_count(std::vector<int>& counts, int node, int sign);

  const Lattice& lattice_;
  std::vector<int> uses_;                               // per node
  std::vector<int> claims_;                             // per node
  std::vector<std::vector<int>> near_uses_;             // [group][grid node or via site], the node itself left out
  std::vector<float> history_;                          // per node
  std::size_t overused_count_ = 0;                      // nodes overused() holds for
  std::uint32_t epoch_ = 1;                             // mark() count; stamps equal to it are recent
  std::vector<std::uint32_t> node_stamp_;               // per node: epoch of its last count change
  std::vector<std::vector<std::uint32_t>> near_stamp_;  // [group][node]: epoch of its last near-use change
  bool record_changes_ = false;
  CountChanges changes_;
  std::vector<char> node_changed_;  // per node: listed in changes_.nodes
  std::vector<char> near_changed_;  // per group * pad_base + node: listed in changes_.near
};

template <class Visit>
void CongestionLedger::for_each_watcher(std::size_t group, int u, Visit&& visit) const {
  const Lattice& l = lattice_;
  const int row = l.row_of(u);
  const int column = l.column_of(u);
  const auto around = [&](const std::vector<Offset>& offsets, auto&& node_at) {
    for (const auto& o : offsets) {
      const int r = row - o.row;
      const int c = column - o.column;
      if (r < 0 || c < 0 || r >= l.rows || c >= l.columns) continue;
      const int v = node_at(r, c);
      if (v != u) visit(v);
    }
  };
  if (l.is_grid(u)) {
    const int slot = l.slot[static_cast<std::size_t>(u)];
    around(l.wire_grid_claims[group], [&](int r, int c) { return l.grid_node(slot, r, c); });
    for (const int kind : l.via_kinds_at_slot[static_cast<std::size_t>(slot)]) {
      around(l.via_grid_claims[group], [&](int r, int c) { return l.via_site(kind, r, c); });
    }
  } else if (l.is_via(u)) {
    const int kind = l.via_kind_of(u);
    for (const int slot : l.via_kinds[static_cast<std::size_t>(kind)].slots) {
      around(l.wire_via_claims[group], [&](int r, int c) { return l.grid_node(slot, r, c); });
    }
    for (const int other : l.via_kinds_meeting[static_cast<std::size_t>(kind)]) {
      around(l.via_via_claims[group], [&](int r, int c) { return l.via_site(other, r, c); });
    }
  }
}

}  // namespace trellis::route::router_detail
