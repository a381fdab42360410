// The resident graph, its scratch, and one search from start to finish:
// seed the sources, run the chosen algorithm, derive parents by the
// breadth-first rule over tight edges (tight_parents.cu), and bring back
// distances and parents, or only the paths.
#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../kernels.hpp"
#include "../tiling.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::graph::cuda {
namespace {

// A tiled search that runs this long has lost a message: a bug, reported
// as a device error rather than a hang. (A search is as many hops deep as
// its graph's longest shortest path, and a hop takes microseconds: 300 s is
// a chain of hundreds of millions of nodes.)
constexpr unsigned long long kTiledTimeoutNs = 300'000'000'000ull;

// The fewest nodes a tile is cut to: smaller tiles hand labels over more
// often, larger ones leave multiprocessors idle on the small lattices
// (256 and 1,024 were timed too: bench/results/NOTES.md, "Swept tiles").
constexpr NodeId kTileNodes = 512;

unsigned grid_for(std::int64_t items) {
  return static_cast<unsigned>(std::min<std::int64_t>((items + kThreads - 1) / kThreads, 132 * 16));
}

__global__ void reset_keys(Key* keys, NodeId nodes) {
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    keys[v] = kNoKey;
  }
}

__global__ void set_source_keys(Key* keys, const NodeId* sources, unsigned source_count) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < source_count; i += gridDim.x * blockDim.x) {
    keys[sources[i]] = make_key(0.0f);
  }
}

// Distances of K queries whose keys lie at keys + q * n.
__global__ void keys_to_distances(const Key* keys, NodeId nodes, Weight* distance) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.y) * nodes;
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    const Key key = keys[base + v];
    distance[base + v] = key == kNoKey ? __int_as_float(0x7f800000) : key_distance(key);
  }
}
// Masks K searches' results (at distance + q * n, parent + q * n; parent
// may be null) beyond each target as mask_unsettled does, clearing those
// nodes' parents, and counts the nodes reached per search.
__global__ void mask_on_device(Weight* distance, NodeId* parent, NodeId nodes, const NodeId* targets,
                               unsigned* reached) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.y) * nodes;
  const NodeId target = targets[blockIdx.y];
  const Weight limit = target >= 0 ? distance[base + target] : __int_as_float(0x7f800000);
  unsigned count = 0;
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    const Weight d = distance[base + v];
    if (d > limit) {  // never the target itself, so limit stays as read
      distance[base + v] = __int_as_float(0x7f800000);
      if (parent != nullptr) parent[base + v] = kNoParent;
    } else if (d != __int_as_float(0x7f800000)) {
      ++count;
    }
  }
  if (count != 0) atomicAdd(&reached[blockIdx.y], count);  // integer sums: the same count on every run
}

// The first node (least index) whose cost is negative, NaN or infinite, into
// *first (which starts at nodes).
__global__ void find_bad_cost(const Weight* cost, NodeId nodes, NodeId* first) {
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    const Weight c = cost[v];
    if (!(c >= 0) || c == __int_as_float(0x7f800000)) atomicMin(first, static_cast<NodeId>(v));
  }
}
}  // namespace

int co_resident_blocks(const void* kernel, std::size_t dynamic_shared_bytes) {
  int device = 0;
  int multiprocessors = 0;
  int per_multiprocessor = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  TRELLIS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, kThreads, dynamic_shared_bytes));
  if (per_multiprocessor < 1) throw DeviceError("a shortest-path kernel cannot be resident on this device");
  // One block per multiprocessor: lattice frontiers are a few thousand nodes,
  // and a grid.sync over fewer blocks is cheaper.
  return multiprocessors;
}

// The graph cut into tiles for single Bellman-Ford searches on large graphs
// (tiled_bellman_ford.cu), with the scratch of a search. tiles == 0 when the
// device cannot hold the tiles' blocks at once.
struct TiledOnDevice {
  int tiles = 0;
  NodeId capacity_nodes = 0;
  RowOffset capacity_edges = 0;          // 0: the edges stay in global memory
  std::optional<SweptTileLayout> swept;  // set: the tiles are searched by pull sweeps, not queues
  std::vector<NodeId> new_of_old;
  DeviceArray<NodeId> tile_first;
  DeviceArray<NodeId> old_of_new;
  DeviceArray<RowOffset> row_offsets;
  DeviceArray<std::uint32_t> heads;
  DeviceArray<Weight> weights;
  DeviceArray<Weight> cost;
  DeviceArray<Key> offers;
  DeviceArray<unsigned> inbox;
  DeviceArray<int> flags;  // pending, failed
  DeviceArray<NodeId> sources;
};

