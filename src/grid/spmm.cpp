// Public SpMM entry points: shape checks and the one backend switch.
#include "trellis/grid/spmm.hpp"

#include <fmt/format.h>

#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

void check_shape(std::int32_t rows, std::int32_t cols, std::int32_t right_hand_sides, std::size_t x_size,
                 std::size_t y_size) {
  if (right_hand_sides < 0) {
    throw UsageError(
        fmt::format("spmm: the number of right-hand sides must not be negative, got {}", right_hand_sides));
  }
  const auto k = static_cast<std::size_t>(right_hand_sides);
  const std::size_t x_needed = static_cast<std::size_t>(cols) * k;
  const std::size_t y_needed = static_cast<std::size_t>(rows) * k;
  if (x_size != x_needed || y_size != y_needed) {
    throw UsageError(
        fmt::format("spmm: a {}x{} matrix with {} right-hand sides needs X of {} values and Y of {}, "
                    "got {} and {}",
                    rows, cols, right_hand_sides, x_needed, y_needed, x_size, y_size));
  }
}

}  // namespace

template <typename T>
void spmm(T alpha, const CsrMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y, std::int32_t right_hand_sides,
          Backend backend) {
  check_shape(a.rows, a.cols, right_hand_sides, x.size(), y.size());
  switch (resolve(backend)) {
    case Backend::reference:
      reference::spmm(alpha, a.view(), x.data(), right_hand_sides, beta, y.data(), nullptr);
      return;
    case Backend::cpu:
      cpu::spmm(alpha, a.view(), x.data(), right_hand_sides, beta, y.data(), nullptr);
      return;
    case Backend::cuda: {
      DeviceCsr<T> device_a(a);
      auto device_x = DeviceArray<T>::from_host(x);
      DeviceArray<T> device_y(y.size());
      if (beta != T(0)) device_y.copy_from_host(y);
      spmm(alpha, device_a, device_x, beta, device_y, right_hand_sides);
      device_y.copy_to_host(y);
      device::synchronize(nullptr);
      return;
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("spmm: unresolved backend");
}

template <typename T>
void spmm(T alpha, const DeviceCsr<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y,
          std::int32_t right_hand_sides, Stream stream) {
  check_shape(a.rows(), a.cols(), right_hand_sides, x.size(), y.size());
  cuda::spmm(alpha, a.view(), x.data(), right_hand_sides, beta, y.data(), stream);
}

template void spmm<float>(float, const CsrMatrix<float>&, std::span<const float>, float, std::span<float>, std::int32_t,
                          Backend);
template void spmm<double>(double, const CsrMatrix<double>&, std::span<const double>, double, std::span<double>,
                           std::int32_t, Backend);
template void spmm<float>(float, const DeviceCsr<float>&, const DeviceArray<float>&, float, DeviceArray<float>&,
                          std::int32_t, Stream);
template void spmm<double>(double, const DeviceCsr<double>&, const DeviceArray<double>&, double, DeviceArray<double>&,
                           std::int32_t, Stream);

}  // namespace trellis::grid
