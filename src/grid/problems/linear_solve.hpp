// One linear solve of an assembled (or matrix-free) form on a chosen
// backend, shared by the worked examples: the host path (reference or cpu:
// host fill, CSR operator, host Krylov or multigrid) and the cuda path
// (device fill from the resident tables, device CSR or matrix-free operator,
// device Krylov or multigrid, nothing on the host per iteration but the
// multigrid's coarse solve).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/multigrid.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid::detail {

enum class Krylov { cg, bicgstab };

// A form on a mesh with its constraints, set up once and solved many times
// (the heat example refills and solves every time step). With mg or mgcg
// the multigrid hierarchy is built at the first solve and refilled at the
// next ones.
class FormSolver {
 public:
  FormSolver(const Mesh& mesh, const BilinearForm& form, const LinearForm& rhs, const std::vector<Marker>& dirichlet,
             Krylov krylov, const ProblemOptions& options, Backend backend);
  ~FormSolver();

  Backend backend() const noexcept { return backend_; }
  // The multigrid hierarchy's setup (or refill) in the last solve, 0 without one.
  double hierarchy_seconds() const noexcept { return hierarchy_seconds_; }
  // Where the last solve's time went (ConvergenceRow::phases).
  const std::vector<TimedPhase>& phases() const noexcept { return phases_; }

  // Fills with the coefficients, assembles b with boundary values g, solves
  // into x (its initial guess on entry). Throws Error when the solver does
  // not converge, naming why.
  SolveResult solve(const Coefficients<double>& coefficients, const std::vector<double>& boundary_values,
                    std::vector<double>& x, double tolerance);

 private:
  struct Device;
  // The hierarchy of the matrix just filled (host_matrix_): built at the
  // first solve, refilled at the next.
  const Multigrid<double>& hierarchy();
  SolveResult multigrid_solve(const Coefficients<double>& coefficients, const std::vector<double>& b,
                              std::vector<double>& x, const SolverOptions& options);
  // cuda: op is the matrix-free apply, or empty for the hierarchy's matrix;
  // x is the host initial guess (device_->x holds it too).
  SolveResult device_multigrid_solve(DeviceLinearOperator<double> op, std::vector<double>& x,
                                     const SolverOptions& options);
  Assembly<double> assembly_;
  std::optional<MatrixFreeOperator<double>> matrix_free_;
  BilinearForm form_;  // the hierarchy's coarse levels are formed from it where it is separable
  Krylov krylov_;
  LinearSolver solver_;
  MultigridOptions multigrid_options_;
  std::optional<Multigrid<double>> multigrid_;
  Backend backend_;
  AssembledMatrix<double> host_matrix_;
  std::unique_ptr<Device> device_;
  double hierarchy_seconds_ = 0;
  std::vector<TimedPhase> phases_;
  SteadyTimer phase_clock_;
  void begin_phases();
  // Closes the current phase (after the device's work on cuda).
  void end_phase(const char* name);
  // Appends the hierarchy's setup phases (its time is the current phase's).
  void hierarchy_phases();
};

}  // namespace trellis::grid::detail
