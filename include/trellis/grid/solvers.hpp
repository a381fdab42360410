// Krylov solvers for A x = b: conjugate gradients (A symmetric positive
// definite) and BiCGStab (A general), each optionally Jacobi-preconditioned.
//
// The operator is abstract: a size, an apply y = A x and, for Jacobi, A's
// diagonal. An assembled CSR matrix, another sparse format or a matrix-free
// stencil all plug in the same way; csr_operator and DeviceCsrOperator build
// the CSR case.
//
// Host operators run with the reference or cpu vector kernels; device
// operators run entirely on the GPU, where the host only looks at the residual
// every check_every iterations.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::grid {

// When a Krylov solve stops and how often a device solve reports.
struct SolverOptions {
  // Converged when the recurrence residual ||r_k|| <= relative_tolerance * ||b||.
  double relative_tolerance = 1e-8;
  std::int32_t max_iterations = 10000;  // stop after this many iterations
  // cuda: iterations between host reads of the residual (each read is one
  // stream synchronisation). The device stops updating by itself once it has
  // converged, so this changes the time to notice, never the result. On
  // every backend also the iterations between calls of progress.
  std::int32_t check_every = 10;
  // Optional: called after every check_every-th iteration (not after one that
  // ended the solve) with the iterations completed and the recurrence
  // residual norm ||r_k||. Returning false stops the solve there: x holds
  // that iteration's iterate and the result reports SolverStop::interrupted
  // (not converged). An exception thrown here leaves the solver and reaches
  // the caller (x then holds some iterate). Every solver taking
  // SolverOptions honours it: the host, cuda and vulkan Krylov drivers and
  // the multigrid solvers.
  std::function<bool(std::int32_t iteration, double residual)> progress = nullptr;
};

// Why a solve ended.
enum class SolverStop : std::int32_t {
  converged = 1,            // ||r_k|| <= relative_tolerance * ||b||
  zero_rhs,                 // b == 0: x = 0 without iterating (converged)
  max_iterations,           // ran out of iterations
  non_finite_input,         // b, or the initial residual b - A x0, holds NaN or infinity
  unusable_preconditioner,  // a diagonal entry is zero or not finite
  not_positive_definite,    // cg: p^T A p <= 0
  rho_breakdown,            // cg: r^T D^-1 r == 0; bicgstab: r_hat^T r == 0 (with r != 0)
  alpha_breakdown,          // bicgstab: r_hat^T v == 0
  omega_breakdown,          // bicgstab: omega = (t^T s)/(t^T t) is 0 or undefined
  non_finite_residual,      // the iteration produced NaN or infinity
  interrupted,              // SolverOptions::progress returned false
};

// The stop's name, e.g. "converged" or "max_iterations".
std::string_view to_string(SolverStop stop) noexcept;

// How a solve went: convergence, iterations, residuals and why it stopped.
struct SolveResult {
  bool converged = false;       // stop is converged or zero_rhs
  std::int32_t iterations = 0;  // completed iterations (updates of x)
  double rhs_norm = 0;          // ||b||
  double initial_residual = 0;  // ||b - A x0||
  double final_residual = 0;    // ||b - A x||, recomputed explicitly at the end
  // Recurrence residual norm per iteration; index 0 is the initial residual,
  // so iterations + 1 entries.
  std::vector<double> residual_history;
  SolverStop stop = SolverStop::converged;  // why the iteration ended
  std::string stopped_because;              // stop in words, with the numbers that decided it
};

// y = A x on host vectors of length size. diagonal holds A's diagonal for the
// Jacobi preconditioner; empty means no preconditioner.
template <typename T>
struct HostLinearOperator {
  std::int32_t size = 0;                                            // rows and columns of A
  std::function<void(std::span<const T> x, std::span<T> y)> apply;  // y = A x
  std::vector<T> diagonal;                                          // A's diagonal, or empty for no preconditioner
};

// A's inverse diagonal as a multigrid smoothing step reads it; a pass over
// the box may take `interior` off its faces instead of loading it.
template <typename T>
struct InverseDiagonalView {
  const T* values = nullptr;                    // on the device, one a row
  bool interior_known = false;                  // whether interior is known
  T interior = T(0);                            // every row off the box's faces holds it, bit for bit
  std::int32_t dim = 0;                         // the box's dimensions
  std::array<std::int32_t, 3> extent{1, 1, 1};  // its nodes per axis (axis 0 fastest), 1 on axes it lacks
};

// y = A x on device vectors of length size, enqueued on the stream given.
// diagonal is a device pointer to A's diagonal (size entries) or null for no
// preconditioner; it must stay valid while the operator is used.
template <typename T>
struct DeviceLinearOperator {
  std::int32_t size = 0;                                       // rows and columns of A
  std::function<void(const T* x, T* y, Stream stream)> apply;  // y = A x, enqueued on stream
  const T* diagonal = nullptr;                                 // A's diagonal on the device, or null
  // Optional, for the finest level of a multigrid cycle (mgcg passes its
  // operator there): a smoothing step in the apply's pass, r = b - A x,
  // d = alpha d + beta D^-1 r, x_out = x + d (x_out not x), rounded as the
  // cycle's own two-pass step, so the iterates are the same. Returns false,
  // with nothing enqueued, where it cannot; the cycle then takes two passes.
  std::function<bool(const T* b, const T* x, T alpha, T beta, const InverseDiagonalView<T>& inverse_diagonal, T* d,
                     T* x_out, Stream stream)>
      smoothing_step;
  // Optional, likewise: the residual r = b - A x in the apply's pass,
  // rounded as apply then subtraction. Returns false, with nothing
  // enqueued, where it cannot.
  std::function<bool(const T* b, const T* x, T* r, Stream stream)> residual;
};

