#include "support/backends.hpp"

#include <cstdlib>

#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis::testing {
namespace {

// Before main: the backend's device is made with the validation layer, and
// each message it reports is a failure of the running test.
const bool kVulkanValidated = [] {
  setenv("TRELLIS_VULKAN_VALIDATION", "1", /*overwrite=*/0);
  set_vulkan_message_handler([](std::string_view message) { ADD_FAILURE() << message; });
  return true;
}();

}  // namespace

std::vector<Backend> backends_under_test() { return {Backend::cpu, Backend::cuda}; }

std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info) {
  return std::string(to_string(info.param));
}

std::string unavailable_reason(Backend backend) {
  try {
    resolve_with_vulkan(backend);
    return {};
  } catch (const BackendUnavailable& error) {
    return error.what();
  }
}

std::string float64_unavailable_reason(Backend backend) {
  if (std::string why = unavailable_reason(backend); !why.empty()) return why;
  if (backend != Backend::vulkan) return {};
  const VulkanDeviceInfo device = current_vulkan_device();
  return device.float64 ? std::string() : "the Vulkan device " + device.name + " has no shaderFloat64";
}

}  // namespace trellis::testing
