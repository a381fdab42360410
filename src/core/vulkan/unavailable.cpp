// Stand-ins for the Vulkan backend in a build without it: discovery finds
// nothing and says how to build it.
#include "trellis/core/backend.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis {

bool vulkan_compiled() noexcept { return false; }

std::vector<VulkanDeviceInfo> list_vulkan_devices(std::string* reason) {
  if (reason != nullptr) *reason = "built without Vulkan";
  return {};
}

VulkanDeviceInfo current_vulkan_device() {
  throw BackendUnavailable(
      "this build of trellis has no Vulkan support (rebuild with the Vulkan headers and glslc installed, or "
      "-DTRELLIS_VULKAN=ON)");
}

void set_vulkan_message_handler(VulkanMessageHandler) {}

}  // namespace trellis
