// Vulkan device discovery for info and resolution, and the validation
// message handler.
#include <cstdio>
#include <mutex>

#include "core/vulkan/context.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis {
namespace {

std::mutex& handler_mutex() {
  static std::mutex mutex;
  return mutex;
}

VulkanMessageHandler& handler() {
  static VulkanMessageHandler current = [](std::string_view message) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
  };
  return current;
}

}  // namespace

namespace vk {
void report_validation_message(std::string_view message) {
  VulkanMessageHandler current;
  {
    std::lock_guard lock(handler_mutex());
    current = handler();
  }
  if (current) current(message);
}
}  // namespace vk

bool vulkan_compiled() noexcept { return true; }

std::vector<VulkanDeviceInfo> list_vulkan_devices(std::string* reason) {
  try {
    // A short-lived instance: listing must not make the backend's device.
    vk::Instance instance(false);
    std::vector<VulkanDeviceInfo> devices;
    for (const vk::Candidate& c : vk::compute_devices(instance)) devices.push_back(c.info);
    if (devices.empty() && reason != nullptr) *reason = "no Vulkan device with a compute queue and Vulkan 1.1";
    return devices;
  } catch (const Error& error) {
    if (reason != nullptr) *reason = error.what();
    return {};
  }
}

VulkanDeviceInfo current_vulkan_device() { return vk::Context::get().info(); }

void set_vulkan_message_handler(VulkanMessageHandler next) {
  std::lock_guard lock(handler_mutex());
  handler() = std::move(next);
}

}  // namespace trellis
