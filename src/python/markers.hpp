// Markers from Python: node ids (the package turns "boundary", masks and
// predicates into ids) checked against the mesh.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trellis/grid/mesh.hpp"

namespace trellis::python {

// The marker of `nodes` (ascending), none when nodes is none; UsageError
// naming a node that is not on the mesh.
std::optional<grid::Marker> marker_on(const grid::Mesh& mesh, const std::optional<std::vector<std::int32_t>>& nodes);

}  // namespace trellis::python
