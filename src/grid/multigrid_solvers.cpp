// The multigrid drivers: cycles as the iteration (mg_solve), flexible CG
// preconditioned by one cycle per iteration (mgcg) and right-preconditioned
// BiCGStab (mg_bicgstab), on the kernels of the hierarchy's backend; mg_solve
// and mgcg on device vectors run the device drivers (cuda/solvers.cu).
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "kernels.hpp"
#include "krylov_steps.hpp"
#include "multigrid_kernels.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/multigrid.hpp"

namespace trellis::grid {
namespace {

void check_arguments(const char* solver, std::int32_t size, std::size_t b_size, std::size_t x_size,
                     const SolverOptions& options) {
  const auto n = static_cast<std::size_t>(size);
  if (b_size != n || x_size != n) {
    throw UsageError(fmt::format("{}: a hierarchy of size {} needs b and x of length {}, got {} and {}", solver, size,
                                 size, b_size, x_size));
  }
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

// Before the first iteration: norms, and a stop when there is nothing to do.
std::optional<SolverStop> start(double rr, double bb, const SolverOptions& options, SolveResult& result,
                                double& threshold) {
  result.rhs_norm = std::sqrt(bb);
  result.initial_residual = std::sqrt(rr);
  result.residual_history = {result.initial_residual};
  threshold = options.relative_tolerance * result.rhs_norm;
  if (!std::isfinite(bb) || !std::isfinite(rr)) return SolverStop::non_finite_input;
  if (bb == 0) return SolverStop::zero_rhs;
  if (result.initial_residual <= threshold) return SolverStop::converged;
  return std::nullopt;
}

// After iteration k with residual norm `residual`; with options, the end of
// an iteration, where SolverOptions::progress may stop the solve.
std::optional<SolverStop> after(std::int32_t k, double residual, double threshold, SolveResult& result,
                                const SolverOptions* options) {
  result.iterations = k;
  result.residual_history.push_back(residual);
  if (!std::isfinite(residual)) return SolverStop::non_finite_residual;
  if (residual <= threshold) return SolverStop::converged;
  return options != nullptr ? progress_stop(k, residual, *options) : std::nullopt;
}

void finish(const char* solver, SolverStop stop, double final_residual, const SolverOptions& options,
            SolveResult& result) {
  result.stop = stop;
  result.converged = stop == SolverStop::converged || stop == SolverStop::zero_rhs;
  result.final_residual = final_residual;
  const double threshold = options.relative_tolerance * result.rhs_norm;
  switch (stop) {
    case SolverStop::converged:
      result.stopped_because =
          fmt::format("{} converged after {} iterations: residual {:.3e} <= {:g} * ||b|| = {:.3e}", solver,
                      result.iterations, result.residual_history.back(), options.relative_tolerance, threshold);
      break;
    case SolverStop::zero_rhs:
      result.stopped_because = "b is zero, so x = 0";
      break;
    case SolverStop::max_iterations:
      result.stopped_because = fmt::format("{}: max_iterations ({}) reached: residual {:.3e} > {:.3e}", solver,
                                           options.max_iterations, result.residual_history.back(), threshold);
      break;
    case SolverStop::non_finite_input:
      result.stopped_because = "b or the initial residual holds NaN or infinity";
      break;
    case SolverStop::not_positive_definite:
      result.stopped_because =
          fmt::format("{}: p^T A p <= 0 after {} iterations: the operator is not SPD", solver, result.iterations);
      break;
    case SolverStop::interrupted:
      result.stopped_because = fmt::format("{}: stopped by the progress callback after {} iterations: residual {:.3e}",
                                           solver, result.iterations, result.residual_history.back());
      break;
    case SolverStop::rho_breakdown:
    case SolverStop::alpha_breakdown:
    case SolverStop::omega_breakdown:
      result.stopped_because = fmt::format("{}: {} after {} iterations", solver, to_string(stop), result.iterations);
      break;
    default:
      result.stopped_because =
          fmt::format("{}: the iteration produced NaN or infinity after {} iterations", solver, result.iterations);
      break;
  }
}

template <typename Operator, typename T>
void check_operator(const char* solver, const Operator& op, const Multigrid<T>& mg) {
  if (op.size != mg.size() || !op.apply) {
    throw UsageError(fmt::format("{}: the operator (size {}{}) must be the one of the hierarchy (size {})", solver,
                                 op.size, op.apply ? "" : ", no apply", mg.size()));
  }
}

template <typename T>
void require_cuda(const char* solver, const Multigrid<T>& mg) {
  if (mg.backend() != Backend::cuda) {
    throw UsageError(fmt::format("{}: device vectors need a hierarchy on the cuda backend, this one is on {}", solver,
                                 to_string(mg.backend())));
  }
}

}  // namespace

template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, const DeviceArray<T>& b, DeviceArray<T>& x, const SolverOptions& options,
                     Stream stream) {
  check_arguments("mg", mg.size(), b.size(), x.size(), options);
  return mg_solve(mg, b.data(), x.data(), options, stream);
}

template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, const T* b, T* x, const SolverOptions& options, Stream stream) {
  const auto n = static_cast<std::size_t>(mg.size());
  check_arguments("mg", mg.size(), n, n, options);
  require_cuda("mg", mg);
  SolveResult result = cuda::stationary(
      mg.device_operator(), [&](T* at, Stream on) { mg.cycle(b, at, on); }, b, x, options, stream);
  finish("mg", result.stop, result.final_residual, options, result);
  return result;
}

