// Preconditioned CG on the Vulkan device: the steps and stopping rules of the
// host driver (solvers.cpp, host_cg), each vector step one dispatch of
// cg_vectors.comp. The host reads the scalars (two submissions an iteration:
// SpMV and p.q, then the residual update) and adds the workgroups' partial
// sums in double, in a fixed order, so runs repeat bit for bit.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "../solver_start.hpp"
#include "csr_on_device.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::vulkan {
namespace {

constexpr std::uint32_t kVectorsFloat[] =
#include "grid/vulkan/cg_vectors_f32.spv.inc"
    ;
constexpr std::uint32_t kVectorsDouble[] =
#include "grid/vulkan/cg_vectors_f64.spv.inc"
    ;

// cg_vectors.comp's operations and push constants.
enum class Step : std::uint32_t { initial_residual = 0, dot = 1, update_residual = 2, step = 3, axpy = 4 };

template <typename T>
struct VectorArguments {
  T alpha;
  T beta;
  std::uint32_t n;
  std::uint32_t op;
  std::uint32_t has_diagonal;
};

// CG's vectors on the device and the dispatches on them.
template <typename T>
struct Vectors {
  Vectors(const CsrView<T>& a, const T* b_host, const T* x_host, std::span<const T> diagonal_host)
      : n(static_cast<std::size_t>(a.rows)),
        groups((n + vk::kWorkgroupSize - 1) / vk::kWorkgroupSize),
        matrix(a),
        b(vk::Buffer::from<T>({b_host, n})),
        // Without a preconditioner the shader never reads it; a binding still
        // needs a buffer.
        diagonal(diagonal_host.empty() ? std::make_unique<vk::Buffer>(sizeof(T)) : vk::Buffer::from<T>(diagonal_host)),
        r(std::make_unique<vk::Buffer>(n * sizeof(T))),
        p(std::make_unique<vk::Buffer>(n * sizeof(T))),
        q(std::make_unique<vk::Buffer>(n * sizeof(T))),
        x(vk::Buffer::from<T>({x_host, n})),
        partials(std::make_unique<vk::Buffer>(groups * 3 * sizeof(T))),
        has_diagonal(!diagonal_host.empty()) {}

  // The first count partial sums of the last reduction, each added in group
  // order in double.
  void sums(double* out, int count) const {
    const T* values = partials->as<T>();
    for (int k = 0; k < count; ++k) {
      double sum = 0;
      for (std::size_t g = 0; g < groups; ++g) sum += static_cast<double>(values[g * 3 + k]);
      out[k] = sum;
    }
  }

  void record(vk::Recorder& recorder, Step step, double alpha = 0, double beta = 0) const {
    const VectorArguments<T> arguments{static_cast<T>(alpha), static_cast<T>(beta), static_cast<std::uint32_t>(n),
                                       static_cast<std::uint32_t>(step), has_diagonal ? 1u : 0u};
    recorder.dispatch(kernel(), {b.get(), diagonal.get(), r.get(), p.get(), q.get(), x.get(), partials.get()},
                      &arguments, sizeof(arguments), n);
  }
  void record_residual_product(vk::Recorder& recorder) const { record_spmv(recorder, matrix, T(1), *x, T(0), *r); }
  void record_direction_product(vk::Recorder& recorder) const { record_spmv(recorder, matrix, T(1), *p, T(0), *q); }

  static const vk::Kernel& kernel() {
    if constexpr (sizeof(T) == 8) {
      return vk::Context::get().kernel("grid/cg_vectors_f64", kVectorsDouble, 7, sizeof(VectorArguments<T>));
    } else {
      return vk::Context::get().kernel("grid/cg_vectors_f32", kVectorsFloat, 7, sizeof(VectorArguments<T>));
    }
  }

  std::size_t n;
  std::size_t groups;
  CsrOnDevice<T> matrix;
  std::unique_ptr<vk::Buffer> b, diagonal, r, p, q, x, partials;
  bool has_diagonal;
};

template <typename T>
SolveResult cg_of(const CsrView<T>& a, const T* b, T* x, std::span<const T> diagonal, bool diagonal_usable,
                  const SolverOptions& options) {
  check_precision<T>("cg");
  vk::Context& context = vk::Context::get();
  Vectors<T> v(a, b, x, diagonal);
  SolveResult result;

  double sums[3];
  context.run([&](vk::Recorder& recorder) {
    v.record_residual_product(recorder);
    recorder.barrier();
    v.record(recorder, Step::initial_residual);  // r = b - A x, p = z
  });
  v.sums(sums, 3);
  double threshold = 0;
  std::optional<SolverStop> stop = check_start(sums, diagonal_usable, options, result, threshold);
  double rho = sums[1];

  // The last iteration's x += alpha p, p = z + beta p, recorded at the head
  // of the next submission.
  std::optional<std::pair<double, double>> pending_step;
  auto record_pending = [&](vk::Recorder& recorder) {
    if (!pending_step) return;
    v.record(recorder, Step::step, pending_step->first, pending_step->second);
    recorder.barrier();
  };

  for (std::int32_t k = 1; !stop && k <= options.max_iterations; ++k) {
    double pq = 0;
    context.run([&](vk::Recorder& recorder) {
      record_pending(recorder);
      v.record_direction_product(recorder);
      recorder.barrier();
      v.record(recorder, Step::dot);
    });
    pending_step.reset();
    v.sums(&pq, 1);
    if (!std::isfinite(pq)) stop = SolverStop::non_finite_residual;
    else if (!(pq > 0)) stop = SolverStop::not_positive_definite;
    if (stop) break;
    const double alpha = rho / pq;
    if (!std::isfinite(alpha)) {
      stop = SolverStop::non_finite_residual;
      break;
    }
    double updated[2];
    context.run([&](vk::Recorder& recorder) { v.record(recorder, Step::update_residual, alpha); });
    v.sums(updated, 2);
    const double residual = std::sqrt(updated[0]);
    result.iterations = k;
    result.residual_history.push_back(residual);
    if (!std::isfinite(updated[0]) || !std::isfinite(updated[1])) stop = SolverStop::non_finite_residual;
    else if (residual <= threshold) stop = SolverStop::converged;
    else if (updated[1] == 0) stop = SolverStop::rho_breakdown;
    if (stop) {
      context.run([&](vk::Recorder& recorder) { v.record(recorder, Step::axpy, alpha); });  // x catches up with r
      break;
    }
    const double beta = updated[1] / rho;
    rho = updated[1];
    pending_step = {alpha, beta};
  }
  const SolverStop final_stop = stop.value_or(SolverStop::max_iterations);
  const auto n = static_cast<std::size_t>(a.rows);
  if (final_stop == SolverStop::zero_rhs) std::fill_n(v.x->template as<T>(), n, T(0));
  // The explicit residual ||b - A x||.
  context.run([&](vk::Recorder& recorder) {
    record_pending(recorder);
    v.record_residual_product(recorder);
    recorder.barrier();
    v.record(recorder, Step::initial_residual);
  });
  v.sums(sums, 1);
  result.final_residual = std::sqrt(sums[0]);
  result.stop = final_stop;
  result.converged = final_stop == SolverStop::converged || final_stop == SolverStop::zero_rhs;
  std::copy_n(v.x->template as<T>(), n, x);
  return result;
}

}  // namespace

TRELLIS_GRID_DECLARE_VULKAN_CG(float) { return cg_of(a, b, x, diagonal, diagonal_usable, options); }
TRELLIS_GRID_DECLARE_VULKAN_CG(double) { return cg_of(a, b, x, diagonal, diagonal_usable, options); }

}  // namespace trellis::grid::vulkan
