// The cuda assembly and matrix-free kernels in a build without CUDA.
#include "../assembly_device.hpp"
#include "../form_kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::cuda {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

}  // namespace

#define TRELLIS_UNAVAILABLE_FORM_KERNELS(T)                                                                           \
  void refill_gather(const detail::TableView<T>&, const T*, const detail::TableOutput<T>&, Stream) { unavailable(); } \
  void refill_atomic(const detail::TableView<T>&, const T*, const detail::TableOutput<T>&, Stream) { unavailable(); } \
  void finish_rhs(std::int32_t, const std::uint8_t*, const T*, const CsrView<T>&, T*, Stream) { unavailable(); }      \
  void matrix_free_apply(const detail::FormView<T>&, const T*, T*, Stream) { unavailable(); }                         \
  bool matrix_free_smoothing_step(const detail::FormView<T>&, const SmoothingStepVectors<T>&, T, T, Stream) {         \
    unavailable();                                                                                                    \
  }                                                                                                                   \
  bool matrix_free_residual(const detail::FormView<T>&, const T*, const T*, T*, Stream) { unavailable(); }

TRELLIS_UNAVAILABLE_FORM_KERNELS(float)
TRELLIS_UNAVAILABLE_FORM_KERNELS(double)

template <typename T>
void scatter_values(std::int32_t, const std::int32_t*, const T*, T*, Stream) {
  unavailable();
}
template void scatter_values<float>(std::int32_t, const std::int32_t*, const float*, float*, Stream);
template void scatter_values<double>(std::int32_t, const std::int32_t*, const double*, double*, Stream);

template <typename T>
bool build_matrix_tables(const detail::DeviceSetupInput&, detail::DeviceTableArrays<T>&, detail::DevicePattern&,
                         detail::DevicePattern&) {
  unavailable();
}
template <typename T>
bool build_vector_table(const detail::DeviceSetupInput&, detail::DeviceTableArrays<T>&) {
  unavailable();
}
TRELLIS_GRID_ASSEMBLY_SETUP(float)
TRELLIS_GRID_ASSEMBLY_SETUP(double)

}  // namespace trellis::grid::cuda
