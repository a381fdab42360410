// trellis._native.grid.Multigrid: a geometric multigrid hierarchy
// (multigrid.hpp) built from a matrix given as host CSR arrays, or on cuda
// from device CSR arrays (copied into the hierarchy, nothing through the
// host); one cycle or the preconditioner on host or device vectors; and the
// solves mg (cycles as the iteration), mgcg and mg_bicgstab, with the
// operator mgcg and mg_bicgstab iterate on built from the same matrix.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "host_csr.hpp"
#include "krylov.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/multigrid.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using grid::Multigrid;
using grid::MultigridOptions;

MultigridOptions options_from(const std::string& cycle, const std::string& smoother, std::int32_t smoothing_steps,
                              double jacobi_weight, double line_weight, double gauss_seidel_weight,
                              double chebyshev_lower, double chebyshev_upper, std::int32_t eigenvalue_steps,
                              std::int32_t max_levels, double direct_solve_flops) {
  MultigridOptions options;
  if (cycle == "v" || cycle == "V") {
    options.cycle = grid::Cycle::v;
  } else if (cycle == "f" || cycle == "F") {
    options.cycle = grid::Cycle::f;
  } else {
    throw UsageError("cycle must be 'v' or 'f', got '" + cycle + "'");
  }
  if (smoother == "chebyshev") {
    options.smoother = grid::Smoother::chebyshev;
  } else if (smoother == "jacobi") {
    options.smoother = grid::Smoother::jacobi;
  } else if (smoother == "line") {
    options.smoother = grid::Smoother::line;
  } else if (smoother == "gauss-seidel") {
    options.smoother = grid::Smoother::gauss_seidel;
  } else {
    throw UsageError("smoother must be 'chebyshev', 'jacobi', 'line' or 'gauss-seidel', got '" + smoother + "'");
  }
  options.smoothing_steps = smoothing_steps;
  options.jacobi_weight = jacobi_weight;
  options.line_weight = line_weight;
  options.gauss_seidel_weight = gauss_seidel_weight;
  options.chebyshev_lower = chebyshev_lower;
  options.chebyshev_upper = chebyshev_upper;
  options.eigenvalue_steps = eigenvalue_steps;
  options.max_levels = max_levels;
  options.direct_solve_flops = direct_solve_flops;
  return options;
}

std::vector<std::uint8_t> constrained_flags(const grid::Mesh& mesh, const std::vector<std::int32_t>& nodes) {
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(mesh.nodes()), 0);
  for (const std::int32_t node : nodes) {
    if (node < 0 || node >= mesh.nodes()) {
      throw UsageError("dirichlet: node " + std::to_string(node) + " is not on the mesh (" +
                       std::to_string(mesh.nodes()) + " nodes)");
    }
    flags[static_cast<std::size_t>(node)] = 1;
  }
  return flags;
}

class PyMultigrid {
 public:
  // From host CSR arrays, on reference, cpu or cuda (uploaded).
  PyMultigrid(const grid::Mesh& mesh, std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
              const HostInput<std::int32_t>& indices, const HostInput<double>& data,
              const std::vector<std::int32_t>& dirichlet, const MultigridOptions& options, const std::string& backend) {
    const CsrMatrix<double> a = csr_from(rows, cols, indptr, indices, data);
    const std::vector<std::uint8_t> constrained = constrained_flags(mesh, dirichlet);
    const Backend chosen = resolve(parse_backend(backend));
    nb::gil_scoped_release release;
    mg_.emplace(mesh, a, constrained, options, chosen);
  }

  // From device CSR arrays (checked by the package): a cuda hierarchy set up
  // on device_id from a copy of them.
  PyMultigrid(const grid::Mesh& mesh, std::int32_t rows, std::int32_t cols, const DeviceInput<std::int64_t>& indptr,
              const DeviceInput<std::int32_t>& indices, const DeviceInput<double>& data,
              const std::vector<std::int32_t>& dirichlet, const MultigridOptions& options) {
    check_length(indptr, static_cast<std::size_t>(rows) + 1, "indptr");
    check_length(data, indices.shape(0), "data");
    const std::vector<std::uint8_t> constrained = constrained_flags(mesh, dirichlet);
    const int device_id = same_device({indptr.device_id(), indices.device_id(), data.device_id()});
    nb::gil_scoped_release release;
    device::set_current(device_id);
    device::synchronize_device();  // the arrays' writers, whatever their stream, have finished
    DeviceArray<RowOffset> offsets(indptr.shape(0));
    DeviceArray<ColumnIndex> columns(indices.shape(0));
    DeviceArray<double> values(data.shape(0));
    device::copy_on_device(offsets.data(), indptr.data(), offsets.bytes(), nullptr);
    device::copy_on_device(columns.data(), indices.data(), columns.bytes(), nullptr);
    device::copy_on_device(values.data(), data.data(), values.bytes(), nullptr);
    const DeviceCsr<double> a(rows, cols, std::move(offsets), std::move(columns), std::move(values), {});
    mg_.emplace(mesh, a, constrained, options);
    device::synchronize(nullptr);
  }

