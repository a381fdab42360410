// The grid module's vulkan kernels in a build without Vulkan.
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::vulkan {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable(
      "this build of trellis has no Vulkan support (rebuild with the Vulkan headers and glslc installed, or "
      "-DTRELLIS_VULKAN=ON)");
}

}  // namespace

void spmv(float, const CsrView<float>&, const float*, float, float*) { unavailable(); }
void spmv(double, const CsrView<double>&, const double*, double, double*) { unavailable(); }
SolveResult cg(const CsrView<float>&, const float*, float*, std::span<const float>, bool, const SolverOptions&) {
  unavailable();
}
SolveResult cg(const CsrView<double>&, const double*, double*, std::span<const double>, bool, const SolverOptions&) {
  unavailable();
}
void matrix_free_apply(const detail::FormView<float>&, const float*, float*) { unavailable(); }
void matrix_free_apply(const detail::FormView<double>&, const double*, double*) { unavailable(); }
SolveResult cg(const detail::FormView<float>&, const float*, float*, std::span<const float>, bool,
               const SolverOptions&) {
  unavailable();
}
SolveResult cg(const detail::FormView<double>&, const double*, double*, std::span<const double>, bool,
               const SolverOptions&) {
  unavailable();
}

}  // namespace trellis::grid::vulkan
