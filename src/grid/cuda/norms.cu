// Weighted sums and maxima on the GPU, deterministic: a fixed two-pass block
// reduction. Pass one runs a number of blocks that depends on the node count
// only; each thread accumulates its grid-stride share in double and the block
// reduces it (cub::BlockReduce, a fixed tree). Pass two reduces the per-block
// partials in one block. No floating-point atomics, so every run on every
// device gives the same bits. The result is copied back to the host.
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "../kernels.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device_array.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxPartials = 1024;  // pass-one blocks at most; pass two reduces them in one block
constexpr int kFinalThreads = kMaxPartials;

struct Sum {
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};
struct LargerMagnitude {
  __device__ __forceinline__ double operator()(double a, double b) const { return larger_magnitude(a, b); }
};

template <typename T>
struct WeightedProductAt {
  NodeWeights<T> weights;
  const T* u;
  const T* v;
  __device__ __forceinline__ double operator()(std::int32_t node) const {
    return weighted_product(weights, u, v, node);
  }
};

template <typename T>
struct MagnitudeAt {
  const T* u;
  __device__ __forceinline__ double operator()(std::int32_t node) const { return fabs(static_cast<double>(u[node])); }
};

template <typename Term, typename Combine>
__global__ void __launch_bounds__(kThreads)
    reduce_partials(Term term, Combine combine, const std::int32_t* __restrict__ nodes, std::int32_t count,
                    double* __restrict__ partials) {
  using BlockReduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  double value = 0;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < count; k += step) {
    const auto item = static_cast<std::int32_t>(k);
    value = combine(value, term(nodes != nullptr ? nodes[item] : item));
  }
  const double block_value = BlockReduce(scratch).Reduce(value, combine);
  if (threadIdx.x == 0) partials[blockIdx.x] = block_value;
}

template <typename Combine>
__global__ void __launch_bounds__(kFinalThreads)
    reduce_final(Combine combine, const double* __restrict__ partials, int count, double* __restrict__ result) {
  using BlockReduce = cub::BlockReduce<double, kFinalThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const double value = static_cast<int>(threadIdx.x) < count ? partials[threadIdx.x] : 0.0;
  const double total = BlockReduce(scratch).Reduce(value, combine);
  if (threadIdx.x == 0) *result = total;
}

// Both reductions start from 0 (the sum's identity, and the smallest magnitude).
template <typename Term, typename Combine>
double reduce(Term term, Combine combine, const std::int32_t* nodes, std::int32_t count, Stream stream) {
  if (count <= 0) return 0.0;
  const std::int64_t wanted = (static_cast<std::int64_t>(count) + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < kMaxPartials ? wanted : kMaxPartials);
  DeviceArray<double> scratch(static_cast<std::size_t>(blocks) + 1);  // partials, then the result
  double* partials = scratch.data();
  double* result = scratch.data() + blocks;
  TRELLIS_LAUNCH((reduce_partials<Term, Combine>), blocks, kThreads, 0, stream, term, combine, nodes, count, partials);
  TRELLIS_LAUNCH(reduce_final<Combine>, 1, kFinalThreads, 0, stream, combine, partials, blocks, result);
  double host_result = 0;
  device::copy_to_host(&host_result, result, sizeof(double), stream);
  device::synchronize(stream);
  return host_result;
}

template <typename T>
double weighted_dot_any(const NodeWeights<T>& weights, const T* u, const T* v, const std::int32_t* nodes,
                        std::int32_t count, Stream stream) {
  return reduce(WeightedProductAt<T>{weights, u, v}, Sum{}, nodes, count, stream);
}

template <typename T>
double max_abs_any(const T* u, const std::int32_t* nodes, std::int32_t count, Stream stream) {
  return reduce(MagnitudeAt<T>{u}, LargerMagnitude{}, nodes, count, stream);
}

}  // namespace

double weighted_dot(const NodeWeights<float>& weights, const float* u, const float* v, const std::int32_t* nodes,
                    std::int32_t count, Stream stream) {
  return weighted_dot_any(weights, u, v, nodes, count, stream);
}
double weighted_dot(const NodeWeights<double>& weights, const double* u, const double* v, const std::int32_t* nodes,
                    std::int32_t count, Stream stream) {
  return weighted_dot_any(weights, u, v, nodes, count, stream);
}
double max_abs(const float* u, const std::int32_t* nodes, std::int32_t count, Stream stream) {
  return max_abs_any(u, nodes, count, stream);
}
double max_abs(const double* u, const std::int32_t* nodes, std::int32_t count, Stream stream) {
  return max_abs_any(u, nodes, count, stream);
}

}  // namespace trellis::grid::cuda
