// u_t - k(t) Lap u = f on [0,1]^d x [0, 1/10], u = exp(x + y + z - t),
// k(t) = 1 + sin(10 pi t) / 2, by implicit Euler with dt = h^2 (so the
// first-order time error does not hide the second-order space error):
//   (1/dt) inner_h(u, v) + inner_plus(k grad- u, grad- v)
//       = inner_h(avg_h f, v) + (1/dt) inner_h(u_old, v).
// One setup per mesh; every step refills the matrix with the new k (the
// pattern and tables are reused) and solves with CG, or with multigrid
// whose hierarchy is built at the first step and refilled at the others.
#include <cmath>
#include <memory>
#include <numbers>

#include "linear_solve.hpp"
#include "study.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {

namespace {

constexpr double kFinalTime = 0.1;

double diffusivity(double t) { return 1.0 + 0.5 * std::sin(10 * std::numbers::pi * t); }

}  // namespace

ConvergenceStudy heat_study(const ProblemOptions& options) {
  detail::check_options(options);
  ConvergenceStudy study;
  study.problem = "heat";
  study.backend = detail::study_backend(options);
  const int dim = options.dim;
  TrialFunction u;
  TestFunction v;
  for (int level = 0; level < options.levels; ++level) {
    auto mesh = std::make_shared<const Mesh>(study_mesh(options, level));
    const double h = mesh->max_spacing();
    const auto steps = static_cast<std::int32_t>(std::ceil(kFinalTime / (h * h)));
    const double dt = kFinalTime / steps;
    const BilinearForm a = inner_h((1 / dt) * u, v) + inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v));
    const LinearForm l =
        inner_h(Coefficient{1}, v) + LinearForm({LinearTerm{InnerProduct::h, 0, Operator(), 2, 1 / dt}});

    ConvergenceRow row;
    row.cells = options.cells << level;
    row.steps = steps;
    SteadyTimer setup;
    detail::FormSolver solver(*mesh, a, l, {boundary_marker(*mesh)}, detail::Krylov::cg, options, study.backend);
    row.setup_seconds = setup.elapsed_ms() / 1000;

    auto exact_at = [&](double t) {
      const auto values = restrict_to_nodes(mesh, [dim, t](const Point& x) { return detail::exponential(x, dim, t); });
      return std::vector<double>(values.values().begin(), values.values().end());
    };
    std::vector<double> x = exact_at(0.0);
    Coefficients<double> coefficients(*mesh, 3);
    SteadyTimer solve;
    for (std::int32_t step = 1; step <= steps; ++step) {
      const double t = step * dt;
      const double k = diffusivity(t);
      const auto f = detail::project_rhs(
          options, mesh, [dim, t, k](const Point& p) { return -(1.0 + k * dim) * detail::exponential(p, dim, t); });
      coefficients.set(0, k);
      coefficients.set(1, std::span<const double>(f));
      coefficients.set(2, std::span<const double>(x));
      const SolveResult result = solver.solve(coefficients, exact_at(t), x, options.tolerance);
      row.iterations += result.iterations;
      row.hierarchy_seconds += solver.hierarchy_seconds();
      detail::add_phases(solver.phases(), row.phases);
    }
    row.solve_seconds = solve.elapsed_ms() / 1000;
    const std::vector<double> exact = exact_at(steps * dt);
    detail::measure_error(*mesh, exact, x, row);
    study.rows.push_back(row);
    if (options.on_row) options.on_row(row);
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