// The preconditioner of a Krylov solve: none or Jacobi (A's diagonal).
enum class Preconditioner {
  none,   // no preconditioner
  jacobi  // Jacobi: A's diagonal
};

// A square CSR matrix as a host operator: apply is grid::spmv on backend
// (reference or cpu; automatic means cpu), the diagonal (duplicates summed)
// is extracted when Jacobi is asked for. The operator refers to a, which
// must outlive it. Throws UsageError for a non-square matrix or backend cuda.
template <typename T>
HostLinearOperator<T> csr_operator(const CsrMatrix<T>& a, Preconditioner preconditioner = Preconditioner::jacobi,
                                   Backend backend = Backend::cpu);

// A square device-resident CSR matrix as a device operator: apply is the
// device grid::spmv; the diagonal is extracted on the device and owned here.
// Refers to a's arrays, which must outlive it where they are. Throws UsageError when a is not square,
// BackendUnavailable without CUDA.
template <typename T>
class DeviceCsrOperator {
 public:
  // Wraps a; extracts its diagonal on stream when Jacobi is asked for.
  explicit DeviceCsrOperator(const DeviceCsr<T>& a, Preconditioner preconditioner = Preconditioner::jacobi,
                             Stream stream = nullptr);
  // Wraps a matrix whose arrays are device memory the caller owns (see the
  // CsrView overload of grid::spmv), which must outlive this object.
  explicit DeviceCsrOperator(const CsrView<T>& a, Preconditioner preconditioner = Preconditioner::jacobi,
                             Stream stream = nullptr);
  // The operator, valid while this object and a live.
  const DeviceLinearOperator<T>& op() const noexcept { return op_; }

 private:
  DeviceArray<T> diagonal_;
  DeviceLinearOperator<T> op_;
};

// Host solves: x holds the initial guess on entry and the solution on return.
// backend picks the vector kernels: reference or cpu (automatic means cpu).
// Throws UsageError when b, x or the diagonal do not match op.size, op has no
// apply, the options are out of range, or backend is cuda (use a device
// operator). Breakdowns are reported in the result, never thrown.
template <typename T>
SolveResult cg(const HostLinearOperator<T>& op, std::type_identity_t<std::span<const T>> b,
               std::type_identity_t<std::span<T>> x, const SolverOptions& options = {}, Backend backend = Backend::cpu);

// BiCGStab on host vectors; as cg otherwise.
template <typename T>
SolveResult bicgstab(const HostLinearOperator<T>& op, std::type_identity_t<std::span<const T>> b,
                     std::type_identity_t<std::span<T>> x, const SolverOptions& options = {},
                     Backend backend = Backend::cpu);

// CG on an assembled square CSR matrix with host vectors, on any host backend
// (as cg(csr_operator(a, preconditioner, backend), ...); automatic means cpu)
// or on vulkan, where A and the vectors are uploaded once and every step runs
// on the Vulkan device with the same stopping rules. Throws as the host cg
// does (UsageError for cuda: solve with a DeviceLinearOperator), and
// BackendUnavailable where vulkan cannot run.
template <typename T>
SolveResult cg(const CsrMatrix<T>& a, std::type_identity_t<std::span<const T>> b, std::type_identity_t<std::span<T>> x,
               Preconditioner preconditioner = Preconditioner::jacobi, const SolverOptions& options = {},
               Backend backend = Backend::cpu);

// Device solves on stream; b and x stay on the device. Returns after the
// solve has finished (the result is on the host).
template <typename T>
SolveResult cg(const DeviceLinearOperator<T>& op, const DeviceArray<T>& b, DeviceArray<T>& x,
               const SolverOptions& options = {}, Stream stream = nullptr);

// BiCGStab on device vectors; as the device cg otherwise.
template <typename T>
SolveResult bicgstab(const DeviceLinearOperator<T>& op, const DeviceArray<T>& b, DeviceArray<T>& x,
                     const SolverOptions& options = {}, Stream stream = nullptr);

// The same on device memory the caller owns (another library's arrays, say):
// b and x point to op.size entries each in device memory, b is read and x
// written in place. Throws UsageError as above when a pointer is null for a
// non-empty operator (sizes cannot be checked: they are the caller's).
template <typename T>
SolveResult cg(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options = {},
               Stream stream = nullptr);

// BiCGStab on device memory the caller owns; as the cg above otherwise.
template <typename T>
SolveResult bicgstab(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options = {},
                     Stream stream = nullptr);

}  // namespace trellis::grid
