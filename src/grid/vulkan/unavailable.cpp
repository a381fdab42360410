// The grid module's vulkan kernels in a build without Vulkan.
#include "kernels.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/vulkan_spmv.hpp"

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

namespace trellis::grid {

template <typename T>
struct VulkanSpmv<T>::State {};

template <typename T>
VulkanSpmv<T>::VulkanSpmv(const CsrMatrix<T>&) {
  vulkan::unavailable();
}
template <typename T>
VulkanSpmv<T>::~VulkanSpmv() = default;
template <typename T>
void VulkanSpmv<T>::set_x(std::span<const T>) {}
template <typename T>
void VulkanSpmv<T>::set_y(std::span<const T>) {}
template <typename T>
void VulkanSpmv<T>::run(T, T) {}
template <typename T>
void VulkanSpmv<T>::get_y(std::span<T>) const {}

template class VulkanSpmv<float>;
template class VulkanSpmv<double>;

}  // namespace trellis::grid