TiledOnDevice make_tiled(const CsrMatrix<Weight>& host, const NodeCoordinates* coordinates, Stream stream) {
  int device = 0;
  int multiprocessors = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // For sweeps, two tiles a multiprocessor (smaller tiles sweep faster), but
  // none smaller than kTileNodes nodes: on small graphs the hand-overs
  // between tiles cost more than larger tiles' sweeps. The queue kernel
  // takes a tile a multiprocessor.
  const auto tiles_for = [&](int most) {
    return static_cast<int>(std::min<NodeId>(most, std::max<NodeId>(1, host.rows / kTileNodes)));
  };
  TiledGraph graph = tile_graph(host.view(), coordinates, tiles_for(2 * multiprocessors));
  TiledOnDevice t;
  t.swept = make_swept_tiles(graph, stream);
  if (!t.swept && graph.tiles > multiprocessors) graph = tile_graph(host.view(), coordinates, multiprocessors);
  RowOffset edges = graph.most_tile_edges;
  if (!t.swept) {
    if (tiled_shared_bytes(graph.largest_tile, edges, graph.tiles) == 0) edges = 0;
    if (edges == 0 && tiled_shared_bytes(graph.largest_tile, 0, graph.tiles) == 0) return t;
  }
  t.tiles = graph.tiles;
  t.capacity_nodes = graph.largest_tile;
  t.capacity_edges = edges;
  const auto tiled = static_cast<std::size_t>(graph.tiled_nodes());
  t.tile_first = DeviceArray<NodeId>::from_host(graph.tile_first, stream);
  t.old_of_new = DeviceArray<NodeId>::from_host(graph.old_of_new, stream);
  if (!t.swept) {  // the queue kernel's CSR; the sweeps have their own layout
    t.row_offsets = DeviceArray<RowOffset>::from_host(graph.row_offsets, stream);
    t.heads = DeviceArray<std::uint32_t>::from_host(graph.heads, stream);
    t.weights = DeviceArray<Weight>::from_host(graph.weights, stream);
    t.cost = DeviceArray<Weight>(edges == 0 ? tiled : 0);
  }
  t.offers = DeviceArray<Key>(tiled);
  t.inbox = DeviceArray<unsigned>(tiled / 32);
  t.flags = DeviceArray<int>(2);
  t.new_of_old = std::move(graph.new_of_old);
  device::synchronize(stream);  // the host vectors go out of scope
  return t;
}

struct GraphOnDevice::State {
  State(const CsrMatrix<Weight>& host, const NodeCoordinates* coordinates)
      : host_csr(host),
        coordinates(coordinates),
        csr(host),
        nodes(host.rows),
        keys(static_cast<std::size_t>(nodes)),
        queues(2 * static_cast<std::size_t>(std::max(nodes, 1))),
        far(2 * static_cast<std::size_t>(std::max(nodes, 1))),
        stamp(static_cast<std::size_t>(nodes)),
        in_far(static_cast<std::size_t>(nodes)),
        counters(kCounterCount),
        relaxed(1),
        node_cost(static_cast<std::size_t>(nodes)),
        parent(static_cast<std::size_t>(nodes)),
        distance(static_cast<std::size_t>(nodes)) {}

