// The resident graph, its scratch, and one search from start to finish:
// seed the sources, run the chosen algorithm, derive parents from the
// (distance, hops) keys, and bring distances and parents back.
#include <algorithm>
#include <string>
#include <vector>

#include "../kernels.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::graph::cuda {
namespace {

constexpr NodeId kParentUnset = 0x7fffffff;

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
    keys[sources[i]] = make_key(0.0f, 0);
  }
}

// What the finishing kernels need for query blockIdx.y of a batch.
struct Finish {
  const RowOffset* row_offsets;
  const ColumnIndex* heads;
  const Weight* weights;
  NodeId nodes;
  const Key* keys;                // K * n
  const Weight* node_costs;
  const long long* cost_offsets;  // K; -1: no cost
  NodeId* parent;                 // K * n, or nullptr
  Weight* distance;               // K * n
};

__device__ inline const Weight* cost_of(const Finish& f, unsigned q) {
  return f.cost_offsets[q] >= 0 ? f.node_costs + f.cost_offsets[q] : nullptr;
}

__global__ void fill_parents(Finish f) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.y) * f.nodes;
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < f.nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    f.parent[base + v] = kParentUnset;
  }
}

// parent[v] = the smallest u with a tight edge u -> v one hop nearer the sources.
__global__ void tight_parents(Finish f) {
  const unsigned q = blockIdx.y;
  const std::int64_t base = static_cast<std::int64_t>(q) * f.nodes;
  const Weight* cost = cost_of(f, q);
  for (std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; u < f.nodes;
       u += std::int64_t{gridDim.x} * blockDim.x) {
    const Key from = f.keys[base + u];
    if (from == kNoKey) continue;
    for (RowOffset k = f.row_offsets[u]; k < f.row_offsets[u + 1]; ++k) {
      const NodeId v = f.heads[k];
      const Key to = f.keys[base + v];
      if (to == kNoKey || key_hops(to) != key_hops(from) + 1) continue;
      const Weight w = cost == nullptr ? f.weights[k] : f.weights[k] + cost[v];
      if (key_distance(from) + w == key_distance(to)) atomicMin(&f.parent[base + v], static_cast<NodeId>(u));
    }
  }
}

__global__ void keys_to_results(Finish f) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.y) * f.nodes;
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < f.nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    const Key key = f.keys[base + v];
    f.distance[base + v] = key == kNoKey ? __int_as_float(0x7f800000) : key_distance(key);
    if (f.parent != nullptr && f.parent[base + v] == kParentUnset) f.parent[base + v] = kNoParent;
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

struct GraphOnDevice::State {
  explicit State(const CsrMatrix<Weight>& host)
      : csr(host),
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

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>& csr) : state_(std::make_unique<State>(csr)) {}

GraphOnDevice::~GraphOnDevice() = default;

namespace {

std::vector<NodeId> distinct_sources(const SearchSpec& spec) {
  std::vector<NodeId> sources(spec.sources.begin(), spec.sources.end());
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return sources;
}

}  // namespace

// Parents (when asked) and distances for K queries whose keys lie at
// keys + q * n, then the download into results.
void GraphOnDevice::finish(const unsigned long long* keys, const Weight* node_costs, std::span<const long long> cost_offsets,
                           bool parents, std::span<SsspResult> results) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const auto queries = static_cast<unsigned>(results.size());
  const std::size_t n = static_cast<std::size_t>(st.nodes);
  auto offsets = DeviceArray<long long>::from_host(cost_offsets, stream);
  DeviceArray<NodeId> parent(parents ? queries * n : 0);
  DeviceArray<Weight> distance(queries * n);
  const CsrView<Weight> g = st.csr.view();
  Finish f{g.row_offsets, g.col_indices, g.values, st.nodes,        keys,
           node_costs,    offsets.data(), parents ? parent.data() : nullptr, distance.data()};
  const dim3 grid(grid_for(st.nodes), queries);
  if (parents) {
    TRELLIS_LAUNCH(fill_parents, grid, kThreads, 0, stream, f);
    TRELLIS_LAUNCH(tight_parents, grid, kThreads, 0, stream, f);
  }
  TRELLIS_LAUNCH(keys_to_results, grid, kThreads, 0, stream, f);
  for (unsigned q = 0; q < queries; ++q) {
    results[q].distance.resize(n);
    TRELLIS_CUDA_CHECK(cudaMemcpyAsync(results[q].distance.data(), distance.data() + q * n, n * sizeof(Weight),
                                       cudaMemcpyDeviceToHost, stream));
    if (parents) {
      results[q].parent.resize(n);
      TRELLIS_CUDA_CHECK(cudaMemcpyAsync(results[q].parent.data(), parent.data() + q * n, n * sizeof(NodeId),
                                         cudaMemcpyDeviceToHost, stream));
    }
  }
  device::synchronize(stream);
}

void GraphOnDevice::search(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, bool parents,
                           std::span<SsspResult> results) {
  if (searches.empty()) return;
  const bool small = block_keys_fit_shared(state_->nodes);
  if (searches.size() > 1 || (algorithm == SsspAlgorithm::bellman_ford && small)) {
    search_in_blocks(searches, parents, results);
    return;
  }
  for (std::size_t q = 0; q < searches.size(); ++q) search_on_grid(algorithm, delta, searches[q], parents, results[q]);
}

