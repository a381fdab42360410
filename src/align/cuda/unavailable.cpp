// The cuda Smith-Waterman engine in a build without CUDA.
#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::cuda {

struct ResidentSubjects::State {};

std::span<const KernelShape> kernel_shapes() { return {}; }

ResidentSubjects::ResidentSubjects(const SequenceSet&, const Scoring&, std::size_t) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

ResidentSubjects::~ResidentSubjects() = default;

// Unreachable: the constructor throws.
bool ResidentSubjects::streamed() const noexcept { return false; }
std::size_t ResidentSubjects::chunks() const noexcept { return 0; }

void ResidentSubjects::scores(std::span<const Residue>, std::span<std::int32_t>, std::optional<KernelShape>) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

std::vector<ScoredSubject> ResidentSubjects::best(std::span<const Residue>, std::size_t, std::optional<KernelShape>) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

std::vector<std::vector<ScoredSubject>> ResidentSubjects::best(std::span<const std::span<const Residue>>, std::size_t,
                                                               std::optional<KernelShape>) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

}  // namespace trellis::align::cuda
