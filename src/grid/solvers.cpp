// Krylov solvers: argument checks, the backend switch, the CSR operators and
// the host drivers of CG and BiCGStab, which run on the reference or cpu
// vector kernels. The cuda drivers (cuda/solvers.cu) follow the same steps
// and the same stopping rules with their scalars on the device, and so does
// the vulkan CG (vulkan/cg.cpp) with its scalars read by the host.
#include "trellis/grid/solvers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels.hpp"
#include "krylov_steps.hpp"
#include "vulkan/kernels.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::grid {

std::string_view to_string(SolverStop stop) noexcept {
  switch (stop) {
    case SolverStop::converged:
      return "converged";
    case SolverStop::zero_rhs:
      return "zero_rhs";
    case SolverStop::max_iterations:
      return "max_iterations";
    case SolverStop::non_finite_input:
      return "non_finite_input";
    case SolverStop::unusable_preconditioner:
      return "unusable_preconditioner";
    case SolverStop::not_positive_definite:
      return "not_positive_definite";
    case SolverStop::rho_breakdown:
      return "rho_breakdown";
    case SolverStop::alpha_breakdown:
      return "alpha_breakdown";
    case SolverStop::omega_breakdown:
      return "omega_breakdown";
    case SolverStop::non_finite_residual:
      return "non_finite_residual";
    case SolverStop::interrupted:
      return "interrupted";
  }
  return "unknown";
}

