// trellis._native.grid (forms): tensor meshes, the operators of
// operators.hpp (differences, jumps, averages, shifts, compositions) and
// their apply, the discrete norms, the form language of form.hpp (trial and test functions,
// coefficients, operators on them, D- and D+ gradients, the <.,.>_h and
// <.,.>_+ inner products) with Python operators, and their
// assembly into CSR arrays with Dirichlet constraints (host arrays, or on
// cuda device arrays), or their matrix-free
// apply (and Krylov solves with it), on host arrays or, on cuda, on CUDA
// device arrays read and written in place.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "krylov.hpp"
#include "markers.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/norms.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using namespace trellis::grid;

using Values = HostInput<double>;

Coefficients<double> coefficients_for(const Mesh& mesh, std::int32_t slots, const std::vector<Values>& values) {
  if (static_cast<std::int32_t>(values.size()) < slots) {
    throw UsageError("the forms read " + std::to_string(slots) + " coefficient slots, " +
                     std::to_string(values.size()) + " given");
  }
  Coefficients<double> packed(mesh, slots);
  for (std::int32_t slot = 0; slot < slots; ++slot) packed.set(slot, span_of(values[static_cast<std::size_t>(slot)]));
  return packed;
}

std::vector<Marker> markers_for(const std::vector<std::int32_t>& dirichlet) {
  std::vector<Marker> markers;
  if (!dirichlet.empty()) markers.push_back(Marker{"dirichlet", dirichlet});
  return markers;
}

// Assembles a (and l) on the mesh with the nodes of `dirichlet` constrained
// to boundary_values; coefficient slot s takes coefficients[s] (one value per
// node). Returns {rows, indptr, indices, data, rhs}.
nb::dict assemble(const Mesh& mesh, const BilinearForm& a, const LinearForm& l, const std::vector<Values>& coefficients,
                  const std::vector<std::int32_t>& dirichlet, const Values& boundary_values, bool symmetrize,
                  const std::string& backend) {
  const Backend chosen = parse_backend(backend);
  if (chosen == Backend::cuda) throw UsageError("assembly from Python runs on reference or cpu");
  if (boundary_values.shape(0) != static_cast<std::size_t>(mesh.nodes())) {
    throw UsageError("boundary_values needs one value per node (" + std::to_string(mesh.nodes()) + "), got " +
                     std::to_string(boundary_values.shape(0)));
  }
  const std::vector<Marker> markers = markers_for(dirichlet);
  AssembledMatrix<double> filled;
  std::vector<double> b(static_cast<std::size_t>(mesh.nodes()));
  {
    nb::gil_scoped_release release;
    const Assembly<double> assembly(mesh, a, l, markers, {.symmetrize = symmetrize});
    const Coefficients<double> values = coefficients_for(mesh, assembly.coefficient_slots(), coefficients);
    const Backend host = chosen == Backend::automatic ? Backend::cpu : chosen;
    filled = assembly.new_matrix();
    assembly.refill(values, filled, host);
    assembly.assemble_rhs(values, span_of(boundary_values), filled, b, host);
  }
  nb::dict out;
  out["rows"] = filled.matrix.rows;
  out["indptr"] = to_numpy(std::move(filled.matrix.row_offsets));
  out["indices"] = to_numpy(std::move(filled.matrix.col_indices));
  out["data"] = to_numpy(std::move(filled.matrix.values));
  out["rhs"] = to_numpy(std::move(b));
  return out;
}

