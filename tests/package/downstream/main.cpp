// Uses three installed trellis libraries and checks their answers against
// values worked out by hand; exits 1 on a mismatch.
#include <cstdio>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/core/version.hpp"
#include "trellis/graph/sssp.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

int main() {
  using namespace trellis;
  int failures = 0;
  // 0 -> 1 (1), 0 -> 2 (4), 1 -> 2 (2): node 2 is 3 away through node 1.
  const std::vector<graph::NodeId> tails{0, 0, 1}, heads{1, 2, 2};
  const std::vector<graph::Weight> weights{1, 4, 2};
  const graph::Graph g = graph::graph_from_edges(3, tails, heads, weights);
  const graph::SsspResult paths = graph::shortest_paths(g, {.sources = {0}}, {.backend = Backend::cpu});
  if (paths.distance[2] != 3.0f || paths.parent[2] != 1) ++failures;

  // BLOSUM62 11/1: W-W scores 11, C-C 9.
  const align::Scoring scoring(align::builtin_matrix("BLOSUM62"), align::GapPenalties{11, 1});
  const auto score = align::local_alignment_score(align::encode_protein("WC"), align::encode_protein("WC"), scoring);
  if (score != 20) ++failures;

  // The 7-point Laplacian of one row of 3 unknowns times ones: 6-1, 6-2, 6-1.
  const CsrMatrix<double> a = grid::laplacian_7point<double>(3, 1, 1);
  std::vector<double> x(3, 1.0), y(3, 0.0);
  grid::spmv<double>(1.0, a, x, 0.0, y, Backend::reference);
  if (y != std::vector<double>{5.0, 4.0, 5.0}) ++failures;

  std::printf("trellis %s from an installed tree: %s\n", kVersion, failures == 0 ? "ok" : "WRONG");
  return failures == 0 ? 0 : 1;
}
