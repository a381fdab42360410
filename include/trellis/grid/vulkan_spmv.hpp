// CSR SpMV with the matrix and both vectors kept on the vulkan backend's
// device between products: the vulkan counterpart of spmv on DeviceCsr and
// DeviceArray. The matrix is uploaded once; x and y move only when asked;
// each product is one submission, waited for. Results as
// spmv(..., Backend::vulkan) gives them. Throws BackendUnavailable where the
// vulkan backend cannot run, and for fp64 on a device without shaderFloat64.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "trellis/core/csr.hpp"

namespace trellis::grid {

// A CSR matrix and its x and y on the vulkan device (see above).
template <typename T>
class VulkanSpmv {
 public:
  // Uploads a; set x, and y where run's beta is not 0, before a product.
  explicit VulkanSpmv(const CsrMatrix<T>& a);
  ~VulkanSpmv();
  VulkanSpmv(const VulkanSpmv&) = delete;
  VulkanSpmv& operator=(const VulkanSpmv&) = delete;

  // The device's x (a.cols entries) from the host; UsageError on another length.
  void set_x(std::span<const T> x);
  // The device's y (a.rows entries) from the host; UsageError on another length.
  void set_y(std::span<const T> y);
  // y = alpha * A * x + beta * y on the device (y unread when beta is 0).
  void run(T alpha, T beta);
  // The device's y to the host (a.rows entries; UsageError on another length).
  void get_y(std::span<T> y) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

extern template class VulkanSpmv<float>;
extern template class VulkanSpmv<double>;

}  // namespace trellis::grid
