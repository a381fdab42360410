// Weighted sums and maxima with OpenMP. The nodes are cut into fixed chunks
// whose partial results are combined in chunk order, so the result depends
// on the input only, not on the number of threads.
#include <cmath>
#include <cstdint>
#include <vector>

#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

constexpr std::int32_t kChunk = 8192;

template <typename PerChunk, typename Combine>
double reduce_chunks(std::int32_t count, PerChunk per_chunk, Combine combine) {
  const auto chunks = static_cast<std::int32_t>((static_cast<std::int64_t>(count) + kChunk - 1) / kChunk);
  std::vector<double> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
  for (std::int32_t c = 0; c < chunks; ++c) {
    const std::int32_t first = c * kChunk;
    const std::int32_t last = count - first < kChunk ? count : first + kChunk;
    partial[static_cast<std::size_t>(c)] = per_chunk(first, last);
  }
  double result = 0;
  for (double p : partial) result = combine(result, p);
  return result;
}

template <typename T>
double weighted_dot_nodes(const NodeWeights<T>& weights, const T* u, const T* v, const std::int32_t* nodes,
                          std::int32_t count) {
  return reduce_chunks(
      count,
      [&](std::int32_t first, std::int32_t last) {
        double sum = 0;
        for (std::int32_t k = first; k < last; ++k) {
          sum += weighted_product(weights, u, v, nodes != nullptr ? nodes[k] : k);
        }
        return sum;
      },
      [](double a, double b) { return a + b; });
}

template <typename T>
double max_abs_nodes(const T* u, const std::int32_t* nodes, std::int32_t count) {
  return reduce_chunks(
      count,
      [&](std::int32_t first, std::int32_t last) {
        double largest = 0;
        for (std::int32_t k = first; k < last; ++k) {
          largest = larger_magnitude(largest, std::abs(static_cast<double>(u[nodes != nullptr ? nodes[k] : k])));
        }
        return largest;
      },
      larger_magnitude);
}

}  // namespace

double weighted_dot(const NodeWeights<float>& weights, const float* u, const float* v, const std::int32_t* nodes,
                    std::int32_t count, Stream) {
  return weighted_dot_nodes(weights, u, v, nodes, count);
}
double weighted_dot(const NodeWeights<double>& weights, const double* u, const double* v, const std::int32_t* nodes,
                    std::int32_t count, Stream) {
  return weighted_dot_nodes(weights, u, v, nodes, count);
}
double max_abs(const float* u, const std::int32_t* nodes, std::int32_t count, Stream) {
  return max_abs_nodes(u, nodes, count);
}
double max_abs(const double* u, const std::int32_t* nodes, std::int32_t count, Stream) {
  return max_abs_nodes(u, nodes, count);
}

}  // namespace trellis::grid::cpu
