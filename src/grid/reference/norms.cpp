// Weighted sums and maxima node by node, in node-list order. The oracle.
#include <cmath>

#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
double weighted_dot_nodes(const NodeWeights<T>& weights, const T* u, const T* v, const std::int32_t* nodes,
                          std::int32_t count) {
  double sum = 0;
  for (std::int32_t k = 0; k < count; ++k) sum += weighted_product(weights, u, v, nodes != nullptr ? nodes[k] : k);
  return sum;
}

template <typename T>
double max_abs_nodes(const T* u, const std::int32_t* nodes, std::int32_t count) {
  double largest = 0;
  for (std::int32_t k = 0; k < count; ++k) {
    largest = larger_magnitude(largest, std::abs(static_cast<double>(u[nodes != nullptr ? nodes[k] : k])));
  }
  return largest;
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

}  // namespace trellis::grid::reference
