// Host-side entry points of the shortest-path kernels, one per algorithm
// file, and the scratch they share. All run asynchronously on `stream`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "../tiling.hpp"
#include "sssp_device.cuh"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::graph::cuda {

// Scratch for one search at a time, sized for the graph once.
struct Workspace {
  NodeId* queue[2];             // frontiers, n entries each
  NodeId* far[2];               // delta-stepping's far piles, n entries each
  unsigned* stamp;              // per node: the iteration it was last queued for
  unsigned* in_far;             // per node: 1 while in a far pile
  unsigned* counters;           // small counters the kernels share (kCounterCount)
  unsigned long long* relaxed;  // relaxations performed, summed over threads
  NodeId* worklist;             // SPFA's worklist; starts with the sources
  unsigned long long worklist_capacity;
};

inline constexpr int kThreads = 256;
inline constexpr int kCounterCount = 16;

// Each algorithm starts from keys already holding the sources (key 0) and
// every other node kNoKey, and from workspace.queue[0] and worklist holding
// the `source_count` distinct sources; all other scratch is zero.
void run_bellman_ford(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream);
void run_delta_stepping(const DeviceSearch& search, const Workspace& work, unsigned source_count, Weight delta,
                        Stream stream);
// False when the worklist overflowed (the result is then incomplete): run
// again with a larger Workspace::worklist.
bool run_spfa(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream);

// K searches, one block or one thread-block cluster each (block_solver.cu).
struct BlockBatch {
  const RowOffset* row_offsets;
  const ColumnIndex* heads;
  const Weight* weights;
  NodeId nodes;
  RowOffset edges;
  const NodeId* sources;           // all queries' sources, query q's at [source_offsets[q], source_offsets[q+1])
  const unsigned* source_offsets;  // K + 1
  const NodeId* targets;           // K; -1: none
  const Weight* node_costs;        // the cost arrays of the queries that have one, n each
  const long long* cost_offsets;   // K; offset of query q's costs in node_costs, or -1
  Key* keys;                       // K * n: the result keys (and the working keys without a cluster plan)
  unsigned* frontier_bits;         // K * 2 * ceil(n / 32) words, used only without a cluster plan
  unsigned long long* relaxed;     // K, zeroed
};

// Where K searches on a graph run (block_solver.cu): one block each with
// the whole graph in shared memory, one block each with the labels in
// shared memory, one cluster each of `blocks` blocks (2 to 16) holding
// `chunk` labels a block with room for `capacity` nodes in a round's list,
// or one block each with the labels in global memory. `shared_bytes`: the
// dynamic shared memory a block.
struct BlockPlan {
  enum class Kind { whole_graph_in_block, labels_in_block, labels_in_cluster, labels_in_global };
  Kind kind;
  int blocks;
  NodeId chunk;
  NodeId capacity;
  std::size_t shared_bytes;
};
BlockPlan plan_blocks(NodeId nodes, RowOffset edges, unsigned queries);
void run_block_batch(const BlockBatch& batch, unsigned queries, Stream stream);

// The most nodes a graph searched by pull sweeps in one block may have (four
// a thread of 1,024).
inline constexpr NodeId kSweepMaxNodes = 4096;

// K searches by pull sweeps, one block each (sweep_solver.cu), on graphs of
// at most kSweepMaxNodes nodes and in-degree 8: every node's in-edges, padded to
// edges_per_node, laid out for the thread that owns the node. nullopt for
// graphs outside those bounds (and graphs without edges).
struct SweepLayout {
  int slots = 0;           // nodes a thread owns
  int edges_per_node = 0;  // in-edge slots a node
  DeviceArray<std::uint16_t> tails;
  DeviceArray<Weight> weights;
};
std::optional<SweepLayout> make_sweep_layout(const CsrView<Weight>& g, Stream stream);
// batch's CSR fields are not read: the layout holds the graph.
void run_sweep_batch(const SweepLayout& layout, const BlockBatch& batch, unsigned queries, Stream stream);