namespace {

// The vector kernels of one host backend.
template <typename T>
struct HostKernels {
  double (*dot)(std::int32_t, const T*, const T*);
  void (*dot_pair)(std::int32_t, const T*, const T*, double*);
  void (*initial_residual)(std::int32_t, const T*, const T*, T*, T*, double*);
  void (*axpy)(std::int32_t, double, const T*, T*);
  void (*cg_update_residual)(std::int32_t, double, const T*, const T*, T*, double*);
  void (*cg_step)(std::int32_t, double, double, const T*, const T*, T*, T*);
  void (*bicgstab_direction)(std::int32_t, double, double, const T*, const T*, const T*, T*);
  double (*bicgstab_half_step)(std::int32_t, double, const T*, const T*, T*, T*);
  void (*bicgstab_step)(std::int32_t, double, double, const T*, const T*, const T*, const T*, T*, T*, double*);
};

// Host data runs on reference or cpu; automatic means cpu here because the
// vectors are on the host.
Backend host_backend(const char* what, Backend backend) {
  switch (backend) {
    case Backend::reference:
      return Backend::reference;
    case Backend::automatic:
    case Backend::cpu:
      return Backend::cpu;
    case Backend::cuda:
      break;
    case Backend::vulkan:
      throw UsageError(
          fmt::format("{}: host operators run on the reference or cpu backend; for vulkan, solve a "
                      "CsrMatrix with cg(a, b, x, preconditioner, options, Backend::vulkan)",
                      what));
  }
  throw UsageError(
      fmt::format("{}: host operators run on the reference or cpu backend; for cuda, solve with a "
                  "DeviceLinearOperator (DeviceCsrOperator builds one from a DeviceCsr)",
                  what));
}

template <typename T>
HostKernels<T> host_kernels(Backend backend) {
  if (backend == Backend::reference) {
    return {&reference::dot,
            &reference::dot_pair,
            &reference::initial_residual,
            &reference::axpy,
            &reference::cg_update_residual,
            &reference::cg_step,
            &reference::bicgstab_direction,
            &reference::bicgstab_half_step,
            &reference::bicgstab_step};
  }
  return {
      &cpu::dot,     &cpu::dot_pair,           &cpu::initial_residual,   &cpu::axpy,         &cpu::cg_update_residual,
      &cpu::cg_step, &cpu::bicgstab_direction, &cpu::bicgstab_half_step, &cpu::bicgstab_step};
}

void check_options(const char* solver, const SolverOptions& options) {
  if (!(options.relative_tolerance >= 0) || !std::isfinite(options.relative_tolerance)) {
    throw UsageError(
        fmt::format("{}: relative_tolerance must be finite and >= 0, got {}", solver, options.relative_tolerance));
  }
  if (options.max_iterations < 0) {
    throw UsageError(fmt::format("{}: max_iterations must be >= 0, got {}", solver, options.max_iterations));
  }
  if (options.check_every < 1) {
    throw UsageError(fmt::format("{}: check_every must be >= 1, got {}", solver, options.check_every));
  }
}

void check_sizes(const char* solver, std::int32_t size, bool has_apply, std::size_t b_size, std::size_t x_size) {
  if (size < 0) throw UsageError(fmt::format("{}: operator size must be >= 0, got {}", solver, size));
  if (!has_apply) throw UsageError(fmt::format("{}: the operator has no apply function", solver));
  const auto n = static_cast<std::size_t>(size);
  if (b_size != n || x_size != n) {
    throw UsageError(fmt::format("{}: an operator of size {} needs b and x of length {}, got {} and {}", solver, size,
                                 size, b_size, x_size));
  }
}

template <typename T>
void check_host_operator(const char* solver, const HostLinearOperator<T>& op, std::size_t b_size, std::size_t x_size) {
  check_sizes(solver, op.size, static_cast<bool>(op.apply), b_size, x_size);
  if (!op.diagonal.empty() && op.diagonal.size() != static_cast<std::size_t>(op.size)) {
    throw UsageError(
        fmt::format("{}: the diagonal has {} entries for an operator of size {} (empty means no "
                    "preconditioner)",
                    solver, op.diagonal.size(), op.size));
  }
}

// A system with no unknowns: b = 0, nothing to do.
SolveResult empty_system() {
  SolveResult result;
  result.converged = true;
  result.stop = SolverStop::zero_rhs;
  result.residual_history = {0.0};
  return result;
}

void describe(SolveResult& result, const SolverOptions& options) {
  const double threshold = options.relative_tolerance * result.rhs_norm;
  const double last = result.residual_history.empty() ? result.initial_residual : result.residual_history.back();
  const std::int32_t k = result.iterations;
  switch (result.stop) {
    case SolverStop::converged:
      result.stopped_because = fmt::format("converged after {} iterations: residual {:.3e} <= {:g} * ||b|| = {:.3e}", k,
                                           last, options.relative_tolerance, threshold);
      return;
    case SolverStop::zero_rhs:
      result.stopped_because = "b is zero, so x = 0";
      return;
    case SolverStop::max_iterations:
      result.stopped_because =
          fmt::format("max_iterations ({}) reached without convergence: residual {:.3e} > {:g} * ||b|| = {:.3e}",
                      options.max_iterations, last, options.relative_tolerance, threshold);
      return;
    case SolverStop::non_finite_input:
      result.stopped_because = std::isfinite(result.rhs_norm)
                                   ? "the initial residual b - A x0 holds NaN or infinity (check x0 and the operator)"
                                   : "b holds NaN or infinity";
      return;
    case SolverStop::unusable_preconditioner:
      result.stopped_because = "Jacobi preconditioner unusable: the diagonal has a zero or non-finite entry";
      return;
    case SolverStop::not_positive_definite:
      result.stopped_because = fmt::format(
          "breakdown after {} iterations: p^T A p <= 0, the operator is not symmetric positive definite", k);
      return;
    case SolverStop::rho_breakdown:
      result.stopped_because = fmt::format(
          "breakdown after {} iterations: rho (cg: r^T D^-1 r, bicgstab: r_hat^T r) is 0 while r is not", k);
      return;
    case SolverStop::alpha_breakdown:
      result.stopped_because =
          fmt::format("breakdown after {} iterations: r_hat^T A p is 0 or alpha = rho / r_hat^T A p overflows", k);
      return;
    case SolverStop::omega_breakdown:
      result.stopped_because =
          fmt::format("breakdown after {} iterations: omega = t^T s / t^T t (t = A s) is 0 or undefined", k);
      return;
    case SolverStop::non_finite_residual:
      result.stopped_because = fmt::format("the iteration produced NaN or infinity after {} iterations", k);
      return;
    case SolverStop::interrupted:
      result.stopped_because =
          fmt::format("stopped by the progress callback after {} iterations: residual {:.3e}", k, last);
      return;
  }
}

// A's diagonal, duplicates summed.
template <typename T>
std::vector<T> host_diagonal(const CsrMatrix<T>& a) {
  std::vector<T> diagonal(static_cast<std::size_t>(a.rows), T(0));
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      if (a.col_indices[k] == row) diagonal[row] += a.values[k];
    }
  }
  return diagonal;
}

