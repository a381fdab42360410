// Searches solved inside one thread block each: a frontier Bellman-Ford
// whose iterations are separated by __syncthreads (tens of nanoseconds)
// instead of a grid-wide barrier (about a microsecond), with the keys and the
// frontier bitmaps in shared memory when the graph fits. Small graphs are
// pure latency, so one block beats the whole device there; a batch of K
// searches runs as K blocks in one launch.
#include "../kernels.hpp"
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

constexpr int kBlockThreads = 1024;

std::size_t shared_bytes_for(NodeId nodes) {
  const std::size_t words = (static_cast<std::size_t>(nodes) + 31) / 32;
  return static_cast<std::size_t>(nodes) * sizeof(Key) + 2 * words * sizeof(unsigned);
}

template <bool kSharedKeys>
__global__ void __launch_bounds__(kBlockThreads) block_bellman_ford(BlockBatch b) {
  extern __shared__ Key shared[];
  const unsigned q = blockIdx.x;
  const std::int64_t n = b.nodes;
  const std::int64_t words = (n + 31) / 32;
  Key* keys = kSharedKeys ? shared : b.keys + q * n;
  unsigned* current = kSharedKeys ? reinterpret_cast<unsigned*>(shared + n) : b.frontier_bits + q * 2 * words;
  unsigned* next = current + words;

  for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) keys[v] = kNoKey;
  for (std::int64_t w = threadIdx.x; w < 2 * words; w += blockDim.x) current[w] = 0;
  __syncthreads();
  for (unsigned i = b.source_offsets[q] + threadIdx.x; i < b.source_offsets[q + 1]; i += blockDim.x) {
    const NodeId s = b.sources[i];
    keys[s] = make_key(0.0f);
    atomicOr(&current[s >> 5], 1u << (s & 31));
  }
  __syncthreads();

  const NodeId target = b.targets[q];
  const Weight* cost = b.cost_offsets[q] >= 0 ? b.node_costs + b.cost_offsets[q] : nullptr;
  unsigned long long relaxed = 0;
  while (true) {
    const Weight bound = target >= 0 ? key_distance(kSharedKeys ? keys[target] : load_key(&keys[target]))
                                     : __int_as_float(0x7f800000);
    bool improved = false;
    for (std::int64_t w = threadIdx.x; w < words; w += blockDim.x) {
      // Global bitmaps change under other threads' atomics: read them from L2.
      unsigned bits = kSharedKeys ? current[w] : __ldcg(&current[w]);
      if (bits == 0) continue;
      current[w] = 0;
      while (bits != 0) {
        const NodeId u = static_cast<NodeId>(w * 32 + __ffs(bits) - 1);
        bits &= bits - 1;
        const Key from = kSharedKeys ? keys[u] : load_key(&keys[u]);
        for (RowOffset k = b.row_offsets[u]; k < b.row_offsets[u + 1]; ++k) {
          const NodeId v = __ldg(&b.heads[k]);
          const Weight w_uv = __ldg(&b.weights[k]);
          const Weight candidate = key_distance(from) + (cost == nullptr ? w_uv : w_uv + __ldg(&cost[v]));
          ++relaxed;
          if (candidate > bound) continue;
          const Key key = make_key(candidate);
          const Key old = kSharedKeys ? keys[v] : load_key(&keys[v]);
          if (key < old && atomicMin(&keys[v], key) > key) {
            atomicOr(&next[v >> 5], 1u << (v & 31));
            improved = true;
          }
        }
      }
    }
    if (__syncthreads_or(improved) == 0) break;
    unsigned* swap = current;
    current = next;
    next = swap;
  }

  if (kSharedKeys) {
    for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) b.keys[q * n + v] = keys[v];
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) relaxed += __shfl_down_sync(0xffffffffu, relaxed, offset);
  if (threadIdx.x % kWarp == 0) atomicAdd(&b.relaxed[q], relaxed);
}

}  // namespace

bool block_keys_fit_shared(NodeId nodes) {
  int device = 0;
  int optin = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&device));
  TRELLIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return shared_bytes_for(nodes) <= static_cast<std::size_t>(optin);
}

bool fits_one_block(NodeId nodes) { return block_keys_fit_shared(nodes); }

void run_block_batch(const BlockBatch& batch, unsigned queries, Stream stream) {
  if (queries == 0) return;
  if (block_keys_fit_shared(batch.nodes)) {
    const std::size_t bytes = shared_bytes_for(batch.nodes);
    TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(block_bellman_ford<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
    TRELLIS_LAUNCH(block_bellman_ford<true>, queries, kBlockThreads, bytes, stream, batch);
  } else {
    TRELLIS_LAUNCH(block_bellman_ford<false>, queries, kBlockThreads, 0, stream, batch);
  }
}

}  // namespace trellis::graph::cuda
