// trellis._native.grid: CSR matrices in and out as (indptr, indices, data)
// arrays (the package makes scipy.sparse.csr_matrix of them), SpMV, the
// Krylov solvers, and the convergence studies of problems.hpp. spmv and the
// solvers write into the caller's arrays in place (no copy of x or y), host
// arrays on reference or cpu, CUDA device arrays on cuda (a SciPy matrix is
// uploaded, a device CSR matrix's arrays are read where they are, the
// vectors stay where they are); a SciPy matrix is copied once into the
// library's CSR. Long calls release the GIL; the
// solvers take a progress callback and stop on Ctrl-C.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "argument_errors.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "host_csr.hpp"
#include "krylov.hpp"
#include "progress.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/grid/solvers.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

namespace nb = nanobind;

namespace trellis::python {

CsrMatrix<double> csr_from(std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
                           const HostInput<std::int32_t>& indices, const HostInput<double>& data) {
  CsrMatrix<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_offsets.assign(indptr.data(), indptr.data() + indptr.shape(0));
  a.col_indices.assign(indices.data(), indices.data() + indices.shape(0));
  a.values.assign(data.data(), data.data() + data.shape(0));
  as_usage_error([&] { a.validate(); });
  return a;
}

namespace {

nb::tuple csr_arrays(CsrMatrix<double>&& a) {
  return nb::make_tuple(a.rows, a.cols, to_numpy(std::move(a.row_offsets)), to_numpy(std::move(a.col_indices)),
                        to_numpy(std::move(a.values)));
}

void spmv(std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
          const HostInput<std::int32_t>& indices, const HostInput<double>& data, double alpha,
          const HostInput<double>& x, double beta, HostOutput<double> y, const std::string& backend) {
  const CsrMatrix<double> a = csr_from(rows, cols, indptr, indices, data);
  nb::gil_scoped_release release;
  grid::spmv<double>(alpha, a, std::span<const double>(x.data(), x.shape(0)), beta,
                     std::span<double>(y.data(), y.shape(0)), parse_backend(backend));
}

void check_method(const std::string& method) {
  if (method != "cg" && method != "bicgstab") throw UsageError("method must be cg or bicgstab, got '" + method + "'");
}

// spmv on device vectors: A is uploaded, x read and y written in place.
void spmv_device(std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
                 const HostInput<std::int32_t>& indices, const HostInput<double>& data, double alpha,
                 const DeviceInput<double>& x, double beta, DeviceOutput<double> y) {
  const CsrMatrix<double> a = csr_from(rows, cols, indptr, indices, data);
  check_length(x, static_cast<std::size_t>(cols), "x");
  check_length(y, static_cast<std::size_t>(rows), "out");
  const int device_id = same_device({x.device_id(), y.device_id()});
  nb::gil_scoped_release release;
  device::set_current(device_id);
  device::synchronize_device();  // the vectors' writers, whatever their stream, have finished
  const DeviceCsr<double> device_a(a);
  grid::spmv<double>(alpha, device_a, x.data(), beta, y.data(), nullptr);
  device::synchronize(nullptr);
}

// A CSR matrix whose arrays are CUDA device arrays (a CuPy or PyTorch
// sparse matrix's, say) as a device view: read where it is, never copied.
// Its columns and offsets are checked by the package before the call.
CsrView<double> device_csr_view(std::int32_t rows, std::int32_t cols, const DeviceInput<std::int64_t>& indptr,
                                const DeviceInput<std::int32_t>& indices, const DeviceInput<double>& data) {
  check_length(indptr, static_cast<std::size_t>(rows) + 1, "indptr");
  check_length(data, indices.shape(0), "data");
  CsrView<double> a;
  a.rows = rows;
  a.cols = cols;
  a.nnz = static_cast<RowOffset>(indices.shape(0));
  a.row_offsets = indptr.data();
  a.col_indices = indices.data();
  a.values = data.data();
  return a;
}

// spmv with the matrix and the vectors on the device, all read and written in place.
void spmv_device_csr(std::int32_t rows, std::int32_t cols, const DeviceInput<std::int64_t>& indptr,
                     const DeviceInput<std::int32_t>& indices, const DeviceInput<double>& data, double alpha,
                     const DeviceInput<double>& x, double beta, DeviceOutput<double> y) {
  const CsrView<double> a = device_csr_view(rows, cols, indptr, indices, data);
  check_length(x, static_cast<std::size_t>(cols), "x");
  check_length(y, static_cast<std::size_t>(rows), "out");
  const int device_id =
      same_device({indptr.device_id(), indices.device_id(), data.device_id(), x.device_id(), y.device_id()});
  nb::gil_scoped_release release;
  device::set_current(device_id);
  device::synchronize_device();  // the arrays' writers, whatever their stream, have finished
  grid::spmv<double>(alpha, a, x.data(), beta, y.data(), nullptr);
  device::synchronize(nullptr);
}

}  // namespace

int same_device(std::initializer_list<int> device_ids) {
  const int first = *device_ids.begin();
  for (const int id : device_ids) {
    if (id != first) throw UsageError("the device arrays of one call must be on one device");
  }
  return first;
}

grid::SolverOptions solver_options(double tolerance, std::int32_t max_iterations, std::int32_t check_every,
                                   const nb::object& progress) {
  grid::SolverOptions options;
  options.relative_tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.check_every = check_every;
  // Always installed: it is also where Ctrl-C is noticed.
  options.progress = [&progress](std::int32_t iteration, double residual) {
    return report_progress(progress, iteration, residual);
  };
  return options;
}

Backend host_solver_backend(const std::string& backend) {
  const Backend chosen = parse_backend(backend);
  if (chosen == Backend::cuda) {
    throw UsageError("the solvers take host arrays on reference or cpu; cuda solves need device arrays");
  }
  return chosen == Backend::automatic ? Backend::cpu : chosen;
}

nb::dict krylov_solve(const std::string& method, const grid::HostLinearOperator<double>& op, std::span<const double> b,
                      std::span<double> x, const grid::SolverOptions& options, Backend host) {
  check_method(method);
  grid::SolveResult result;
  {
    nb::gil_scoped_release release;
    result =
        method == "cg" ? grid::cg<double>(op, b, x, options, host) : grid::bicgstab<double>(op, b, x, options, host);
  }
  return solve_info(std::move(result));
}

nb::dict krylov_solve_device(const std::string& method, const grid::DeviceLinearOperator<double>& op, const double* b,
                             double* x, const grid::SolverOptions& options) {
  check_method(method);
  grid::SolveResult result;
  {
    nb::gil_scoped_release release;
    result = method == "cg" ? grid::cg<double>(op, b, x, options, nullptr)
                            : grid::bicgstab<double>(op, b, x, options, nullptr);
  }
  return solve_info(std::move(result));
}

nb::dict solve_info(grid::SolveResult&& result) {
  nb::dict info;
  info["converged"] = result.converged;
  info["iterations"] = result.iterations;
  info["rhs_norm"] = result.rhs_norm;
  info["initial_residual"] = result.initial_residual;
  info["final_residual"] = result.final_residual;
  info["residual_history"] = to_numpy(std::move(result.residual_history));
  info["stop"] = std::string(grid::to_string(result.stop));
  info["stopped_because"] = result.stopped_because;
  return info;
}

namespace {

nb::dict solve(const std::string& method, std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
               const HostInput<std::int32_t>& indices, const HostInput<double>& data, const HostInput<double>& b,
               HostOutput<double> x, double tolerance, std::int32_t max_iterations, bool jacobi,
               const std::string& backend, std::int32_t check_every, const nb::object& progress) {
  const Backend host = host_solver_backend(backend);
  const CsrMatrix<double> a = csr_from(rows, cols, indptr, indices, data);
  const grid::HostLinearOperator<double> op =
      grid::csr_operator(a, jacobi ? grid::Preconditioner::jacobi : grid::Preconditioner::none, host);
  return krylov_solve(method, op, {b.data(), b.shape(0)}, {x.data(), x.shape(0)},
                      solver_options(tolerance, max_iterations, check_every, progress), host);
}

// The checks of a solve on device vectors against a rows x cols matrix.
void check_device_system(std::int32_t rows, std::int32_t cols, const DeviceInput<double>& b,
                         const DeviceOutput<double>& x) {
  if (rows != cols)
    throw UsageError("the solvers need a square matrix, got " + std::to_string(rows) + "x" + std::to_string(cols));
  check_length(b, static_cast<std::size_t>(rows), "b");
  check_length(x, static_cast<std::size_t>(rows), "x0");
}

// cg or bicgstab on the current device with `a` there (a view the caller
// keeps alive), b read and x (the initial guess) written in place.
nb::dict solve_on_device(const std::string& method, const CsrView<double>& a, const DeviceInput<double>& b,
                         DeviceOutput<double> x, double tolerance, std::int32_t max_iterations, bool jacobi,
                         std::int32_t check_every, const nb::object& progress) {
  std::optional<grid::DeviceCsrOperator<double>> op;
  {
    nb::gil_scoped_release release;
    op.emplace(a, jacobi ? grid::Preconditioner::jacobi : grid::Preconditioner::none);
  }
  return krylov_solve_device(method, op->op(), b.data(), x.data(),
                             solver_options(tolerance, max_iterations, check_every, progress));
}

// The solve on cuda with device vectors: A uploaded once for the solve.
nb::dict solve_device(const std::string& method, std::int32_t rows, std::int32_t cols,
                      const HostInput<std::int64_t>& indptr, const HostInput<std::int32_t>& indices,
                      const HostInput<double>& data, const DeviceInput<double>& b, DeviceOutput<double> x,
                      double tolerance, std::int32_t max_iterations, bool jacobi, std::int32_t check_every,
                      const nb::object& progress) {
  check_method(method);
  const CsrMatrix<double> a = csr_from(rows, cols, indptr, indices, data);
  check_device_system(rows, cols, b, x);
  const int device_id = same_device({b.device_id(), x.device_id()});
  std::optional<DeviceCsr<double>> device_a;
  {
    nb::gil_scoped_release release;
    device::set_current(device_id);
    device::synchronize_device();  // b's and x0's writers, whatever their stream, have finished
    device_a.emplace(a);
  }
  return solve_on_device(method, device_a->view(), b, x, tolerance, max_iterations, jacobi, check_every, progress);
}

// The solve with the matrix on the device too (a CuPy or PyTorch sparse
// matrix): nothing of it is copied.
nb::dict solve_device_csr(const std::string& method, std::int32_t rows, std::int32_t cols,
                          const DeviceInput<std::int64_t>& indptr, const DeviceInput<std::int32_t>& indices,
                          const DeviceInput<double>& data, const DeviceInput<double>& b, DeviceOutput<double> x,
                          double tolerance, std::int32_t max_iterations, bool jacobi, std::int32_t check_every,
                          const nb::object& progress) {
  check_method(method);
  const CsrView<double> a = device_csr_view(rows, cols, indptr, indices, data);
  check_device_system(rows, cols, b, x);
  const int device_id =
      same_device({indptr.device_id(), indices.device_id(), data.device_id(), b.device_id(), x.device_id()});
  {
    nb::gil_scoped_release release;
    device::set_current(device_id);
    device::synchronize_device();  // the arrays' writers, whatever their stream, have finished
  }
  return solve_on_device(method, a, b, x, tolerance, max_iterations, jacobi, check_every, progress);
}

// One row of a convergence study as a dict; the GIL must be held.
nb::dict row_dict(const grid::ConvergenceRow& r) {
  nb::dict row;
  row["cells"] = r.cells;
  row["unknowns"] = r.unknowns;
  row["h"] = r.h;
  row["error_h"] = r.error_h;
  row["error_h1"] = r.error_h1;
  row["error_max"] = r.error_max;
  row["order_h"] = r.order_h;
  row["order_h1"] = r.order_h1;
  row["iterations"] = r.iterations;
  row["steps"] = r.steps;
  row["setup_seconds"] = r.setup_seconds;
  row["solve_seconds"] = r.solve_seconds;
  row["hierarchy_seconds"] = r.hierarchy_seconds;
  return row;
}

nb::list study(const std::string& problem, int dim, std::int32_t cells, int levels, const std::string& mesh,
               const std::string& solver, const std::string& backend, double tolerance, bool matrix_free,
               std::uint64_t seed, const nb::object& progress) {
  grid::ProblemOptions options;
  options.dim = dim;
  options.cells = cells;
  options.levels = levels;
  if (mesh != "uniform" && mesh != "nonuniform" && mesh != "graded")
    throw UsageError("mesh must be uniform, nonuniform or graded, got '" + mesh + "'");
  options.mesh = mesh == "uniform"  ? grid::MeshKind::uniform
                 : mesh == "graded" ? grid::MeshKind::graded
                                    : grid::MeshKind::nonuniform;
  if (solver != "cg" && solver != "mg" && solver != "mgcg") {
    throw UsageError("solver must be cg, mg or mgcg, got '" + solver + "'");
  }
  options.solver = solver == "cg"   ? grid::LinearSolver::cg
                   : solver == "mg" ? grid::LinearSolver::mg
                                    : grid::LinearSolver::mgcg;
  options.backend = parse_backend(backend);
  options.tolerance = tolerance;
  options.matrix_free = matrix_free;
  options.seed = seed;
  // Each mesh's row goes to the callback, and Ctrl-C is looked at, before
  // the next mesh.
  options.on_row = [&](const grid::ConvergenceRow& r) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    if (!progress.is_none()) progress(row_dict(r));
  };
  grid::ConvergenceStudy result;
  {
    nb::gil_scoped_release release;
    if (problem == "poisson") {
      result = grid::poisson_study(options);
    } else if (problem == "convection") {
      result = grid::convection_diffusion_study(options);
    } else if (problem == "heat") {
      result = grid::heat_study(options);
    } else {
      throw UsageError("problem must be poisson, convection or heat, got '" + problem + "'");
    }
  }
  nb::list rows;
  for (const grid::ConvergenceRow& r : result.rows) rows.append(row_dict(r));
  return rows;
}

}  // namespace

