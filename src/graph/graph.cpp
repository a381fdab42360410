#include "trellis/graph/graph.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trellis/core/error.hpp"

namespace trellis::graph {
namespace {

void check_weight(Weight w, std::int64_t edge) {
  if (std::isnan(w) || std::isinf(w) || w < 0) {
    throw Error(fmt::format("edge {} has weight {}: weights must be finite and non-negative", edge, w));
  }
}

}  // namespace

void Graph::validate() const {
  csr.validate();
  if (csr.rows != csr.cols) throw Error(fmt::format("graph CSR is {}x{}, not square", csr.rows, csr.cols));
  for (std::int64_t k = 0; k < csr.nnz(); ++k) check_weight(csr.values[k], k);
  if (coordinates) {
    const auto n = static_cast<std::size_t>(csr.rows);
    if (coordinates->x.size() != n || coordinates->y.size() != n || coordinates->layer.size() != n) {
      throw Error(fmt::format("graph coordinates do not have one entry for each of the {} nodes", n));
    }
  }
}

Graph graph_from_edges(NodeId nodes, std::span<const NodeId> tails, std::span<const NodeId> heads,
                       std::span<const Weight> weights) {
  if (nodes < 0) throw Error(fmt::format("a graph cannot have {} nodes", nodes));
  for (std::size_t k = 0; k < weights.size(); ++k) check_weight(weights[k], static_cast<std::int64_t>(k));
  Graph g;
  g.csr = csr_from_triplets<Weight>(nodes, nodes, tails, heads, weights);
  return g;
}

}  // namespace trellis::graph