// assemble() on cuda: the pattern and scatter tables are set up on the
// device and filled there, and the matrix and the right-hand side stay in
// device memory; nothing of them passes through the host. Returns {rows,
// indptr, indices, data, rhs}, the arrays DLPack arrays on device_id (the
// matrix's three share one owner).
nb::dict assemble_device(const Mesh& mesh, const BilinearForm& a, const LinearForm& l,
                         const std::vector<Values>& coefficients, const std::vector<std::int32_t>& dirichlet,
                         const Values& boundary_values, bool symmetrize, int device_id) {
  if (boundary_values.shape(0) != static_cast<std::size_t>(mesh.nodes())) {
    throw UsageError("boundary_values needs one value per node (" + std::to_string(mesh.nodes()) + "), got " +
                     std::to_string(boundary_values.shape(0)));
  }
  const std::vector<Marker> markers = markers_for(dirichlet);
  auto* filled = new DeviceAssembledMatrix<double>();
  const nb::capsule owner(filled, [](void* p) noexcept { delete static_cast<DeviceAssembledMatrix<double>*>(p); });
  DeviceArray<double> b;
  {
    nb::gil_scoped_release release;
    device::set_current(device_id);
    const Assembly<double> assembly(mesh, a, l, markers, {.symmetrize = symmetrize, .setup = Backend::cuda});
    const DeviceCoefficients<double> values(coefficients_for(mesh, assembly.coefficient_slots(), coefficients));
    const DeviceArray<double> g = DeviceArray<double>::from_host(span_of(boundary_values));
    *filled = assembly.new_device_matrix();
    assembly.refill(values, *filled);
    b = DeviceArray<double>(static_cast<std::size_t>(mesh.nodes()));
    assembly.assemble_rhs(values, g, *filled, b);
    device::synchronize(nullptr);  // before values, g and the tables go
  }
  const CsrView<double> view = filled->matrix.view();
  nb::dict out;
  out["rows"] = view.rows;
  out["indptr"] = device_view(view.row_offsets, static_cast<std::size_t>(view.rows) + 1, owner, device_id);
  out["indices"] = device_view(view.col_indices, static_cast<std::size_t>(view.nnz), owner, device_id);
  out["data"] = device_view(view.values, static_cast<std::size_t>(view.nnz), owner, device_id);
  out["rhs"] = on_device(std::move(b), device_id);
  return out;
}

// y = A x for the matrix assemble() would build, without storing it.
class MatrixFree {
 public:
  MatrixFree(const Mesh& mesh, const BilinearForm& a, const std::vector<Values>& coefficients,
             const std::vector<std::int32_t>& dirichlet, bool symmetrize)
      : operator_(mesh, a, markers_for(dirichlet), {.symmetrize = symmetrize}),
        coefficients_(coefficients_for(mesh, a.coefficient_slots(), coefficients)) {}

  std::int32_t size() const { return operator_.size(); }
  bool separable() const { return operator_.separable(); }

  void apply(const Values& x, nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> y,
             const std::string& backend) const {
    const Backend chosen = parse_backend(backend);
    nb::gil_scoped_release release;
    operator_.apply(coefficients_, span_of(x), {y.data(), y.shape(0)}, chosen);
  }

  NumpyVector<double> diagonal() const { return to_numpy(operator_.diagonal(coefficients_)); }

  nb::dict solve(const std::string& method, const Values& b,
                 nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> x, double tolerance,
                 std::int32_t max_iterations, bool jacobi, const std::string& backend, std::int32_t check_every,
                 const nb::object& progress) const {
    const Backend host = host_solver_backend(backend);
    grid::HostLinearOperator<double> op;
    op.size = operator_.size();
    op.apply = [this, host](std::span<const double> in, std::span<double> out) {
      operator_.apply(coefficients_, in, out, host);
    };
    if (jacobi) op.diagonal = operator_.diagonal(coefficients_);
    return krylov_solve(method, op, span_of(b), {x.data(), x.shape(0)},
                        solver_options(tolerance, max_iterations, check_every, progress), host);
  }

  // The device apply (cuda): x read and y written in place; the
  // coefficients are uploaded on first use and kept.
  void apply_device(const DeviceInput<double>& x, DeviceOutput<double> y) {
    const auto n = static_cast<std::size_t>(size());
    check_length(x, n, "x");
    check_length(y, n, "out");
    const int device_id = same_device({x.device_id(), y.device_id()});
    nb::gil_scoped_release release;
    const DeviceCoefficients<double>& coefficients = device_coefficients(device_id);
    operator_.apply(coefficients, x.data(), y.data(), nullptr);
    device::synchronize(nullptr);
  }

