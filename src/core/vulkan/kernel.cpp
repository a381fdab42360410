// Recording dispatches, barriers, fills and copies into the context's
// command buffer.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/vulkan/context.hpp"
#include "trellis/core/error.hpp"

namespace trellis::vk {

namespace {

void check_arguments(const Kernel& kernel, std::size_t buffers, std::uint32_t push_bytes) {
  if (buffers != kernel.bindings || push_bytes != kernel.push_bytes) {
    throw Error(fmt::format("vulkan dispatch: {} buffers and {} push bytes for a kernel of {} and {}", buffers,
                            push_bytes, kernel.bindings, kernel.push_bytes));
  }
}

}  // namespace

void Recorder::bind(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                    std::uint32_t push_bytes) {
  const Functions& f = functions();
  const VkDevice device = context_.device_;
  std::pair<const Kernel*, std::vector<VkBuffer>> key{&kernel, {}};
  for (const Buffer* buffer : buffers) key.second.push_back(buffer->get());
  VkDescriptorSet& set = context_.sets_[key];
  if (set == VK_NULL_HANDLE) {
    auto allocate = make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    allocate.descriptorPool = context_.descriptor_pool_;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &kernel.set_layout;
    TRELLIS_VK_CHECK(f.vkAllocateDescriptorSets(device, &allocate, &set));
    std::vector<VkDescriptorBufferInfo> infos;
    infos.reserve(buffers.size());
    for (const Buffer* buffer : buffers) infos.push_back({buffer->get(), 0, VK_WHOLE_SIZE});
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (std::size_t i = 0; i < writes.size(); ++i) {
      writes[i] = make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
      writes[i].dstSet = set;
      writes[i].dstBinding = static_cast<std::uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    f.vkUpdateDescriptorSets(device, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  const VkCommandBuffer commands = context_.commands_;
  f.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
  f.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &set, 0, nullptr);
  if (push_bytes > 0) f.vkCmdPushConstants(commands, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
}

void Recorder::dispatch(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                        std::uint32_t push_bytes, std::uint64_t items) {
  check_arguments(kernel, buffers.size(), push_bytes);
  if (items == 0) return;
  bind(kernel, buffers, push, push_bytes);
  const std::uint64_t groups = (items + kWorkgroupSize - 1) / kWorkgroupSize;
  const std::uint64_t x = std::min<std::uint64_t>(groups, context_.max_groups_x_);
  const std::uint64_t y = (groups + x - 1) / x;
  functions().vkCmdDispatch(context_.commands_, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1);
}

void Recorder::dispatch_indirect(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                                 std::uint32_t push_bytes, const Buffer& groups, std::size_t groups_offset) {
  check_arguments(kernel, buffers.size(), push_bytes);
  bind(kernel, buffers, push, push_bytes);
  functions().vkCmdDispatchIndirect(context_.commands_, groups.get(), groups_offset);
}

void Recorder::barrier() {
  auto memory = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  memory.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  memory.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  const VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  functions().vkCmdPipelineBarrier(context_.commands_, stages, stages, 0, 1, &memory, 0, nullptr, 0, nullptr);
}

void Recorder::fill(Buffer& buffer, std::uint32_t value) {
  functions().vkCmdFillBuffer(context_.commands_, buffer.get(), 0, VK_WHOLE_SIZE, value);
}

void Recorder::fill(Buffer& buffer, std::uint32_t value, std::size_t offset, std::size_t bytes) {
  if (bytes > 0) functions().vkCmdFillBuffer(context_.commands_, buffer.get(), offset, bytes, value);
}

void Recorder::copy(const Buffer& from, std::size_t from_offset, Buffer& to, std::size_t to_offset, std::size_t bytes) {
  if (bytes == 0) return;
  const VkBufferCopy region{from_offset, to_offset, bytes};
  functions().vkCmdCopyBuffer(context_.commands_, from.get(), to.get(), 1, &region);
}

void Recorder::update(Buffer& buffer, std::size_t offset, const void* data, std::size_t bytes) {
  // vkCmdUpdateBuffer takes at most 65,536 bytes a command.
  constexpr std::size_t kMostBytes = 65536;
  for (std::size_t done = 0; done < bytes; done += kMostBytes) {
    const std::size_t chunk = std::min(kMostBytes, bytes - done);
    functions().vkCmdUpdateBuffer(context_.commands_, buffer.get(), offset + done, chunk,
                                  static_cast<const char*>(data) + done);
  }
}

}  // namespace trellis::vk
