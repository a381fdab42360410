// Summary numbers of a graph: what a user checks before timing a search on it
// (is it the size I meant, are there isolated nodes, zero weights, hubs).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "trellis/graph/generators.hpp"

namespace trellis::graph {

GraphStats graph_stats(const Graph& graph) {
  const CsrMatrix<Weight>& csr = graph.csr;
  GraphStats stats;
  stats.nodes = csr.rows;
  stats.edges = csr.nnz();
  if (stats.nodes == 0) return stats;

  const auto n = static_cast<std::size_t>(csr.rows);
  std::vector<std::uint8_t> has_in_edge(n, 0);
  std::int32_t min_degree = std::numeric_limits<std::int32_t>::max();
  std::int32_t max_degree = 0;
  std::vector<std::int32_t> degrees(n);
  bool first_weight = true;
  for (std::size_t u = 0; u < n; ++u) {
    const RowOffset begin = csr.row_offsets[u];
    const RowOffset end = csr.row_offsets[u + 1];
    degrees[u] = static_cast<std::int32_t>(end - begin);
    min_degree = std::min(min_degree, degrees[u]);
    max_degree = std::max(max_degree, degrees[u]);
    for (RowOffset k = begin; k < end; ++k) {
      const auto head = static_cast<std::size_t>(csr.col_indices[static_cast<std::size_t>(k)]);
      const Weight weight = csr.values[static_cast<std::size_t>(k)];
      has_in_edge[head] = 1;
      if (head == u) ++stats.self_loops;
      if (weight == 0) ++stats.zero_weight_edges;
      if (first_weight) {
        stats.min_weight = weight;
        stats.max_weight = weight;
        first_weight = false;
      } else {
        stats.min_weight = std::min(stats.min_weight, weight);
        stats.max_weight = std::max(stats.max_weight, weight);
      }
    }
  }

  stats.min_out_degree = min_degree;
  stats.max_out_degree = max_degree;
  stats.mean_out_degree = static_cast<double>(stats.edges) / static_cast<double>(stats.nodes);
  stats.out_degree_histogram.assign(static_cast<std::size_t>(max_degree) + 1, 0);
  for (std::size_t u = 0; u < n; ++u) {
    ++stats.out_degree_histogram[static_cast<std::size_t>(degrees[u])];
    if (degrees[u] == 0 && has_in_edge[u] == 0) ++stats.isolated_nodes;
  }
  return stats;
}

}  // namespace trellis::graph
