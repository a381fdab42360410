// The Vulkan entry points the backend uses, loaded at run time from
// libvulkan.so.1 (the headers are built with VK_NO_PROTOTYPES): a build with
// the backend starts and runs its other backends where no loader exists.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace trellis::vk {

#define TRELLIS_VK_GLOBAL_FUNCTIONS(X)  \
  X(vkCreateInstance)                   \
  X(vkEnumerateInstanceVersion)         \
  X(vkEnumerateInstanceLayerProperties) \
  X(vkEnumerateInstanceExtensionProperties)

// Instance and device functions are the loader's trampolines (fetched with
// vkGetInstanceProcAddr): they dispatch on the object, so one table serves
// every instance and device.
#define TRELLIS_VK_INSTANCE_FUNCTIONS(X)      \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures)              \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkUnmapMemory)                            \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkDestroyPipeline)                        \
  X(vkCreateDescriptorPool)                   \
  X(vkDestroyDescriptorPool)                  \
  X(vkResetDescriptorPool)                    \
  X(vkAllocateDescriptorSets)                 \
  X(vkUpdateDescriptorSets)                   \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkAllocateCommandBuffers)                 \
  X(vkResetCommandBuffer)                     \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkCmdBindPipeline)                        \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdPushConstants)                       \
  X(vkCmdDispatch)                            \
  X(vkCmdDispatchIndirect)                    \
  X(vkCmdCopyBuffer)                          \
  X(vkCmdUpdateBuffer)                        \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdFillBuffer)                          \
  X(vkQueueSubmit)                            \
  X(vkCreateFence)                            \
  X(vkDestroyFence)                           \
  X(vkResetFences)                            \
  X(vkWaitForFences)

struct Functions {
#define TRELLIS_VK_MEMBER(name) PFN_##name name = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  TRELLIS_VK_GLOBAL_FUNCTIONS(TRELLIS_VK_MEMBER)
  TRELLIS_VK_INSTANCE_FUNCTIONS(TRELLIS_VK_MEMBER)
#undef TRELLIS_VK_MEMBER
};

// The global functions, loaded once; throws BackendUnavailable naming what is
// missing (the loader, or a function it lacks).
const Functions& global_functions();

// Every function, after the instance-level ones were fetched through
// instance; call once per instance before using them (cheap afterwards).
const Functions& load_instance_functions(VkInstance instance);

// The table as loaded so far.
const Functions& functions();

// A Vulkan info structure, zeroed, with its type set.
template <typename Info>
Info make(VkStructureType type) {
  Info info{};
  info.sType = type;
  return info;
}

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and the like.
std::string result_name(VkResult result);

// Throws DeviceError naming the call, file and line when result is an error.
void check(VkResult result, const char* call, const char* file, int line);

}  // namespace trellis::vk

#define TRELLIS_VK_CHECK(call) ::trellis::vk::check((call), #call, __FILE__, __LINE__)
