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

// parent[v] = the smallest u with a tight edge u -> v one hop nearer the sources.
__global__ void tight_parents(DeviceSearch s, NodeId* parent) {
  for (std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; u < s.nodes;
       u += std::int64_t{gridDim.x} * blockDim.x) {
    const Key from = s.keys[u];
    if (from == kNoKey) continue;
    for (RowOffset k = s.row_offsets[u]; k < s.row_offsets[u + 1]; ++k) {
      const NodeId v = s.heads[k];
      const Key to = s.keys[v];
      if (to == kNoKey || key_hops(to) != key_hops(from) + 1) continue;
      if (key_distance(from) + edge_weight(s, k, v) == key_distance(to)) atomicMin(&parent[v], static_cast<NodeId>(u));
    }
  }
}

__global__ void keys_to_results(const Key* keys, NodeId nodes, Weight* distance, NodeId* parent) {
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    distance[v] = keys[v] == kNoKey ? __int_as_float(0x7f800000) : key_distance(keys[v]);
    if (parent != nullptr && parent[v] == kParentUnset) parent[v] = kNoParent;
  }
}

__global__ void fill_parents(NodeId* parent, NodeId nodes) {
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    parent[v] = kParentUnset;
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
  return per_multiprocessor * multiprocessors;
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
        distance(static_cast<std::size_t>(nodes)),
        ring(ring_capacity_for(nodes)) {}

  static std::size_t ring_capacity_for(NodeId nodes) {
    std::size_t capacity = 1;
    while (capacity < static_cast<std::size_t>(nodes) + 1) capacity <<= 1;
    return capacity;
  }

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
  DeviceArray<unsigned long long> ring;
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
            ring.data(),
            static_cast<unsigned>(ring.size())};
  }
};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>& csr) : state_(std::make_unique<State>(csr)) {}

GraphOnDevice::~GraphOnDevice() = default;

void GraphOnDevice::search(SsspAlgorithm algorithm, Weight delta, std::span<const SearchSpec> searches, bool parents,
                           std::span<SsspResult> results) {
  State& st = *state_;
  const Stream stream = st.stream.get();
  const Workspace work = st.workspace();
  const auto n = static_cast<std::size_t>(st.nodes);
  const CsrView<Weight> g = st.csr.view();
  for (std::size_t q = 0; q < searches.size(); ++q) {
    const SearchSpec& spec = searches[q];
    std::vector<NodeId> sources(spec.sources.begin(), spec.sources.end());
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
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
      case SsspAlgorithm::spfa: run_spfa(s, work, source_count, stream); break;
      default: throw UsageError("the cuda backend has no " + std::string(to_string(algorithm)));
    }
    st.timer.stop(stream);

    NodeId* parent = nullptr;
    if (parents) {
      parent = st.parent.data();
      TRELLIS_LAUNCH(fill_parents, grid_for(st.nodes), kThreads, 0, stream, parent, st.nodes);
      TRELLIS_LAUNCH(tight_parents, grid_for(st.nodes), kThreads, 0, stream, s, parent);
    }
    TRELLIS_LAUNCH(keys_to_results, grid_for(st.nodes), kThreads, 0, stream, st.keys.data(), st.nodes,
                   st.distance.data(), parent);

    SsspResult& result = results[q];
    result.distance.resize(n);
    st.distance.copy_to_host(result.distance, stream);
    if (parents) {
      result.parent.resize(n);
      st.parent.copy_to_host(result.parent, stream);
    }
    unsigned long long relaxed = 0;
    TRELLIS_CUDA_CHECK(cudaMemcpyAsync(&relaxed, st.relaxed.data(), sizeof relaxed, cudaMemcpyDeviceToHost, stream));
    device::synchronize(stream);
    result.edges_relaxed = static_cast<std::int64_t>(relaxed);
    result.solve_ms = st.timer.elapsed_ms();
  }
}

}  // namespace trellis::graph::cuda