  const CsrMatrix<Weight>& host_csr;
  const NodeCoordinates* coordinates;
  DeviceCsr<Weight> csr;
  NodeId nodes;
  DeviceArray<Key> keys;
  DeviceArray<NodeId> queues;  // two frontiers back to back
  DeviceArray<NodeId> far;
  DeviceArray<unsigned> stamp;
  DeviceArray<unsigned> in_far;
  DeviceArray<unsigned> counters;
  DeviceArray<unsigned long long> relaxed;
  DeviceArray<Weight> node_cost;
  DeviceArray<NodeId> parent;
  DeviceArray<Weight> distance;
  DeviceArray<NodeId> worklist;  // SPFA only: allocated on first use, grown on overflow
  // What a call uploads or works in beyond the above, kept from call to call
  // and grown when a call needs more (see grown()).
  struct Scratch {
    DeviceArray<NodeId> sources;
    DeviceArray<unsigned> source_offsets;
    DeviceArray<NodeId> targets;
    DeviceArray<Weight> costs;
    DeviceArray<long long> cost_offsets;
    DeviceArray<Key> keys;
    DeviceArray<unsigned> bits;
    DeviceArray<unsigned long long> relaxed;
    DeviceArray<std::int32_t> level;
    DeviceArray<NodeId> parent;
    DeviceArray<NodeId> queues;
    DeviceArray<unsigned> lengths;
    DeviceArray<unsigned> path_offsets;
    DeviceArray<NodeId> path_nodes;
    DeviceArray<Weight> distances;
  } scratch;
  std::optional<TiledOnDevice> tiled;               // made on the first search that wants it
  std::optional<std::optional<SweepLayout>> sweep;  // made on the first batch; nullopt inside: the graph has none
  device::OwnedStream stream;
  EventTimer timer;

  Workspace workspace() {
    const std::size_t n = static_cast<std::size_t>(std::max(nodes, 1));
    return {{queues.data(), queues.data() + n},
            {far.data(), far.data() + n},
            stamp.data(),
            in_far.data(),
            counters.data(),
            relaxed.data(),
            worklist.data(),
            worklist.size()};
  }
};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>& csr, const NodeCoordinates* coordinates)
    : state_(std::make_unique<State>(csr, coordinates)) {}

GraphOnDevice::~GraphOnDevice() = default;

namespace {

std::vector<NodeId> distinct_sources(const SearchSpec& spec) {
  std::vector<NodeId> sources(spec.sources.begin(), spec.sources.end());
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return sources;
}

// Scratch of at least `count` elements. A router makes thousands of calls,
// and cudaFree waits for the whole device: arrays are kept between calls
// and grown (doubling) rather than made anew. Every call ends by waiting
// for its stream, so the next one may overwrite them.
template <typename T>
T* grown(DeviceArray<T>& array, std::size_t count) {
  if (array.size() < count) array = DeviceArray<T>(std::max(count, 2 * array.size()));
  return array.data();
}

// A search's costs into the resident cost array, from the host or the device.
void load_cost(DeviceArray<Weight>& resident, const SearchSpec& spec, Stream stream) {
  if (!spec.cost_on_device) {
    resident.copy_from_host(spec.node_cost, stream);
  } else if (!resident.empty()) {
    device::copy_on_device(resident.data(), spec.node_cost.data(), resident.bytes(), stream);
  }
}

template <typename T>
T* uploaded(DeviceArray<T>& array, std::span<const T> host, Stream stream) {
  T* const data = grown(array, std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) device::copy_to_device(data, host.data(), host.size_bytes(), stream);
  return data;
}

}  // namespace

