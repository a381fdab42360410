// Public DIA SpMV entry points: shape checks and the one backend switch.
#include <fmt/format.h>

#include "kernels.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/dia.hpp"

namespace trellis::grid {
namespace {

void check_shape(std::int32_t rows, std::int32_t cols, std::size_t x_size, std::size_t y_size) {
  if (x_size != static_cast<std::size_t>(cols) || y_size != static_cast<std::size_t>(rows)) {
    throw UsageError(fmt::format("dia_spmv: a {}x{} matrix needs x of length {} and y of length {}, got {} and {}",
                                 rows, cols, cols, rows, x_size, y_size));
  }
}

}  // namespace

template <typename T>
void dia_spmv(T alpha, const DiaMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y, Backend backend) {
  a.validate();
  check_shape(a.rows, a.cols, x.size(), y.size());
  switch (resolve(backend)) {
    case Backend::reference:
      reference::dia_spmv(alpha, a.view(), x.data(), beta, y.data(), nullptr);
      return;
    case Backend::cpu:
      cpu::dia_spmv(alpha, a.view(), x.data(), beta, y.data(), nullptr);
      return;
    case Backend::cuda: {
      DeviceDia<T> device_a(a);
      auto device_x = DeviceArray<T>::from_host(x);
      DeviceArray<T> device_y(y.size());
      if (beta != T(0)) device_y.copy_from_host(y);
      dia_spmv(alpha, device_a, device_x, beta, device_y);
      device_y.copy_to_host(y);
      device::synchronize(nullptr);
      return;
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("dia_spmv: unresolved backend");
}

template <typename T>
void dia_spmv(T alpha, const DeviceDia<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y, Stream stream) {
  check_shape(a.rows(), a.cols(), x.size(), y.size());
  cuda::dia_spmv(alpha, a.view(), x.data(), beta, y.data(), stream);
}

template void dia_spmv<float>(float, const DiaMatrix<float>&, std::span<const float>, float, std::span<float>, Backend);
template void dia_spmv<double>(double, const DiaMatrix<double>&, std::span<const double>, double, std::span<double>,
                               Backend);
template void dia_spmv<float>(float, const DeviceDia<float>&, const DeviceArray<float>&, float, DeviceArray<float>&,
                              Stream);
template void dia_spmv<double>(double, const DeviceDia<double>&, const DeviceArray<double>&, double,
                               DeviceArray<double>&, Stream);

}  // namespace trellis::grid