void bind_grid(nb::module_& m) {
  m.def(
      "laplacian_7point",
      [](std::int32_t nx, std::int32_t ny, std::int32_t nz) {
        return csr_arrays(grid::laplacian_7point<double>(nx, ny, nz));
      },
      nb::arg("nx"), nb::arg("ny"), nb::arg("nz"), "(rows, cols, indptr, indices, data) of the 7-point Laplacian");
  m.def("spmv", &spmv, nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
        nb::arg("alpha"), nb::arg("x"), nb::arg("beta"), nb::arg("y"), nb::arg("backend"));
  m.def("spmv_device", &spmv_device, nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
        nb::arg("data"), nb::arg("alpha"), nb::arg("x"), nb::arg("beta"), nb::arg("y"),
        "spmv on CUDA device vectors (cuda backend)");
  m.def("solve", &solve, nb::arg("method"), nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
        nb::arg("data"), nb::arg("b"), nb::arg("x"), nb::arg("tolerance"), nb::arg("max_iterations"), nb::arg("jacobi"),
        nb::arg("backend"), nb::arg("check_every"), nb::arg("progress").none());
  m.def("solve_device", &solve_device, nb::arg("method"), nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"),
        nb::arg("indices"), nb::arg("data"), nb::arg("b"), nb::arg("x"), nb::arg("tolerance"),
        nb::arg("max_iterations"), nb::arg("jacobi"), nb::arg("check_every"), nb::arg("progress").none(),
        "cg or bicgstab on CUDA device vectors (cuda backend)");
  m.def("spmv_device_csr", &spmv_device_csr, nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
        nb::arg("data"), nb::arg("alpha"), nb::arg("x"), nb::arg("beta"), nb::arg("y"),
        "spmv with the matrix and the vectors on a CUDA device (cuda backend)");
  m.def("solve_device_csr", &solve_device_csr, nb::arg("method"), nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"),
        nb::arg("indices"), nb::arg("data"), nb::arg("b"), nb::arg("x"), nb::arg("tolerance"),
        nb::arg("max_iterations"), nb::arg("jacobi"), nb::arg("check_every"), nb::arg("progress").none(),
        "cg or bicgstab with the matrix and the vectors on a CUDA device (cuda backend)");
  m.def(
      "device_zeros",
      [](std::size_t size, int device_id) {
        DeviceArray<double> zeros;
        {
          nb::gil_scoped_release release;
          device::set_current(device_id);
          zeros = DeviceArray<double>(size);
          zeros.fill_zero();
          device::synchronize(nullptr);
        }
        return on_device(std::move(zeros), device_id);
      },
      nb::arg("size"), nb::arg("device_id"), "float64 zeros in CUDA device memory (a DLPack array)");
  m.def("study", &study, nb::arg("problem"), nb::arg("dim"), nb::arg("cells"), nb::arg("levels"), nb::arg("mesh"),
        nb::arg("solver"), nb::arg("backend"), nb::arg("tolerance"), nb::arg("matrix_free"), nb::arg("seed"),
        nb::arg("progress").none());
}

}  // namespace trellis::python