GraphOnDevice::Uploaded GraphOnDevice::upload(std::span<const SearchSpec> searches, const Weight* resident_costs) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  Uploaded up;
  std::vector<NodeId> sources;
  std::vector<unsigned> source_offsets{0};
  std::vector<Weight> costs;
  std::vector<long long> cost_offsets;
  std::vector<std::pair<std::size_t, const Weight*>> device_costs;  // (offset, device array) copied after
  bool host_costs = false;
  for (const SearchSpec& spec : searches) {
    for (NodeId s : distinct_sources(spec)) sources.push_back(s);
    source_offsets.push_back(static_cast<unsigned>(sources.size()));
    up.targets.push_back(spec.target);
    if (spec.node_cost.empty()) {
      cost_offsets.push_back(-1);
    } else {
      cost_offsets.push_back(static_cast<long long>(costs.size()));
      if (resident_costs != nullptr) continue;
      if (spec.cost_on_device) {  // a gap here, filled on the device
        device_costs.emplace_back(costs.size(), spec.node_cost.data());
        costs.resize(costs.size() + spec.node_cost.size());
      } else {
        costs.insert(costs.end(), spec.node_cost.begin(), spec.node_cost.end());
        host_costs = true;
      }
    }
  }
  up.sources = uploaded<NodeId>(st.scratch.sources, sources, stream);
  up.source_offsets = uploaded<unsigned>(st.scratch.source_offsets, source_offsets, stream);
  up.device_targets = uploaded<NodeId>(st.scratch.targets, up.targets, stream);
  up.cost_offsets = uploaded<long long>(st.scratch.cost_offsets, cost_offsets, stream);
  if (resident_costs != nullptr) {
    up.costs = resident_costs;
    return up;
  }
  Weight* const all_costs = host_costs ? uploaded<Weight>(st.scratch.costs, costs, stream)
                                       : grown(st.scratch.costs, std::max<std::size_t>(costs.size(), 1));
  for (const auto& [offset, cost] : device_costs) {
    device::copy_on_device(all_costs + offset, cost, static_cast<std::size_t>(st.nodes) * sizeof(Weight), stream);
  }
  up.costs = all_costs;
  return up;
}

// What K searches' keys (at keys + q * n) become: whole results (distances,
// and parents when asked) or paths only, brought back into `out`.
void GraphOnDevice::finish(const Key* keys, const Uploaded& up, const Output& out) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const auto queries = static_cast<unsigned>(up.targets.size());
  const std::size_t n = static_cast<std::size_t>(st.nodes);
  const CsrView<Weight> g = st.csr.view();
  const bool paths = !out.paths.empty();
  const std::vector<NodeId>& targets = up.targets;

  const bool parents = paths || out.parents;
  State::Scratch& scratch = st.scratch;
  std::int32_t* const level = parents ? grown(scratch.level, queries * n) : nullptr;
  // Device outputs take the parents straight from the kernel.
  NodeId* const parent = !parents                  ? nullptr
                         : out.on_device && !paths ? out.host_parents
                                                   : grown(scratch.parent, queries * n);
  NodeId* const queues = parents ? grown(scratch.queues, 2 * queries * n) : nullptr;
  const TightParents tight{
      g.row_offsets,     g.col_indices, g.values,        st.nodes, keys,  up.sources, up.source_offsets,
      up.device_targets, up.costs,      up.cost_offsets, paths,    level, parent,     queues};
  if (parents) run_tight_parents(tight, queries, stream);

  if (paths) {
    unsigned* const lengths = grown(scratch.lengths, queries);
    launch_path_lengths(tight, queries, lengths, stream);
    std::vector<unsigned> host_lengths(queries);
    device::copy_to_host(host_lengths.data(), lengths, queries * sizeof(unsigned), stream);
    device::synchronize(stream);
    std::vector<unsigned> offsets(queries + 1, 0);
    for (unsigned q = 0; q < queries; ++q) offsets[q + 1] = offsets[q] + host_lengths[q];
    const unsigned* const d_offsets = uploaded<unsigned>(scratch.path_offsets, offsets, stream);
    NodeId* const nodes = grown(scratch.path_nodes, std::max(offsets[queries], 1u));
    launch_trace_paths(tight, queries, d_offsets, lengths, nodes, stream);
    std::vector<NodeId> all(offsets[queries]);
    std::vector<Key> target_keys(queries);
    if (!all.empty()) {
      TRELLIS_CUDA_CHECK(
          cudaMemcpyAsync(all.data(), nodes, all.size() * sizeof(NodeId), cudaMemcpyDeviceToHost, stream));
    }
    for (unsigned q = 0; q < queries; ++q) {
      TRELLIS_CUDA_CHECK(cudaMemcpyAsync(&target_keys[q], keys + q * n + static_cast<std::size_t>(targets[q]),
                                         sizeof(Key), cudaMemcpyDeviceToHost, stream));
    }
    device::synchronize(stream);
    for (unsigned q = 0; q < queries; ++q) {
      SsspPath& path = out.paths[q];
      path.distance = target_keys[q] == kNoKey ? kUnreachable : std::bit_cast<Weight>(target_keys[q]);
      path.nodes.assign(all.begin() + offsets[q], all.begin() + offsets[q + 1]);
    }
    return;
  }

  Weight* const distance = out.on_device ? out.host_distances : grown(scratch.distances, queries * n);
  TRELLIS_LAUNCH(keys_to_distances, dim3(grid_for(st.nodes), queries), kThreads, 0, stream, keys, st.nodes, distance);
  if (out.on_device) {
    unsigned* const reached = grown(scratch.lengths, queries);
    device::fill_zero(reached, queries * sizeof(unsigned), stream);
    TRELLIS_LAUNCH(mask_on_device, dim3(grid_for(st.nodes), queries), kThreads, 0, stream, distance, parent, st.nodes,
                   up.device_targets, reached);
    std::vector<unsigned> host_reached(queries);
    device::copy_to_host(host_reached.data(), reached, queries * sizeof(unsigned), stream);
    device::synchronize(stream);
    for (unsigned q = 0; q < queries; ++q) out.results[q].reached = static_cast<NodeId>(host_reached[q]);
    return;
  }
  // One copy each for the whole batch, into the caller's (pinned) host arrays.
  device::copy_to_host(out.host_distances, distance, queries * n * sizeof(Weight), stream);
  if (out.parents) device::copy_to_host(out.host_parents, parent, queries * n * sizeof(NodeId), stream);
  device::synchronize(stream);
}

