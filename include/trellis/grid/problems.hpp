// The worked examples of the grid module, each a convergence study on a
// sequence of meshes of [0, 1]^d (d = 1, 2, 3) with Dirichlet data from the
// exact solution u = exp(x + y + z) (Bramble.jl's own test):
//   poisson:              -Lap u = f,
//   convection-diffusion: -Lap u + b . grad u = f, b = (1, -1/2, 1/4),
//                         central differences (the mean of D- and D+),
//   heat:                 u_t - k(t) Lap u = f on t in [0, 1/10] with
//                         u = exp(x + y + z - t), k(t) = 1 + sin(10 pi t)/2,
//                         implicit Euler with dt = h^2, the matrix refilled
//                         with k(t) every step on one pattern.
// Right-hand sides are avg_h f (cell averages) on non-uniform meshes, which
// keeps second order in the discrete H1 norm there (supraconvergence), and
// R_h f (nodal values) on uniform ones: with cell averages, exp(x + y + z) is
// an exact discrete solution on uniform meshes (the difference quotients of
// the exponential and its cell averages carry the same factor
// (sinh(h/2) / (h/2))^2), so the error would be rounding alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/multigrid.hpp"

namespace trellis::grid {

// The meshes of a study: uniform, seeded random non-uniform ones
// (Mesh1D::random), or graded ones whose spacings change 16-fold from one end
// of each axis to the other (growing along the first axis, shrinking along
// the others, so cells reach 256:1 in a corner; the multigrid smoothers'
// test of stretched cells).
enum class MeshKind {
  uniform,     // equal cells
  nonuniform,  // seeded random cells (Mesh1D::random)
  graded       // spacings in geometric progression, 16-fold along each axis
};
// cg: the Krylov solver with Jacobi (CG; BiCGStab for convection-diffusion),
// on any backend. mg: multigrid cycles alone; mgcg: the Krylov solver
// preconditioned by one cycle (mgcg, or mg_bicgstab for convection-diffusion;
// multigrid.hpp). Every solver runs on every backend (on cuda the
// hierarchy is set up on the host and cycles on the device, and
// mg_bicgstab iterates on the host); the heat example builds the hierarchy
// once per mesh and refills it with every step's matrix.
enum class LinearSolver {
  cg,   // Krylov solver with Jacobi
  mg,   // multigrid cycles alone
  mgcg  // Krylov solver preconditioned by a cycle
};
// The right-hand side's projection: nodal values R_h f, cell averages avg_h f, or automatic (see above).
enum class RhsProjection {
  automatic,    // nodal on uniform meshes, cell averages otherwise
  nodal,        // R_h f: f at the nodes
  cell_average  // avg_h f: cell averages
};

struct ConvergenceRow;

// What a convergence study solves and how.
struct ProblemOptions {
  int dim = 2;                                   // space dimension, 1 to 3
  std::int32_t cells = 8;                        // cells per axis on the coarsest mesh
  int levels = 4;                                // meshes: cells, 2 cells, 4 cells, ...
  MeshKind mesh = MeshKind::uniform;             // uniform or non-uniform meshes
  std::uint64_t seed = 1;                        // of the non-uniform meshes
  RhsProjection rhs = RhsProjection::automatic;  // automatic: see above
  bool matrix_free = false;                      // apply the form matrix-free instead of assembling it
  Backend backend = Backend::automatic;          // where the fills and solves run
  double tolerance = 1e-10;                      // relative residual of the linear solves
  LinearSolver solver = LinearSolver::cg;        // the linear solver
  MultigridOptions multigrid;                    // for mg and mgcg
  // Optional: called with each mesh's row (errors, iterations, times; the
  // orders come at the end) before the next mesh; an exception it throws
  // stops the study and leaves through it.
  std::function<void(const ConvergenceRow& row)> on_row = nullptr;
};

// One mesh of a convergence study: its size, errors, observed orders and times.
struct ConvergenceRow {
  std::int32_t cells = 0;       // cells per axis
  std::int64_t unknowns = 0;    // unknowns (mesh nodes)
  double h = 0;                 // largest spacing
  double error_h = 0;           // ||R_h u - u_h||_h
  double error_h1 = 0;          // discrete H1 norm of R_h u - u_h
  double error_max = 0;         // max norm
  double order_h = 0;           // observed against the previous row (NaN on the first)
  double order_h1 = 0;          // the same for error_h1
  std::int64_t iterations = 0;  // solver iterations, cycles for mg (summed over time steps for heat)
  std::int32_t steps = 1;       // time steps
  double setup_seconds = 0;     // pattern and tables
  double solve_seconds = 0;     // fills and solves
  // Of solve_seconds: the multigrid hierarchy's setup (mg, mgcg).
  double hierarchy_seconds = 0;
  // Where solve_seconds went, in order (summed over time steps for heat):
  // data to the device, fill and right-hand side, the hierarchy's phases
  // ("hierarchy: ..."), iterations, solution to the host.
  std::vector<TimedPhase> phases;
};

// A convergence study: one row per mesh and the fitted orders.
struct ConvergenceStudy {
  std::string problem;               // the example's name
  Backend backend = Backend::cpu;    // the backend that ran
  std::vector<ConvergenceRow> rows;  // one row per mesh, coarsest first
  double fitted_order_h = 0;         // least-squares slope of log error against log h
  double fitted_order_h1 = 0;        // the same for error_h1
  // The finest mesh's solution and the exact values there (for --vtk).
  std::vector<double> solution;
  std::vector<double> exact;        // exact solution at the finest mesh's nodes
  std::vector<Mesh1D> finest_axes;  // the finest mesh's axes
};

// Throw UsageError on out-of-range options (dim, cells, levels, tolerance,
// more than 2^31 unknowns).
ConvergenceStudy poisson_study(const ProblemOptions& options);
// The convection-diffusion example (see above); throws like poisson_study.
ConvergenceStudy convection_diffusion_study(const ProblemOptions& options);
// The heat example (see above); throws like poisson_study.
ConvergenceStudy heat_study(const ProblemOptions& options);

// The meshes a study uses: cells * 2^level cells per axis; non-uniform ones
// are seeded random meshes (Mesh1D::random) drawn anew at each level.
Mesh study_mesh(const ProblemOptions& options, int level);

// Slope of the least-squares line through (log h, log error).
double fitted_order(const std::vector<double>& h, const std::vector<double>& error);

}  // namespace trellis::grid
