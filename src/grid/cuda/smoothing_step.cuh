// The smoothing step at one entry on the device, rounded as the host's
// detail::smoothing_entry (multigrid_rows.hpp) rounds it, without fused
// multiply-adds: the new direction alpha d + beta D^-1 r; x then adds it.
// With alpha 0 the old d is not read (previous_direction), as on the host.
#pragma once

#include "rounding.cuh"

namespace trellis::grid::cuda {

template <typename T>
__device__ __forceinline__ T previous_direction(T alpha, const T* d, std::int64_t row) {
  return alpha == T(0) ? T(0) : d[row];
}

template <typename T>
__device__ __forceinline__ T smoothing_direction(T alpha, T d, T beta, T inverse_diagonal, T r) {
  return add_rn(mul_rn(alpha, d), mul_rn(beta, mul_rn(inverse_diagonal, r)));
}

}  // namespace trellis::grid::cuda
