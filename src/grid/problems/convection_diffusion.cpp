// -Lap u + b . grad u = f on [0,1]^d, u = exp(x + y + z), b = (1, -1/2, 1/4):
// diffusion inner_plus(grad- u, grad- v), convection by central differences
// (the mean of D- and D+ along each axis, weighted by inner_h), right-hand
// side inner_h(avg_h f, v). The matrix is not symmetric: BiCGStab with Jacobi.
#include <array>
#include <memory>

#include "linear_solve.hpp"
#include "study.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {

ConvergenceStudy convection_diffusion_study(const ProblemOptions& options) {
  detail::check_options(options);
  ConvergenceStudy study;
  study.problem = "convection-diffusion";
  study.backend = resolve(options.backend);
  const int dim = options.dim;
  constexpr std::array<double, 3> b = {1.0, -0.5, 0.25};
  TrialFunction u;
  TestFunction v;
  BilinearForm a = inner_plus(grad_minus(u), grad_minus(v));
  double b_sum = 0;
  for (int axis = 0; axis < dim; ++axis) {
    const double b_axis = b[static_cast<std::size_t>(axis)];
    a = a + inner_h((b_axis / 2) * backward_difference(axis)(u), v) + inner_h((b_axis / 2) * forward_difference(axis)(u), v);
    b_sum += b_axis;
  }
  const LinearForm l = inner_h(Coefficient{0}, v);
  // -Lap u = -d u and b . grad u = (sum of b) u for u = exp(x + y + z).
  const double f_factor = -dim + b_sum;
  for (int level = 0; level < options.levels; ++level) {
    auto mesh = std::make_shared<const Mesh>(study_mesh(options, level));
    const auto exact_values = restrict_to_nodes(mesh, [dim](const Point& x) { return detail::exponential(x, dim); });
    const auto f = detail::project_rhs(options, mesh, [dim, f_factor](const Point& x) { return f_factor * detail::exponential(x, dim); });
    const std::vector<double> exact(exact_values.values().begin(), exact_values.values().end());

    ConvergenceRow row;
    row.cells = options.cells << level;
    SteadyTimer setup;
    detail::FormSolver solver(*mesh, a, l, {boundary_marker(*mesh)}, detail::Krylov::bicgstab, options.matrix_free,
                              study.backend);
    row.setup_seconds = setup.elapsed_ms() / 1000;

    Coefficients<double> coefficients(*mesh, 1);
    coefficients.set(0, std::span<const double>(f));
    std::vector<double> x(exact.size(), 0.0);
    SteadyTimer solve;
    const SolveResult result = solver.solve(coefficients, exact, x, options.tolerance);
    row.solve_seconds = solve.elapsed_ms() / 1000;
    row.iterations = result.iterations;
    detail::measure_error(*mesh, exact, x, row);
    study.rows.push_back(row);
    if (level + 1 == options.levels) {
      study.solution = std::move(x);
      study.exact = exact;
      study.finest_axes = mesh->axes();
    }
  }
  detail::finish_study(study);
  return study;
}

}  // namespace trellis::grid
