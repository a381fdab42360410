// A separable form (form_kernels.hpp) in Vulkan buffers and its matrix-free
// apply recorded on them (matrix_free.comp), shared by the apply entry and
// the CG driver.
#pragma once

#include <memory>

#include "../form_kernels.hpp"
#include "core/vulkan/context.hpp"

namespace trellis::grid::vulkan {

template <typename T>
struct SeparableOnDevice {
  // Uploads the form's tables, half spacings, node flags and coefficients
  // (host data). BackendUnavailable for a form that is not separable, and
  // for fp64 on a device without shaderFloat64.
  explicit SeparableOnDevice(const detail::FormView<T>& form);
  std::uint32_t nodes = 0;
  bool symmetrized = false;
  std::unique_ptr<vk::Buffer> program, tables, coefficients, node_flags;
};

// Records y = A x.
template <typename T>
void record_matrix_free_apply(vk::Recorder& recorder, const SeparableOnDevice<T>& a, const vk::Buffer& x,
                              vk::Buffer& y);

}  // namespace trellis::grid::vulkan
