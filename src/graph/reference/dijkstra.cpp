// Dijkstra with a binary heap and lazy deletion: the oracle every other
// shortest-path backend is compared with, bit for bit.
#include <functional>
#include <queue>
#include <utility>

#include "../kernels.hpp"

namespace trellis::graph::reference {

std::int64_t dijkstra(const CsrView<Weight>& g, const SearchSpec& search, std::span<Weight> distance) {
  using Entry = std::pair<Weight, NodeId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  std::fill(distance.begin(), distance.end(), kUnreachable);
  for (NodeId s : search.sources) {
    distance[s] = 0;
    heap.push({0, s});
  }
  std::vector<bool> settled(static_cast<std::size_t>(g.rows), false);
  std::int64_t relaxed = 0;
  Weight stop_beyond = kUnreachable;  // the target's distance once it is settled
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > stop_beyond) break;  // every node at distance <= the target's is settled
    if (settled[u]) continue;
    settled[u] = true;
    if (u == search.target) stop_beyond = d;
    for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
      const NodeId v = g.col_indices[k];
      const Weight candidate = d + effective_weight(g.values[k], search.node_cost, v);
      ++relaxed;
      if (candidate < distance[v]) {
        distance[v] = candidate;
        heap.push({candidate, v});
      }
    }
  }
  return relaxed;
}

}  // namespace trellis::graph::reference
