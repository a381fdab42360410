// The smoother's steps, computed once per level: after each residual
// r = b - A x, d = alpha d + beta D^-1 r and x += d. The host and device
// cycles both take their coefficients from here, so they step alike.
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/grid/multigrid.hpp"

#if defined(__CUDACC__)
#define TRELLIS_HOST_DEVICE __host__ __device__
#else
#define TRELLIS_HOST_DEVICE
#endif

namespace trellis::grid::detail {

// The eigenvalue estimate's start vector: entry i is 2u - 1, u from the
// state of a 64-bit linear congruential generator after i + 1 steps (zero on
// constrained rows).
inline constexpr std::uint64_t kLanczosSeed = 0x9e3779b97f4a7c15ull;
inline constexpr std::uint64_t kLanczosMultiplier = 6364136223846793005ull;
inline constexpr std::uint64_t kLanczosIncrement = 1442695040888963407ull;

TRELLIS_HOST_DEVICE inline std::uint64_t lanczos_next(std::uint64_t state) {
  return state * kLanczosMultiplier + kLanczosIncrement;
}

// `steps` steps of the generator composed, x -> multiplier x + increment.
struct LanczosJump {
  std::uint64_t multiplier = 1;
  std::uint64_t increment = 0;
  TRELLIS_HOST_DEVICE std::uint64_t operator()(std::uint64_t state) const { return multiplier * state + increment; }
};

// The jump of `steps` steps, in log2(steps) squarings.
TRELLIS_HOST_DEVICE inline LanczosJump lanczos_jump(std::uint64_t steps) {
  LanczosJump jump;
  std::uint64_t step_multiplier = kLanczosMultiplier, step_increment = kLanczosIncrement;
  while (steps > 0) {
    if (steps & 1) {
      jump.multiplier *= step_multiplier;
      jump.increment = jump.increment * step_multiplier + step_increment;
    }
    step_increment = (step_multiplier + 1) * step_increment;
    step_multiplier *= step_multiplier;
    steps >>= 1;
  }
  return jump;
}

// The state after `steps` steps from the seed (so each device thread finds
// its own entry).
TRELLIS_HOST_DEVICE inline std::uint64_t lanczos_state_after(std::uint64_t steps) {
  return lanczos_jump(steps)(kLanczosSeed);
}

TRELLIS_HOST_DEVICE inline double lanczos_start_value(std::uint64_t state) {
  const double u = static_cast<double>(state >> 11) * 0x1.0p-53;
  return 2 * u - 1;
}

struct SmoothingStep {
  double alpha;
  double beta;
};

// Weighted Jacobi: smoothing_steps sweeps of (0, weight); line relaxation
// and multicolour Gauss-Seidel the same with their weights (a sweep over
// every axis or every colour each). Chebyshev on
// [lower, upper] * lambda_max (Saad, Iterative Methods, alg. 12.1).
inline std::vector<SmoothingStep> smoothing_schedule(const MultigridOptions& options, double lambda_max) {
  std::vector<SmoothingStep> steps;
  if (options.smoother != Smoother::chebyshev) {
    const double weight = options.smoother == Smoother::jacobi ? options.jacobi_weight
                          : options.smoother == Smoother::line ? options.line_weight
                                                               : options.gauss_seidel_weight;
    steps.assign(static_cast<std::size_t>(options.smoothing_steps), SmoothingStep{0.0, weight});
    return steps;
  }
  const double upper = options.chebyshev_upper * lambda_max;
  const double lower = options.chebyshev_lower * lambda_max;
  const double theta = (upper + lower) / 2;
  const double delta = (upper - lower) / 2;
  const double sigma = theta / delta;
  double rho = 1 / sigma;
  steps.push_back({0.0, 1 / theta});
  for (std::int32_t k = 1; k < options.smoothing_steps; ++k) {
    const double rho_next = 1 / (2 * sigma - rho);
    steps.push_back({rho_next * rho, 2 * rho_next / delta});
    rho = rho_next;
  }
  return steps;
}

}  // namespace trellis::grid::detail
