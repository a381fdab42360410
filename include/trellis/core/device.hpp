// CUDA device discovery and the small set of runtime calls host code needs.
// Everything here works in a build without CUDA: discovery finds no devices
// and the memory calls throw BackendUnavailable.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "trellis/core/stream.hpp"

namespace trellis {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;                   // bytes
  std::size_t free_memory = 0;                    // bytes, when discovered
  std::size_t l2_cache = 0;                       // bytes
  std::size_t shared_memory_per_block_optin = 0;  // bytes
};

// Devices the CUDA runtime reports; empty without CUDA or without a device.
// reason, when given, receives why the list is empty.
std::vector<DeviceInfo> list_devices(std::string* reason = nullptr);

// Properties of the current device (throws BackendUnavailable without one).
DeviceInfo current_device();

namespace device {

// Raw device memory; the typed owner is DeviceArray<T>. Out of memory throws
// DeviceError with the bytes asked and the bytes free.
void* allocate(std::size_t bytes);
void release(void* pointer) noexcept;

// Page-locked host memory (cudaHostAlloc): copies between it and the device
// run at the link's full rate and need no staging by the driver. The typed
// owner is PinnedArray<T>. Failure throws DeviceError; try_allocate_pinned
// returns nullptr instead (a host may refuse to lock that much memory, and
// a caller with a pageable fallback goes on without it).
void* allocate_pinned(std::size_t bytes);
void* try_allocate_pinned(std::size_t bytes) noexcept;
void release_pinned(void* pointer) noexcept;

void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, Stream stream);
void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, Stream stream);
void copy_on_device(void* device_dst, const void* device_src, std::size_t bytes, Stream stream);
void fill_zero(void* device_dst, std::size_t bytes, Stream stream);

void synchronize(Stream stream);
void synchronize_device();

// Makes `index` the calling thread's current device (the CUDA runtime keeps
// one per thread); throws DeviceError for an index no device has.
void set_current(int index);

// A stream owned for the lifetime of the object.
class OwnedStream {
 public:
  OwnedStream();
  ~OwnedStream();
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  Stream get() const noexcept { return stream_; }

 private:
  Stream stream_ = nullptr;
};

}  // namespace device
}  // namespace trellis
