// Geometric multigrid for assembled forms on tensor meshes, used alone
// (mg_solve) or as the preconditioner of CG (mgcg).
//
// Hierarchy: each level halves every axis whose cell count is even and at
// least 4 (the coarse points are the fine points of even index); an axis
// that cannot be halved keeps its points from then on. Coarsening stops when
// no axis can be halved or after max_levels levels.
//
// Transfers: prolongation P is linear interpolation by node coordinates
// along each halved axis (weights (X_{I+1} - x)/(X_{I+1} - X_I) on
// non-uniform meshes, exactly 1/2 on uniform ones), the identity along the
// others, and their tensor product. Restriction is R = P^T: on a uniform
// mesh that is full weighting times 2^d, a factor the Galerkin correction
// P (R A P)^-1 R cancels. Coarse operators are Galerkin, A_c = R A P, on
// every level (never rediscretised), so variable coefficients and
// non-uniform spacings reach the coarse levels as the fine matrix has them.
// Given the form, a separable constant-coefficient one under whole-face
// constraints has them formed axis by axis (Kronecker products of 1-D
// Galerkin products; docs/grid-multigrid.md), equal to rounding.
//
// Constraints (Dirichlet rows, identity rows of the assembled matrix): P has
// no rows for constrained fine nodes and no columns for coarse nodes that
// are constrained, a coarse node being constrained when the fine node at its
// place is. Constrained rows of every level are set exactly (x = b / a_ii)
// and the smoothers leave them alone; with a symmetrised assembly (no
// constrained columns in free rows) the cycle is then block-diagonal, the
// identity on constrained rows.
//
// Smoothers: weighted Jacobi, or Chebyshev polynomials in D^-1 A on the
// interval [lower, upper] * lambda, lambda the largest eigenvalue of D^-1 A
// estimated by a few Lanczos steps at setup. Both are polynomials in D^-1 A,
// so with as many steps before as after the coarse correction a V-cycle is
// a symmetric operator (CG applies). Or line relaxation: each axis in turn,
// the tridiagonal part of A along it solved exactly on every line (factored
// at setup), the axes reversed after the coarse correction, so the V-cycle
// is symmetric too; for stretched cells (docs/grid-multigrid.md). The coarsest level is solved by banded
// LU (no pivoting; the matrices are SPD or diagonally dominant) when that
// costs at most direct_solve_flops, else by Jacobi CG (BiCGStab when the
// coarsest matrix is not symmetric) to a relative residual of 1e-12.
//
// Backends: reference (scalar loops, the oracle), cpu (OpenMP) and cuda;
// automatic means cuda where a device is usable, else cpu. The cpu cycle's
// row-wise kernels are the reference's arithmetic; its Galerkin products and
// the eigenvalue estimate's dot products sum in another order, so a cpu
// cycle equals the reference cycle to rounding (about 1e-13 relative), not
// bitwise.
//
// cuda: the hierarchy is set up on the device from the finest matrix there:
// P and R = P^T built row by row as the host builds them, the Galerkin
// products summed in the cpu product's order without fused multiply-adds
// (so every level's matrix equals the cpu backend's bitwise), the inverse
// diagonals, and the eigenvalue estimates' Lanczos steps with device dot
// products (equal to the host's to rounding), the line smoother's factors
// (the host's arithmetic, one thread a line); the host keeps the coarsest
// matrix and its banded LU factors. The cycle runs on the device. Its
// residuals and transfers are the device SpMV (on rows as short as these it
// sums in the reference's order), its smoothing steps a kernel rounded like
// the reference's loop (no fused multiply-add), and the coarsest level is
// solved by the host's banded LU factors (one small copy each way
// per visit) or by device CG/BiCGStab. So one cuda cycle equals the
// reference cycle within 1e-12 relative (the max-norm of the difference over
// that of x), as cpu does: the difference comes from the setup's sums in
// another order (Galerkin products, Lanczos dot products). With a Krylov
// coarse solve the bound is 1e-9: that solve stops at 1e-12 of its own
// residual, and the device's dot products sum in another order than the
// host's. The drivers' dot products are device tree reductions too, so
// mg_solve and mgcg on cuda follow the reference's residual history to
// rounding: the same iteration counts, within one where a residual lands
// next to the tolerance. tests/grid/multigrid_test.cpp holds cuda to these
// bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid {

