// The Vulkan backend's device: one per process, made on first use and kept
// (never destroyed: drivers' own exit handlers must not run under it). Work
// is recorded into one command buffer, submitted and waited for; the
// descriptor sets it binds live until the next submission.
//
// Contract of the backend's kernels: the buffers they read and write are
// device memory (Memory::device), filled and read back with Buffer::upload
// and download (through a staging buffer where the host cannot map them);
// every shader runs 256-wide workgroups; a submission returns only after
// the device has finished and its writes are visible to the host.
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
#include <utility>
#include <vector>

#include "core/vulkan/loader.hpp"
#include "trellis/core/vulkan.hpp"

namespace trellis::vk {

inline constexpr std::uint32_t kWorkgroupSize = 256;  // every shader's local_size_x

class Buffer;

// Where a buffer lives. device: device-local where the device has such
// memory (on a discrete GPU, memory the host cannot map), for everything the
// kernels read and write. host: host-visible and coherent, cached where
// offered, for staging copies and small results the host reads.
enum class Memory { device, host };

struct Allocation {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  bool mappable = false;  // host-visible and coherent, and not staged on purpose
};

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
  // As dispatch, with the workgroup counts read from three uints at
  // groups_offset bytes into groups (written by an earlier command).
  void dispatch_indirect(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
                         std::uint32_t push_bytes, const Buffer& groups, std::size_t groups_offset);
  // Writes of every earlier command visible to every later one (indirect
  // dispatch arguments included).
  void barrier();
  // The buffer's words set to value: all of them, or bytes from offset.
  void fill(Buffer& buffer, std::uint32_t value);
  void fill(Buffer& buffer, std::uint32_t value, std::size_t offset, std::size_t bytes);
  // bytes copied from one buffer to another.
  void copy(const Buffer& from, std::size_t from_offset, Buffer& to, std::size_t to_offset, std::size_t bytes);
  // Host data written into the buffer when the command runs (bytes a
  // multiple of 4; recorded into the command buffer, so keep it small).
  void update(Buffer& buffer, std::size_t offset, const void* data, std::size_t bytes);

 private:
  friend class Context;
  explicit Recorder(Context& context) : context_(context) {}
  // The kernel's pipeline, a descriptor set for buffers and the push
  // constants; the caller has checked them against the kernel.
  void bind(const Kernel& kernel, std::initializer_list<const Buffer*> buffers, const void* push,
            std::uint32_t push_bytes);
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

  // Memory for a buffer of bytes, of the kind asked for (see Memory).
  Allocation allocate(const VkMemoryRequirements& requirements, std::size_t bytes, Memory kind);

  // Host data into a buffer, or a buffer's data to the host, bytes at
  // offset: a copy where the buffer is mapped, else through a staging
  // buffer, one submission per chunk. Not from inside run's record.
  void upload(Buffer& to, std::size_t offset, const void* data, std::size_t bytes);
  void download(const Buffer& from, std::size_t offset, void* data, std::size_t bytes);

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
  // TRELLIS_VULKAN_STAGING=1: device buffers are never mapped, so a device
  // whose memory is all host-visible (lavapipe) runs the staging copies too.
  bool always_stage_ = false;
  // Descriptor sets of the submission being recorded, by kernel and buffers:
  // a dispatch repeated with the same buffers reuses its set.
  std::map<std::pair<const Kernel*, std::vector<VkBuffer>>, VkDescriptorSet> sets_;
  std::mutex staging_mutex_;  // one staging buffer, one copy through it at a time
  std::unique_ptr<Buffer> staging_;
  Buffer& staging_buffer();   // made on first use; the caller holds staging_mutex_
  std::mutex mutex_;          // one recording and submission at a time
  std::mutex kernels_mutex_;  // apart: kernels are looked up while recording
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
};

// A storage buffer (usable as a copy source and target and as indirect
// dispatch arguments). Zero bytes still makes a (4-byte) buffer, because
// Vulkan has no empty ones. Mapped for its life where its memory allows:
// data() is then the host's view, else nullptr.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes, Memory kind = Memory::device);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer get() const noexcept { return buffer_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void* data() const noexcept { return mapped_; }
  // The mapped data as T (a host buffer's; nullptr where not mapped).
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(mapped_);
  }

  // values into the buffer from element first on (Context::upload).
  template <typename T>
  void upload(std::span<const T> values, std::size_t first = 0) {
    Context::get().upload(*this, first * sizeof(T), values.data(), values.size_bytes());
  }
  // The buffer's elements from first on into values (Context::download).
  template <typename T>
  void download(std::span<T> values, std::size_t first = 0) const {
    Context::get().download(*this, first * sizeof(T), values.data(), values.size_bytes());
  }

  // A device buffer holding values.
  template <typename T>
  static std::unique_ptr<Buffer> from(std::span<const T> values) {
    auto buffer = std::make_unique<Buffer>(values.size_bytes());
    buffer->upload(values);
    return buffer;
  }

 private:
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace trellis::vk
