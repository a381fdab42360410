// Storage buffers in host-visible, coherent memory, mapped for their life.
#include <algorithm>

#include "core/vulkan/context.hpp"

namespace trellis::vk {

Buffer::Buffer(std::size_t bytes) : bytes_(bytes) {
  Context& context = Context::get();
  const Functions& f = functions();
  auto create = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  create.size = std::max<std::size_t>(bytes, 4);
  create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TRELLIS_VK_CHECK(f.vkCreateBuffer(context.device(), &create, nullptr, &buffer_));
  try {
    VkMemoryRequirements requirements;
    f.vkGetBufferMemoryRequirements(context.device(), buffer_, &requirements);
    memory_ = context.allocate(requirements, bytes);
    TRELLIS_VK_CHECK(f.vkBindBufferMemory(context.device(), buffer_, memory_, 0));
    TRELLIS_VK_CHECK(f.vkMapMemory(context.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
  } catch (...) {
    if (memory_ != VK_NULL_HANDLE) f.vkFreeMemory(context.device(), memory_, nullptr);
    f.vkDestroyBuffer(context.device(), buffer_, nullptr);
    throw;
  }
}

Buffer::~Buffer() {
  const VkDevice device = Context::get().device();
  const Functions& f = functions();
  f.vkUnmapMemory(device, memory_);
  f.vkFreeMemory(device, memory_, nullptr);
  f.vkDestroyBuffer(device, buffer_, nullptr);
}

}  // namespace trellis::vk