void GraphOnDevice::Output::set_work(std::size_t q, std::int64_t relaxed, double ms) const {
  if (paths.empty()) {
    results[q].edges_relaxed = relaxed;
    results[q].solve_ms = ms;
  } else {
    paths[q].edges_relaxed = relaxed;
  }
}

GraphOnDevice::Output GraphOnDevice::Output::part(std::size_t q) const {
  if (!paths.empty()) return {parents, {}, paths.subspan(q, 1)};
  return {parents,
          results.subspan(q, 1),
          {},
          host_distances + q * stride,
          host_parents == nullptr ? nullptr : host_parents + q * stride,
          stride,
          on_device};
}

void GraphOnDevice::search(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, bool parents,
                           std::span<SsspResult> results, Weight* host_distances, NodeId* host_parents) {
  run(algorithm, delta, searches,
      {parents, results, {}, host_distances, host_parents, static_cast<std::size_t>(state_->nodes)});
}

void GraphOnDevice::search_into_device(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches,
                                       bool parents, std::span<SsspResult> results, Weight* distances,
                                       NodeId* parents_out) {
  run(algorithm, delta, searches,
      {parents, results, {}, distances, parents_out, static_cast<std::size_t>(state_->nodes), true});
}

void GraphOnDevice::check_device_costs(const Weight* node_cost) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  if (st.nodes == 0) return;
  NodeId* const first = reinterpret_cast<NodeId*>(grown(st.scratch.lengths, 1));
  device::copy_to_device(first, &st.nodes, sizeof(NodeId), stream);
  TRELLIS_LAUNCH(find_bad_cost, grid_for(st.nodes), kThreads, 0, stream, node_cost, st.nodes, first);
  NodeId bad = st.nodes;
  device::copy_to_host(&bad, first, sizeof bad, stream);
  device::synchronize(stream);
  if (bad == st.nodes) return;
  Weight value = 0;
  device::copy_to_host(&value, node_cost + bad, sizeof value, stream);
  device::synchronize(stream);
  throw UsageError("node cost " + std::to_string(value) + " of node " + std::to_string(bad) +
                   " is not finite and non-negative");
}

void GraphOnDevice::search_paths(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches,
                                 std::span<SsspPath> paths) {
  run(algorithm, delta, searches, {true, {}, paths});
}

void GraphOnDevice::run(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches,
                        const Output& out) {
  if (searches.empty()) return;
  const BlockPlan::Kind kind = plan_blocks(state_->nodes, state_->csr.view().nnz, 1).kind;
  const bool in_one_block = kind == BlockPlan::Kind::whole_graph_in_block || kind == BlockPlan::Kind::labels_in_block;
  // One Bellman-Ford search: tiles, except on graphs that one block solves
  // by sweeps (sweep_solver.cu) and, among those that fit one block, where
  // the tiles could not be swept.
  if (searches.size() == 1 && algorithm == SsspAlgorithm::bellman_ford && state_->nodes > kSweepMaxNodes &&
      search_tiled(searches[0], out.part(0), /*swept_only=*/in_one_block)) {
    return;
  }
  const bool in_shared = kind != BlockPlan::Kind::labels_in_global;
  if (searches.size() > 1 || (algorithm == SsspAlgorithm::bellman_ford && in_shared)) {
    search_in_blocks(searches, out);
    return;
  }
  for (std::size_t q = 0; q < searches.size(); ++q) search_on_grid(algorithm, delta, searches[q], out.part(q));
}

