// The graph module's vulkan engine (src/graph/vulkan/): a graph uploaded once
// and searched many times with frontier Bellman-Ford (bellman_ford.comp).
// Distances follow the parity rule of include/trellis/graph/sssp.hpp bit for
// bit; parents are left to the shared host step. In a build without Vulkan,
// or where no device can run, construction throws BackendUnavailable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "../kernels.hpp"

namespace trellis::graph::vulkan {

class GraphOnDevice {
 public:
  explicit GraphOnDevice(const CsrMatrix<Weight>& csr);
  ~GraphOnDevice();
  GraphOnDevice(const GraphOnDevice&) = delete;
  GraphOnDevice& operator=(const GraphOnDevice&) = delete;

  // Every node's distance from search's sources (the whole graph: a target
  // is masked by the caller); returns the edge relaxations performed.
  std::int64_t search(const SearchSpec& search, std::span<Weight> distance);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::graph::vulkan
