// Checked CUDA runtime calls and kernel launches. Include only from sources
// compiled with the CUDA toolkit (the cuda/ backend folders).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "trellis/core/error.hpp"

// Helpers of TRELLIS_CUDA_CHECK and TRELLIS_LAUNCH (CUDA sources only).
namespace trellis::cuda_detail {

// Throws BackendUnavailable when no device or driver is usable, else DeviceError naming what, file and line.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line);

// Throws (throw_cuda_error) when status is not cudaSuccess.
inline void check(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, what, file, line);
}

// After a launch: catches bad configurations at once; faults inside the kernel
// surface at the next synchronising call, which is checked too.
inline void check_launch(const char* kernel, const char* file, int line) {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, (std::string("launch of ") + kernel).c_str(), file, line);
}

}  // namespace trellis::cuda_detail

/// Checks a CUDA runtime call: `TRELLIS_CUDA_CHECK(cudaMemcpyAsync(...));`
/// throws DeviceError naming the call, file and line when it fails.
#define TRELLIS_CUDA_CHECK(call) ::trellis::cuda_detail::check((call), #call, __FILE__, __LINE__)

/// `TRELLIS_LAUNCH(kernel, grid, block, shared_bytes, stream, args...);`
/// expands to the launch followed by a check naming the kernel.
#define TRELLIS_LAUNCH(kernel, grid, block, shared_bytes, stream, ...)  \
  do {                                                                  \
    kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__); \
    ::trellis::cuda_detail::check_launch(#kernel, __FILE__, __LINE__);  \
  } while (0)