void GraphOnDevice::search_on_grid(SsspAlgorithm algorithm, Weight delta, const SearchSpec& spec, const Output& out) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const Workspace work = st.workspace();
  const CsrView<Weight> g = st.csr.view();
  const std::vector<NodeId> sources = distinct_sources(spec);
  const auto source_count = static_cast<unsigned>(sources.size());

  DeviceSearch s{g.row_offsets, g.col_indices, g.values, nullptr, st.nodes, spec.target, st.keys.data()};
  if (!spec.node_cost.empty()) {
    load_cost(st.node_cost, spec, stream);
    s.node_cost = st.node_cost.data();
  }
  // Sources go straight into the first frontier (queue 0).
  TRELLIS_CUDA_CHECK(
      cudaMemcpyAsync(work.queue[0], sources.data(), sources.size() * sizeof(NodeId), cudaMemcpyHostToDevice, stream));
  st.stamp.fill_zero(stream);
  st.in_far.fill_zero(stream);
  st.counters.fill_zero(stream);
  st.relaxed.fill_zero(stream);

  st.timer.start(stream);
  TRELLIS_LAUNCH(reset_keys, grid_for(st.nodes), kThreads, 0, stream, st.keys.data(), st.nodes);
  TRELLIS_LAUNCH(set_source_keys, 1, kThreads, 0, stream, st.keys.data(), work.queue[0], source_count);
  switch (algorithm) {
    case SsspAlgorithm::bellman_ford:
      run_bellman_ford(s, work, source_count, stream);
      break;
    case SsspAlgorithm::delta_stepping:
      run_delta_stepping(s, work, source_count, delta, stream);
      break;
    case SsspAlgorithm::spfa: {
      // Room for every node four times over; a search that pushes more is
      // run again with four times the room.
      if (st.worklist.empty()) st.worklist = DeviceArray<NodeId>(4 * static_cast<std::size_t>(st.nodes) + 65536);
      while (true) {
        Workspace spfa_work = st.workspace();
        TRELLIS_CUDA_CHECK(cudaMemcpyAsync(spfa_work.worklist, sources.data(), sources.size() * sizeof(NodeId),
                                           cudaMemcpyHostToDevice, stream));
        if (run_spfa(s, spfa_work, source_count, stream)) break;
        st.worklist = DeviceArray<NodeId>(4 * st.worklist.size());
        st.stamp.fill_zero(stream);
        st.relaxed.fill_zero(stream);
        TRELLIS_LAUNCH(reset_keys, grid_for(st.nodes), kThreads, 0, stream, st.keys.data(), st.nodes);
        TRELLIS_LAUNCH(set_source_keys, 1, kThreads, 0, stream, st.keys.data(), work.queue[0], source_count);
      }
      break;
    }
    default:
      throw UsageError("the cuda backend has no " + std::string(to_string(algorithm)));
  }
  st.timer.stop(stream);

  unsigned long long relaxed = 0;
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(&relaxed, st.relaxed.data(), sizeof relaxed, cudaMemcpyDeviceToHost, stream));
  finish(st.keys.data(), upload({&spec, 1}, st.node_cost.data()), out);
  out.set_work(0, static_cast<std::int64_t>(relaxed), st.timer.elapsed_ms());
}

