// Public SpMV entry points: shape checks and the one backend switch.
#include "trellis/grid/spmv.hpp"

#include <fmt/format.h>

#include "kernels.hpp"
#include "vulkan/kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

void check_shape(std::int32_t rows, std::int32_t cols, std::size_t x_size, std::size_t y_size) {
  if (x_size != static_cast<std::size_t>(cols) || y_size != static_cast<std::size_t>(rows)) {
    throw UsageError(fmt::format("spmv: a {}x{} matrix needs x of length {} and y of length {}, got {} and {}", rows,
                                 cols, cols, rows, x_size, y_size));
  }
}

}  // namespace

template <typename T>
void spmv(T alpha, const CsrMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y, Backend backend) {
  check_shape(a.rows, a.cols, x.size(), y.size());
  switch (resolve_with_vulkan(backend)) {
    case Backend::reference:
      reference::spmv(alpha, a.view(), x.data(), beta, y.data(), nullptr);
      return;
    case Backend::cpu:
      cpu::spmv(alpha, a.view(), x.data(), beta, y.data(), nullptr);
      return;
    case Backend::cuda: {
      DeviceCsr<T> device_a(a);
      auto device_x = DeviceArray<T>::from_host(x);
      DeviceArray<T> device_y(y.size());
      if (beta != T(0)) device_y.copy_from_host(y);
      spmv(alpha, device_a, device_x, beta, device_y);
      device_y.copy_to_host(y);
      device::synchronize(nullptr);
      return;
    }
    case Backend::vulkan:
      vulkan::spmv(alpha, a.view(), x.data(), beta, y.data());
      return;
    case Backend::automatic:
      break;  // resolve() never returns it
  }
  throw Error("spmv: unresolved backend");
}

template <typename T>
void spmv(T alpha, const DeviceCsr<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y, Stream stream) {
  check_shape(a.rows(), a.cols(), x.size(), y.size());
  cuda::spmv(alpha, a.view(), x.data(), beta, y.data(), stream);
}

template <typename T>
void spmv(T alpha, const DeviceCsr<T>& a, const T* x, T beta, T* y, Stream stream) {
  spmv(alpha, a.view(), x, beta, y, stream);
}

template <typename T>
void spmv(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream) {
  if ((x == nullptr && a.cols > 0) || (y == nullptr && a.rows > 0)) {
    throw UsageError(fmt::format("spmv: a {}x{} matrix needs device pointers to x and y, got null", a.rows, a.cols));
  }
  if (a.rows > 0 && (a.row_offsets == nullptr || (a.nnz > 0 && (a.col_indices == nullptr || a.values == nullptr)))) {
    throw UsageError(fmt::format("spmv: a {}x{} matrix with {} entries needs device pointers to its arrays, got null",
                                 a.rows, a.cols, a.nnz));
  }
  cuda::spmv(alpha, a, x, beta, y, stream);
}

template void spmv<float>(float, const CsrMatrix<float>&, std::span<const float>, float, std::span<float>, Backend);
template void spmv<double>(double, const CsrMatrix<double>&, std::span<const double>, double, std::span<double>,
                           Backend);
template void spmv<float>(float, const DeviceCsr<float>&, const DeviceArray<float>&, float, DeviceArray<float>&,
                          Stream);
template void spmv<double>(double, const DeviceCsr<double>&, const DeviceArray<double>&, double, DeviceArray<double>&,
                           Stream);
template void spmv<float>(float, const DeviceCsr<float>&, const float*, float, float*, Stream);
template void spmv<double>(double, const DeviceCsr<double>&, const double*, double, double*, Stream);
template void spmv<float>(float, const CsrView<float>&, const float*, float, float*, Stream);
template void spmv<double>(double, const CsrView<double>&, const double*, double, double*, Stream);

}  // namespace trellis::grid
