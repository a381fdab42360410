// trellis._native.grid (grid functions): the discrete inner products of
// norms.hpp on a marker's nodes or the whole mesh, and the projections of
// projections.hpp (R_h: a function's values at the nodes; avg_h: its means
// over the control volumes) of a Python callable f(x[, y[, z]]).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "markers.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/norms.hpp"
#include "trellis/grid/projections.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using namespace trellis::grid;

using Values = HostInput<double>;

double inner(const Mesh& mesh, const Values& u, const Values& v, const std::string& kind, int axis,
             const std::optional<std::vector<std::int32_t>>& marker_nodes, const std::string& backend) {
  const std::optional<Marker> marker = marker_on(mesh, marker_nodes);
  const Marker* on = marker ? &*marker : nullptr;
  const Backend chosen = parse_backend(backend);
  if (kind == "h") {
    nb::gil_scoped_release release;
    return inner_h<double>(mesh, span_of(u), span_of(v), on, chosen);
  }
  if (kind == "plus") {
    if (axis < 0 || axis >= mesh.dim()) {
      throw UsageError("axis must be in [0, " + std::to_string(mesh.dim()) + ") for inner 'plus', got " +
                       std::to_string(axis));
    }
    nb::gil_scoped_release release;
    return inner_plus<double>(mesh, span_of(u), span_of(v), axis, on, chosen);
  }
  throw UsageError("inner must be h or plus, got '" + kind + "'");
}

// The callable as a Function of projections.hpp: it is called from the
// library's threads, each taking the GIL for the call; the first exception
// it raises stops the projection and arrives in Python.
Function function_of(const Mesh& mesh, const nb::callable& callable) {
  const int dim = mesh.dim();
  // A handle, not an object: copies of the Function made by the library's
  // threads then touch no reference count without the GIL. The caller's
  // argument keeps the callable alive for the call.
  const nb::handle f = callable;
  return [f, dim](const Point& p) {
    nb::gil_scoped_acquire acquire;
    nb::object value = dim == 1 ? f(p[0]) : dim == 2 ? f(p[0], p[1]) : f(p[0], p[1], p[2]);
    return nb::cast<double>(value);
  };
}

NumpyVector<double> project(const Mesh& mesh, const nb::callable& f, const std::string& kind, int points_per_axis) {
  if (kind != "nodes" && kind != "average") {
    throw UsageError("projection must be nodes or average, got '" + kind + "'");
  }
  const auto shared = std::make_shared<const Mesh>(mesh);
  const Function function = function_of(mesh, f);
  std::vector<double> out;
  {
    nb::gil_scoped_release release;
    const GridFunction<double> projected =
        kind == "nodes" ? restrict_to_nodes(shared, function) : cell_average(shared, function, points_per_axis);
    out.assign(projected.values().begin(), projected.values().end());
  }
  return to_numpy(std::move(out));
}

}  // namespace

void bind_grid_functions(nb::module_& m) {
  m.def("inner", &inner, nb::arg("mesh"), nb::arg("u"), nb::arg("v"), nb::arg("kind"), nb::arg("axis"),
        nb::arg("marker").none(), nb::arg("backend"),
        "<u, v>_h or <u, v>_+ along axis, over a marker's nodes (node ids) or the whole mesh");
  m.def("project", &project, nb::arg("mesh"), nb::arg("f"), nb::arg("kind"), nb::arg("points_per_axis"),
        "R_h f (kind nodes) or avg_h f (kind average) of a callable f(x[, y[, z]])");
}

}  // namespace trellis::python
