// Recording dispatches, barriers and fills into the context's command buffer.
#include <fmt/format.h>

#include <vector>

#include "core/vulkan/context.hpp"
#include "trellis/core/error.hpp"

namespace trellis::vk {

void Recorder::dispatch(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                        std::uint32_t push_bytes, std::uint64_t items) {
  if (buffers.size() != kernel.bindings || push_bytes != kernel.push_bytes) {
    throw Error(fmt::format("vulkan dispatch: {} buffers and {} push bytes for a kernel of {} and {}", buffers.size(),
                            push_bytes, kernel.bindings, kernel.push_bytes));
  }
  if (items == 0) return;
  const Functions& f = functions();
  const VkDevice device = context_.device_;
  auto allocate = make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  allocate.descriptorPool = context_.descriptor_pool_;
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &kernel.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
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
  const VkCommandBuffer commands = context_.commands_;
  f.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
  f.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &set, 0, nullptr);
  if (push_bytes > 0) f.vkCmdPushConstants(commands, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  const std::uint64_t groups = (items + kWorkgroupSize - 1) / kWorkgroupSize;
  const std::uint64_t x = std::min<std::uint64_t>(groups, context_.max_groups_x_);
  const std::uint64_t y = (groups + x - 1) / x;
  f.vkCmdDispatch(commands, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1);
}

void Recorder::barrier() {
  auto memory = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  memory.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  memory.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  functions().vkCmdPipelineBarrier(context_.commands_, stages, stages, 0, 1, &memory, 0, nullptr, 0, nullptr);
}

void Recorder::fill(Buffer& buffer, std::uint32_t value) {
  functions().vkCmdFillBuffer(context_.commands_, buffer.get(), 0, VK_WHOLE_SIZE, value);
}

}  // namespace trellis::vk
