// Legacy VTK output (RECTILINEAR_GRID, ASCII) of node fields on a tensor
// mesh, readable by ParaView and VisIt.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "trellis/grid/mesh.hpp"

namespace trellis::grid {

// Writes the mesh and the named fields (each mesh.nodes() values) to path,
// atomically (a temporary file renamed at the end). Throws UsageError on a
// field of the wrong length or a name with whitespace, Error when the file
// cannot be written.
void write_vtk(const std::string& path, const Mesh& mesh,
               const std::vector<std::pair<std::string, std::vector<double>>>& fields);

}  // namespace trellis::grid