template <typename T>
SolveResult mgcg(const DeviceLinearOperator<T>& op, const Multigrid<T>& mg, const DeviceArray<T>& b, DeviceArray<T>& x,
                 const SolverOptions& options, Stream stream) {
  check_arguments("mgcg", mg.size(), b.size(), x.size(), options);
  return mgcg(op, mg, b.data(), x.data(), options, stream);
}

template <typename T>
SolveResult mgcg(const DeviceLinearOperator<T>& op, const Multigrid<T>& mg, const T* b, T* x,
                 const SolverOptions& options, Stream stream) {
  const auto n = static_cast<std::size_t>(mg.size());
  check_arguments("mgcg", mg.size(), n, n, options);
  check_operator("mgcg", op, mg);
  require_cuda("mgcg", mg);
  SolveResult result = cuda::flexible_cg(
      op, [&](const T* r, T* z, Stream on) { mg.precondition(r, z, on, &op); }, b, x, options, stream);
  finish("mgcg", result.stop, result.final_residual, options, result);
  return result;
}

template <typename T>
SolveResult mg_solve(const Multigrid<T>& mg, std::type_identity_t<std::span<const T>> b,
                     std::type_identity_t<std::span<T>> x, const SolverOptions& options) {
  check_arguments("mg", mg.size(), b.size(), x.size(), options);
  if (mg.backend() == Backend::cuda) {
    const DeviceArray<T> device_b = DeviceArray<T>::from_host(b);
    DeviceArray<T> device_x = DeviceArray<T>::from_host(std::span<const T>(x.data(), x.size()));
    SolveResult result = mg_solve<T>(mg, device_b, device_x, options);
    device_x.copy_to_host(x);
    device::synchronize(nullptr);
    return result;
  }
  const detail::MultigridKernels<T> kernels = detail::multigrid_kernels<T>(mg.backend());
  const std::int32_t n = mg.size();
  const CsrView<T> a = mg.level_matrix(0).view();
  std::vector<T> r(static_cast<std::size_t>(n));
  SolveResult result;
  kernels.residual(a, b.data(), x.data(), r.data());
  double threshold = 0;
  std::optional<SolverStop> stop =
      start(kernels.dot(n, r.data(), r.data()), kernels.dot(n, b.data(), b.data()), options, result, threshold);
  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    mg.cycle(b, x);
    kernels.residual(a, b.data(), x.data(), r.data());
    stop = after(k, std::sqrt(kernels.dot(n, r.data(), r.data())), threshold, result, &options);
  }
  if (stop == SolverStop::zero_rhs) std::fill(x.begin(), x.end(), T(0));
  kernels.residual(a, b.data(), x.data(), r.data());
  finish("mg", stop.value_or(SolverStop::max_iterations), std::sqrt(kernels.dot(n, r.data(), r.data())), options,
         result);
  return result;
}

