// What the Krylov drivers share: the decision before the first iteration,
// and preconditioned CG's steps and stopping rules over any vector backend
// (the host drivers in solvers.cpp and the vulkan CG run them; the cuda
// drivers take the same decisions on the device).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "trellis/grid/solvers.hpp"

namespace trellis::grid {

// From sums = {r.r, r.z, b.b} of the initial residual r = b - A x0 (z =
// D^-1 r): fills the result's norms and the convergence threshold, and
// returns why to stop, if it should.
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

// After iteration k with recurrence residual `residual`, when the solve goes
// on: SolverOptions::progress every check_every iterations; interrupted when
// it returns false.
inline std::optional<SolverStop> progress_stop(std::int32_t k, double residual, const SolverOptions& options) {
  if (!options.progress || k % options.check_every != 0) return std::nullopt;
  if (options.progress(k, residual)) return std::nullopt;
  return SolverStop::interrupted;
}

// Preconditioned CG (Saad, Iterative Methods, alg. 9.1) with z = D^-1 r never
// stored, on vectors r, p, q and x that steps owns:
//   initial(sums)             r = b - A x, p = z; sums = {r.r, r.z, b.b}
//   direction_dot()           q = A p; returns p.q
//   update_residual(a, sums)  r -= a q; sums = {r.r, r.z}
//   axpy(a)                   x += a p
//   step(a, beta)             x += a p, then p = z + beta p
//   finish(stop)              x = 0 when stop is zero_rhs; returns ||b - A x||
// Dots come back in double. Fills everything in the result but
// stopped_because.
template <typename Steps>
SolveResult run_cg(Steps& steps, bool preconditioner_usable, const SolverOptions& options) {
  SolveResult result;
  double sums[3];
  steps.initial(sums);
  double threshold = 0;
  std::optional<SolverStop> stop = check_start(sums, preconditioner_usable, options, result, threshold);
  double rho = sums[1];
  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    const double pq = steps.direction_dot();
    if (!std::isfinite(pq))
      stop = SolverStop::non_finite_residual;
    else if (!(pq > 0))
      stop = SolverStop::not_positive_definite;
    if (stop) break;
    const double alpha = rho / pq;
    if (!std::isfinite(alpha)) {
      stop = SolverStop::non_finite_residual;
      break;
    }
    double updated[2];
    steps.update_residual(alpha, updated);
    const double residual = std::sqrt(updated[0]);
    result.iterations = k;
    result.residual_history.push_back(residual);
    if (!std::isfinite(updated[0]) || !std::isfinite(updated[1]))
      stop = SolverStop::non_finite_residual;
    else if (residual <= threshold)
      stop = SolverStop::converged;
    else if (updated[1] == 0)
      stop = SolverStop::rho_breakdown;
    else
      stop = progress_stop(k, residual, options);
    if (stop) {
      steps.axpy(alpha);  // x catches up with r
      break;
    }
    const double beta = updated[1] / rho;
    rho = updated[1];
    steps.step(alpha, beta);
  }
  result.stop = stop.value_or(SolverStop::max_iterations);
  result.final_residual = steps.finish(result.stop);
  result.converged = result.stop == SolverStop::converged || result.stop == SolverStop::zero_rhs;
  return result;
}

namespace detail {

// What every vulkan CG entry does around the solve itself (solvers.cpp): the
// size and option checks, the system without unknowns, and stopped_because.
// solve gets whether every diagonal entry is finite and non-zero.
template <typename T>
SolveResult vulkan_cg_frame(std::int32_t size, std::size_t b_size, std::size_t x_size, std::span<const T> diagonal,
                            const SolverOptions& options,
                            const std::function<SolveResult(bool diagonal_usable)>& solve);

}  // namespace detail

}  // namespace trellis::grid