// Smoothers: weighted Jacobi, Chebyshev polynomials in D^-1 A, line
// relaxation (along each axis in turn, the correction of the tridiagonal
// part of A on every line of nodes along that axis, solved exactly and
// weighted), or multicolour Gauss-Seidel (the nodes coloured by the parity
// of each index, 2^d colours, each colour updated in turn from the current
// residual). Lines and colours go in reverse order after the coarse
// correction, so the V-cycle stays symmetric. Lines follow the strong
// couplings of stretched cells, where point smoothers stall.
enum class Smoother {
  jacobi,       // weighted Jacobi sweeps
  chebyshev,    // Chebyshev polynomials in D^-1 A
  line,         // alternating line relaxation
  gauss_seidel  // multicolour Gauss-Seidel sweeps
};
// v: one coarse correction per level. f: at each level the coarse problem
// is solved by an F-cycle followed by a V-cycle (not symmetric; mgcg's
// flexible beta keeps CG valid with it).
enum class Cycle {
  v,  // V-cycle
  f   // F-cycle
};

// How a Multigrid hierarchy is built and cycles.
struct MultigridOptions {
  Cycle cycle = Cycle::v;                   // V- or F-cycle
  Smoother smoother = Smoother::chebyshev;  // the smoother on every level
  // Before and after the coarse correction: Jacobi sweeps, or the degree of
  // the Chebyshev polynomial (matrix applications).
  std::int32_t smoothing_steps = 3;
  double jacobi_weight = 2.0 / 3.0;  // weight of the Jacobi sweeps
  // Weight of each axis's line correction (Smoother::line; smoothing_steps
  // is then the sweeps over all axes).
  double line_weight = 0.8;
  // Weight of each colour's correction (Smoother::gauss_seidel: 1 is
  // Gauss-Seidel, above 1 over-relaxation; smoothing_steps is then the
  // sweeps over all colours).
  double gauss_seidel_weight = 1.0;
  // Chebyshev interval as fractions of the estimated largest eigenvalue
  // (PETSc's choice). With degree 3 a V-cycle reduces the residual of
  // -div(k grad u), k in [1, 2], about 10x per cycle in 1-, 2- and 3-D, and
  // still 10x on cells of aspect ratio 2 in 2-D; a lower bound of 0.2 with
  // degree 2 is as good on square cells but drops to 0.36 at aspect 2.
  double chebyshev_lower = 0.1;
  double chebyshev_upper = 1.1;        // upper end of the Chebyshev interval
  std::int32_t eigenvalue_steps = 12;  // Lanczos steps of the estimate
  std::int32_t max_levels = 30;        // most levels, the finest included
  // The coarsest level is factored when n * lower * upper bandwidth is at most this.
  double direct_solve_flops = 2e8;
  // With a form (the constructors that take one): form the coarse operators
  // axis by axis where the form allows; false keeps the 3-D products.
  bool coarse_by_axes = true;
};

// "jacobi", "chebyshev" or "line".
std::string_view to_string(Smoother smoother) noexcept;
// "V" or "F".
std::string_view to_string(Cycle cycle) noexcept;

// What one level holds (for reports and tests).
struct MultigridLevelInfo {
  MultiIndex extents{};       // nodes per axis
  std::int32_t nodes = 0;     // nodes of the level
  std::int64_t nonzeros = 0;  // of the level's matrix
  double lambda_max = 0;      // estimated largest eigenvalue of D^-1 A (0 on the coarsest)
};

// A named part of some work and the milliseconds it took.
struct TimedPhase {
  std::string name;  // what the phase did
  double ms = 0;     // how long it took
};

