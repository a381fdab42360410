// `trellis grid poisson|convection|heat`: the finite-difference examples as
// convergence studies, printed as a table (h, errors, observed orders,
// iterations of the linear solver chosen with --solver).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/table.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/grid/vtk.hpp"

namespace trellis::cli {
namespace {

using grid::ConvergenceStudy;
using grid::ProblemOptions;

struct GridCommand {
  ProblemOptions options;
  std::string mesh = "uniform";
  std::string rhs = "auto";
  std::string vtk;
  std::string solver = "cg";
  std::string cycle = "V";
  std::string smoother = "chebyshev";
  std::string coarse = "axes";
  bool json = false;
  bool phases = false;
};

Table::Number fixed(double value, int precision) { return {value, precision}; }
Table::Number scientific(double value) { return {value, 3, true}; }

}  // namespace

Table convergence_table(const ConvergenceStudy& study) {
  const bool timed_steps = study.problem == "heat";
  std::vector<std::string> columns = {"cells",    "unknowns", "h",         "error normh", "order",
                                      "error H1", "order",    "error max", "iterations"};
  if (timed_steps) columns.push_back("steps");
  // hierarchy ms: the multigrid hierarchy's setup, part of solve ms; total
  // ms: setup and solve, the time to solution.
  const bool hierarchy = std::any_of(study.rows.begin(), study.rows.end(),
                                     [](const grid::ConvergenceRow& row) { return row.hierarchy_seconds > 0; });
  columns.push_back("setup ms");
  if (hierarchy) columns.push_back("hierarchy ms");
  columns.insert(columns.end(), {"solve ms", "total ms"});
  Table table(columns);
  for (const grid::ConvergenceRow& row : study.rows) {
    std::vector<Table::Cell> cells = {std::int64_t{row.cells}, row.unknowns,
                                      scientific(row.h),       scientific(row.error_h),
                                      fixed(row.order_h, 2),   scientific(row.error_h1),
                                      fixed(row.order_h1, 2),  scientific(row.error_max),
                                      row.iterations};
    if (timed_steps) cells.push_back(std::int64_t{row.steps});
    cells.push_back(fixed(row.setup_seconds * 1e3, 1));
    if (hierarchy) cells.push_back(fixed(row.hierarchy_seconds * 1e3, 1));
    cells.push_back(fixed(row.solve_seconds * 1e3, 1));
    cells.push_back(fixed((row.setup_seconds + row.solve_seconds) * 1e3, 1));
    table.add_row(std::move(cells));
  }
  return table;
}

namespace {

// One row per mesh and phase of its solve.
Table phase_table(const ConvergenceStudy& study) {
  Table table({"cells", "phase", "ms"});
  for (const grid::ConvergenceRow& row : study.rows) {
    for (const grid::TimedPhase& phase : row.phases) {
      table.add_row({std::int64_t{row.cells}, phase.name, fixed(phase.ms, 2)});
    }
  }
  return table;
}

void run(const std::string& problem, GridCommand& command, const GlobalOptions& globals) {
  ProblemOptions& options = command.options;
  options.backend = globals.requested_backend();
  options.mesh = command.mesh == "uniform"  ? grid::MeshKind::uniform
                 : command.mesh == "graded" ? grid::MeshKind::graded
                                            : grid::MeshKind::nonuniform;
  options.solver = command.solver == "mg"     ? grid::LinearSolver::mg
                   : command.solver == "mgcg" ? grid::LinearSolver::mgcg
                                              : grid::LinearSolver::cg;
  options.multigrid.cycle = command.cycle == "F" ? grid::Cycle::f : grid::Cycle::v;
  options.multigrid.smoother = command.smoother == "jacobi"         ? grid::Smoother::jacobi
                               : command.smoother == "line"         ? grid::Smoother::line
                               : command.smoother == "gauss-seidel" ? grid::Smoother::gauss_seidel
                                                                    : grid::Smoother::chebyshev;
  options.multigrid.coarse_by_axes = command.coarse == "axes";
  options.rhs = command.rhs == "nodal"     ? grid::RhsProjection::nodal
                : command.rhs == "average" ? grid::RhsProjection::cell_average
                                           : grid::RhsProjection::automatic;
  ConvergenceStudy study = problem == "poisson" ? grid::poisson_study(options)
                           : problem == "heat"  ? grid::heat_study(options)
                                                : grid::convection_diffusion_study(options);
  if (!command.vtk.empty()) {
    std::vector<double> error(study.solution.size());
    for (std::size_t i = 0; i < error.size(); ++i) error[i] = study.exact[i] - study.solution[i];
    grid::write_vtk(command.vtk, grid::Mesh(study.finest_axes),
                    {{"u", study.solution}, {"exact", study.exact}, {"error", error}});
  }
  const Table table = convergence_table(study);
  if (command.json) {
    fmt::print("{}\n", table.to_json());
    return;
  }
  std::string solver =
      command.solver == "cg" ? (problem == "convection" ? "BiCGStab with Jacobi" : "CG with Jacobi")
      : command.solver == "mg"
          ? fmt::format("multigrid, {}-cycle, {} smoother", to_string(options.multigrid.cycle), command.smoother)
          : fmt::format("{} with a multigrid {}-cycle, {} smoother", problem == "convection" ? "BiCGStab" : "CG",
                        to_string(options.multigrid.cycle), command.smoother);
  fmt::print("{} on [0,1]^{}, {} mesh, {} backend{}, {}\n\n", study.problem, options.dim, command.mesh,
             to_string(study.backend), options.matrix_free ? ", matrix-free" : "", solver);
  fmt::print("{}", table.to_markdown());
  fmt::print("\nfitted order: normh {:.2f}, H1 {:.2f}\n", study.fitted_order_h, study.fitted_order_h1);
  if (command.phases) fmt::print("\nwhere solve ms went\n\n{}", phase_table(study).to_markdown());
}

void add_problem(CLI::App& grid, const std::string& name, const std::string& description, const GlobalOptions& globals,
                 int default_dim, int default_cells, int default_levels) {
  auto command = std::make_shared<GridCommand>();
  command->options.dim = default_dim;
  command->options.cells = default_cells;
  command->options.levels = default_levels;
  CLI::App* sub = grid.add_subcommand(name, description);
  sub->add_option("--dim", command->options.dim, "Dimension: 1, 2 or 3")->capture_default_str();
  sub->add_option("--n", command->options.cells, "Cells per axis on the coarsest mesh")->capture_default_str();
  sub->add_option("--levels", command->options.levels, "Number of meshes, each refined twice over the previous")
      ->capture_default_str();
  sub->add_option("--mesh", command->mesh,
                  "uniform, nonuniform (seeded random points) or graded (spacings 16-fold from one end of each axis "
                  "to the other: stretched cells)")
      ->check(CLI::IsMember({"uniform", "nonuniform", "graded"}))
      ->capture_default_str();
  sub->add_option("--seed", command->options.seed, "Seed of the non-uniform meshes")->capture_default_str();
  sub->add_option("--rhs", command->rhs,
                  "Right-hand side projection: auto (nodal on uniform meshes, cell averages otherwise), nodal "
                  "or average")
      ->check(CLI::IsMember({"auto", "nodal", "average"}))
      ->capture_default_str();
  sub->add_flag("--matrix-free", command->options.matrix_free, "Apply the operator without assembling it");
  sub->add_option("--solver", command->solver,
                  "cg: Krylov (CG; BiCGStab for convection) with Jacobi; mg: multigrid cycles; mgcg: the same Krylov "
                  "solver preconditioned by a multigrid cycle (on cuda, convection's BiCGStab iterates on the host)")
      ->check(CLI::IsMember({"cg", "mg", "mgcg"}))
      ->capture_default_str();
  sub->add_option("--cycle", command->cycle, "Multigrid cycle: V or F")
      ->check(CLI::IsMember({"V", "F"}))
      ->capture_default_str();
  sub->add_option("--smoother", command->smoother,
                  "Multigrid smoother: chebyshev (degree 3), jacobi (3 sweeps), line (3 sweeps of line relaxation "
                  "along every axis) or gauss-seidel (3 sweeps of multicolour Gauss-Seidel, 2^d colours)")
      ->check(CLI::IsMember({"chebyshev", "jacobi", "line", "gauss-seidel"}))
      ->capture_default_str();
  sub->add_option("--coarse", command->coarse,
                  "Multigrid coarse operators: axes (1-D Galerkin products combined, where the form is separable "
                  "with constant coefficients; else as products) or products (3-D Galerkin products R A P)")
      ->check(CLI::IsMember({"axes", "products"}))
      ->capture_default_str();
  sub->add_option("--tolerance", command->options.tolerance, "Relative residual of each linear solve")
      ->capture_default_str();
  sub->add_option("--vtk", command->vtk, "Write the finest solution, the exact one and the error as legacy VTK");
  sub->add_flag("--json", command->json, "Print the table as JSON");
  sub->add_flag("--phases", command->phases,
                "Also print where each solve's time went (uploads, fill, the multigrid hierarchy's parts, "
                "iterations, download; on cuda each measured to the device's completion)");
  sub->callback([name, command, &globals] { run(name, *command, globals); });
}

}  // namespace

void add_grid_command(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* grid = app.add_subcommand("grid", "Finite differences on tensor meshes: convergence studies");
  grid->require_subcommand(1);
  add_problem(*grid, "poisson", "-Lap u = f on [0,1]^d, u = exp(x+y+z), CG with Jacobi or multigrid", globals, 2, 8, 4);
  add_problem(*grid, "convection", "-Lap u + b.grad u = f, central differences, BiCGStab with Jacobi or multigrid",
              globals, 2, 8, 4);
  add_problem(*grid, "heat", "u_t - k(t) Lap u = f, implicit Euler with dt = h^2, refill every step", globals, 2, 8, 3);
}

}  // namespace trellis::cli
