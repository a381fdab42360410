// The Vulkan backend's device: one per process, made on first use and kept
// (never destroyed: drivers' own exit handlers must not run under it). Work
// is recorded into one command buffer, submitted and waited for; the
// descriptor sets it binds live until the next submission.
//
// Contract of the backend's kernels: buffers are host-visible and coherent
// (mapped for their life), every shader runs 256-wide workgroups, and a
// submission returns only after the device has finished and its writes are
// visible to the host.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/vulkan/loader.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis::vk {

inline constexpr std::uint32_t kWorkgroupSize = 256;  // every shader's local_size_x

class Buffer;

// A Vulkan instance with, when asked and installed, the validation layer and
// its messenger.
class Instance {
 public:
  explicit Instance(bool validation);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  VkInstance get() const noexcept { return instance_; }
  bool validating() const noexcept { return messenger_ != VK_NULL_HANDLE; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
};

struct Candidate {
  VkPhysicalDevice device = VK_NULL_HANDLE;
  std::uint32_t queue_family = 0;
  VulkanDeviceInfo info;
};

// Compute-capable Vulkan 1.1 devices, GPUs before CPUs, else in the loader's
// order; info.index is the position in this list.
std::vector<Candidate> compute_devices(const Instance& instance);

// A compiled compute pipeline: bindings storage buffers at set 0, bindings
// 0..n-1, and push_bytes of push constants.
struct Kernel {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  std::uint32_t bindings = 0;
  std::uint32_t push_bytes = 0;
};

class Context;

// Records into the context's command buffer (only inside Context::run).
class Recorder {
 public:
  // One invocation per item in [0, items): workgroups of kWorkgroupSize laid
  // out in x and, past the device's x limit, y (shaders linearise both).
  void dispatch(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                std::uint32_t push_bytes, std::uint64_t items);
  // Writes of every earlier command visible to every later one.
  void barrier();
  // The buffer's words set to value.
  void fill(Buffer& buffer, std::uint32_t value);

 private:
  friend class Context;
  explicit Recorder(Context& context) : context_(context) {}
  Context& context_;
};

class Context {
 public:
  // The process's context; the first call makes it (BackendUnavailable when
  // no device can be used, with the reason).
  static Context& get();

  VkDevice device() const noexcept { return device_; }
  const VulkanDeviceInfo& info() const noexcept { return info_; }
  std::uint32_t max_groups_x() const noexcept { return max_groups_x_; }
  // The most bytes one storage-buffer binding may span (maxStorageBufferRange).
  std::uint64_t max_storage_buffer_bytes() const noexcept { return max_storage_buffer_bytes_; }
  // Whether the validation layer watches this device.
  bool validating() const noexcept { return instance_.validating(); }

  // The kernel compiled from spirv, made on first use and kept under name.
  const Kernel& kernel(const std::string& name, std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                       std::uint32_t push_bytes);

  // Records with record, submits, and waits until the device has finished.
  void run(const std::function<void(Recorder&)>& record);

  // Memory for a buffer of bytes: host-visible and coherent, device-local
  // where the device has such memory.
  VkDeviceMemory allocate(const VkMemoryRequirements& requirements, std::size_t bytes);

 private:
  Context();
  friend class Recorder;

  Instance instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  VulkanDeviceInfo info_;
  std::uint32_t max_groups_x_ = 65535;
  std::uint64_t max_storage_buffer_bytes_ = std::uint64_t{1} << 27;  // Vulkan's minimum
  std::mutex mutex_;                                                 // one recording and submission at a time
  std::mutex kernels_mutex_;                                         // apart: kernels are looked up while recording
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
};

// A storage buffer mapped for its life. Zero bytes still makes a (4-byte)
// buffer, because Vulkan has no empty ones.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer get() const noexcept { return buffer_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void* data() const noexcept { return mapped_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(mapped_);
  }

  template <typename T>
  static std::unique_ptr<Buffer> from(std::span<const T> values) {
    auto buffer = std::make_unique<Buffer>(values.size_bytes());
    if (!values.empty()) std::copy(values.begin(), values.end(), buffer->template as<T>());
    return buffer;
  }

 private:
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace trellis::vk
