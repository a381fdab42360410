// Steps every backend shares around a search: masking what an early stop did
// not settle, and the default bucket width.
#include <cmath>

#include "kernels.hpp"

namespace trellis::graph {

NodeId mask_unsettled(NodeId target, std::span<Weight> distance) {
  const Weight limit = target >= 0 ? distance[static_cast<std::size_t>(target)] : kUnreachable;
  NodeId reached = 0;
  for (Weight& d : distance) {
    if (d > limit) d = kUnreachable;
    if (d != kUnreachable) ++reached;
  }
  return reached;
}

Weight default_delta(const CsrView<Weight>& g) {
  // Twice the mean weight: wide enough to give each bucket parallel work on
  // lattices (weights 1 and 3 give delta 2 or so), narrow enough to keep
  // the wasted re-relaxations of a Bellman-Ford sweep away.
  double sum = 0;
  for (RowOffset k = 0; k < g.nnz; ++k) sum += g.values[k];
  const double mean = g.nnz > 0 ? sum / static_cast<double>(g.nnz) : 1.0;
  const auto delta = static_cast<Weight>(2.0 * mean);
  return delta > 0 && std::isfinite(delta) ? delta : 1.0f;
}

}  // namespace trellis::graph
