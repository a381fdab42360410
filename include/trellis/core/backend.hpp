// Backend selection: which implementation of a kernel runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

// The trellis library. This namespace holds the core that the modules share:
// backends, errors, CSR storage, device memory.
namespace trellis {

// reference: scalar oracle; cpu: multithreaded/SIMD; cuda: NVIDIA GPU;
// vulkan: any Vulkan 1.1 compute device (AMD, Intel, Apple through MoltenVK,
// NVIDIA, Mesa's lavapipe on the CPU), for the kernels docs/vulkan.md lists.
// automatic resolves to cuda when a usable device exists, else cpu; it never
// picks vulkan.
enum class Backend {
  automatic,  // cuda where a device is usable, else cpu
  reference,  // the scalar oracle
  cpu,        // multithreaded / SIMD host code
  cuda,       // NVIDIA GPUs
  vulkan      // Vulkan 1.1 compute devices
};

// The backend's name as parse_backend() accepts it ("automatic", "reference", "cpu", "cuda", "vulkan").
std::string_view to_string(Backend backend) noexcept;

// Parses "auto"/"automatic", "reference"/"ref", "cpu", "cuda", "vulkan"; throws UsageError
// naming the accepted values otherwise.
Backend parse_backend(std::string_view name);

// True when the CUDA backend was compiled into this build.
bool cuda_compiled() noexcept;

// True when CUDA is compiled in and at least one device can be used.
bool cuda_usable();

// True when the Vulkan backend was compiled into this build.
bool vulkan_compiled() noexcept;

// True when Vulkan is compiled in and a compute device can be used.
bool vulkan_usable();

// Backends that would run right now, in the order reference, cpu, cuda, vulkan.
std::vector<Backend> available_backends();

// Turns a request into the backend that will run. automatic becomes cuda or
// cpu; cuda without a build or a device throws BackendUnavailable saying which
// (never a silent fallback). vulkan throws BackendUnavailable too: entry
// points with a vulkan kernel call resolve_with_vulkan instead, so an entry
// point without one can never run another backend in its place.
Backend resolve(Backend requested);

// resolve() for the entry points that have a vulkan kernel: vulkan stays
// vulkan when a device is usable, else BackendUnavailable says why.
Backend resolve_with_vulkan(Backend requested);

}  // namespace trellis
