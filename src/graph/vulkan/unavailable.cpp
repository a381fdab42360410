// The graph module's vulkan engine in a build without Vulkan.
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::graph::vulkan {

struct GraphOnDevice::State {};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>&) {
  throw BackendUnavailable(
      "this build of trellis has no Vulkan support (rebuild with the Vulkan headers and glslc installed, or "
      "-DTRELLIS_VULKAN=ON)");
}
GraphOnDevice::~GraphOnDevice() = default;
std::int64_t GraphOnDevice::search(const SearchSpec&, std::span<Weight>) { return 0; }

}  // namespace trellis::graph::vulkan
