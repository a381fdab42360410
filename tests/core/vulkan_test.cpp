// The vulkan backend's resolution and discovery: never chosen by auto, an
// error (not a fallback) wherever it cannot run, refused by resolve() for the
// entry points without a vulkan kernel, and a device report with the fields
// `trellis info` prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis {
namespace {

TEST(VulkanBackend, AutomaticNeverPicksIt) {
  EXPECT_NE(resolve(Backend::automatic), Backend::vulkan);
  EXPECT_NE(resolve_with_vulkan(Backend::automatic), Backend::vulkan);
  auto available = available_backends();
  EXPECT_EQ(std::find(available.begin(), available.end(), Backend::vulkan) != available.end(), vulkan_usable());
}

TEST(VulkanBackend, EntryPointsWithoutAVulkanKernelRefuseIt) {
  // Whether or not a device is usable: resolve() is what every entry point
  // without a vulkan kernel calls.
  try {
    resolve(Backend::vulkan);
    FAIL() << "no exception";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("vulkan"), std::string::npos) << error.what();
  }
}

TEST(VulkanBackend, UnusableIsAnErrorNotAFallback) {
  if (vulkan_usable()) {
    EXPECT_EQ(resolve_with_vulkan(Backend::vulkan), Backend::vulkan);
    return;
  }
  try {
    resolve_with_vulkan(Backend::vulkan);
    FAIL() << "no exception";
  } catch (const BackendUnavailable& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("vulkan"), std::string::npos) << message;
    if (!vulkan_compiled()) {
      EXPECT_NE(message.find("TRELLIS_VULKAN=ON"), std::string::npos) << message;
    }
  }
}

TEST(VulkanDevices, DiscoveryReportsDevicesOrAReason) {
  std::string reason;
  const auto devices = list_vulkan_devices(&reason);
  EXPECT_EQ(devices.empty(), !vulkan_usable());
  if (devices.empty()) {
    EXPECT_FALSE(reason.empty());
    EXPECT_THROW(current_vulkan_device(), BackendUnavailable);
    return;
  }
  for (const VulkanDeviceInfo& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.type.empty());
    EXPECT_GE(d.api_version, std::string("1.1"));
    EXPECT_GT(d.subgroup_size, 0u);
    EXPECT_GE(d.shared_memory, 16u * 1024);  // Vulkan's minimum maxComputeSharedMemorySize
  }
  EXPECT_EQ(current_vulkan_device().name, devices.front().name);
}

}  // namespace
}  // namespace trellis