bool GraphOnDevice::search_tiled(const SearchSpec& spec, const Output& out, bool swept_only) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  if (!st.tiled) st.tiled = make_tiled(st.host_csr, st.coordinates, stream);
  TiledOnDevice& tiled = *st.tiled;
  if (tiled.tiles == 0 || (swept_only && !tiled.swept)) return false;

  std::vector<NodeId> sources = distinct_sources(spec);
  for (NodeId& v : sources) v = tiled.new_of_old[static_cast<std::size_t>(v)];
  const NodeId* const device_sources = uploaded<NodeId>(tiled.sources, sources, stream);
  if (!spec.node_cost.empty()) load_cost(st.node_cost, spec, stream);
  tiled.flags.fill_zero(stream);
  st.relaxed.fill_zero(stream);
  const TiledSearch search{tiled.tile_first.data(),
                           tiled.row_offsets.data(),
                           tiled.heads.data(),
                           tiled.weights.data(),
                           tiled.old_of_new.data(),
                           device_sources,
                           static_cast<unsigned>(sources.size()),
                           spec.target >= 0 ? tiled.new_of_old[static_cast<std::size_t>(spec.target)] : -1,
                           spec.node_cost.empty() ? nullptr : st.node_cost.data(),
                           tiled.cost.data(),
                           tiled.offers.data(),
                           tiled.inbox.data(),
                           tiled.flags.data(),
                           reinterpret_cast<unsigned*>(tiled.flags.data() + 1),
                           st.keys.data(),
                           st.relaxed.data(),
                           tiled.capacity_nodes,
                           tiled.capacity_edges,
                           kTiledTimeoutNs};
  st.timer.start(stream);
  if (tiled.swept) {
    run_swept_tiles(search, *tiled.swept, tiled.tiles, stream);
  } else {
    run_tiled_bellman_ford(search, tiled.tiles, stream);
  }
  st.timer.stop(stream);
  unsigned long long relaxed = 0;
  int flags[2] = {0, 0};
  device::copy_to_host(&relaxed, st.relaxed.data(), sizeof relaxed, stream);
  device::copy_to_host(flags, tiled.flags.data(), sizeof flags, stream);
  device::synchronize(stream);
  if (flags[1] != 0) {
    throw DeviceError("the tiled Bellman-Ford search did not finish within " +
                      std::to_string(kTiledTimeoutNs / 1000000000) + " s");
  }
  finish(st.keys.data(), upload({&spec, 1}, st.node_cost.data()), out);
  out.set_work(0, static_cast<std::int64_t>(relaxed), st.timer.elapsed_ms());
  return true;
}

void GraphOnDevice::search_in_blocks(std::span<const SearchSpec> searches, const Output& out) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const CsrView<Weight> g = st.csr.view();
  const auto queries = static_cast<unsigned>(searches.size());
  const std::size_t n = static_cast<std::size_t>(st.nodes);

  const Uploaded up = upload(searches, nullptr);
  State::Scratch& scratch = st.scratch;
  Key* const keys = grown(scratch.keys, queries * n);
  const bool in_global = plan_blocks(st.nodes, g.nnz, queries).kind == BlockPlan::Kind::labels_in_global;
  unsigned* const bits = in_global ? grown(scratch.bits, queries * 2 * ((n + 31) / 32)) : nullptr;
  unsigned long long* const relaxed = grown(scratch.relaxed, queries);
  device::fill_zero(relaxed, queries * sizeof(unsigned long long), stream);

  BlockBatch batch{g.row_offsets,     g.col_indices, g.values,        st.nodes, g.nnz, up.sources, up.source_offsets,
                   up.device_targets, up.costs,      up.cost_offsets, keys,     bits,  relaxed};
  if (!st.sweep) st.sweep = make_sweep_layout(st.host_csr.view(), stream);
  st.timer.start(stream);
  if (*st.sweep) {
    run_sweep_batch(**st.sweep, batch, queries, stream);
  } else {
    run_block_batch(batch, queries, stream);
  }
  st.timer.stop(stream);
  std::vector<unsigned long long> relaxed_host(queries);
  device::copy_to_host(relaxed_host.data(), relaxed, queries * sizeof(unsigned long long), stream);
  finish(keys, up, out);
  const double ms = st.timer.elapsed_ms();
  // A batch shares one launch: its time is split evenly.
  for (unsigned q = 0; q < queries; ++q) out.set_work(q, static_cast<std::int64_t>(relaxed_host[q]), ms / queries);
}

}  // namespace trellis::graph::cuda
