// The align module's vulkan engine in a build without Vulkan.
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::vulkan {

struct SubjectsOnDevice::State {};

SubjectsOnDevice::SubjectsOnDevice(const SequenceSet&, const Scoring&, std::size_t) {
  throw BackendUnavailable(
      "this build of trellis has no Vulkan support (rebuild with the Vulkan headers and glslc installed, or "
      "-DTRELLIS_VULKAN=ON)");
}
SubjectsOnDevice::~SubjectsOnDevice() = default;
void SubjectsOnDevice::scores(std::span<const Residue>, std::span<std::int32_t>) {}

}  // namespace trellis::align::vulkan
