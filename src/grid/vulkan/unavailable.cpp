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

TRELLIS_GRID_DECLARE_VULKAN_SPMV(float) { unavailable(); }
TRELLIS_GRID_DECLARE_VULKAN_SPMV(double) { unavailable(); }
TRELLIS_GRID_DECLARE_VULKAN_CG(float) { unavailable(); }
TRELLIS_GRID_DECLARE_VULKAN_CG(double) { unavailable(); }

}  // namespace trellis::grid::vulkan