// A geometric multigrid hierarchy for an assembled form's matrix: its levels, transfers and smoothers.
template <typename T>
class Multigrid {
 public:
  // a: the form's matrix on mesh (rows = cols = mesh.nodes()); constrained:
  // one flag per node, nonzero for Dirichlet rows (Assembly::constrained()).
  // Throws UsageError on mismatched sizes, a non-square matrix, options out
  // of range or a zero diagonal entry; BackendUnavailable for cuda without
  // a usable device.
  Multigrid(const Mesh& mesh, const CsrMatrix<T>& a, const std::vector<std::uint8_t>& constrained,
            const MultigridOptions& options = {}, Backend backend = Backend::cpu);
  // A cuda hierarchy from the fine matrix already on the device (copied
  // there, so a may change afterwards); nothing of it passes through the host.
  Multigrid(const Mesh& mesh, const DeviceCsr<T>& a, const std::vector<std::uint8_t>& constrained,
            const MultigridOptions& options = {});
  // The same for a, the matrix Assembly builds from form on mesh under these
  // constraints. Where the form is separable with constant coefficients
  // (every term along one axis, no coefficient slot) and the constrained
  // nodes are whole faces, the coarse operators are R A P formed axis by
  // axis, sums of Kronecker products of 1-D Galerkin products, equal to the
  // 3-D products to rounding; cuda applies them without storing them
  // (levels between the finest and the coarsest). Each fill is checked
  // against the form first (a applied to a probe vector); the reference
  // backend, other forms and fills that fail the check take the 3-D
  // products as above.
  Multigrid(const Mesh& mesh, const BilinearForm& form, const CsrMatrix<T>& a,
            const std::vector<std::uint8_t>& constrained, const MultigridOptions& options = {},
            Backend backend = Backend::cpu);
  // The same from the fine matrix on the device (cuda).
  Multigrid(const Mesh& mesh, const BilinearForm& form, const DeviceCsr<T>& a,
            const std::vector<std::uint8_t>& constrained, const MultigridOptions& options = {});
  ~Multigrid();  // frees the hierarchy
  // Takes other's hierarchy.
  Multigrid(Multigrid&&) noexcept;
  // Releases this hierarchy and takes other's.
  Multigrid& operator=(Multigrid&&) noexcept;

  // New values of the fine matrix (same size; same mesh and constraints):
  // the levels and transfers are kept, the coarse operators, smoother data
  // and coarse factorisation are recomputed.
  // On cuda the whole hierarchy is rebuilt on the device (transfers too).
  void refill(const CsrMatrix<T>& a);
  // cuda hierarchies: new values from the device (UsageError on another).
  void refill(const DeviceCsr<T>& a);

  // One cycle from the guess x: x <- x + B (b - A x). Not reentrant (the
  // levels' work vectors are shared).
  void cycle(std::span<const T> b, std::span<T> x) const;
  // z = B r (a cycle from zero): the preconditioner.
  void precondition(std::span<const T> r, std::span<T> z) const;
  // On a cuda hierarchy these two copy the vectors to the device and back
  // each call; the overloads below keep them there.

  // cuda hierarchies: a cycle and the preconditioner on device vectors (b,
  // x, r, z: device pointers to size() values), enqueued on stream; a direct
  // coarse solve waits for the stream once per cycle. Throw UsageError on
  // another backend.
  void cycle(const T* b, T* x, Stream stream) const;
  // z = B r on device vectors, enqueued on stream (cuda hierarchies).
  // finest, when given, computes the cycle's residuals on the finest level
  // in place of the stored matrix; it must apply that matrix (e.g. the
  // form's matrix-free apply; mgcg passes its operator).
  void precondition(const T* r, T* z, Stream stream, const DeviceLinearOperator<T>* finest = nullptr) const;
  // cuda hierarchies: the finest matrix on the device as an operator (no
  // diagonal), valid until the next refill.
  const DeviceLinearOperator<T>& device_operator() const;

