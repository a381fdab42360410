// Instance, device choice and the process's Vulkan context.
#include "core/vulkan/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "trellis/core/error.hpp"

namespace trellis::vk {

// Defined in devices.cpp: hands a validation message to the handler.
void report_validation_message(std::string_view message);

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
  report_validation_message(fmt::format("Vulkan validation {}: {}", level, data->pMessage ? data->pMessage : ""));
  return VK_FALSE;  // the call goes on, as the layer's contract asks
}

bool has_layer(const Functions& f, const char* name) {
  std::uint32_t count = 0;
  f.vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  f.vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_instance_extension(const Functions& f, const char* layer, const char* name) {
  std::uint32_t count = 0;
  f.vkEnumerateInstanceExtensionProperties(layer, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  f.vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

bool has_device_extension(VkPhysicalDevice device, const char* name) {
  const Functions& f = functions();
  std::uint32_t count = 0;
  f.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  f.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::string version_string(std::uint32_t v) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

std::string type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

int preference(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

std::string describe_memory(VkPhysicalDevice device) {
  VkPhysicalDeviceMemoryProperties memory;
  functions().vkGetPhysicalDeviceMemoryProperties(device, &memory);
  std::string text;
  for (std::uint32_t h = 0; h < memory.memoryHeapCount; ++h) {
    const VkMemoryHeap& heap = memory.memoryHeaps[h];
    std::string types;
    for (std::uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
      if (memory.memoryTypes[t].heapIndex != h) continue;
      const VkMemoryPropertyFlags flags = memory.memoryTypes[t].propertyFlags;
      std::string type;
      if ((flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) type += " device-local";
      if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0) type += " host-visible";
      if ((flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0) type += " coherent";
      if ((flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0) type += " cached";
      types += fmt::format("{}[{}]{}", types.empty() ? "" : ",", t, type.empty() ? " -" : type);
    }
    text += fmt::format("{}heap {} ({} MiB{}): {}", text.empty() ? "" : "; ", h, heap.size >> 20,
                        (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0 ? ", device-local" : "",
                        types.empty() ? "no types" : types);
  }
  return text;
}

// Required where the driver is a portability implementation (MoltenVK).
constexpr const char* kPortabilityEnumeration = "VK_KHR_portability_enumeration";
constexpr const char* kPortabilitySubset = "VK_KHR_portability_subset";
constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

}  // namespace

Instance::Instance(bool validation) {
  const Functions& f = global_functions();
  std::uint32_t loader_version = VK_API_VERSION_1_0;
  f.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_1) {
    throw BackendUnavailable(
        fmt::format("the Vulkan loader implements {}, 1.1 is needed", version_string(loader_version)));
  }
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  VkInstanceCreateFlags flags = 0;
  if (has_instance_extension(f, nullptr, kPortabilityEnumeration)) {
    extensions.push_back(kPortabilityEnumeration);
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  validation = validation && has_layer(f, kValidationLayer) &&
               (has_instance_extension(f, nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                has_instance_extension(f, kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
  if (validation) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "trellis";
  app.pEngineName = "trellis";
  app.apiVersion = VK_API_VERSION_1_1;
  auto create = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  create.flags = flags;
  create.pApplicationInfo = &app;
  create.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  create.ppEnabledLayerNames = layers.data();
  create.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  const VkResult made = f.vkCreateInstance(&create, nullptr, &instance_);
  if (made == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw BackendUnavailable("no Vulkan driver is installed (Debian: mesa-vulkan-drivers, or the GPU vendor's)");
  }
  if (made != VK_SUCCESS) {
    throw BackendUnavailable(fmt::format("vkCreateInstance failed with {}", result_name(made)));
  }
  const Functions& all = load_instance_functions(instance_);
  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        all.vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    auto info = make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    info.pfnUserCallback = &on_message;
    if (create_messenger != nullptr) create_messenger(instance_, &info, nullptr, &messenger_);
  }
}

Instance::~Instance() {
  const Functions& f = functions();
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        f.vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) f.vkDestroyInstance(instance_, nullptr);
}

std::vector<Candidate> compute_devices(const Instance& instance) {
  const Functions& f = functions();
  std::uint32_t count = 0;
  TRELLIS_VK_CHECK(f.vkEnumeratePhysicalDevices(instance.get(), &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  TRELLIS_VK_CHECK(f.vkEnumeratePhysicalDevices(instance.get(), &count, devices.data()));
  devices.resize(count);
  std::vector<std::pair<int, Candidate>> found;
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceProperties properties;
    f.vkGetPhysicalDeviceProperties(device, &properties);
    if (properties.apiVersion < VK_API_VERSION_1_1) continue;
    std::uint32_t families = 0;
    f.vkGetPhysicalDeviceQueueFamilyProperties(device, &families, nullptr);
    std::vector<VkQueueFamilyProperties> family(families);
    f.vkGetPhysicalDeviceQueueFamilyProperties(device, &families, family.data());
    std::uint32_t chosen = families;
    for (std::uint32_t i = 0; i < families && chosen == families; ++i) {
      if ((family[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) chosen = i;
    }
    if (chosen == families) continue;

    auto subgroup = make<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
    auto driver = make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
    auto properties2 = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    properties2.pNext = &subgroup;
    // Driver properties are Vulkan 1.2 (or VK_KHR_driver_properties).
    const bool has_driver = properties.apiVersion >= VK_API_VERSION_1_2 ||
                            has_device_extension(device, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    if (has_driver) subgroup.pNext = &driver;
    f.vkGetPhysicalDeviceProperties2(device, &properties2);
    VkPhysicalDeviceFeatures features;
    f.vkGetPhysicalDeviceFeatures(device, &features);

    Candidate candidate;
    candidate.device = device;
    candidate.queue_family = chosen;
    candidate.info.name = properties.deviceName;
    candidate.info.type = type_name(properties.deviceType);
    candidate.info.api_version = version_string(properties.apiVersion);
    if (has_driver) candidate.info.driver = fmt::format("{} {}", driver.driverName, driver.driverInfo);
    candidate.info.subgroup_size = subgroup.subgroupSize;
    candidate.info.shared_memory = properties.limits.maxComputeSharedMemorySize;
    candidate.info.float64 = features.shaderFloat64 == VK_TRUE;
    candidate.info.memory = describe_memory(device);
    found.emplace_back(preference(properties.deviceType), std::move(candidate));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Candidate> candidates;
  for (auto& [rank, candidate] : found) {
    candidate.info.index = static_cast<int>(candidates.size());
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

namespace {

bool environment_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

}  // namespace

Context::Context() : instance_(environment_flag("TRELLIS_VULKAN_VALIDATION")) {
  const Functions& f = functions();
  std::vector<Candidate> candidates = compute_devices(instance_);
  if (candidates.empty()) throw BackendUnavailable("no Vulkan device with a compute queue and Vulkan 1.1");
  std::size_t pick = 0;
  if (const char* index = std::getenv("TRELLIS_VULKAN_DEVICE"); index != nullptr && *index != '\0') {
    char* end = nullptr;
    const long value = std::strtol(index, &end, 10);
    if (*end != '\0' || value < 0 || static_cast<std::size_t>(value) >= candidates.size()) {
      throw UsageError(fmt::format("TRELLIS_VULKAN_DEVICE={} is not one of the {} Vulkan devices (0..{})", index,
                                   candidates.size(), candidates.size() - 1));
    }
    pick = static_cast<std::size_t>(value);
  }
  const Candidate& chosen = candidates[pick];
  physical_ = chosen.device;
  info_ = chosen.info;

  const float priority = 1.0f;
  auto queue = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueFamilyIndex = chosen.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures features{};
  features.shaderFloat64 = info_.float64 ? VK_TRUE : VK_FALSE;
  std::vector<const char*> extensions;
  if (has_device_extension(physical_, kPortabilitySubset)) extensions.push_back(kPortabilitySubset);
  auto create = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  create.pEnabledFeatures = &features;
  create.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  TRELLIS_VK_CHECK(f.vkCreateDevice(physical_, &create, nullptr, &device_));
  f.vkGetDeviceQueue(device_, chosen.queue_family, 0, &queue_);
  f.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  VkPhysicalDeviceProperties properties;
  f.vkGetPhysicalDeviceProperties(physical_, &properties);
  max_groups_x_ = properties.limits.maxComputeWorkGroupCount[0];
  max_storage_buffer_bytes_ = properties.limits.maxStorageBufferRange;
  always_stage_ = environment_flag("TRELLIS_VULKAN_STAGING");

  auto pool = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = chosen.queue_family;
  TRELLIS_VK_CHECK(f.vkCreateCommandPool(device_, &pool, nullptr, &command_pool_));
  auto allocate = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  allocate.commandPool = command_pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  TRELLIS_VK_CHECK(f.vkAllocateCommandBuffers(device_, &allocate, &commands_));
  auto fence = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  TRELLIS_VK_CHECK(f.vkCreateFence(device_, &fence, nullptr, &fence_));
  // Sized for the most distinct dispatches one recording makes (a
  // dispatch repeated with the same buffers reuses its set): a few hundred
  // of at most 8 buffers each.
  VkDescriptorPoolSize sizes{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4096};
  auto descriptors = make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  descriptors.maxSets = 512;
  descriptors.poolSizeCount = 1;
  descriptors.pPoolSizes = &sizes;
  TRELLIS_VK_CHECK(f.vkCreateDescriptorPool(device_, &descriptors, nullptr, &descriptor_pool_));
}

Context& Context::get() {
  static std::mutex mutex;
  static Context* context = nullptr;
  std::lock_guard lock(mutex);
  if (context == nullptr) context = new Context();  // kept for the process (see the header)
  return *context;
}

const Kernel& Context::kernel(const std::string& name, std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                              std::uint32_t push_bytes) {
  std::lock_guard lock(kernels_mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return *it->second;
  const Functions& f = functions();
  auto kernel = std::make_unique<Kernel>();
  kernel->bindings = bindings;
  kernel->push_bytes = push_bytes;
  auto module = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  module.codeSize = spirv.size_bytes();
  module.pCode = spirv.data();
  TRELLIS_VK_CHECK(f.vkCreateShaderModule(device_, &module, nullptr, &kernel->module));
  std::vector<VkDescriptorSetLayoutBinding> slots(bindings);
  for (std::uint32_t i = 0; i < bindings; ++i) {
    slots[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  auto set = make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set.bindingCount = bindings;
  set.pBindings = slots.data();
  TRELLIS_VK_CHECK(f.vkCreateDescriptorSetLayout(device_, &set, nullptr, &kernel->set_layout));
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  auto layout = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &kernel->set_layout;
  layout.pushConstantRangeCount = push_bytes > 0 ? 1 : 0;
  layout.pPushConstantRanges = &range;
  TRELLIS_VK_CHECK(f.vkCreatePipelineLayout(device_, &layout, nullptr, &kernel->layout));
  auto pipeline = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  pipeline.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = kernel->module;
  pipeline.stage.pName = "main";
  pipeline.layout = kernel->layout;
  TRELLIS_VK_CHECK(f.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline, nullptr, &kernel->pipeline));
  return *kernels_.emplace(name, std::move(kernel)).first->second;
}

void Context::run(const std::function<void(Recorder&)>& record) {
  std::lock_guard lock(mutex_);
  const Functions& f = functions();
  // The previous submission has finished (run waits), so its sets are free.
  TRELLIS_VK_CHECK(f.vkResetDescriptorPool(device_, descriptor_pool_, 0));
  TRELLIS_VK_CHECK(f.vkResetCommandBuffer(commands_, 0));
  auto begin = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  TRELLIS_VK_CHECK(f.vkBeginCommandBuffer(commands_, &begin));
  Recorder recorder(*this);
  sets_.clear();
  try {
    record(recorder);
  } catch (...) {
    f.vkEndCommandBuffer(commands_);
    throw;
  }
  // Device writes made visible to the host reads that follow the wait.
  auto to_host = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT;
  f.vkCmdPipelineBarrier(commands_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
  TRELLIS_VK_CHECK(f.vkEndCommandBuffer(commands_));
  auto submit = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands_;
  TRELLIS_VK_CHECK(f.vkResetFences(device_, 1, &fence_));
  TRELLIS_VK_CHECK(f.vkQueueSubmit(queue_, 1, &submit, fence_));
  TRELLIS_VK_CHECK(f.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX));
}

Allocation Context::allocate(const VkMemoryRequirements& requirements, std::size_t bytes, Memory kind) {
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // In order of preference; a heap that is full falls through to the next.
  // Device memory: device-local (on a discrete GPU the first such type is
  // the one the host cannot map), then any. Host memory: cached (fast host
  // reads of what the device wrote), then any host-visible coherent.
  std::vector<VkMemoryPropertyFlags> wanted;
  if (kind == Memory::device) {
    wanted = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
  } else {
    wanted = {host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host};
  }
  VkResult last = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkDeviceSize heap = 0;
  std::vector<bool> tried(memory_.memoryTypeCount, false);
  bool any = false;
  for (const VkMemoryPropertyFlags flags : wanted) {
    for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      if ((requirements.memoryTypeBits & (1u << i)) == 0 || (memory_.memoryTypes[i].propertyFlags & flags) != flags ||
          tried[i]) {
        continue;
      }
      any = true;
      auto allocate = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
      allocate.allocationSize = requirements.size;
      allocate.memoryTypeIndex = i;
      VkDeviceMemory memory = VK_NULL_HANDLE;
      last = functions().vkAllocateMemory(device_, &allocate, nullptr, &memory);
      if (last == VK_SUCCESS) {
        const VkMemoryPropertyFlags got = memory_.memoryTypes[i].propertyFlags;
        const bool mappable = (got & host) == host && !(kind == Memory::device && always_stage_);
        return {memory, mappable};
      }
      if (last != VK_ERROR_OUT_OF_DEVICE_MEMORY && last != VK_ERROR_OUT_OF_HOST_MEMORY) TRELLIS_VK_CHECK(last);
      tried[i] = true;
      heap = memory_.memoryHeaps[memory_.memoryTypes[i].heapIndex].size;
      break;
    }
  }
  if (!any) throw DeviceError("the Vulkan device has no memory type for a buffer of this kind");
  throw DeviceError(fmt::format("Vulkan out of memory: asked for {} bytes in a heap of {} bytes ({})", bytes, heap,
                                result_name(last)));
}

}  // namespace trellis::vk