void GraphOnDevice::search_on_grid(SsspAlgorithm algorithm, Weight delta, const SearchSpec& spec, bool parents,
                                   SsspResult& result) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const Workspace work = st.workspace();
  const CsrView<Weight> g = st.csr.view();
  const std::vector<NodeId> sources = distinct_sources(spec);
  const auto source_count = static_cast<unsigned>(sources.size());

  DeviceSearch s{g.row_offsets, g.col_indices, g.values, nullptr, st.nodes, spec.target, st.keys.data()};
  if (!spec.node_cost.empty()) {
    st.node_cost.copy_from_host(spec.node_cost, stream);
    s.node_cost = st.node_cost.data();
  }
  // Sources go straight into the first frontier (queue 0).
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(work.queue[0], sources.data(), sources.size() * sizeof(NodeId),
                                     cudaMemcpyHostToDevice, stream));
  st.stamp.fill_zero(stream);
  st.in_far.fill_zero(stream);
  st.counters.fill_zero(stream);
  st.relaxed.fill_zero(stream);

  st.timer.start(stream);
  TRELLIS_LAUNCH(reset_keys, grid_for(st.nodes), kThreads, 0, stream, st.keys.data(), st.nodes);
  TRELLIS_LAUNCH(set_source_keys, 1, kThreads, 0, stream, st.keys.data(), work.queue[0], source_count);
  switch (algorithm) {
    case SsspAlgorithm::bellman_ford: run_bellman_ford(s, work, source_count, stream); break;
    case SsspAlgorithm::delta_stepping: run_delta_stepping(s, work, source_count, delta, stream); break;
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
    default: throw UsageError("the cuda backend has no " + std::string(to_string(algorithm)));
  }
  st.timer.stop(stream);

  unsigned long long relaxed = 0;
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(&relaxed, st.relaxed.data(), sizeof relaxed, cudaMemcpyDeviceToHost, stream));
  const long long cost_offset = spec.node_cost.empty() ? -1 : 0;
  finish(st.keys.data(), st.node_cost.data(), {&cost_offset, 1}, parents, {&result, 1});
  result.edges_relaxed = static_cast<std::int64_t>(relaxed);
  result.solve_ms = st.timer.elapsed_ms();
}

void GraphOnDevice::search_in_blocks(std::span<const SearchSpec> searches, bool parents,
                                     std::span<SsspResult> results) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const CsrView<Weight> g = st.csr.view();
  const auto queries = static_cast<unsigned>(searches.size());
  const std::size_t n = static_cast<std::size_t>(st.nodes);

  std::vector<NodeId> sources;
  std::vector<unsigned> source_offsets{0};
  std::vector<NodeId> targets;
  std::vector<Weight> costs;
  std::vector<long long> cost_offsets;
  for (const SearchSpec& spec : searches) {
    for (NodeId s : distinct_sources(spec)) sources.push_back(s);
    source_offsets.push_back(static_cast<unsigned>(sources.size()));
    targets.push_back(spec.target);
    if (spec.node_cost.empty()) {
      cost_offsets.push_back(-1);
    } else {
      cost_offsets.push_back(static_cast<long long>(costs.size()));
      costs.insert(costs.end(), spec.node_cost.begin(), spec.node_cost.end());
    }
  }
  auto d_sources = DeviceArray<NodeId>::from_host(sources, stream);
  auto d_source_offsets = DeviceArray<unsigned>::from_host(source_offsets, stream);
  auto d_targets = DeviceArray<NodeId>::from_host(targets, stream);
  auto d_costs = DeviceArray<Weight>::from_host(costs, stream);
  auto d_cost_offsets = DeviceArray<long long>::from_host(cost_offsets, stream);
  DeviceArray<Key> keys(queries * n);
  const bool in_shared = block_keys_fit_shared(st.nodes);
  DeviceArray<unsigned> bits(in_shared ? 0 : queries * 2 * ((n + 31) / 32));
  DeviceArray<unsigned long long> relaxed(queries);
  relaxed.fill_zero(stream);

  BlockBatch batch{g.row_offsets,       g.col_indices,         g.values,         st.nodes,
                   d_sources.data(),    d_source_offsets.data(), d_targets.data(), d_costs.data(),
                   d_cost_offsets.data(), keys.data(),          bits.data(),      relaxed.data()};
  st.timer.start(stream);
  run_block_batch(batch, queries, stream);
  st.timer.stop(stream);
  std::vector<unsigned long long> relaxed_host = relaxed.to_host(stream);
  finish(keys.data(), d_costs.data(), cost_offsets, parents, results);
  const double ms = st.timer.elapsed_ms();
  for (unsigned q = 0; q < queries; ++q) {
    results[q].edges_relaxed = static_cast<std::int64_t>(relaxed_host[q]);
    results[q].solve_ms = ms / queries;  // a batch shares one launch: its time split evenly
  }
}

}  // namespace trellis::graph::cuda
