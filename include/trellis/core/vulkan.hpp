// Vulkan compute device discovery, for `trellis info` and backend
// resolution. Works in every build: without the Vulkan backend, or without a
// loader or a device, the list is empty and says why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trellis {

// Properties of a Vulkan compute device, as the driver reports them.
struct VulkanDeviceInfo {
  int index = 0;                    // in the order the loader lists devices
  std::string name;                 // device name
  std::string type;                 // "discrete GPU", "integrated GPU", "CPU", ...
  std::string api_version;          // "1.3.230": what the driver implements
  std::string driver;               // driver name and version, when reported
  std::uint32_t subgroup_size = 0;  // subgroup (warp) width in invocations
  std::size_t shared_memory = 0;    // bytes of workgroup (shared) memory
  bool float64 = false;             // shaderFloat64: fp64 kernels can run
  // Memory heaps and types, e.g. "heap 0 (80 GiB, device-local): device-local; heap 1 (...): host-visible
  // coherent, ...": which memory the backend's buffers and staging copies can use.
  std::string memory;
};

// Devices with a compute queue and Vulkan 1.1, in the loader's order; the
// backend runs on the first (`TRELLIS_VULKAN_DEVICE=<index>` picks another).
// reason, when given, receives why the list is empty.
std::vector<VulkanDeviceInfo> list_vulkan_devices(std::string* reason = nullptr);

// The device the vulkan backend runs on (throws BackendUnavailable without one).
VulkanDeviceInfo current_vulkan_device();

// Validation. With TRELLIS_VULKAN_VALIDATION=1 in the environment the
// backend's device is made with the Khronos validation layer, where it is
// installed, and every warning or error it reports is passed to the handler
// set here (by default they go to stderr). Set the handler before the first
// vulkan kernel runs; the tests make each message a failure.
using VulkanMessageHandler = std::function<void(std::string_view message)>;
// Sets the handler validation messages are passed to (stderr when none is set).
void set_vulkan_message_handler(VulkanMessageHandler handler);

}  // namespace trellis