  // cg or bicgstab on the device apply, b read and x written in place.
  nb::dict solve_device(const std::string& method, const DeviceInput<double>& b, DeviceOutput<double> x,
                        double tolerance, std::int32_t max_iterations, bool jacobi, std::int32_t check_every,
                        const nb::object& progress) {
    const auto n = static_cast<std::size_t>(size());
    check_length(b, n, "b");
    check_length(x, n, "x0");
    const int device_id = same_device({b.device_id(), x.device_id()});
    grid::DeviceLinearOperator<double> op;
    {
      nb::gil_scoped_release release;
      const DeviceCoefficients<double>* coefficients = &device_coefficients(device_id);
      op.size = size();
      op.apply = [this, coefficients](const double* in, double* out, Stream stream) {
        operator_.apply(*coefficients, in, out, stream);
      };
      if (jacobi && n > 0) {
        if (device_diagonal_.empty()) {
          const std::vector<double> diagonal = operator_.diagonal(coefficients_);
          device_diagonal_ = DeviceArray<double>::from_host(diagonal);
          device::synchronize(nullptr);
        }
        op.diagonal = device_diagonal_.data();
      }
    }
    return krylov_solve_device(method, op, b.data(), x.data(),
                               solver_options(tolerance, max_iterations, check_every, progress));
  }

 private:
  // Also waits for the work already queued on the device (the vectors'
  // writers, whatever their stream).
  const DeviceCoefficients<double>& device_coefficients(int device_id) {
    device::set_current(device_id);
    device::synchronize_device();
    if (!device_coefficients_) device_coefficients_.emplace(coefficients_);
    return *device_coefficients_;
  }

  MatrixFreeOperator<double> operator_;
  Coefficients<double> coefficients_;
  std::optional<DeviceCoefficients<double>> device_coefficients_;  // made on the first device call
  DeviceArray<double> device_diagonal_;                            // Jacobi on the device, made on first use
};

}  // namespace

