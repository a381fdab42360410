// The cuda shortest-path engine in a build without CUDA.
#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::graph::cuda {

bool fits_one_cluster(NodeId) { return false; }

struct GraphOnDevice::State {};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>&, const NodeCoordinates*) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}
GraphOnDevice::~GraphOnDevice() = default;
void GraphOnDevice::search(SsspAlgorithm, Weight, std::span<const SearchSpec>, bool, std::span<SsspResult>, Weight*,
                           NodeId*) {}
void GraphOnDevice::search_into_device(SsspAlgorithm, Weight, std::span<const SearchSpec>, bool, std::span<SsspResult>,
                                       Weight*, NodeId*) {}
void GraphOnDevice::check_device_costs(const Weight*) {}
void GraphOnDevice::search_paths(SsspAlgorithm, Weight, std::span<const SearchSpec>, std::span<SsspPath>) {}

}  // namespace trellis::graph::cuda
