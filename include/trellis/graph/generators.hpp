// Graph generators: PCB routing lattices like OrthoRoute's, named presets at
// the sizes the benchmarks use, and random graphs for coverage. All seeded:
// the same arguments give the same graph, bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trellis/graph/graph.hpp"

namespace trellis::graph {

// L layers of width x height nodes. Layer l's in-layer edges run only along
// its preferred direction, alternating horizontal (even l: x +- 1) and
// vertical (odd l: y +- 1), unless both_directions is set. Vias join the same
// (x, y) on adjacent layers, or on every pair of layers with any_layer_vias
// (blind and buried vias), at via_cost per layer crossed
// (via_cost * |l1 - l2|). Every edge is present in both directions with the
// same weight.
//
// Obstacles: exactly round(obstacle_fraction * candidates) nodes, chosen
// uniformly from the seed, lose all their edges (out and in). The candidates
// are all nodes except (0, 0) and (width - 1, height - 1) on every layer,
// which stay free so corner-to-corner searches always have their endpoints.
//
// A node's edges are listed by ascending head id: vias to lower layers
// (nearest last), then (x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1), then
// vias to higher layers (nearest first); missing neighbours are skipped.
struct LatticeSpec {
  std::int32_t width = 0;          // nodes along x
  std::int32_t height = 0;         // nodes along y
  std::int32_t layers = 1;         // number of layers
  float track_cost = 1.0f;         // one step along a layer
  float via_cost = 3.0f;           // per layer crossed
  bool both_directions = false;    // in-layer edges along x and y on every layer
  bool any_layer_vias = false;     // vias between any two layers, not only adjacent ones
  double obstacle_fraction = 0.0;  // in [0, 1)
  std::uint64_t seed = 1;          // picks the obstacles

  // Number of nodes: width * height * layers.
  std::int64_t node_count() const noexcept { return std::int64_t{width} * std::int64_t{height} * std::int64_t{layers}; }
};

// Node (x, y, layer) has id  x + width * (y + height * layer); coordinates
// are kept in the graph. Throws UsageError on an invalid spec: sizes not
// positive, more than 2^31 - 1 nodes, a cost negative or not finite, an
// obstacle fraction outside [0, 1).
Graph routing_lattice(const LatticeSpec& spec);

// The number of edges routing_lattice(spec) has, exactly, without building
// it (only the obstacle mask is drawn). Validates like routing_lattice.
std::int64_t lattice_edge_count(const LatticeSpec& spec);

// Id of lattice node (x, y, layer); throws UsageError outside the lattice.
NodeId lattice_node(const LatticeSpec& spec, std::int32_t x, std::int32_t y, std::int32_t layer);

// A named lattice size the benchmarks use.
struct LatticePreset {
  std::string name;         // e.g. "seed-401k"
  std::string description;  // what it reproduces
  LatticeSpec spec;         // the lattice it builds
};

// The seed's six sizes (2,000 / 8,000 / 30,000 / 60,000 / 180,000 /
// 401,800 nodes, "seed-2k" ... "seed-401k"), the TestBackplane scale
// ("backplane": about 446,000 nodes on 18 layers with vias between any two
// layers, about 8.5 M edges) and a 1.2 M-node / 40 M-edge board
// ("board-1.2m", 32 layers). presets.cpp gives each one's dimensions.
const std::vector<LatticePreset>& lattice_presets();
// Throws UsageError listing the names when there is no such preset.
const LatticePreset& lattice_preset(const std::string& name);

// n points uniform in the unit square: point i is (x, y) from outputs 2i and
// 2i + 1 of std::mt19937_64(seed), each mapped to [0, 1) as
// (output >> 11) * 2^-53, the same on every standard library. An edge in
// both directions joins every two points closer than radius, weight = their
// Euclidean distance (the same both ways). Edges of a node by ascending head
// id. Points are bucketed into cells at least radius wide, so the work is
// O(n + edges). No coordinates (the points are not on a lattice). Throws
// UsageError unless nodes > 0 and radius is finite and > 0.
Graph random_geometric_graph(NodeId nodes, double radius, std::uint64_t seed);

// R-MAT (Chakrabarti et al.) with 2^scale nodes and edge_factor * 2^scale
// directed edges, probabilities a, b, c (d = 1 - a - b - c), integer weights
// uniform in [1, max_weight]. Each edge picks one quadrant per level, from
// the most significant bit down: a keeps both ids low, b sets the head's bit,
// c the tail's, d both. Ids are not permuted (node 0 is the biggest hub);
// duplicates and self-loops are kept, so the edge count is exact. Edges of a
// node in the order they were drawn. Throws UsageError unless
// 0 <= scale <= 30, edge_factor >= 1, a, b, c >= 0 with a + b + c <= 1 and
// max_weight >= 1.
Graph rmat_graph(int scale, int edge_factor, std::uint64_t seed, double a = 0.57, double b = 0.19, double c = 0.19,
                 int max_weight = 255);

// Size, degree and weight figures of a graph (graph_stats()).
struct GraphStats {
  NodeId nodes = 0;                                // number of nodes
  std::int64_t edges = 0;                          // number of edges
  std::int64_t self_loops = 0;                     // edges u -> u
  std::int64_t zero_weight_edges = 0;              // edges of weight 0
  std::int32_t min_out_degree = 0;                 // least out-degree
  std::int32_t max_out_degree = 0;                 // greatest out-degree
  double mean_out_degree = 0;                      // edges / nodes
  std::vector<std::int64_t> out_degree_histogram;  // [d] = nodes with out-degree d, d up to max
  Weight min_weight = 0;                           // least edge weight
  Weight max_weight = 0;                           // greatest edge weight
  NodeId isolated_nodes = 0;                       // no edge in or out
};

// Everything above in one pass over the CSR. With no edges, min_weight =
// max_weight = 0; with no nodes, the histogram is empty.
GraphStats graph_stats(const Graph& graph);

}  // namespace trellis::graph
