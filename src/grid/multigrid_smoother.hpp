// The smoother's steps, computed once per level: after each residual
// r = b - A x, d = alpha d + beta D^-1 r and x += d. The host and device
// cycles both take their coefficients from here, so they step alike.
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/grid/multigrid.hpp"

namespace trellis::grid::detail {

struct SmoothingStep {
  double alpha;
  double beta;
};

// Weighted Jacobi: smoothing_steps sweeps of (0, weight). Chebyshev on
// [lower, upper] * lambda_max (Saad, Iterative Methods, alg. 12.1).
inline std::vector<SmoothingStep> smoothing_schedule(const MultigridOptions& options, double lambda_max) {
  std::vector<SmoothingStep> steps;
  if (options.smoother == Smoother::jacobi) {
    steps.assign(static_cast<std::size_t>(options.smoothing_steps), SmoothingStep{0.0, options.jacobi_weight});
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
