// The CUDA runtime behind device discovery, DeviceArray, streams and event
// timers. Compiled only when the CUDA backend is built.
#include <cuda_runtime.h>

#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/timer.hpp"

namespace trellis {

namespace cuda_detail {

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    throw BackendUnavailable(std::string("no usable CUDA device (") + cudaGetErrorString(status) + "), needed by " +
                             what);
  }
  throw DeviceError(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace cuda_detail

bool cuda_compiled() noexcept { return true; }

std::vector<DeviceInfo> list_devices(std::string* reason) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    if (reason != nullptr) *reason = std::string(cudaGetErrorString(status));
    return {};
  }
  if (count == 0 && reason != nullptr) *reason = "the CUDA runtime reports no devices";
  std::vector<DeviceInfo> devices;
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp prop{};
    TRELLIS_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    DeviceInfo info;
    info.index = index;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    info.l2_cache = static_cast<std::size_t>(prop.l2CacheSize);
    info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    int current = 0;
    TRELLIS_CUDA_CHECK(cudaGetDevice(&current));
    if (current == index) {
      std::size_t free_bytes = 0;
      std::size_t total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) info.free_memory = free_bytes;
    }
    devices.push_back(info);
  }
  return devices;
}

DeviceInfo current_device() {
  std::string reason;
  auto devices = list_devices(&reason);
  if (devices.empty()) throw BackendUnavailable("no CUDA device: " + reason);
  int current = 0;
  TRELLIS_CUDA_CHECK(cudaGetDevice(&current));
  return devices.at(static_cast<std::size_t>(current));
}

namespace device {

void* allocate(std::size_t bytes) {
  void* pointer = nullptr;
  cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    throw DeviceError("device out of memory: asked for " + std::to_string(bytes) + " bytes (" +
                      std::to_string(bytes >> 20) + " MiB), " + std::to_string(free_bytes >> 20) + " MiB free of " +
                      std::to_string(total_bytes >> 20) + " MiB");
  }
  TRELLIS_CUDA_CHECK(status);
  return pointer;
}

void release(void* pointer) noexcept {
  if (pointer != nullptr) (void)cudaFree(pointer);  // a destructor cannot report; later calls will
}

void* allocate_pinned(std::size_t bytes) {
  void* pointer = nullptr;
  const cudaError_t status = cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw DeviceError("cannot page-lock " + std::to_string(bytes >> 20) +
                      " MiB of host memory: " + cudaGetErrorString(status));
  }
  return pointer;
}

void* try_allocate_pinned(std::size_t bytes) noexcept {
  void* pointer = nullptr;
  if (cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky, but clear it so later checks report their own calls
    return nullptr;
  }
  return pointer;
}

void release_pinned(void* pointer) noexcept {
  if (pointer != nullptr) (void)cudaFreeHost(pointer);
}

void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, Stream stream) {
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, stream));
}

void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, Stream stream) {
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, stream));
}

void copy_on_device(void* device_dst, const void* device_src, std::size_t bytes, Stream stream) {
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(device_dst, device_src, bytes, cudaMemcpyDeviceToDevice, stream));
}

void fill_zero(void* device_dst, std::size_t bytes, Stream stream) {
  TRELLIS_CUDA_CHECK(cudaMemsetAsync(device_dst, 0, bytes, stream));
}

void synchronize(Stream stream) { TRELLIS_CUDA_CHECK(cudaStreamSynchronize(stream)); }

void synchronize_device() { TRELLIS_CUDA_CHECK(cudaDeviceSynchronize()); }

void set_current(int index) {
  int count = 0;
  TRELLIS_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (index < 0 || index >= count) {
    throw DeviceError("no CUDA device " + std::to_string(index) + " (" + std::to_string(count) + " visible)");
  }
  TRELLIS_CUDA_CHECK(cudaSetDevice(index));
}

OwnedStream::OwnedStream(StreamPriority priority) {
  int least = 0, greatest = 0;  // CUDA's greatest priority is its lowest number
  TRELLIS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  TRELLIS_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking,
                                                  priority == StreamPriority::high ? greatest : least));
}

OwnedStream::~OwnedStream() {
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

}  // namespace device

EventTimer::EventTimer() {
  TRELLIS_CUDA_CHECK(cudaEventCreate(&start_));
  TRELLIS_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

void EventTimer::start(Stream stream) { TRELLIS_CUDA_CHECK(cudaEventRecord(start_, stream)); }

void EventTimer::stop(Stream stream) { TRELLIS_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

double EventTimer::elapsed_ms() const {
  TRELLIS_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  TRELLIS_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms);
}

}  // namespace trellis