template <typename T>
const T* diagonal_or_null(const HostLinearOperator<T>& op) {
  return op.diagonal.empty() ? nullptr : op.diagonal.data();
}

template <typename T>
bool diagonal_usable(std::span<const T> diagonal) {
  return std::all_of(diagonal.begin(), diagonal.end(), [](T d) { return d != T(0) && std::isfinite(d); });
}

template <typename T>
bool diagonal_usable(const HostLinearOperator<T>& op) {
  return diagonal_usable<T>(op.diagonal);
}

template <typename T>
std::span<const T> as_const(std::span<T> x) {
  return {x.data(), x.size()};
}

// x = 0 for b = 0, then the explicit residual ||b - A x|| (scratch is any
// vector of length n).
template <typename T>
double final_residual(const HostLinearOperator<T>& op, std::span<const T> b, std::span<T> x, SolverStop stop,
                      const HostKernels<T>& kernels, std::vector<T>& scratch) {
  if (stop == SolverStop::zero_rhs) std::fill(x.begin(), x.end(), T(0));
  op.apply(as_const(x), scratch);
  double sums[3];
  kernels.initial_residual(op.size, b.data(), nullptr, scratch.data(), nullptr, sums);
  return std::sqrt(sums[0]);
}

// Ends a host solve: the final residual, converged and stop.
template <typename T>
void finish_host(const HostLinearOperator<T>& op, std::span<const T> b, std::span<T> x, SolverStop stop,
                 const HostKernels<T>& kernels, std::vector<T>& scratch, SolveResult& result) {
  result.final_residual = final_residual(op, b, x, stop, kernels, scratch);
  result.stop = stop;
  result.converged = stop == SolverStop::converged || stop == SolverStop::zero_rhs;
}

// CG's steps (krylov_steps.hpp, run_cg) on host vectors with one host
// backend's kernels.
template <typename T>
struct HostCgSteps {
  const HostLinearOperator<T>& op;
  std::span<const T> b;
  std::span<T> x;
  const HostKernels<T>& kernels;
  const T* diagonal = diagonal_or_null(op);
  std::int32_t n = op.size;
  std::vector<T> r = std::vector<T>(static_cast<std::size_t>(op.size));
  std::vector<T> p = std::vector<T>(static_cast<std::size_t>(op.size));
  std::vector<T> q = std::vector<T>(static_cast<std::size_t>(op.size));

  void initial(double* sums) {
    op.apply(as_const(x), r);
    kernels.initial_residual(n, b.data(), diagonal, r.data(), p.data(), sums);
  }
  double direction_dot() {
    op.apply(p, q);
    return kernels.dot(n, p.data(), q.data());
  }
  void update_residual(double alpha, double* sums) {
    kernels.cg_update_residual(n, alpha, q.data(), diagonal, r.data(), sums);
  }
  void axpy(double alpha) { kernels.axpy(n, alpha, p.data(), x.data()); }
  void step(double alpha, double beta) { kernels.cg_step(n, alpha, beta, diagonal, r.data(), p.data(), x.data()); }
  double finish(SolverStop stop) { return final_residual(op, b, x, stop, kernels, q); }
};

template <typename T>
SolveResult host_cg(const HostLinearOperator<T>& op, std::span<const T> b, std::span<T> x, const SolverOptions& options,
                    const HostKernels<T>& kernels) {
  HostCgSteps<T> steps{op, b, x, kernels};
  return run_cg(steps, diagonal_usable(op), options);
}

