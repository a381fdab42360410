// The terms the norm kernels sum or compare, shared by host and device code
// so every backend evaluates the same expression per node. A node's weight is
// the product of one weight per axis, indexed by the node's index along that
// axis; pointers live in the backend's memory space like every kernel argument.
#pragma once

#include <cstdint>

#if !defined(TRELLIS_HOST_DEVICE)
#if defined(__CUDACC__)
#define TRELLIS_HOST_DEVICE __host__ __device__
#else
#define TRELLIS_HOST_DEVICE
#endif
#endif

namespace trellis::grid {

template <typename T>
struct NodeWeights {
  // axis_weights[a][i] for 0 <= i < extents[a]; nullptr for an axis beyond
  // the mesh's dimension (weight 1, extent 1).
  const T* axis_weights[3] = {nullptr, nullptr, nullptr};
  std::int32_t extents[3] = {1, 1, 1};
  std::int32_t nodes = 0;
  // Nodes whose index along this axis is 0 are left out of the sum (the
  // staggered inner products start at index 1); -1 leaves none out.
  int excluded_first_axis = -1;
};

// weight(node) * u[node] * v[node] in double; 0 for a left-out node.
template <typename T>
TRELLIS_HOST_DEVICE inline double weighted_product(const NodeWeights<T>& w, const T* u, const T* v, std::int32_t node) {
  const std::int32_t index[3] = {node % w.extents[0], (node / w.extents[0]) % w.extents[1],
                                 node / (w.extents[0] * w.extents[1])};
  if (w.excluded_first_axis >= 0 && index[w.excluded_first_axis] == 0) return 0.0;
  double weight = 1.0;
  for (int a = 0; a < 3; ++a) {
    if (w.axis_weights[a] != nullptr) weight *= static_cast<double>(w.axis_weights[a][index[a]]);
  }
  return weight * static_cast<double>(u[node]) * static_cast<double>(v[node]);
}

// The larger of two magnitudes, NaN when either is NaN (in any order, so a
// reduction tree of any shape gives the same answer).
TRELLIS_HOST_DEVICE inline double larger_magnitude(double a, double b) { return (a != a || a > b) ? a : b; }

}  // namespace trellis::grid
