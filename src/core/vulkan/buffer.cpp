// Storage buffers, and host data into and out of them (mapped, or through
// a staging buffer).
#include <algorithm>
#include <cstring>

#include "core/vulkan/context.hpp"

namespace trellis::vk {
namespace {

// A staging buffer's size: large enough that a copy's submission costs
// little against its bytes, small enough to keep around.
constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

}  // namespace

Buffer::Buffer(std::size_t bytes, Memory kind) : bytes_(bytes) {
  Context& context = Context::get();
  const Functions& f = functions();
  auto create = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  create.size = std::max<std::size_t>(bytes, 4);
  create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TRELLIS_VK_CHECK(f.vkCreateBuffer(context.device(), &create, nullptr, &buffer_));
  try {
    VkMemoryRequirements requirements;
    f.vkGetBufferMemoryRequirements(context.device(), buffer_, &requirements);
    const Allocation allocation = context.allocate(requirements, bytes, kind);
    memory_ = allocation.memory;
    TRELLIS_VK_CHECK(f.vkBindBufferMemory(context.device(), buffer_, memory_, 0));
    if (allocation.mappable) TRELLIS_VK_CHECK(f.vkMapMemory(context.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
  } catch (...) {
    if (memory_ != VK_NULL_HANDLE) f.vkFreeMemory(context.device(), memory_, nullptr);
    f.vkDestroyBuffer(context.device(), buffer_, nullptr);
    throw;
  }
}

Buffer::~Buffer() {
  const VkDevice device = Context::get().device();
  const Functions& f = functions();
  if (mapped_ != nullptr) f.vkUnmapMemory(device, memory_);
  f.vkFreeMemory(device, memory_, nullptr);
  f.vkDestroyBuffer(device, buffer_, nullptr);
}

Buffer& Context::staging_buffer() {
  if (!staging_) staging_ = std::make_unique<Buffer>(kStagingBytes, Memory::host);
  return *staging_;
}

void Context::upload(Buffer& to, std::size_t offset, const void* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (to.data() != nullptr) {
    std::memcpy(static_cast<char*>(to.data()) + offset, data, bytes);
    return;
  }
  std::lock_guard lock(staging_mutex_);
  Buffer& staging = staging_buffer();
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min(kStagingBytes, bytes - done);
    std::memcpy(staging.data(), static_cast<const char*>(data) + done, chunk);
    run([&](Recorder& recorder) { recorder.copy(staging, 0, to, offset + done, chunk); });
    done += chunk;
  }
}

void Context::download(const Buffer& from, std::size_t offset, void* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (from.data() != nullptr) {
    std::memcpy(data, static_cast<const char*>(from.data()) + offset, bytes);
    return;
  }
  std::lock_guard lock(staging_mutex_);
  Buffer& staging = staging_buffer();
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min(kStagingBytes, bytes - done);
    run([&](Recorder& recorder) { recorder.copy(from, offset + done, staging, 0, chunk); });
    std::memcpy(static_cast<char*>(data) + done, staging.data(), chunk);
    done += chunk;
  }
}

}  // namespace trellis::vk