// Right-preconditioned BiCGStab (van der Vorst 1992; Saad alg. 7.7 with M =
// D), carrying the preconditioned direction p_hat = D^-1 p instead of p. s
// overwrites r; without a preconditioner s_hat is s itself.
template <typename T>
SolveResult host_bicgstab(const HostLinearOperator<T>& op, std::span<const T> b, std::span<T> x,
                          const SolverOptions& options, const HostKernels<T>& kernels) {
  const std::int32_t n = op.size;
  const auto length = static_cast<std::size_t>(n);
  const T* diagonal = diagonal_or_null(op);
  std::vector<T> r(length);
  std::vector<T> r_hat(length);
  std::vector<T> p_hat(length, T(0));  // zero: the first direction update reads it
  std::vector<T> v(length, T(0));
  std::vector<T> t(length);
  std::vector<T> s_hat_storage(diagonal != nullptr ? length : 0);
  T* s_hat = diagonal != nullptr ? s_hat_storage.data() : r.data();
  SolveResult result;

  op.apply(as_const(x), r);
  double sums[3];
  kernels.initial_residual(n, b.data(), nullptr, r.data(), r_hat.data(), sums);  // r_hat = r
  double threshold = 0;
  std::optional<SolverStop> stop = check_start(sums, diagonal_usable(op), options, result, threshold);
  double rho = sums[1];
  double alpha = 1;
  double omega = 1;
  double beta = 0;

  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    kernels.bicgstab_direction(n, beta, omega, r.data(), v.data(), diagonal, p_hat.data());
    op.apply(p_hat, v);
    const double rv = kernels.dot(n, r_hat.data(), v.data());
    if (!std::isfinite(rv))
      stop = SolverStop::non_finite_residual;
    else if (rv == 0)
      stop = SolverStop::alpha_breakdown;
    if (stop) break;
    alpha = rho / rv;
    if (!std::isfinite(alpha)) {
      stop = SolverStop::alpha_breakdown;
      break;
    }
    const double ss = kernels.bicgstab_half_step(n, alpha, v.data(), diagonal, r.data(), s_hat);
    const double s_norm = std::sqrt(ss);
    if (!std::isfinite(ss)) {
      stop = SolverStop::non_finite_residual;
      break;
    }
    if (s_norm <= threshold) stop = SolverStop::converged;
    if (!stop) {
      op.apply(std::span<const T>(s_hat, length), t);
      double t_sums[2];
      kernels.dot_pair(n, t.data(), r.data(), t_sums);
      omega = t_sums[0] / t_sums[1];
      if (!(t_sums[1] > 0) || !std::isfinite(omega) || omega == 0) stop = SolverStop::omega_breakdown;
    }
    if (stop) {  // the half step x += alpha p_hat is a valid iterate with residual s
      kernels.axpy(n, alpha, p_hat.data(), x.data());
      result.iterations = k;
      result.residual_history.push_back(s_norm);
      break;
    }
    double updated[2];
    kernels.bicgstab_step(n, alpha, omega, p_hat.data(), s_hat, t.data(), r_hat.data(), r.data(), x.data(), updated);
    const double residual = std::sqrt(updated[0]);
    result.iterations = k;
    result.residual_history.push_back(residual);
    if (!std::isfinite(updated[0]) || !std::isfinite(updated[1]))
      stop = SolverStop::non_finite_residual;
    else if (residual <= threshold)
      stop = SolverStop::converged;
    else if (updated[1] == 0)
      stop = SolverStop::rho_breakdown;
    else
      stop = progress_stop(k, residual, options);
    if (stop) break;
    beta = (updated[1] / rho) * (alpha / omega);
    rho = updated[1];
  }
  finish_host(op, b, x, stop.value_or(SolverStop::max_iterations), kernels, t, result);
  return result;
}

template <typename T>
void check_device_operator(const char* solver, const DeviceLinearOperator<T>& op, const DeviceArray<T>& b,
                           const DeviceArray<T>& x) {
  check_sizes(solver, op.size, static_cast<bool>(op.apply), b.size(), x.size());
}

