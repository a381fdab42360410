// The parts of the trellis._native module, one per library module; each adds
// its functions and classes to the submodule it is given.
#pragma once

#include <nanobind/nanobind.h>

namespace trellis::python {

void bind_errors(nanobind::module_& m);
void bind_graph(nanobind::module_& m);
void bind_align(nanobind::module_& m);
void bind_grid(nanobind::module_& m);
void bind_grid_forms(nanobind::module_& m);
void bind_multigrid(nanobind::module_& m);
void bind_grid_functions(nanobind::module_& m);
void bind_route(nanobind::module_& m);

}  // namespace trellis::python