  std::int32_t size() const { return mg_->size(); }
  std::int32_t levels() const { return mg_->levels(); }
  std::string backend() const { return std::string(to_string(mg_->backend())); }
  bool direct_coarse_solve() const { return mg_->direct_coarse_solve(); }

  nb::dict level(std::int32_t l) const {
    if (l < 0 || l >= mg_->levels()) {
      throw nb::index_error(
          ("level " + std::to_string(l) + " of a hierarchy of " + std::to_string(mg_->levels()) + " levels").c_str());
    }
    const grid::MultigridLevelInfo info = mg_->level(l);
    nb::dict out;
    nb::list extents;
    for (const auto extent : info.extents) extents.append(extent);
    out["extents"] = extents;
    out["nodes"] = info.nodes;
    out["nonzeros"] = info.nonzeros;
    out["lambda_max"] = info.lambda_max;
    return out;
  }

  // One cycle from the guess x (in place), or z = B r (a cycle from zero).
  void cycle(const HostInput<double>& b, HostOutput<double> x) const {
    check_length(b, static_cast<std::size_t>(size()), "b");
    check_length(x, static_cast<std::size_t>(size()), "x");
    nb::gil_scoped_release release;
    mg_->cycle({b.data(), b.shape(0)}, {x.data(), x.shape(0)});
  }
  void precondition(const HostInput<double>& r, HostOutput<double> z) const {
    check_length(r, static_cast<std::size_t>(size()), "r");
    check_length(z, static_cast<std::size_t>(size()), "out");
    nb::gil_scoped_release release;
    mg_->precondition({r.data(), r.shape(0)}, {z.data(), z.shape(0)});
  }
  void cycle_device(const DeviceInput<double>& b, DeviceOutput<double> x) const {
    check_length(b, static_cast<std::size_t>(size()), "b");
    check_length(x, static_cast<std::size_t>(size()), "x");
    on_device({b.device_id(), x.device_id()}, [&] { mg_->cycle(b.data(), x.data(), nullptr); });
  }
  void precondition_device(const DeviceInput<double>& r, DeviceOutput<double> z) const {
    check_length(r, static_cast<std::size_t>(size()), "r");
    check_length(z, static_cast<std::size_t>(size()), "out");
    on_device({r.device_id(), z.device_id()}, [&] { mg_->precondition(r.data(), z.data(), nullptr); });
  }

  // method "mg": cycles as the iteration; "cg" (mgcg) and "bicgstab"
  // (mg_bicgstab) on the hierarchy's finest matrix, which is the one it was
  // built from. Host vectors.
  nb::dict solve(const std::string& method, const HostInput<double>& b, HostOutput<double> x, double tolerance,
                 std::int32_t max_iterations, std::int32_t check_every, const nb::object& progress) const {
    check_length(b, static_cast<std::size_t>(size()), "b");
    check_length(x, static_cast<std::size_t>(size()), "x0");
    const grid::SolverOptions options = solver_options(tolerance, max_iterations, check_every, progress);
    const std::span<const double> rhs(b.data(), b.shape(0));
    const std::span<double> guess(x.data(), x.shape(0));
    grid::SolveResult result;
    {
      nb::gil_scoped_release release;
      if (method == "mg") {
        result = grid::mg_solve<double>(*mg_, rhs, guess, options);
      } else {
        const grid::HostLinearOperator<double> op =
            grid::csr_operator(mg_->level_matrix(0), grid::Preconditioner::none, Backend::cpu);
        result = method_is_cg(method) ? grid::mgcg<double>(op, *mg_, rhs, guess, options)
                                      : grid::mg_bicgstab<double>(op, *mg_, rhs, guess, options);
      }
    }
    return solve_info(std::move(result));
  }

