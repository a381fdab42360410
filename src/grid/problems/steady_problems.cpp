// The steady examples on [0,1]^d with u = exp(x + y + z):
//   poisson:              inner_plus(grad- u, grad- v) = inner_h(f_h, v),
//                         symmetrised, CG with Jacobi;
//   convection-diffusion: the same plus, along each axis a, b_a times the
//                         mean of D- and D+ (central differences) weighted
//                         by inner_h, b = (1, -1/2, 1/4); not symmetric,
//                         BiCGStab with Jacobi.
// options.solver swaps Jacobi for a multigrid cycle as the preconditioner
// (mgcg: CG, or BiCGStab for convection-diffusion), or the Krylov solver
// for multigrid cycles (mg).
// f_h is R_h f or avg_h f (problems.hpp); Dirichlet data R_h u.
#include <array>
#include <memory>

#include "linear_solve.hpp"
#include "study.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {
namespace {

// Solves on each mesh of the study; f = f_factor * u for this u.
ConvergenceStudy steady_study(const ProblemOptions& options, const char* name, const BilinearForm& a, double f_factor,
                              detail::Krylov krylov) {
  detail::check_options(options);
  ConvergenceStudy study;
  study.problem = name;
  study.backend = detail::study_backend(options);
  const int dim = options.dim;
  const LinearForm l = inner_h(Coefficient{0}, TestFunction{});
  for (int level = 0; level < options.levels; ++level) {
    auto mesh = std::make_shared<const Mesh>(study_mesh(options, level));
    const auto exact_values = restrict_to_nodes(mesh, [dim](const Point& x) { return detail::exponential(x, dim); });
    const auto f = detail::project_rhs(
        options, mesh, [dim, f_factor](const Point& x) { return f_factor * detail::exponential(x, dim); });
    const std::vector<double> exact(exact_values.values().begin(), exact_values.values().end());

    ConvergenceRow row;
    row.cells = options.cells << level;
    SteadyTimer setup;
    detail::FormSolver solver(*mesh, a, l, {boundary_marker(*mesh)}, krylov, options, study.backend);
    row.setup_seconds = setup.elapsed_ms() / 1000;

    Coefficients<double> coefficients(*mesh, 1);
    coefficients.set(0, std::span<const double>(f));
    std::vector<double> x(exact.size(), 0.0);
    SteadyTimer solve;
    const SolveResult result = solver.solve(coefficients, exact, x, options.tolerance);
    row.solve_seconds = solve.elapsed_ms() / 1000;
    row.hierarchy_seconds = solver.hierarchy_seconds();
    row.phases = solver.phases();
    row.iterations = result.iterations;
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

}  // namespace

ConvergenceStudy poisson_study(const ProblemOptions& options) {
  // -Lap u = -d u for u = exp(x + y + z).
  return steady_study(options, "poisson", inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{})),
                      -options.dim, detail::Krylov::cg);
}

ConvergenceStudy convection_diffusion_study(const ProblemOptions& options) {
  constexpr std::array<double, 3> b = {1.0, -0.5, 0.25};
  TrialFunction u;
  TestFunction v;
  BilinearForm a = inner_plus(grad_minus(u), grad_minus(v));
  double b_sum = 0;
  for (int axis = 0; axis < options.dim && axis < 3; ++axis) {
    const double b_axis = b[static_cast<std::size_t>(axis)];
    a = a + inner_h((b_axis / 2) * backward_difference(axis)(u), v) +
        inner_h((b_axis / 2) * forward_difference(axis)(u), v);
    b_sum += b_axis;
  }
  // -Lap u + b . grad u = (-d + sum of b) u for u = exp(x + y + z).
  return steady_study(options, "convection-diffusion", a, -options.dim + b_sum, detail::Krylov::bicgstab);
}

}  // namespace trellis::grid
