// Targeted Dijkstra in reusable, stamped scratch (see kernels.hpp). The
// search is the reference's: a binary heap with lazy deletion that stops at
// the first entry beyond the settled target. Every node it settles has its
// final distance, and those are exactly the nodes the reference leaves
// unmasked; the parents come from the same breadth-first rule over them.
#include <algorithm>
#include <functional>

#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::graph::cpu {

TargetedSearch::TargetedSearch(NodeId nodes)
    : distance_(static_cast<std::size_t>(nodes)),
      distance_stamp_(static_cast<std::size_t>(nodes), 0),
      settled_stamp_(static_cast<std::size_t>(nodes), 0),
      hops_(static_cast<std::size_t>(nodes)),
      hops_stamp_(static_cast<std::size_t>(nodes), 0),
      parent_(static_cast<std::size_t>(nodes)) {}

SsspPath TargetedSearch::run(const CsrView<Weight>& g, const SearchSpec& search) {
  if (++stamp_ == 0) {  // the stamps wrapped: forget every old entry once
    std::fill(distance_stamp_.begin(), distance_stamp_.end(), 0);
    std::fill(settled_stamp_.begin(), settled_stamp_.end(), 0);
    std::fill(hops_stamp_.begin(), hops_stamp_.end(), 0);
    stamp_ = 1;
  }
  SsspPath path;
  path.edges_relaxed = settle(g, search);
  const auto target = static_cast<std::size_t>(search.target);
  if (!settled(search.target)) return path;
  path.distance = distance_[target];
  trace_parents(g, search);
  for (NodeId v = search.target;; v = parent_[static_cast<std::size_t>(v)]) {
    path.nodes.push_back(v);
    if (hops_[static_cast<std::size_t>(v)] == 0) break;
  }
  std::reverse(path.nodes.begin(), path.nodes.end());
  return path;
}

std::int64_t TargetedSearch::settle(const CsrView<Weight>& g, const SearchSpec& search) {
  const auto tentative = [&](NodeId v) {
    const auto i = static_cast<std::size_t>(v);
    return distance_stamp_[i] == stamp_ ? distance_[i] : kUnreachable;
  };
  const auto lower = [&](NodeId v, Weight d) {
    const auto i = static_cast<std::size_t>(v);
    distance_[i] = d;
    distance_stamp_[i] = stamp_;
    heap_.emplace_back(d, v);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
  };
  heap_.clear();
  for (NodeId s : search.sources) {
    if (tentative(s) != 0) lower(s, 0);
  }
  std::int64_t relaxed = 0;
  Weight stop_beyond = kUnreachable;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    const auto [d, u] = heap_.back();
    heap_.pop_back();
    if (d > stop_beyond) break;
    if (settled(u)) continue;
    settled_stamp_[static_cast<std::size_t>(u)] = stamp_;
    if (u == search.target) stop_beyond = d;
    for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
      const NodeId v = g.col_indices[k];
      const Weight candidate = d + effective_weight(g.values[k], search.node_cost, v);
      ++relaxed;
      if (candidate < tentative(v)) lower(v, candidate);
    }
  }
  return relaxed;
}

void TargetedSearch::trace_parents(const CsrView<Weight>& g, const SearchSpec& search) {
  level_.clear();
  for (NodeId s : search.sources) {
    const auto i = static_cast<std::size_t>(s);
    if (hops_stamp_[i] != stamp_) {
      hops_stamp_[i] = stamp_;
      hops_[i] = 0;
      level_.push_back(s);
    }
  }
  // Level by level until the target's level is complete: every parent on
  // its path is then final.
  const auto target = static_cast<std::size_t>(search.target);
  for (std::int32_t h = 1; hops_stamp_[target] != stamp_; ++h) {
    // The Dijkstra tree is made of tight edges among settled nodes, so the
    // target is on some level; running dry first would be a bug here.
    if (level_.empty()) throw Error("tight-edge levels ran out before reaching the settled target");
    next_level_.clear();
    for (NodeId u : level_) {
      const Weight from = distance_[static_cast<std::size_t>(u)];
      for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
        const NodeId v = g.col_indices[k];
        const auto i = static_cast<std::size_t>(v);
        if (!settled(v) || from + effective_weight(g.values[k], search.node_cost, v) != distance_[i]) continue;
        if (hops_stamp_[i] != stamp_) {
          hops_stamp_[i] = stamp_;
          hops_[i] = h;
          parent_[i] = u;
          next_level_.push_back(v);
        } else if (hops_[i] == h) {
          parent_[i] = std::min(parent_[i], u);
        }
      }
    }
    level_.swap(next_level_);
  }
}

}  // namespace trellis::graph::cpu
