// A CSR matrix in Vulkan buffers and the SpMV recorded on it, shared by the
// SpMV entry and the CG driver.
#pragma once

#include <memory>

#include "core/vulkan/context.hpp"
#include "trellis/core/csr.hpp"

namespace trellis::grid::vulkan {

template <typename T>
struct CsrOnDevice {
  // Row offsets narrowed to 32 bits (64-bit integers are optional in
  // shaders): BackendUnavailable past 2^32 - 1 entries, and for fp64 on a
  // device without shaderFloat64.
  explicit CsrOnDevice(const CsrView<T>& a);
  std::int32_t rows = 0;
  std::unique_ptr<vk::Buffer> row_offsets;
  std::unique_ptr<vk::Buffer> columns;
  std::unique_ptr<vk::Buffer> values;
};

// Records y = alpha * A * x + beta * y.
template <typename T>
void record_spmv(vk::Recorder& recorder, const CsrOnDevice<T>& a, T alpha, const vk::Buffer& x, T beta, vk::Buffer& y);

// BackendUnavailable unless the device can run T's kernels.
template <typename T>
void check_precision(const char* what);

}  // namespace trellis::grid::vulkan
