// One Krylov solve for the grid bindings, whatever the operator (an
// assembled CSR matrix or a matrix-free form): method "cg" or "bicgstab",
// x holds the initial guess and receives the solution, the GIL is released
// while it runs; returns the SolveResult as a dict.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <span>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::python {

// The host backend a solve from Python runs on: automatic is cpu; cuda is
// refused (the solvers' device form takes device arrays).
Backend host_solver_backend(const std::string& backend);

nanobind::dict krylov_solve(const std::string& method, const grid::HostLinearOperator<double>& op,
                            std::span<const double> b, std::span<double> x, double tolerance,
                            std::int32_t max_iterations, Backend host);

}  // namespace trellis::python
