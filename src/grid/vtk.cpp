// Legacy VTK writer: RECTILINEAR_GRID with one coordinate array per axis and
// the fields as POINT_DATA, values with 17 significant digits so doubles
// survive the round trip.
#include "trellis/grid/vtk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

void write_coordinates(std::ostream& out, const char* axis_name, const Mesh& mesh, int axis) {
  const std::int32_t n = mesh.extent(axis);
  out << axis_name << "_COORDINATES " << n << " double\n";
  for (std::int32_t i = 0; i < n; ++i) {
    out << (axis < mesh.dim() ? fmt::format("{:.17g}", mesh.axis(axis).point(i)) : std::string("0"))
        << (i + 1 == n ? '\n' : ' ');
  }
}

}  // namespace

void write_vtk(const std::string& path, const Mesh& mesh,
               const std::vector<std::pair<std::string, std::vector<double>>>& fields) {
  for (const auto& [name, values] : fields) {
    if (name.empty() || std::any_of(name.begin(), name.end(), [](unsigned char c) { return std::isspace(c); })) {
      throw UsageError(fmt::format("VTK field name '{}' must be one word", name));
    }
    if (values.size() != static_cast<std::size_t>(mesh.nodes())) {
      throw UsageError(
          fmt::format("VTK field '{}' has {} values for a mesh of {} nodes", name, values.size(), mesh.nodes()));
    }
  }
  AtomicOutputFile file(path);
  std::ostream& out = file.stream();
  out << "# vtk DataFile Version 3.0\n"
      << "trellis grid solution\n"
      << "ASCII\n"
      << "DATASET RECTILINEAR_GRID\n"
      << "DIMENSIONS " << mesh.extent(0) << ' ' << mesh.extent(1) << ' ' << mesh.extent(2) << '\n';
  write_coordinates(out, "X", mesh, 0);
  write_coordinates(out, "Y", mesh, 1);
  write_coordinates(out, "Z", mesh, 2);
  out << "POINT_DATA " << mesh.nodes() << '\n';
  for (const auto& [name, values] : fields) {
    out << "SCALARS " << name << " double 1\nLOOKUP_TABLE default\n";
    for (double v : values) out << fmt::format("{:.17g}", v) << '\n';
  }
  file.commit();
}

}  // namespace trellis::grid
