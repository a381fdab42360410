// The tests' promise about Vulkan validation (tests/support/backends.hpp):
// where the layer is installed it watches the backend's device, and a
// message it reports fails the test that made the call.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "core/vulkan/context.hpp"
#include "support/backends.hpp"

namespace trellis {
namespace {

TEST(VulkanValidation, AMessageFailsTheTestThatCausedIt) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  vk::Context& context = vk::Context::get();
  if (!context.validating()) GTEST_SKIP() << "the Khronos validation layer is not installed";
  auto info = vk::make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = 0;  // invalid: a buffer must have bytes
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  EXPECT_NONFATAL_FAILURE_ON_ALL_THREADS(vk::functions().vkCreateBuffer(context.device(), &info, nullptr, &buffer),
                                         "VkBufferCreateInfo-size");
  if (buffer != VK_NULL_HANDLE) vk::functions().vkDestroyBuffer(context.device(), buffer, nullptr);
}

}  // namespace
}  // namespace trellis
