// CUDA device discovery and the small set of runtime calls host code needs.
// Everything here works in a build without CUDA: discovery finds no devices
// and the memory calls throw BackendUnavailable.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "trellis/core/stream.hpp"

namespace trellis {

// Properties of a CUDA device, as the runtime reports them.
struct DeviceInfo {
  int index = 0;                                  // CUDA device index
  std::string name;                               // device name, e.g. "NVIDIA H200"
  int compute_major = 0;                          // compute capability, major
  int compute_minor = 0;                          // compute capability, minor
  int multiprocessors = 0;                        // streaming multiprocessors
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

// The CUDA runtime calls host code needs: device and page-locked memory, copies, synchronisation, streams.
namespace device {

// Raw device memory; the typed owner is DeviceArray<T>. Out of memory throws
// DeviceError with the bytes asked and the bytes free.
void* allocate(std::size_t bytes);
// Frees memory from allocate(); nullptr is ignored.
void release(void* pointer) noexcept;

// Page-locked host memory (cudaHostAlloc): copies between it and the device
// run at the link's full rate and need no staging by the driver. The typed
// owner is PinnedArray<T>. Failure throws DeviceError; try_allocate_pinned
// returns nullptr instead (a host may refuse to lock that much memory, and
// a caller with a pageable fallback goes on without it).
void* allocate_pinned(std::size_t bytes);
// Like allocate_pinned, but returns nullptr when the memory cannot be locked.
void* try_allocate_pinned(std::size_t bytes) noexcept;
// Frees memory from allocate_pinned() or try_allocate_pinned(); nullptr is ignored.
void release_pinned(void* pointer) noexcept;

// Copies bytes from host to device, asynchronously on stream.
void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, Stream stream);
// Copies bytes from device to host, asynchronously on stream.
void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, Stream stream);
// Copies bytes between two device buffers, asynchronously on stream.
void copy_on_device(void* device_dst, const void* device_src, std::size_t bytes, Stream stream);
// Sets bytes of device memory to zero, asynchronously on stream.
void fill_zero(void* device_dst, std::size_t bytes, Stream stream);

// Waits until the work enqueued on stream has finished.
void synchronize(Stream stream);
// Waits until all work on the current device has finished.
void synchronize_device();

// Makes `index` the calling thread's current device (the CUDA runtime keeps
// one per thread); throws DeviceError for an index no device has.
void set_current(int index);

// How the device's block scheduler orders a stream's work against other
// streams' pending work: high goes first wherever a multiprocessor frees.
enum class StreamPriority { normal, high };

// A stream owned for the lifetime of the object.
class OwnedStream {
 public:
  // Creates a stream on the current device.
  explicit OwnedStream(StreamPriority priority = StreamPriority::normal);
  ~OwnedStream();                                       // destroys the stream
  OwnedStream(const OwnedStream&) = delete;             // not copyable
  OwnedStream& operator=(const OwnedStream&) = delete;  // not copy-assignable
  // The stream handle (valid while this object lives).
  Stream get() const noexcept { return stream_; }

 private:
  Stream stream_ = nullptr;
};

}  // namespace device
}  // namespace trellis
