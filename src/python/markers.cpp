#include "markers.hpp"

#include <string>

#include "trellis/core/error.hpp"

namespace trellis::python {

std::optional<grid::Marker> marker_on(const grid::Mesh& mesh, const std::optional<std::vector<std::int32_t>>& nodes) {
  if (!nodes) return std::nullopt;
  for (const std::int32_t node : *nodes) {
    if (node < 0 || node >= mesh.nodes()) {
      throw UsageError("marker: node " + std::to_string(node) + " is not on the mesh (" + std::to_string(mesh.nodes()) +
                       " nodes)");
    }
  }
  return grid::Marker{"marker", *nodes};
}

}  // namespace trellis::python
