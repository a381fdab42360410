// The grid module's vulkan kernels (src/grid/vulkan/), on host data: each
// call uploads what it reads, runs on the process's Vulkan device and
// downloads what it writes. fp64 needs shaderFloat64 on the device; without
// it, and in a build without Vulkan, they throw BackendUnavailable.
#pragma once

#include <span>

#include "../form_kernels.hpp"
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

// y = A x for a separable form (form.separable usable; BackendUnavailable
// otherwise), from host data.
#define TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE(T) \
  void matrix_free_apply(const ::trellis::grid::detail::FormView<T>& form, const T* x, T* y)

// The CG above on a separable form's matrix-free apply: the form, its
// coefficients and the vectors uploaded once.
#define TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE_CG(T)                                                 \
  ::trellis::grid::SolveResult cg(const ::trellis::grid::detail::FormView<T>& form, const T* b, T* x, \
                                  std::span<const T> diagonal, bool diagonal_usable,                  \
                                  const ::trellis::grid::SolverOptions& options)

TRELLIS_GRID_DECLARE_VULKAN_SPMV(float);
TRELLIS_GRID_DECLARE_VULKAN_SPMV(double);
TRELLIS_GRID_DECLARE_VULKAN_CG(float);
TRELLIS_GRID_DECLARE_VULKAN_CG(double);
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE(float);
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE(double);
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE_CG(float);
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE_CG(double);

}  // namespace trellis::grid::vulkan
