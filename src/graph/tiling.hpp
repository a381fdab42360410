// A graph cut into tiles for the cuda engine's tiled search
// (cuda/tiled_bellman_ford.cu): one thread block owns each tile, keeps its
// labels (and, where they fit, its edges) in shared memory, and hands labels
// across tile borders through global memory. Tiles follow the nodes' (x, y)
// coordinates where the graph has them (every layer of a lattice cell in one
// tile, so vias stay inside), else runs of consecutive ids.
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/core/csr.hpp"
#include "trellis/graph/graph.hpp"

namespace trellis::graph {

// Edge heads in a tiled graph: a head in the tail's own tile is its index
// within that tile; any other head is kRemoteHead | its tiled id.
inline constexpr std::uint32_t kRemoteHead = 0x80000000u;

// The nodes renumbered tile by tile (in increasing old id within a tile),
// each tile's range starting at a multiple of 32 (the gaps are padding
// nodes without edges), and the CSR in the new numbering.
struct TiledGraph {
  int tiles = 0;
  std::vector<NodeId> tile_first;      // tiles + 1 entries: tile t holds tiled ids [tile_first[t], tile_first[t + 1])
  std::vector<NodeId> old_of_new;      // tile_first.back() entries; -1 for padding
  std::vector<NodeId> new_of_old;      // one per node
  std::vector<RowOffset> row_offsets;  // tile_first.back() + 1 entries
  std::vector<std::uint32_t> heads;    // encoded as above
  std::vector<Weight> weights;
  NodeId largest_tile = 0;  // nodes, padding included
  RowOffset most_tile_edges = 0;

  NodeId tiled_nodes() const { return tile_first.back(); }
};

// Cuts g into at most `tiles` tiles (at least one). With coordinates, the
// tiles are a grid over the (x, y) bounding box whose cells are as square
// as the count allows; the result may then have fewer tiles than asked.
TiledGraph tile_graph(const CsrView<Weight>& g, const NodeCoordinates* coordinates, int tiles);

}  // namespace trellis::graph