template <typename T>
void check_device_pointers(const char* solver, const DeviceLinearOperator<T>& op, const T* b, const T* x) {
  if (op.size < 0) throw UsageError(fmt::format("{}: operator size must be >= 0, got {}", solver, op.size));
  if (!op.apply) throw UsageError(fmt::format("{}: the operator has no apply function", solver));
  if (op.size > 0 && (b == nullptr || x == nullptr)) {
    throw UsageError(
        fmt::format("{}: an operator of size {} needs device pointers to b and x, got null", solver, op.size));
  }
}

}  // namespace

template <typename T>
HostLinearOperator<T> csr_operator(const CsrMatrix<T>& a, Preconditioner preconditioner, Backend backend) {
  if (a.rows != a.cols) {
    throw UsageError(fmt::format("csr_operator: the matrix must be square, got {}x{}", a.rows, a.cols));
  }
  const Backend chosen = host_backend("csr_operator", backend);
  HostLinearOperator<T> op;
  op.size = a.rows;
  op.apply = [matrix = &a, chosen](std::span<const T> x, std::span<T> y) {
    spmv<T>(T(1), *matrix, x, T(0), y, chosen);
  };
  if (preconditioner == Preconditioner::jacobi) op.diagonal = host_diagonal(a);
  return op;
}

template <typename T>
DeviceCsrOperator<T>::DeviceCsrOperator(const DeviceCsr<T>& a, Preconditioner preconditioner, Stream stream)
    : DeviceCsrOperator(a.view(), preconditioner, stream) {}

template <typename T>
DeviceCsrOperator<T>::DeviceCsrOperator(const CsrView<T>& a, Preconditioner preconditioner, Stream stream) {
  if (a.rows != a.cols) {
    throw UsageError(fmt::format("DeviceCsrOperator: the matrix must be square, got {}x{}", a.rows, a.cols));
  }
  op_.size = a.rows;
  op_.apply = [matrix = a](const T* x, T* y, Stream apply_stream) {
    cuda::spmv(T(1), matrix, x, T(0), y, apply_stream);
  };
  if (preconditioner == Preconditioner::jacobi && a.rows > 0) {
    diagonal_ = DeviceArray<T>(static_cast<std::size_t>(a.rows));
    cuda::csr_diagonal(a, diagonal_.data(), stream);
    op_.diagonal = diagonal_.data();
  }
}

template <typename T>
SolveResult cg(const HostLinearOperator<T>& op, std::type_identity_t<std::span<const T>> b,
               std::type_identity_t<std::span<T>> x, const SolverOptions& options, Backend backend) {
  check_host_operator("cg", op, b.size(), x.size());
  check_options("cg", options);
  const HostKernels<T> kernels = host_kernels<T>(host_backend("cg", backend));
  SolveResult result = op.size == 0 ? empty_system() : host_cg<T>(op, b, x, options, kernels);
  describe(result, options);
  return result;
}

template <typename T>
SolveResult cg(const CsrMatrix<T>& a, std::type_identity_t<std::span<const T>> b, std::type_identity_t<std::span<T>> x,
               Preconditioner preconditioner, const SolverOptions& options, Backend backend) {
  if (backend != Backend::vulkan) {
    return cg(csr_operator(a, preconditioner, backend), b, x, options, backend);  // its checks and errors
  }
  resolve_with_vulkan(backend);
  if (a.rows != a.cols) throw UsageError(fmt::format("cg: the matrix must be square, got {}x{}", a.rows, a.cols));
  check_sizes("cg", a.rows, true, b.size(), x.size());
  const std::vector<T> diagonal = preconditioner == Preconditioner::jacobi ? host_diagonal(a) : std::vector<T>();
  return detail::vulkan_cg_frame<T>(a.rows, b.size(), x.size(), diagonal, options, [&](bool usable) {
    return vulkan::cg(a.view(), b.data(), x.data(), diagonal, usable, options);
  });
}

template <typename T>
SolveResult detail::vulkan_cg_frame(std::int32_t size, std::size_t b_size, std::size_t x_size,
                                    std::span<const T> diagonal, const SolverOptions& options,
                                    const std::function<SolveResult(bool diagonal_usable)>& solve) {
  check_sizes("cg", size, true, b_size, x_size);
  check_options("cg", options);
  SolveResult result = size == 0 ? empty_system() : solve(diagonal_usable<T>(diagonal));
  describe(result, options);
  return result;
}

