// Preconditioned CG on the Vulkan device, on a CSR matrix or a separable
// form's matrix-free apply: the host drivers' steps and stopping rules
// (krylov_steps.hpp, run_cg), each vector step one dispatch of
// cg_vectors.comp. The host reads the scalars (two submissions an iteration:
// the operator's apply and p.q, then the residual update) and adds the
// workgroups' partial sums in double, in a fixed order, so runs repeat bit
// for bit.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "../krylov_steps.hpp"
#include "csr_on_device.hpp"
#include "kernels.hpp"
#include "separable_on_device.hpp"
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

// Records out = A in for CG's operator.
using RecordApply = std::function<void(vk::Recorder&, const vk::Buffer& in, vk::Buffer& out)>;

// CG's vectors on the device and the dispatches on them.
template <typename T>
struct Vectors {
  Vectors(std::size_t size, RecordApply apply, const T* b_host, const T* x_host, std::span<const T> diagonal_host)
      : n(size),
        groups((n + vk::kWorkgroupSize - 1) / vk::kWorkgroupSize),
        record_apply(std::move(apply)),
        b(vk::Buffer::from<T>({b_host, n})),
        // Without a preconditioner the shader never reads it; a binding still
        // needs a buffer.
        diagonal(diagonal_host.empty() ? std::make_unique<vk::Buffer>(sizeof(T)) : vk::Buffer::from<T>(diagonal_host)),
        r(std::make_unique<vk::Buffer>(n * sizeof(T))),
        p(std::make_unique<vk::Buffer>(n * sizeof(T))),
        q(std::make_unique<vk::Buffer>(n * sizeof(T))),
        x(vk::Buffer::from<T>({x_host, n})),
        partials(std::make_unique<vk::Buffer>(groups * 3 * sizeof(T))),
        partials_host(std::make_unique<vk::Buffer>(groups * 3 * sizeof(T), vk::Memory::host)),
        has_diagonal(!diagonal_host.empty()) {}

  // The partial sums copied to the host at the end of a submission, for sums.
  void record_readback(vk::Recorder& recorder) const {
    recorder.barrier();
    recorder.copy(*partials, 0, *partials_host, 0, partials->bytes());
  }
  // The first count partial sums of the last reduction read back, each added
  // in group order in double.
  void sums(double* out, int count) const {
    const T* values = partials_host->as<T>();
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
  void record_residual_product(vk::Recorder& recorder) const { record_apply(recorder, *x, *r); }
  void record_direction_product(vk::Recorder& recorder) const { record_apply(recorder, *p, *q); }

  static const vk::Kernel& kernel() {
    if constexpr (sizeof(T) == 8) {
      return vk::Context::get().kernel("grid/cg_vectors_f64", kVectorsDouble, 7, sizeof(VectorArguments<T>));
    } else {
      return vk::Context::get().kernel("grid/cg_vectors_f32", kVectorsFloat, 7, sizeof(VectorArguments<T>));
    }
  }

  std::size_t n;
  std::size_t groups;
  RecordApply record_apply;
  std::unique_ptr<vk::Buffer> b, diagonal, r, p, q, x, partials, partials_host;
  bool has_diagonal;
};

// CG's steps (run_cg) on the device. A step (x += alpha p, p = z + beta p)
// waits to be recorded at the head of the next submission.
template <typename T>
struct VulkanCgSteps {
  vk::Context& context;
  Vectors<T>& v;
  std::optional<std::pair<double, double>> pending_step;

  void record_pending(vk::Recorder& recorder) {
    if (!pending_step) return;
    v.record(recorder, Step::step, pending_step->first, pending_step->second);
    recorder.barrier();
    pending_step.reset();
  }
  void initial(double* sums) {
    context.run([&](vk::Recorder& recorder) {
      v.record_residual_product(recorder);
      recorder.barrier();
      v.record(recorder, Step::initial_residual);  // r = b - A x, p = z
      v.record_readback(recorder);
    });
    v.sums(sums, 3);
  }
  double direction_dot() {
    context.run([&](vk::Recorder& recorder) {
      record_pending(recorder);
      v.record_direction_product(recorder);
      recorder.barrier();
      v.record(recorder, Step::dot);
      v.record_readback(recorder);
    });
    double pq = 0;
    v.sums(&pq, 1);
    return pq;
  }
  void update_residual(double alpha, double* sums) {
    context.run([&](vk::Recorder& recorder) {
      v.record(recorder, Step::update_residual, alpha);
      v.record_readback(recorder);
    });
    v.sums(sums, 2);
  }
  void axpy(double alpha) {
    context.run([&](vk::Recorder& recorder) { v.record(recorder, Step::axpy, alpha); });
  }
  void step(double alpha, double beta) { pending_step = {alpha, beta}; }
  double finish(SolverStop stop) {
    context.run([&](vk::Recorder& recorder) {
      if (stop == SolverStop::zero_rhs) {
        recorder.fill(*v.x, 0);  // all-zero bits: +0.0
        recorder.barrier();
      }
      record_pending(recorder);
      v.record_residual_product(recorder);
      recorder.barrier();
      v.record(recorder, Step::initial_residual);  // r = b - A x: its r.r
      v.record_readback(recorder);
    });
    double rr = 0;
    v.sums(&rr, 1);
    return std::sqrt(rr);
  }
};

template <typename T>
SolveResult cg_of(std::size_t n, RecordApply apply, const T* b, T* x, std::span<const T> diagonal, bool diagonal_usable,
                  const SolverOptions& options) {
  check_precision<T>("cg");
  Vectors<T> v(n, std::move(apply), b, x, diagonal);
  VulkanCgSteps<T> steps{vk::Context::get(), v, std::nullopt};
  SolveResult result = run_cg(steps, diagonal_usable, options);
  v.x->download(std::span<T>{x, v.n});
  return result;
}

template <typename T>
SolveResult csr_cg(const CsrView<T>& a, const T* b, T* x, std::span<const T> diagonal, bool diagonal_usable,
                   const SolverOptions& options) {
  check_precision<T>("cg");
  const CsrOnDevice<T> matrix(a);
  const RecordApply apply = [&](vk::Recorder& recorder, const vk::Buffer& in, vk::Buffer& out) {
    record_spmv(recorder, matrix, T(1), in, T(0), out);
  };
  return cg_of(static_cast<std::size_t>(a.rows), apply, b, x, diagonal, diagonal_usable, options);
}

template <typename T>
SolveResult matrix_free_cg(const detail::FormView<T>& form, const T* b, T* x, std::span<const T> diagonal,
                           bool diagonal_usable, const SolverOptions& options) {
  const SeparableOnDevice<T> operator_on_device(form);
  const RecordApply apply = [&](vk::Recorder& recorder, const vk::Buffer& in, vk::Buffer& out) {
    record_matrix_free_apply(recorder, operator_on_device, in, out);
  };
  return cg_of(operator_on_device.nodes, apply, b, x, diagonal, diagonal_usable, options);
}

}  // namespace

TRELLIS_GRID_DECLARE_VULKAN_CG(float) { return csr_cg(a, b, x, diagonal, diagonal_usable, options); }
TRELLIS_GRID_DECLARE_VULKAN_CG(double) { return csr_cg(a, b, x, diagonal, diagonal_usable, options); }
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE_CG(float) {
  return matrix_free_cg(form, b, x, diagonal, diagonal_usable, options);
}
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE_CG(double) {
  return matrix_free_cg(form, b, x, diagonal, diagonal_usable, options);
}

}  // namespace trellis::grid::vulkan