  // Number of unknowns on the finest level.
  std::int32_t size() const noexcept;
  // Number of levels, the finest included.
  std::int32_t levels() const noexcept;
  // What level l holds (0 is the finest).
  MultigridLevelInfo level(std::int32_t l) const;
  // On cuda copied from the device at the first call after a (re)fill.
  const CsrMatrix<T>& level_matrix(std::int32_t l) const;
  // Where the last (re)fill's setup went, in order: levels (meshes,
  // constraint flags; host transfers), coarse operators (and on cuda
  // transfers), smoothers, coarse solve (on cuda each measured to the
  // device's completion).
  const std::vector<TimedPhase>& setup_phases() const noexcept;
  // True when the last fill's coarse operators were formed axis by axis from
  // the form (Kronecker products), false for 3-D Galerkin products.
  bool coarse_by_axes() const noexcept;
  // True when the coarsest level is solved by banded LU, false for a Krylov solve.
  bool direct_coarse_solve() const noexcept;
  // The backend the hierarchy runs on.
  Backend backend() const noexcept;
  // The options the hierarchy was built with.
  const MultigridOptions& options() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Multigrid cycles as the iteration: x holds the initial guess on entry.
// One iteration is one cycle; the residual ||b - A x|| is computed after
// each (residual_history). Stops like cg (relative_tolerance on ||b||;
// non_finite_residual when the cycle diverges to NaN or infinity).
// A cuda hierarchy runs it on the device (b and x copied there and back).
template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, std::type_identity_t<std::span<const T>> b,
                     std::type_identity_t<std::span<T>> x, const SolverOptions& options = {});

// The same on device vectors of a cuda hierarchy (UsageError on another),
// on stream; the host reads the residual after every cycle (check_every is
// not used: a cycle costs far more than the read).
template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, const DeviceArray<T>& b, DeviceArray<T>& x,
                     const SolverOptions& options = {}, Stream stream = nullptr);
// The same on device memory the caller owns: b and x point to size() values
// each (not checkable here).
template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, const T* b, T* x, const SolverOptions& options = {},
                     Stream stream = nullptr);

// CG on op preconditioned by one cycle per iteration, with the flexible
// (Polak-Ribiere) beta = r_k+1 . (z_k+1 - z_k) / r_k . z_k, which equals
// the usual one when the cycle is symmetric and keeps CG converging when it
// is only nearly so (F-cycles, a Krylov coarse solve). op must be the
// operator mg was built from (e.g. its matrix-free apply); its diagonal is
// not used. With a host operator and a cuda hierarchy the iteration runs on
// the host and each cycle copies r and z to the device and back; the device
// overload keeps everything there.
template <typename T>
SolveResult mgcg(const HostLinearOperator<T>& op, const Multigrid<T>& mg, std::type_identity_t<std::span<const T>> b,
                 std::type_identity_t<std::span<T>> x, const SolverOptions& options = {});

// The same on the device for a cuda hierarchy (UsageError on another): op a
// device operator (e.g. mg.device_operator() or a device matrix-free apply),
// b and x device vectors; the host reads the residual after every iteration.
template <typename T>
SolveResult mgcg(const DeviceLinearOperator<T>& op, const Multigrid<T>& mg, const DeviceArray<T>& b, DeviceArray<T>& x,
                 const SolverOptions& options = {}, Stream stream = nullptr);
// The same on device memory the caller owns (size() values each).
template <typename T>
SolveResult mgcg(const DeviceLinearOperator<T>& op, const Multigrid<T>& mg, const T* b, T* x,
                 const SolverOptions& options = {}, Stream stream = nullptr);

// BiCGStab on op right-preconditioned by one cycle per application (two
// cycles an iteration), for non-symmetric forms such as
// convection-diffusion; stops like bicgstab (solvers.hpp). On a cuda
// hierarchy the iteration runs on the host and each cycle copies its vectors
// to the device and back (there is no device overload yet).
template <typename T>
SolveResult mg_bicgstab(const HostLinearOperator<T>& op, const Multigrid<T>& mg,
                        std::type_identity_t<std::span<const T>> b, std::type_identity_t<std::span<T>> x,
                        const SolverOptions& options = {});

}  // namespace trellis::grid