// One search on a tiled graph (../tiling.hpp), one block a tile
// (tiled_bellman_ford.cu). Ids are tiled ones except where said.
struct TiledSearch {
  const NodeId* tile_first;      // tiles + 1
  const RowOffset* row_offsets;  // the tiled CSR
  const std::uint32_t* heads;    // local index, or kRemoteHead | tiled id
  const Weight* weights;
  const NodeId* old_of_new;  // -1 for padding
  const NodeId* sources;     // distinct
  unsigned source_count;
  NodeId target;                // -1: none
  const Weight* node_cost;      // by original id; nullptr: none
  Weight* tiled_cost;           // scratch, one per tiled id (used when the edges stay in global memory)
  Key* offers;                  // scratch: the least label other tiles offered each node
  unsigned* inbox;              // scratch: a bit per node, set when its offer dropped
  int* pending;                 // zeroed: busy tiles plus messages not yet taken
  unsigned* failed;             // zeroed: set when the search ran past timeout_ns
  Key* keys;                    // out: the labels by original id
  unsigned long long* relaxed;  // zeroed
  NodeId capacity_nodes;        // the largest tile's nodes
  RowOffset capacity_edges;     // the most edges a tile has (0: the edges stay in global memory)
  unsigned long long timeout_ns;
};
// The dynamic shared memory a tile's block needs; 0 when the device cannot
// hold `capacity_nodes` labels in one block (or the tiles on its
// multiprocessors at once). Pass capacity_edges 0 for edges in global memory.
std::size_t tiled_shared_bytes(NodeId capacity_nodes, RowOffset capacity_edges, int tiles);
void run_tiled_bellman_ford(const TiledSearch& search, int tiles, Stream stream);

// One search on a tiled graph by pull sweeps inside the tiles
// (swept_tiles.cu): tiles of at most four nodes a worker thread (3,840 nodes
// in blocks of 1,024 threads, 1,792 in blocks of 512) whose nodes have at
// most 8 in-edges from their own tile (4 at four nodes a thread).
// Reads sources, source_count, target, node_cost, old_of_new, tile_first,
// offers, inbox, pending, failed, keys, relaxed and timeout_ns of the
// TiledSearch.
struct SweptTileLayout {
  int threads = 0;                       // a tile's block: 1,024 or 512 threads, the last two warps the couriers
  int slots = 0;                         // nodes a worker thread owns
  int edges_per_node = 0;                // in-edge slots a node
  unsigned most_remote_edges = 0;        // a tile's edges to other tiles, at most
  std::size_t shared_bytes = 0;          // a block's dynamic shared memory
  DeviceArray<std::uint16_t> tails;      // [tile][edge slot][slot * workers + worker]: local tail, or the padding label
  DeviceArray<Weight> weights;           // beside tails
  DeviceArray<unsigned> remote_offsets;  // tiled nodes + 1: each node's out-edges to other tiles
  DeviceArray<NodeId> remote_heads;      // tiled ids
  DeviceArray<Weight> remote_weights;
};
struct SweptTiles {  // the layout's device pointers
  const std::uint16_t* tails;
  const Weight* weights;
  const unsigned* remote_offsets;
  const NodeId* remote_heads;
  const Weight* remote_weights;
};
// nullopt where the tiles are too large, their in-degree too high, or the
// device cannot hold a block of every tile at once.
std::optional<SweptTileLayout> make_swept_tiles(const TiledGraph& graph, Stream stream);
void run_swept_tiles(const TiledSearch& search, const SweptTileLayout& layout, int tiles, Stream stream);

// Parents by the parity rule for K searches with final distances
// (tight_parents.cu): one block per search, a breadth-first search over the
// tight edges among nodes no farther than the target.
struct TightParents {
  const RowOffset* row_offsets;
  const ColumnIndex* heads;
  const Weight* weights;
  NodeId nodes;
  const Key* keys;                 // K * n, the searches' final labels
  const NodeId* sources;           // as in BlockBatch
  const unsigned* source_offsets;  // K + 1
  const NodeId* targets;           // K; -1: none
  const Weight* node_costs;
  const long long* cost_offsets;  // K; -1: no cost
  bool stop_at_target;            // stop once the target's level is known (paths only)
  std::int32_t* level;            // K * n scratch: breadth-first level, -1 where not reached
  NodeId* parent;                 // K * n out: parent, kNoParent for sources and nodes not reached
  NodeId* queues;                 // K * 2 * n scratch
};
void run_tight_parents(const TightParents& tight, unsigned queries, Stream stream);
// lengths[q]: the number of nodes on query q's path, 0 when its target was not reached.
void launch_path_lengths(const TightParents& tight, unsigned queries, unsigned* lengths, Stream stream);
// Query q's path into paths[offsets[q] ..], source first.
void launch_trace_paths(const TightParents& tight, unsigned queries, const unsigned* offsets, const unsigned* lengths,
                        NodeId* paths, Stream stream);

// Blocks of kThreads for a persistent (cooperative) launch of kernel: one per
// multiprocessor, after checking that at least that many are co-resident (a
// persistent grid larger than what is resident would deadlock).
int co_resident_blocks(const void* kernel, std::size_t dynamic_shared_bytes);

}  // namespace trellis::graph::cuda
