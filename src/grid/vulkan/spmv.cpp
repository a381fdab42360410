// CSR SpMV on the Vulkan device (spmv.comp, one invocation per row).
#include <fmt/format.h>

#include <limits>
#include <vector>

#include "csr_on_device.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/vulkan_spmv.hpp"

namespace trellis::grid::vulkan {
namespace {

constexpr std::uint32_t kSpmvFloat[] =
#include "grid/vulkan/spmv_f32.spv.inc"
    ;
constexpr std::uint32_t kSpmvDouble[] =
#include "grid/vulkan/spmv_f64.spv.inc"
    ;

// spmv.comp's push constants, laid out as std430 lays them.
template <typename T>
struct SpmvArguments {
  T alpha;
  T beta;
  std::uint32_t rows;
};

template <typename T>
const vk::Kernel& spmv_kernel() {
  if constexpr (sizeof(T) == 8) {
    return vk::Context::get().kernel("grid/spmv_f64", kSpmvDouble, 5, sizeof(SpmvArguments<T>));
  } else {
    return vk::Context::get().kernel("grid/spmv_f32", kSpmvFloat, 5, sizeof(SpmvArguments<T>));
  }
}

}  // namespace

template <typename T>
void check_precision(const char* what) {
  if constexpr (sizeof(T) == 8) {
    const VulkanDeviceInfo& device = vk::Context::get().info();
    if (!device.float64) {
      throw BackendUnavailable(
          fmt::format("vulkan {} in fp64 needs shaderFloat64, which {} lacks (use fp32, or "
                      "another backend)",
                      what, device.name));
    }
  }
}

template <typename T>
CsrOnDevice<T>::CsrOnDevice(const CsrView<T>& a) : rows(a.rows) {
  if (a.nnz > static_cast<RowOffset>(std::numeric_limits<std::uint32_t>::max())) {
    throw BackendUnavailable(
        fmt::format("the vulkan backend takes CSR matrices of up to 2^32 - 1 entries, this one has {}", a.nnz));
  }
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(a.rows) + 1);
  for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<std::uint32_t>(a.row_offsets[i]);
  const auto nnz = static_cast<std::size_t>(a.nnz);
  row_offsets = vk::Buffer::from<std::uint32_t>(offsets);
  columns = vk::Buffer::from<ColumnIndex>({a.col_indices, nnz});
  values = vk::Buffer::from<T>({a.values, nnz});
}

template <typename T>
void record_spmv(vk::Recorder& recorder, const CsrOnDevice<T>& a, T alpha, const vk::Buffer& x, T beta, vk::Buffer& y) {
  const SpmvArguments<T> arguments{alpha, beta, static_cast<std::uint32_t>(a.rows)};
  recorder.dispatch(spmv_kernel<T>(), {a.row_offsets.get(), a.columns.get(), a.values.get(), &x, &y}, &arguments,
                    sizeof(arguments), static_cast<std::uint64_t>(a.rows));
}

template <typename T>
void spmv_of(T alpha, const CsrView<T>& a, const T* x, T beta, T* y) {
  check_precision<T>("spmv");
  if (a.rows == 0) return;
  const CsrOnDevice<T> device_a(a);
  auto device_x = vk::Buffer::from<T>({x, static_cast<std::size_t>(a.cols)});
  const auto rows = static_cast<std::size_t>(a.rows);
  std::unique_ptr<vk::Buffer> device_y =
      beta != T(0) ? vk::Buffer::from<T>({y, rows}) : std::make_unique<vk::Buffer>(rows * sizeof(T));
  vk::Context::get().run(
      [&](vk::Recorder& recorder) { record_spmv(recorder, device_a, alpha, *device_x, beta, *device_y); });
  device_y->download(std::span<T>{y, rows});
}

TRELLIS_GRID_DECLARE_VULKAN_SPMV(float) { spmv_of(alpha, a, x, beta, y); }
TRELLIS_GRID_DECLARE_VULKAN_SPMV(double) { spmv_of(alpha, a, x, beta, y); }

template struct CsrOnDevice<float>;
template struct CsrOnDevice<double>;
template void record_spmv<float>(vk::Recorder&, const CsrOnDevice<float>&, float, const vk::Buffer&, float,
                                 vk::Buffer&);
template void record_spmv<double>(vk::Recorder&, const CsrOnDevice<double>&, double, const vk::Buffer&, double,
                                  vk::Buffer&);
template void check_precision<float>(const char*);
template void check_precision<double>(const char*);

}  // namespace trellis::grid::vulkan

namespace trellis::grid {

template <typename T>
struct VulkanSpmv<T>::State {
  explicit State(const CsrMatrix<T>& a)
      : matrix(a.view()),
        cols(static_cast<std::size_t>(a.cols)),
        x(static_cast<std::size_t>(a.cols) * sizeof(T)),
        y(static_cast<std::size_t>(a.rows) * sizeof(T)) {}
  vulkan::CsrOnDevice<T> matrix;
  std::size_t cols;
  vk::Buffer x, y;

  void check(const char* what, std::size_t got, std::size_t want) const {
    if (got != want)
      throw UsageError(fmt::format("VulkanSpmv: {} has {} entries, the matrix needs {}", what, got, want));
  }
};

template <typename T>
VulkanSpmv<T>::VulkanSpmv(const CsrMatrix<T>& a) {
  vulkan::check_precision<T>("spmv");
  state_ = std::make_unique<State>(a);
}

template <typename T>
VulkanSpmv<T>::~VulkanSpmv() = default;

template <typename T>
void VulkanSpmv<T>::set_x(std::span<const T> x) {
  state_->check("x", x.size(), state_->cols);
  state_->x.upload(x);
}

template <typename T>
void VulkanSpmv<T>::set_y(std::span<const T> y) {
  state_->check("y", y.size(), static_cast<std::size_t>(state_->matrix.rows));
  state_->y.upload(y);
}

template <typename T>
void VulkanSpmv<T>::run(T alpha, T beta) {
  State& s = *state_;
  if (s.matrix.rows == 0) return;
  vk::Context::get().run(
      [&](vk::Recorder& recorder) { vulkan::record_spmv(recorder, s.matrix, alpha, s.x, beta, s.y); });
}

template <typename T>
void VulkanSpmv<T>::get_y(std::span<T> y) const {
  state_->check("y", y.size(), static_cast<std::size_t>(state_->matrix.rows));
  state_->y.download(y);
}

template class VulkanSpmv<float>;
template class VulkanSpmv<double>;

}  // namespace trellis::grid
