// -Lap u = f on [0,1]^d, u = exp(x + y + z): the form
// inner_plus(grad- u, grad- v) = inner_h(avg_h f, v), Dirichlet data R_h u on
// the boundary, symmetrised, CG with Jacobi.
#include <memory>

#include "linear_solve.hpp"
#include "study.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {

ConvergenceStudy poisson_study(const ProblemOptions& options) {
  detail::check_options(options);
  ConvergenceStudy study;
  study.problem = "poisson";
  study.backend = resolve(options.backend);
  const int dim = options.dim;
  TrialFunction u;
  TestFunction v;
  const BilinearForm a = inner_plus(grad_minus(u), grad_minus(v));
  const LinearForm l = inner_h(Coefficient{0}, v);
  for (int level = 0; level < options.levels; ++level) {
    auto mesh = std::make_shared<const Mesh>(study_mesh(options, level));
    const auto exact_values = restrict_to_nodes(mesh, [dim](const Point& x) { return detail::exponential(x, dim); });
    const auto f = detail::project_rhs(options, mesh, [dim](const Point& x) { return -dim * detail::exponential(x, dim); });
    const std::vector<double> exact(exact_values.values().begin(), exact_values.values().end());

    ConvergenceRow row;
    row.cells = options.cells << level;
    SteadyTimer setup;
    detail::FormSolver solver(*mesh, a, l, {boundary_marker(*mesh)}, detail::Krylov::cg, options.matrix_free,
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
