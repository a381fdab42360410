// One Krylov solve for the grid bindings, whatever the operator (an
// assembled CSR matrix or a matrix-free form) and wherever the vectors (host
// or CUDA device): method "cg" or "bicgstab", x holds the initial guess and
// receives the solution, the GIL is released while it runs; returns the
// SolveResult as a dict.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::python {

// The host backend a solve from Python runs on: automatic is cpu; cuda is
// refused (the solvers' device form takes device arrays).
Backend host_solver_backend(const std::string& backend);

// SolverOptions for a solve from Python: progress(iteration, residual)
// every check_every iterations when given (False from it stops the solve,
// which reports stop "interrupted"), Ctrl-C noticed there too. progress must
// outlive the options.
grid::SolverOptions solver_options(double tolerance, std::int32_t max_iterations, std::int32_t check_every,
                                   const nanobind::object& progress);

nanobind::dict krylov_solve(const std::string& method, const grid::HostLinearOperator<double>& op,
                            std::span<const double> b, std::span<double> x, const grid::SolverOptions& options,
                            Backend host);

// The same on device vectors (op.size entries each; the cuda drivers).
nanobind::dict krylov_solve_device(const std::string& method, const grid::DeviceLinearOperator<double>& op,
                                   const double* b, double* x, const grid::SolverOptions& options);

// The SolveResult as the dict the package returns as info.
nanobind::dict solve_info(grid::SolveResult&& result);

// The one device of the arrays of a call (UsageError when they differ).
int same_device(std::initializer_list<int> device_ids);

}  // namespace trellis::python
