// The router's device searches in a build without CUDA.
#include "../router/window_search.hpp"
#include "trellis/core/error.hpp"

namespace trellis::route::router_detail {

struct WindowSearch::State {};

WindowSearch::WindowSearch(const Lattice&, float, float, const CongestionCounts&) {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}
WindowSearch::~WindowSearch() = default;
void WindowSearch::update(const CongestionCounts&, const CountChanges&) {}
std::vector<graph::SsspPath> WindowSearch::paths(std::span<const WindowQuery>, float, bool, float) { return {}; }

}  // namespace trellis::route::router_detail