void bind_grid_forms(nb::module_& m) {
  nb::class_<Mesh1D>(m, "Mesh1D", "Points of one axis")
      .def_static("uniform", &Mesh1D::uniform, nb::arg("a"), nb::arg("b"), nb::arg("cells"))
      .def_static("from_points", &Mesh1D::from_points, nb::arg("points"))
      .def_static("graded", &Mesh1D::graded, nb::arg("a"), nb::arg("b"), nb::arg("cells"), nb::arg("ratio"))
      .def_static("random", &Mesh1D::random, nb::arg("a"), nb::arg("b"), nb::arg("cells"), nb::arg("seed"),
                  nb::arg("jitter") = 0.5)
      .def("refined", &Mesh1D::refined)
      .def_prop_ro("points", [](const Mesh1D& axis) { return axis.points(); })
      .def_prop_ro("cells", &Mesh1D::cells);
  nb::class_<Mesh>(m, "Mesh", "A tensor-product mesh; node (i, j, k) is i + nx * (j + ny * k)")
      .def(nb::init<std::vector<Mesh1D>>(), nb::arg("axes"))
      .def_static("cube", &Mesh::cube, nb::arg("axis"), nb::arg("dim"))
      .def("refined", &Mesh::refined)
      .def_prop_ro("dim", &Mesh::dim)
      .def_prop_ro("nodes", &Mesh::nodes)
      .def_prop_ro("axes", [](const Mesh& mesh) { return mesh.axes(); })
      .def("boundary_nodes", [](const Mesh& mesh) { return boundary_marker(mesh).nodes; });

  nb::class_<Operator>(m, "Operator", "A chain of difference, jump, average and shift atoms (identity when empty)")
      .def("__call__", [](const Operator& op, TrialFunction u) { return op(u); })
      .def("__call__", [](const Operator& op, TestFunction v) { return op(v); })
      .def(
          "__mul__", [](const Operator& op, TrialFunction u) { return op * u; }, nb::is_operator())
      .def(
          "__mul__", [](const Operator& op, TestFunction v) { return op * v; }, nb::is_operator())
      .def(
          "__eq__", [](const Operator& a, const Operator& b) { return a == b; }, nb::is_operator());
  m.def("identity", &identity);
  m.def("backward_difference", &backward_difference, nb::arg("axis"));
  m.def("forward_difference", &forward_difference, nb::arg("axis"));
  m.def("backward_jump", &backward_jump, nb::arg("axis"));
  m.def("forward_jump", &forward_jump, nb::arg("axis"));
  m.def("backward_average", &backward_average, nb::arg("axis"));
  m.def("forward_average", &forward_average, nb::arg("axis"));
  m.def("backward_shift", &backward_shift, nb::arg("axis"));
  m.def("forward_shift", &forward_shift, nb::arg("axis"));
  m.def("compose", &compose, nb::arg("after"), nb::arg("before"), "after applied to before's result");
  m.def(
      "apply",
      [](const Operator& op, const Mesh& mesh, const Values& u, const std::string& backend) {
        if (u.shape(0) != static_cast<std::size_t>(mesh.nodes())) {
          throw UsageError("u needs one value per node (" + std::to_string(mesh.nodes()) + "), got " +
                           std::to_string(u.shape(0)));
        }
        op.check_axes(mesh.dim());
        std::vector<double> out(static_cast<std::size_t>(mesh.nodes()));
        const Backend chosen = parse_backend(backend);
        {
          nb::gil_scoped_release release;
          grid::apply<double>(op, mesh, span_of(u), out, chosen);
        }
        return to_numpy(std::move(out));
      },
      nb::arg("op"), nb::arg("mesh"), nb::arg("u"), nb::arg("backend"), "op(u) at every node");

  // The discrete norms of norms.hpp: "h" (control-volume weights), "h1",
  // "h1_seminorm" (backward differences, staggered weights), "max".
  m.def(
      "norm",
      [](const Mesh& mesh, const Values& u, const std::string& kind,
         const std::optional<std::vector<std::int32_t>>& marker_nodes, const std::string& backend) {
        const Backend chosen = parse_backend(backend);
        const std::span<const double> values = span_of(u);
        const std::optional<Marker> marker = marker_on(mesh, marker_nodes);
        const Marker* on = marker ? &*marker : nullptr;
        if (kind == "h") return norm_h<double>(mesh, values, on, chosen);
        if (kind == "h1") return h1_norm<double>(mesh, values, on, chosen);
        if (kind == "h1_seminorm") return h1_seminorm<double>(mesh, values, on, chosen);
        if (kind == "max") return max_norm<double>(values, on, chosen);
        throw UsageError("norm must be h, h1, h1_seminorm or max, got '" + kind + "'");
      },
      nb::arg("mesh"), nb::arg("u"), nb::arg("kind"), nb::arg("marker").none(), nb::arg("backend"));

  nb::class_<TrialFunction>(m, "TrialFunction")
      .def(nb::init<>())
      .def(
          "__rmul__", [](TrialFunction u, double s) { return s * u; }, nb::is_operator());
  nb::class_<TestFunction>(m, "TestFunction").def(nb::init<>());
  nb::class_<TrialTerm>(m, "TrialTerm")
      .def(
          "__rmul__", [](const TrialTerm& t, double s) { return s * t; }, nb::is_operator());
  nb::class_<TestTerm>(m, "TestTerm");
  nb::class_<TrialGradient>(m, "TrialGradient")
      .def(
          "__rmul__", [](const TrialGradient& g, double s) { return s * g; }, nb::is_operator())
      .def(
          "__rmul__", [](const TrialGradient& g, Coefficient c) { return c * g; }, nb::is_operator());
  nb::class_<TestGradient>(m, "TestGradient");
  nb::class_<Coefficient>(m, "Coefficient", "Slot s of the coefficients given at assembly (values per node)")
      .def(nb::init<std::int32_t>(), nb::arg("slot"))
      .def_ro("slot", &Coefficient::slot)
      .def(
          "__mul__", [](Coefficient c, TrialFunction u) { return c * u; }, nb::is_operator())
      .def(
          "__mul__", [](Coefficient c, const TrialTerm& t) { return c * t; }, nb::is_operator())
      .def(
          "__mul__", [](Coefficient c, const TrialGradient& g) { return c * g; }, nb::is_operator());
  nb::class_<BilinearForm>(m, "BilinearForm")
      .def(
          "__add__", [](const BilinearForm& a, const BilinearForm& b) { return a + b; }, nb::is_operator())
      .def(
          "__sub__", [](const BilinearForm& a, const BilinearForm& b) { return a - b; }, nb::is_operator())
      .def(
          "__rmul__", [](const BilinearForm& a, double s) { return s * a; }, nb::is_operator());
  nb::class_<LinearForm>(m, "LinearForm")
      .def(
          "__add__", [](const LinearForm& a, const LinearForm& b) { return a + b; }, nb::is_operator());

  m.def("grad_minus", [](TrialFunction u) { return grad_minus(u); });
  m.def("grad_minus", [](TestFunction v) { return grad_minus(v); });
  m.def("grad_plus", [](TrialFunction u) { return grad_plus(u); });
  m.def("grad_plus", [](TestFunction v) { return grad_plus(v); });
  m.def("inner_h", [](const TrialGradient& u, const TestGradient& v) { return inner_h(u, v); });
  m.def("inner_h", [](TrialFunction u, TestFunction v) { return inner_h(u, v); });
  m.def("inner_h", [](const TrialTerm& u, TestFunction v) { return inner_h(u, v); });
  m.def("inner_h", [](const TrialTerm& u, const TestTerm& v) { return inner_h(u, v); });
  m.def("inner_h", [](TrialFunction u, const TestTerm& v) { return inner_h(u, v); });
  m.def("inner_h", [](Coefficient f, const TestTerm& v) { return inner_h(f, v); });
  m.def("inner_h", [](double f, const TestTerm& v) { return inner_h(f, v); });
  m.def("inner_h", [](Coefficient f, TestFunction v) { return inner_h(f, v); });
  m.def("inner_h", [](double f, TestFunction v) { return inner_h(f, v); });
  m.def("inner_plus", [](const TrialGradient& u, const TestGradient& v) { return inner_plus(u, v); });
  m.def(
      "inner_plus", [](const TrialTerm& u, const TestTerm& v, int axis) { return inner_plus(u, v, axis); },
      nb::arg("u"), nb::arg("v"), nb::arg("axis"));
  m.def(
      "inner_plus", [](Coefficient f, const TestTerm& v, int axis) { return inner_plus(f, v, axis); }, nb::arg("f"),
      nb::arg("v"), nb::arg("axis"));

  nb::class_<MatrixFree>(m, "MatrixFree", "The matrix-free apply of a bilinear form")
      .def(nb::init<const Mesh&, const BilinearForm&, const std::vector<Values>&, const std::vector<std::int32_t>&,
                    bool>(),
           nb::arg("mesh"), nb::arg("a"), nb::arg("coefficients"), nb::arg("dirichlet"), nb::arg("symmetrize"))
      .def_prop_ro("size", &MatrixFree::size)
      .def_prop_ro("separable", &MatrixFree::separable)
      .def("apply", &MatrixFree::apply, nb::arg("x"), nb::arg("y"), nb::arg("backend"))
      .def("diagonal", &MatrixFree::diagonal)
      .def("solve", &MatrixFree::solve, nb::arg("method"), nb::arg("b"), nb::arg("x"), nb::arg("tolerance"),
           nb::arg("max_iterations"), nb::arg("jacobi"), nb::arg("backend"), nb::arg("check_every"),
           nb::arg("progress").none())
      .def("apply_device", &MatrixFree::apply_device, nb::arg("x"), nb::arg("y"))
      .def("solve_device", &MatrixFree::solve_device, nb::arg("method"), nb::arg("b"), nb::arg("x"),
           nb::arg("tolerance"), nb::arg("max_iterations"), nb::arg("jacobi"), nb::arg("check_every"),
           nb::arg("progress").none());
  m.def("assemble", &assemble, nb::arg("mesh"), nb::arg("a"), nb::arg("l"), nb::arg("coefficients"),
        nb::arg("dirichlet"), nb::arg("boundary_values"), nb::arg("symmetrize"), nb::arg("backend"));
  m.def("assemble_device", &assemble_device, nb::arg("mesh"), nb::arg("a"), nb::arg("l"), nb::arg("coefficients"),
        nb::arg("dirichlet"), nb::arg("boundary_values"), nb::arg("symmetrize"), nb::arg("device_id"),
        "assembly on a CUDA device into device arrays (cuda backend)");
}

}  // namespace trellis::python
