// trellis._native: the library's functions for the trellis Python package.
// The package (python/trellis) wraps these in NumPy/SciPy/pandas terms.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/version.hpp"

namespace nb = nanobind;

NB_MODULE(_native, m) {
  m.doc() = "trellis: irregular lattice workloads (graph, align, grid, route) on reference, cpu and cuda backends";
  m.attr("__version__") = trellis::kVersion;
  trellis::python::bind_errors(m);
  m.def(
      "available_backends",
      [] {
        std::vector<std::string> names;
        for (const trellis::Backend backend : trellis::available_backends())
          names.emplace_back(trellis::to_string(backend));
        return names;
      },
      "Backends that would run now, in the order reference, cpu, cuda, vulkan.");
  m.def("cuda_compiled", &trellis::cuda_compiled, "Whether this build has the cuda backend.");
  nb::module_ graph = m.def_submodule("graph", "Shortest paths on CSR graphs");
  trellis::python::bind_graph(graph);
  nb::module_ align = m.def_submodule("align", "Smith-Waterman protein database search");
  trellis::python::bind_align(align);
  nb::module_ grid = m.def_submodule("grid", "Sparse kernels, Krylov solvers and the finite-difference studies");
  trellis::python::bind_grid(grid);
  trellis::python::bind_grid_forms(grid);
  trellis::python::bind_multigrid(grid);
  trellis::python::bind_grid_functions(grid);
  nb::module_ route = m.def_submodule("route", "PCB autorouting and design-rule checks");
  trellis::python::bind_route(route);
}
