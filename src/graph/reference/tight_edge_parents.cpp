// The parity rule's parents, computed the obvious way: breadth-first search
// from the sources over tight edges, level by level; a node reached on level
// h takes the smallest-id tight in-neighbour from level h - 1.
#include <algorithm>

#include "../kernels.hpp"

namespace trellis::graph::reference {

void tight_edge_parents(const CsrView<Weight>& g, const SearchSpec& search, std::span<const Weight> distance,
                        std::span<NodeId> parent) {
  constexpr std::int32_t kUnvisited = -1;
  std::vector<std::int32_t> hops(static_cast<std::size_t>(g.rows), kUnvisited);
  std::fill(parent.begin(), parent.end(), kNoParent);
  std::vector<NodeId> level;
  for (NodeId s : search.sources) {
    if (hops[s] == kUnvisited) {
      hops[s] = 0;
      level.push_back(s);
    }
  }
  std::vector<NodeId> next;
  for (std::int32_t h = 1; !level.empty(); ++h) {
    next.clear();
    for (NodeId u : level) {
      for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
        const NodeId v = g.col_indices[k];
        if (distance[v] == kUnreachable) continue;
        const bool tight = distance[u] + effective_weight(g.values[k], search.node_cost, v) == distance[v];
        if (!tight) continue;
        if (hops[v] == kUnvisited) {
          hops[v] = h;
          parent[v] = u;
          next.push_back(v);
        } else if (hops[v] == h) {
          parent[v] = std::min(parent[v], u);
        }
      }
    }
    level.swap(next);
  }
}

}  // namespace trellis::graph::reference