template <typename T>
SolveResult bicgstab(const HostLinearOperator<T>& op, std::type_identity_t<std::span<const T>> b,
                     std::type_identity_t<std::span<T>> x, const SolverOptions& options, Backend backend) {
  check_host_operator("bicgstab", op, b.size(), x.size());
  check_options("bicgstab", options);
  const HostKernels<T> kernels = host_kernels<T>(host_backend("bicgstab", backend));
  SolveResult result = op.size == 0 ? empty_system() : host_bicgstab<T>(op, b, x, options, kernels);
  describe(result, options);
  return result;
}

template <typename T>
SolveResult cg(const DeviceLinearOperator<T>& op, const DeviceArray<T>& b, DeviceArray<T>& x,
               const SolverOptions& options, Stream stream) {
  check_device_operator("cg", op, b, x);
  return cg(op, b.data(), x.data(), options, stream);
}

template <typename T>
SolveResult bicgstab(const DeviceLinearOperator<T>& op, const DeviceArray<T>& b, DeviceArray<T>& x,
                     const SolverOptions& options, Stream stream) {
  check_device_operator("bicgstab", op, b, x);
  return bicgstab(op, b.data(), x.data(), options, stream);
}

template <typename T>
SolveResult cg(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options, Stream stream) {
  check_device_pointers("cg", op, b, x);
  check_options("cg", options);
  SolveResult result = op.size == 0 ? empty_system() : cuda::cg(op, b, x, options, stream);
  describe(result, options);
  return result;
}

template <typename T>
SolveResult bicgstab(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options, Stream stream) {
  check_device_pointers("bicgstab", op, b, x);
  check_options("bicgstab", options);
  SolveResult result = op.size == 0 ? empty_system() : cuda::bicgstab(op, b, x, options, stream);
  describe(result, options);
  return result;
}

#define TRELLIS_GRID_INSTANTIATE_SOLVERS(T)                                                                      \
  template HostLinearOperator<T> csr_operator<T>(const CsrMatrix<T>&, Preconditioner, Backend);                  \
  template class DeviceCsrOperator<T>;                                                                           \
  template SolveResult cg<T>(const HostLinearOperator<T>&, std::type_identity_t<std::span<const T>>,             \
                             std::type_identity_t<std::span<T>>, const SolverOptions&, Backend);                 \
  template SolveResult bicgstab<T>(const HostLinearOperator<T>&, std::type_identity_t<std::span<const T>>,       \
                                   std::type_identity_t<std::span<T>>, const SolverOptions&, Backend);           \
  template SolveResult cg<T>(const CsrMatrix<T>&, std::type_identity_t<std::span<const T>>,                      \
                             std::type_identity_t<std::span<T>>, Preconditioner, const SolverOptions&, Backend); \
  template SolveResult cg<T>(const DeviceLinearOperator<T>&, const DeviceArray<T>&, DeviceArray<T>&,             \
                             const SolverOptions&, Stream);                                                      \
  template SolveResult bicgstab<T>(const DeviceLinearOperator<T>&, const DeviceArray<T>&, DeviceArray<T>&,       \
                                   const SolverOptions&, Stream);                                                \
  template SolveResult cg<T>(const DeviceLinearOperator<T>&, const T*, T*, const SolverOptions&, Stream);        \
  template SolveResult bicgstab<T>(const DeviceLinearOperator<T>&, const T*, T*, const SolverOptions&, Stream);  \
  template SolveResult detail::vulkan_cg_frame<T>(std::int32_t, std::size_t, std::size_t, std::span<const T>,    \
                                                  const SolverOptions&, const std::function<SolveResult(bool)>&);

TRELLIS_GRID_INSTANTIATE_SOLVERS(float)
TRELLIS_GRID_INSTANTIATE_SOLVERS(double)

#undef TRELLIS_GRID_INSTANTIATE_SOLVERS

}  // namespace trellis::grid
