// Targeted Dijkstra in reusable, stamped scratch (see kernels.hpp). The
// search is the reference's, with a radix heap for its binary heap: lazy
// deletion, and a stop at the first entry beyond the settled target. (The
// order among equal keys differs, which changes no distance, and the nodes
// settled are those at distance <= the target's either way.) Every node it
// settles has its final distance, and those are exactly the nodes the
// reference leaves unmasked; the parents come from the same breadth-first
// rule over them.
#include <algorithm>

#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::graph::cpu {

TargetedSearch::TargetedSearch(NodeId nodes)
    : labels_(static_cast<std::size_t>(nodes), Label{0, 0}),
      traces_(static_cast<std::size_t>(nodes), Trace{0, 0, 0, 0}) {}

SsspPath TargetedSearch::run(const CsrView<Weight>& g, const CsrView<Weight>& reversed, const SearchSpec& search) {
  if (++stamp_ == (1u << 31)) {  // the marks would wrap: forget every old entry once
    std::fill(labels_.begin(), labels_.end(), Label{0, 0});
    std::fill(traces_.begin(), traces_.end(), Trace{0, 0, 0, 0});
    stamp_ = 1;
  }
  SsspPath path;
  path.edges_relaxed = settle(g, search);
  if (!settled(search.target)) return path;
  path.distance = labels_[static_cast<std::size_t>(search.target)].distance;
  trace_parents(g, reversed, search);
  for (NodeId v = search.target;; v = traces_[static_cast<std::size_t>(v)].parent) {
    path.nodes.push_back(v);
    if (traces_[static_cast<std::size_t>(v)].level == 0) break;
  }
  std::reverse(path.nodes.begin(), path.nodes.end());
  return path;
}

std::int64_t TargetedSearch::settle(const CsrView<Weight>& g, const SearchSpec& search) {
  // A settled node's distance is final, so no candidate lowers it and its
  // settled mark stays.
  const std::uint32_t reached = reached_mark();
  const std::uint32_t settled_here = settled_mark();
  // Local copies of the arrays: the heap's pushes write memory, and the
  // compiler would otherwise reload every pointer after each one.
  Label* const labels = labels_.data();
  const RowOffset* const row_offsets = g.row_offsets;
  const NodeId* const heads = g.col_indices;
  const Weight* const weights = g.values;
  const Weight* const cost = search.node_cost.empty() ? nullptr : search.node_cost.data();
  const auto tentative = [&](NodeId v) {
    const Label& label = labels[v];
    return (label.mark | 1u) == (reached | 1u) ? label.distance : kUnreachable;
  };
  const auto lower = [&](NodeId v, Weight d) {
    labels[v] = Label{d, reached};
    heap_.push(d, v);
  };
  heap_.clear();
  for (NodeId s : search.sources) {
    if (tentative(s) != 0) lower(s, 0);
  }
  std::int64_t relaxed = 0;
  Weight stop_beyond = kUnreachable;
  while (!heap_.empty()) {
    const auto [d, u] = heap_.pop();
    if (d > stop_beyond) break;
    if (labels[u].mark == settled_here) continue;
    labels[u].mark = settled_here;
    if (u == search.target) stop_beyond = d;
    const RowOffset first = row_offsets[u], last = row_offsets[u + 1];
    relaxed += last - first;
    for (RowOffset k = first; k < last; ++k) {
      const NodeId v = heads[k];
      const Weight candidate = d + effective_weight(weights[k], cost, v);
      if (candidate < tentative(v)) lower(v, candidate);
    }
  }
  return relaxed;
}

// Walks back from the target over tight in-edges among settled nodes and
// marks every node it meets: the nodes on some tight path to the target.
// The levels of those nodes, and their tight in-neighbours, are all the
// parity rule needs for the target's path: a tight path to a marked node,
// followed by the marked node's tight path onwards, is a tight path to the
// target, so it is marked all along.
void TargetedSearch::mark_tight_paths(const CsrView<Weight>& reversed, const SearchSpec& search) {
  marked_.assign(1, search.target);
  traces_[static_cast<std::size_t>(search.target)].on_tight_path_stamp = stamp_;
  while (!marked_.empty()) {
    const NodeId v = marked_.back();
    marked_.pop_back();
    const Weight to = labels_[static_cast<std::size_t>(v)].distance;
    for (RowOffset k = reversed.row_offsets[v]; k < reversed.row_offsets[v + 1]; ++k) {
      const NodeId u = reversed.col_indices[k];
      Trace& trace = traces_[static_cast<std::size_t>(u)];
      if (trace.on_tight_path_stamp == stamp_ || !settled(u) ||
          labels_[static_cast<std::size_t>(u)].distance + effective_weight(reversed.values[k], search.node_cost, v) !=
              to) {
        continue;
      }
      trace.on_tight_path_stamp = stamp_;
      marked_.push_back(u);
    }
  }
}

void TargetedSearch::trace_parents(const CsrView<Weight>& g, const CsrView<Weight>& reversed,
                                   const SearchSpec& search) {
  mark_tight_paths(reversed, search);
  const auto on_tight_path = [&](NodeId v) {
    return traces_[static_cast<std::size_t>(v)].on_tight_path_stamp == stamp_;
  };
  level_.clear();
  for (NodeId s : search.sources) {
    Trace& source = traces_[static_cast<std::size_t>(s)];
    if (on_tight_path(s) && source.level_stamp != stamp_) {
      source.level_stamp = stamp_;
      source.level = 0;
      level_.push_back(s);
    }
  }
  // Level by level until the target's level is complete: every parent on
  // its path is then final.
  const Trace& target = traces_[static_cast<std::size_t>(search.target)];
  for (std::int32_t h = 1; target.level_stamp != stamp_; ++h) {
    // The Dijkstra tree is made of tight edges among settled nodes, so the
    // target is on some level; running dry first would be a bug here.
    if (level_.empty()) throw Error("tight-edge levels ran out before reaching the settled target");
    next_level_.clear();
    for (NodeId u : level_) {
      const Weight from = labels_[static_cast<std::size_t>(u)].distance;
      for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
        const NodeId v = g.col_indices[k];
        Trace& trace = traces_[static_cast<std::size_t>(v)];
        if (trace.on_tight_path_stamp != stamp_ || from + effective_weight(g.values[k], search.node_cost, v) !=
                                                       labels_[static_cast<std::size_t>(v)].distance) {
          continue;
        }
        if (trace.level_stamp != stamp_) {
          trace.level_stamp = stamp_;
          trace.level = h;
          trace.parent = u;
          next_level_.push_back(v);
        } else if (trace.level == h) {
          trace.parent = std::min(trace.parent, u);
        }
      }
    }
    level_.swap(next_level_);
  }
}

CsrMatrix<Weight> reversed_edges(const CsrView<Weight>& g) {
  std::vector<std::int32_t> heads(g.col_indices, g.col_indices + g.nnz);
  std::vector<ColumnIndex> tails(static_cast<std::size_t>(g.nnz));
  for (std::int32_t u = 0; u < g.rows; ++u) {
    std::fill(tails.begin() + g.row_offsets[u], tails.begin() + g.row_offsets[u + 1], u);
  }
  return csr_from_triplets<Weight>(g.cols, g.rows, heads, tails, std::span<const Weight>(g.values, g.values + g.nnz));
}

}  // namespace trellis::graph::cpu