template <typename T>
SolveResult mgcg(const HostLinearOperator<T>& op, const Multigrid<T>& mg, std::type_identity_t<std::span<const T>> b,
                 std::type_identity_t<std::span<T>> x, const SolverOptions& options) {
  check_arguments("mgcg", mg.size(), b.size(), x.size(), options);
  check_operator("mgcg", op, mg);
  const detail::MultigridKernels<T> kernels = detail::multigrid_kernels<T>(mg.backend());
  const std::int32_t n = mg.size();
  const auto length = static_cast<std::size_t>(n);
  std::vector<T> r(length), z(length), z_previous(length), p(length), q(length);
  auto residual_of = [&](std::span<const T> at) {  // r = b - A at
    op.apply(at, q);
    for (std::size_t i = 0; i < length; ++i) r[i] = b[i] - q[i];
  };
  SolveResult result;
  residual_of(x);
  double threshold = 0;
  std::optional<SolverStop> stop =
      start(kernels.dot(n, r.data(), r.data()), kernels.dot(n, b.data(), b.data()), options, result, threshold);
  if (!stop) {
    mg.precondition(r, z);
    p = z;
  }
  double rz = kernels.dot(n, r.data(), z.data());
  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    op.apply(p, q);
    const double pq = kernels.dot(n, p.data(), q.data());
    if (!std::isfinite(pq))
      stop = SolverStop::non_finite_residual;
    else if (!(pq > 0))
      stop = SolverStop::not_positive_definite;
    if (stop) break;
    const double alpha = rz / pq;
    kernels.axpy(n, alpha, p.data(), x.data());
    kernels.axpy(n, -alpha, q.data(), r.data());
    stop = after(k, std::sqrt(kernels.dot(n, r.data(), r.data())), threshold, result, &options);
    if (stop) break;
    z_previous.swap(z);
    mg.precondition(r, z);
    const double rz_next = kernels.dot(n, r.data(), z.data());
    const double beta = (rz_next - kernels.dot(n, r.data(), z_previous.data())) / rz;
    rz = rz_next;
    kernels.xpay(n, z.data(), beta, p.data());
  }
  if (stop == SolverStop::zero_rhs) std::fill(x.begin(), x.end(), T(0));
  residual_of(x);
  finish("mgcg", stop.value_or(SolverStop::max_iterations), std::sqrt(kernels.dot(n, r.data(), r.data())), options,
         result);
  return result;
}

