// See congestion_ledger.hpp.
#include "congestion_ledger.hpp"

#include <algorithm>

namespace trellis::route::router_detail {

CongestionLedger::CongestionLedger(const Lattice& lattice, bool record_changes)
    : lattice_(lattice),
      uses_(static_cast<std::size_t>(lattice.node_count), 0),
      claims_(static_cast<std::size_t>(lattice.node_count), 0),
      near_uses_(lattice.groups.size(), std::vector<int>(static_cast<std::size_t>(lattice.pad_base), 0)),
      history_(static_cast<std::size_t>(lattice.node_count), 0.0f),
      node_stamp_(static_cast<std::size_t>(lattice.node_count), 0),
      near_stamp_(lattice.groups.size(), std::vector<std::uint32_t>(static_cast<std::size_t>(lattice.pad_base), 0)),
      record_changes_(record_changes) {
  if (record_changes_) {
    node_changed_.assign(uses_.size(), 0);
    near_changed_.assign(near_uses_.size() * static_cast<std::size_t>(lattice.pad_base), 0);
  }
}

void CongestionLedger::add(const std::vector<int>& uses, const std::vector<int>& claims, int sign) {
  for (const int node : uses) change_count(uses_, node, sign);
  for (const int node : claims) change_count(claims_, node, sign);
  add_near(uses, sign);
}

void CongestionLedger::change_count(std::vector<int>& counts, int node, int sign) {
  const bool was = overused(node);
  counts[static_cast<std::size_t>(node)] += sign;
  const bool is = overused(node);
  if (is && !was) ++overused_count_;
  if (was && !is) --overused_count_;
  note_node_change(node);
}

void CongestionLedger::add_near(const std::vector<int>& nodes, int sign) {
  for (std::size_t group = 0; group < near_uses_.size(); ++group) {
    std::vector<int>& near = near_uses_[group];
    for (const int u : nodes) {
      for_each_watcher(group, u, [&](int v) {
        near[static_cast<std::size_t>(v)] += sign;
        note_near_change(group, v);
      });
    }
  }
}

void CongestionLedger::raise_history(double factor, const std::vector<int>& stubs_in_use) {
  changes_.history = record_changes_;
  const auto f = static_cast<float>(factor);
  const auto raise = [&](int node) {
    if (!overused(node)) return;
    const auto v = static_cast<std::size_t>(node);
    history_[v] += f * static_cast<float>(uses_[v] + claims_[v] - 1);
  };
  for (int node = 0; node < lattice_.stub_base; ++node) raise(node);
  // Edge midpoints: a stub's claim met by another net's wire along the edge.
  for (int node = lattice_.mid_base; node < lattice_.node_count; ++node) raise(node);
  // A stub whose wire runs into overuse gets history too: the grid nodes
  // it claims are not where its cost is paid.
  for (const int node : stubs_in_use) {
    const auto& claims = lattice_.stub_of(node).claims;
    const int hot = static_cast<int>(std::count_if(claims.begin(), claims.end(), [&](int c) { return overused(c); })) +
                    (overused(node) ? 1 : 0);
    if (hot > 0) history_[static_cast<std::size_t>(node)] += f * static_cast<float>(hot);
  }
}

void CongestionLedger::clear_history() {
  changes_.history = record_changes_;
  std::fill(history_.begin(), history_.end(), 0.0f);
}

CountChanges CongestionLedger::take_changes() {
  for (const int node : changes_.nodes) node_changed_[static_cast<std::size_t>(node)] = 0;
  for (const int at : changes_.near) near_changed_[static_cast<std::size_t>(at)] = 0;
  CountChanges taken = std::move(changes_);
  changes_ = {};
  return taken;
}

void CongestionLedger::note_node_change(int node) {
  node_stamp_[static_cast<std::size_t>(node)] = epoch_;
  if (!record_changes_) return;
  char& changed = node_changed_[static_cast<std::size_t>(node)];
  if (changed == 0) changes_.nodes.push_back(node);
  changed = 1;
}

void CongestionLedger::note_near_change(std::size_t group, int node) {
  near_stamp_[group][static_cast<std::size_t>(node)] = epoch_;
  if (!record_changes_) return;
  const std::size_t at = group * static_cast<std::size_t>(lattice_.pad_base) + static_cast<std::size_t>(node);
  if (near_changed_[at] == 0) changes_.near.push_back(static_cast<int>(at));
  near_changed_[at] = 1;
}

}  // namespace trellis::route::router_detail
