#include "trellis/core/backend.hpp"

#include <string>

#include "trellis/core/device.hpp"
#include "trellis/core/vulkan.hpp"
#include "trellis/core/error.hpp"

namespace trellis {

std::string_view to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::automatic:
      return "auto";
    case Backend::reference:
      return "reference";
    case Backend::cpu:
      return "cpu";
    case Backend::cuda:
      return "cuda";
    case Backend::vulkan:
      return "vulkan";
  }
  return "unknown";
}

Backend parse_backend(std::string_view name) {
  if (name == "auto" || name == "automatic") return Backend::automatic;
  if (name == "reference" || name == "ref") return Backend::reference;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  if (name == "vulkan") return Backend::vulkan;
  throw UsageError("unknown backend '" + std::string(name) + "' (expected auto, reference, cpu, cuda or vulkan)");
}

bool cuda_usable() {
  // Asked once: device enumeration initialises the CUDA runtime (slow).
  static const bool usable = cuda_compiled() && !list_devices().empty();
  return usable;
}

std::vector<Backend> available_backends() {
  std::vector<Backend> backends{Backend::reference, Backend::cpu};
  if (cuda_usable()) backends.push_back(Backend::cuda);
  if (vulkan_usable()) backends.push_back(Backend::vulkan);
  return backends;
}

bool vulkan_usable() {
  // Asked once: enumeration creates a Vulkan instance (loads every driver).
  static const bool usable = vulkan_compiled() && !list_vulkan_devices().empty();
  return usable;
}

Backend resolve_with_vulkan(Backend requested) {
  if (requested != Backend::vulkan) return resolve(requested);
  if (!vulkan_compiled()) {
    throw BackendUnavailable(
        "the vulkan backend was requested, but this build of trellis has no Vulkan support "
        "(rebuild with the Vulkan headers and glslc installed, Debian: libvulkan-dev glslc, or -DTRELLIS_VULKAN=ON)");
  }
  std::string reason;
  if (list_vulkan_devices(&reason).empty()) {
    throw BackendUnavailable("the vulkan backend was requested, but no Vulkan compute device is usable: " + reason);
  }
  return Backend::vulkan;
}

Backend resolve(Backend requested) {
  switch (requested) {
    case Backend::automatic:
      return cuda_usable() ? Backend::cuda : Backend::cpu;
    case Backend::reference:
    case Backend::cpu:
      return requested;
    case Backend::cuda: {
      if (!cuda_compiled()) {
        throw BackendUnavailable(
            "the cuda backend was requested, but this build of trellis has no CUDA support "
            "(rebuild with the CUDA toolkit installed, or -DTRELLIS_CUDA=ON)");
      }
      std::string reason;
      if (list_devices(&reason).empty()) {
        throw BackendUnavailable("the cuda backend was requested, but no CUDA device is usable: " + reason);
      }
      return Backend::cuda;
    }
    case Backend::vulkan:
      resolve_with_vulkan(requested);  // throws when vulkan cannot run at all, which says more
      throw BackendUnavailable(
          "the vulkan backend does not implement this operation yet (docs/vulkan.md lists the kernels it has)");
  }
  throw UsageError("invalid backend value");
}

}  // namespace trellis