// van der Vorst's BiCGStab with M^-1 = one cycle on the right: the
// iterate moves along p_hat = B p and s_hat = B s.
template <typename T>
SolveResult mg_bicgstab(const HostLinearOperator<T>& op, const Multigrid<T>& mg,
                        std::type_identity_t<std::span<const T>> b, std::type_identity_t<std::span<T>> x,
                        const SolverOptions& options) {
  check_arguments("mg_bicgstab", mg.size(), b.size(), x.size(), options);
  check_operator("mg_bicgstab", op, mg);
  const detail::MultigridKernels<T> kernels = detail::multigrid_kernels<T>(mg.backend());
  const std::int32_t n = mg.size();
  const auto length = static_cast<std::size_t>(n);
  std::vector<T> r(length), r_hat(length), p(length, T(0)), v(length, T(0)), p_hat(length), s_hat(length), t(length);
  auto residual_of = [&](std::span<const T> at) {  // r = b - A at
    op.apply(at, t);
    for (std::size_t i = 0; i < length; ++i) r[i] = b[i] - t[i];
  };
  SolveResult result;
  residual_of(x);
  r_hat = r;
  double threshold = 0;
  std::optional<SolverStop> stop =
      start(kernels.dot(n, r.data(), r.data()), kernels.dot(n, b.data(), b.data()), options, result, threshold);
  double rho = 1, alpha = 1, omega = 1;
  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    const double rho_next = kernels.dot(n, r_hat.data(), r.data());
    if (rho_next == 0 || !std::isfinite(rho_next)) {
      stop = std::isfinite(rho_next) ? SolverStop::rho_breakdown : SolverStop::non_finite_residual;
      break;
    }
    const double beta = (rho_next / rho) * (alpha / omega);
    rho = rho_next;
    kernels.axpy(n, -omega, v.data(), p.data());
    kernels.xpay(n, r.data(), beta, p.data());  // p = r + beta (p - omega v)
    mg.precondition(p, p_hat);
    op.apply(p_hat, v);
    const double rv = kernels.dot(n, r_hat.data(), v.data());
    alpha = rho / rv;
    if (rv == 0 || !std::isfinite(alpha)) {
      stop = SolverStop::alpha_breakdown;
      break;
    }
    kernels.axpy(n, -alpha, v.data(), r.data());  // r now holds s
    kernels.axpy(n, alpha, p_hat.data(), x.data());
    stop = after(k, std::sqrt(kernels.dot(n, r.data(), r.data())), threshold, result, nullptr);
    if (stop) break;
    result.residual_history.pop_back();  // the half step is not an iteration's end
    mg.precondition(r, s_hat);
    op.apply(s_hat, t);
    const double tt = kernels.dot(n, t.data(), t.data());
    omega = kernels.dot(n, t.data(), r.data()) / tt;
    if (!(tt > 0) || omega == 0 || !std::isfinite(omega)) {
      stop = SolverStop::omega_breakdown;
      break;
    }
    kernels.axpy(n, omega, s_hat.data(), x.data());
    kernels.axpy(n, -omega, t.data(), r.data());
    stop = after(k, std::sqrt(kernels.dot(n, r.data(), r.data())), threshold, result, &options);
  }
  if (stop == SolverStop::zero_rhs) std::fill(x.begin(), x.end(), T(0));
  residual_of(x);
  finish("mg_bicgstab", stop.value_or(SolverStop::max_iterations), std::sqrt(kernels.dot(n, r.data(), r.data())),
         options, result);
  return result;
}

#define TRELLIS_GRID_INSTANTIATE_MULTIGRID_SOLVERS(T)                                                                 \
  template SolveResult mg_solve<T>(const Multigrid<T>&, std::type_identity_t<std::span<const T>>,                     \
                                   std::type_identity_t<std::span<T>>, const SolverOptions&);                         \
  template SolveResult mgcg<T>(const HostLinearOperator<T>&, const Multigrid<T>&,                                     \
                               std::type_identity_t<std::span<const T>>, std::type_identity_t<std::span<T>>,          \
                               const SolverOptions&);                                                                 \
  template SolveResult mg_bicgstab<T>(const HostLinearOperator<T>&, const Multigrid<T>&,                              \
                                      std::type_identity_t<std::span<const T>>, std::type_identity_t<std::span<T>>,   \
                                      const SolverOptions&);                                                          \
  template SolveResult mg_solve<T>(const Multigrid<T>&, const DeviceArray<T>&, DeviceArray<T>&, const SolverOptions&, \
                                   Stream);                                                                           \
  template SolveResult mgcg<T>(const DeviceLinearOperator<T>&, const Multigrid<T>&, const DeviceArray<T>&,            \
                               DeviceArray<T>&, const SolverOptions&, Stream);                                        \
  template SolveResult mg_solve<T>(const Multigrid<T>&, const T*, T*, const SolverOptions&, Stream);                  \
  template SolveResult mgcg<T>(const DeviceLinearOperator<T>&, const Multigrid<T>&, const T*, T*,                     \
                               const SolverOptions&, Stream);

TRELLIS_GRID_INSTANTIATE_MULTIGRID_SOLVERS(float)
TRELLIS_GRID_INSTANTIATE_MULTIGRID_SOLVERS(double)

#undef TRELLIS_GRID_INSTANTIATE_MULTIGRID_SOLVERS

}  // namespace trellis::grid