  // "mg" and "cg" on device vectors of a cuda hierarchy (the iteration on
  // the device; mg_bicgstab has no device form).
  nb::dict solve_device(const std::string& method, const DeviceInput<double>& b, DeviceOutput<double> x,
                        double tolerance, std::int32_t max_iterations, std::int32_t check_every,
                        const nb::object& progress) const {
    check_length(b, static_cast<std::size_t>(size()), "b");
    check_length(x, static_cast<std::size_t>(size()), "x0");
    if (method != "mg" && !method_is_cg(method)) {
      throw UsageError("bicgstab preconditioned by multigrid runs on host vectors only");
    }
    const grid::SolverOptions options = solver_options(tolerance, max_iterations, check_every, progress);
    const int device_id = same_device({b.device_id(), x.device_id()});
    grid::SolveResult result;
    {
      nb::gil_scoped_release release;
      device::set_current(device_id);
      device::synchronize_device();  // b's and x0's writers, whatever their stream, have finished
      result = method == "mg" ? grid::mg_solve<double>(*mg_, b.data(), x.data(), options, nullptr)
                              : grid::mgcg<double>(mg_->device_operator(), *mg_, b.data(), x.data(), options, nullptr);
      device::synchronize(nullptr);
    }
    return solve_info(std::move(result));
  }

 private:
  static bool method_is_cg(const std::string& method) {
    if (method != "cg" && method != "bicgstab") {
      throw UsageError("method must be mg, cg or bicgstab, got '" + method + "'");
    }
    return method == "cg";
  }

  template <typename F>
  void on_device(std::initializer_list<int> device_ids, F&& work) const {
    const int device_id = same_device(device_ids);
    nb::gil_scoped_release release;
    device::set_current(device_id);
    device::synchronize_device();  // the vectors' writers, whatever their stream, have finished
    work();
    device::synchronize(nullptr);
  }

  std::optional<Multigrid<double>> mg_;
};

}  // namespace

void bind_multigrid(nb::module_& m) {
  m.def("multigrid_options", &options_from, nb::arg("cycle"), nb::arg("smoother"), nb::arg("smoothing_steps"),
        nb::arg("jacobi_weight"), nb::arg("line_weight"), nb::arg("gauss_seidel_weight"), nb::arg("chebyshev_lower"),
        nb::arg("chebyshev_upper"), nb::arg("eigenvalue_steps"), nb::arg("max_levels"), nb::arg("direct_solve_flops"));
  nb::class_<MultigridOptions>(m, "MultigridOptions", "How a multigrid hierarchy is built and cycles");
  nb::class_<PyMultigrid>(m, "Multigrid", "A geometric multigrid hierarchy of an assembled form's matrix")
      .def(nb::init<const grid::Mesh&, std::int32_t, std::int32_t, const HostInput<std::int64_t>&,
                    const HostInput<std::int32_t>&, const HostInput<double>&, const std::vector<std::int32_t>&,
                    const MultigridOptions&, const std::string&>(),
           nb::arg("mesh"), nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
           nb::arg("dirichlet"), nb::arg("options"), nb::arg("backend"))
      .def(nb::init<const grid::Mesh&, std::int32_t, std::int32_t, const DeviceInput<std::int64_t>&,
                    const DeviceInput<std::int32_t>&, const DeviceInput<double>&, const std::vector<std::int32_t>&,
                    const MultigridOptions&>(),
           nb::arg("mesh"), nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
           nb::arg("dirichlet"), nb::arg("options"))
      .def_prop_ro("size", &PyMultigrid::size)
      .def_prop_ro("levels", &PyMultigrid::levels)
      .def_prop_ro("backend", &PyMultigrid::backend)
      .def_prop_ro("direct_coarse_solve", &PyMultigrid::direct_coarse_solve)
      .def("level", &PyMultigrid::level, nb::arg("level"))
      .def("cycle", &PyMultigrid::cycle, nb::arg("b"), nb::arg("x"))
      .def("precondition", &PyMultigrid::precondition, nb::arg("r"), nb::arg("z"))
      .def("cycle_device", &PyMultigrid::cycle_device, nb::arg("b"), nb::arg("x"))
      .def("precondition_device", &PyMultigrid::precondition_device, nb::arg("r"), nb::arg("z"))
      .def("solve", &PyMultigrid::solve, nb::arg("method"), nb::arg("b"), nb::arg("x"), nb::arg("tolerance"),
           nb::arg("max_iterations"), nb::arg("check_every"), nb::arg("progress").none())
      .def("solve_device", &PyMultigrid::solve_device, nb::arg("method"), nb::arg("b"), nb::arg("x"),
           nb::arg("tolerance"), nb::arg("max_iterations"), nb::arg("check_every"), nb::arg("progress").none());
}

}  // namespace trellis::python
