// The grid module's vulkan kernels (src/grid/vulkan/), on host data: each
// call uploads what it reads, runs on the process's Vulkan device and
// downloads what it writes. fp64 needs shaderFloat64 on the device; without
// it, and in a build without Vulkan, they throw BackendUnavailable.
#pragma once

#include <span>

#include "trellis/core/csr.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid::vulkan {

// y = alpha * A * x + beta * y, y unread when beta is 0.
#define TRELLIS_GRID_DECLARE_VULKAN_SPMV(T) void spmv(T alpha, const ::trellis::CsrView<T>& a, const T* x, T beta, T* y)

// Preconditioned CG on A (square) from x's initial guess, the host drivers'
// steps and stopping rules (krylov_steps.hpp, run_cg) with the vectors on
// the device and the scalars' partial sums added on the host in double.
// diagonal is A's diagonal for Jacobi, empty for none; diagonal_usable says
// whether every entry is finite and non-zero. stop is filled,
// stopped_because is left to the caller.
#define TRELLIS_GRID_DECLARE_VULKAN_CG(T)                                                                        \
  ::trellis::grid::SolveResult cg(const ::trellis::CsrView<T>& a, const T* b, T* x, std::span<const T> diagonal, \
                                  bool diagonal_usable, const ::trellis::grid::SolverOptions& options)

TRELLIS_GRID_DECLARE_VULKAN_SPMV(float);
TRELLIS_GRID_DECLARE_VULKAN_SPMV(double);
TRELLIS_GRID_DECLARE_VULKAN_CG(float);
TRELLIS_GRID_DECLARE_VULKAN_CG(double);

}  // namespace trellis::grid::vulkan
