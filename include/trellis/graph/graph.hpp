// A directed graph in CSR form with float32 edge weights, the input of every
// shortest-path algorithm. Row u of the CSR lists the edges u -> v with their
// weights; duplicate edges and self-loops are allowed.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "trellis/core/csr.hpp"

// Shortest paths on CSR graphs: graphs, graph files, generators and the searches.
namespace trellis::graph {

// Node index, 0 to node_count() - 1.
using NodeId = std::int32_t;
// Edge weight and path distance (float32, finite and non-negative for edges).
using Weight = float;

// The distance of a node no path reaches.
inline constexpr Weight kUnreachable = std::numeric_limits<Weight>::infinity();

// Lattice coordinates of each node (all three vectors have one entry per
// node), kept by generators and used for goal direction and locality.
struct NodeCoordinates {
  std::vector<std::int32_t> x;      // column of each node
  std::vector<std::int32_t> y;      // row of each node
  std::vector<std::int32_t> layer;  // layer of each node
};

// A directed weighted graph: row u of csr lists the edges u -> v and their weights.
struct Graph {
  CsrMatrix<Weight> csr;                       // edges by tail, weights as values
  std::optional<NodeCoordinates> coordinates;  // lattice coordinates, when a generator made the graph

  // Number of nodes (CSR rows).
  NodeId node_count() const noexcept { return csr.rows; }
  // Number of edges, duplicates and self-loops included.
  std::int64_t edge_count() const noexcept { return csr.nnz(); }

  // Throws Error when the CSR is inconsistent or not square, a weight is
  // negative, NaN or infinite, or the coordinates have the wrong length.
  void validate() const;
};

// Builds a graph from edges (tail, head, weight) in their given order within
// each tail's row; duplicates and self-loops are kept. Throws Error on an id
// outside 0..nodes-1 or a weight that is negative, NaN or infinite.
Graph graph_from_edges(NodeId nodes, std::span<const NodeId> tails, std::span<const NodeId> heads,
                       std::span<const Weight> weights);

}  // namespace trellis::graph
