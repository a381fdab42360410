// The decision every Krylov driver makes before its first iteration, from
// sums = {r.r, r.z, b.b} of the initial residual r = b - A x0 (z = D^-1 r):
// fills the result's norms and the convergence threshold, and returns why to
// stop, if it should. The host drivers (solvers.cpp) and the vulkan CG share
// it; the cuda drivers make the same decision on the device.
#pragma once

#include <cmath>
#include <optional>

#include "trellis/grid/solvers.hpp"

namespace trellis::grid {

inline std::optional<SolverStop> check_start(const double* sums, bool preconditioner_usable,
                                             const SolverOptions& options, SolveResult& result, double& threshold) {
  const double rr = sums[0];
  const double rz = sums[1];
  const double bb = sums[2];
  result.rhs_norm = std::sqrt(bb);
  result.initial_residual = std::sqrt(rr);
  result.residual_history = {result.initial_residual};
  threshold = options.relative_tolerance * result.rhs_norm;
  if (!std::isfinite(bb)) return SolverStop::non_finite_input;
  if (!preconditioner_usable) return SolverStop::unusable_preconditioner;
  if (bb == 0) return SolverStop::zero_rhs;
  if (!std::isfinite(rr) || !std::isfinite(rz)) return SolverStop::non_finite_input;
  if (result.initial_residual <= threshold) return SolverStop::converged;
  if (rz == 0) return SolverStop::rho_breakdown;
  return std::nullopt;
}

}  // namespace trellis::grid
