// The two weights of an elementary operator at index i of its axis, shared by
// host and device code so every backend evaluates the same expression.
// h points at the axis' spacings h_0 .. h_{N+1} (mesh.hpp). The neighbour is
// i - 1 for backward atoms and i + 1 for forward ones.
#pragma once

#include "trellis/grid/operators.hpp"

#if defined(__CUDACC__)
#define TRELLIS_HOST_DEVICE __host__ __device__
#else
#define TRELLIS_HOST_DEVICE
#endif

namespace trellis::grid {

template <typename T>
struct AtomWeights {
  T self;
  T neighbour;
  int offset;  // -1 or +1
};

template <typename T>
TRELLIS_HOST_DEVICE inline AtomWeights<T> atom_weights(AtomKind kind, const T* h, int i) {
  switch (kind) {
    case AtomKind::backward_difference:
      return {T(1) / h[i], T(-1) / h[i], -1};
    case AtomKind::forward_difference:
      return {T(-1) / h[i + 1], T(1) / h[i + 1], +1};
    case AtomKind::backward_jump:
      return {T(1), T(-1), -1};
    case AtomKind::forward_jump:
      return {T(-1), T(1), +1};
    case AtomKind::backward_average:
      return {T(1) / T(2), T(1) / T(2), -1};
    case AtomKind::forward_average:
      return {T(1) / T(2), T(1) / T(2), +1};
    case AtomKind::backward_shift:
      return {T(0), T(1), -1};
    case AtomKind::forward_shift:
      return {T(0), T(1), +1};
  }
  return {T(0), T(0), 0};
}

}  // namespace trellis::grid
