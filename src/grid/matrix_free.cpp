// Matrix-free apply: the form's terms as plain data, the mesh's arrays on
// host and (once used) device, and the backend switch.
#include "trellis/grid/matrix_free.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "form_codes.hpp"
#include "form_kernels.hpp"
#include "krylov_steps.hpp"
#include "separable_form.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "vulkan/kernels.hpp"

namespace trellis::grid {

template <typename T>
struct MatrixFreeOperator<T>::State {
  Mesh mesh;
  bool symmetrize;
  std::vector<detail::TermCode> terms;
  std::int32_t slots;
  std::vector<std::uint8_t> constrained;
  detail::HostMeshArrays<T> host_arrays;
  // The 1-D tables of a separable form (the fast cuda path), empty otherwise.
  std::optional<std::array<detail::AxisTables, 3>> separable;
  // Device copies: spacings and half spacings per axis, the mask.
  mutable bool uploaded = false;
  mutable DeviceArray<T> device_arrays[6];
  mutable DeviceArray<std::uint8_t> device_constrained;
  mutable detail::MeshView<T> device_view;
  mutable std::vector<DeviceArray<T>> device_tables;
  mutable detail::SeparableForm<T> device_separable;
  // The same tables in T on the host, for the cpu backend.
  std::vector<std::vector<T>> host_tables;
  std::vector<std::uint8_t> host_flags;
  detail::SeparableForm<T> host_separable;
  mutable DeviceArray<std::uint8_t> device_flags;
  // The weights of a uniform constant stencil (the fastest path), unusable otherwise.
  detail::UniformConstantForm<T> uniform;
  // The weights of uniform coefficient stencils (cuda's path for them), unusable otherwise.
  detail::UniformCoefficientForm<T> uniform_coefficients;

  State(const Mesh& m, const BilinearForm& form, const std::vector<Marker>& dirichlet, AssemblyOptions options)
      : mesh(m),
        symmetrize(options.symmetrize),
        terms(detail::term_codes(form, m.dim())),
        slots(form.coefficient_slots()),
        constrained(detail::constrained_nodes(m, dirichlet)),
        host_arrays(m),
        separable(detail::separable_tables(detail::HostMeshArrays<double>(m), terms)) {
    if (!separable) return;
    host_flags = detail::separable_flags(detail::HostMeshArrays<double>(m).view, *separable, constrained);
    host_separable.flags = host_flags.data();
    host_tables.reserve(3 * (1 + detail::kMaxCoefficientTermsPerAxis));  // the programs point into it
    fill_program(host_separable, [this](const std::vector<double>& table) {
      host_tables.emplace_back(table.begin(), table.end());
      return static_cast<const T*>(host_tables.back().data());
    });
    uniform = detail::uniform_constant_form(host_arrays.view, host_separable, constrained);
    uniform_coefficients = detail::uniform_coefficient_form(host_arrays.view, host_separable, constrained);
  }

  // Points program's tables at copies made by store(table).
  template <typename Store>
  void fill_program(detail::SeparableForm<T>& program, Store&& store) const {
    for (int a = 0; a < 3; ++a) {
      const detail::AxisTables& tables = (*separable)[static_cast<std::size_t>(a)];
      detail::AxisProgram<T>& axis = program.axis[a];
      axis.reach = tables.reach;
      axis.constant_table = tables.constant.empty() ? nullptr : store(tables.constant);
      axis.coefficient_terms = static_cast<std::int32_t>(tables.coefficient_terms.size());
      for (std::size_t v = 0; v < tables.coefficient_terms.size(); ++v) {
        axis.coefficient_table[v] = store(tables.coefficient_terms[v].table);
        axis.coefficient_slot[v] = tables.coefficient_terms[v].slot;
        axis.shift[v] = tables.coefficient_terms[v].shift;
      }
    }
    program.usable = true;
  }

  detail::FormView<T> view(const detail::MeshView<T>& mesh_view, const std::uint8_t* mask,
                           const T* coefficients) const {
    detail::FormView<T> form;
    form.mesh = mesh_view;
    for (std::size_t t = 0; t < terms.size(); ++t) form.terms[t] = terms[t];
    form.term_count = static_cast<std::int32_t>(terms.size());
    form.constrained = mask;
    form.symmetrized = symmetrize;
    form.coefficients = coefficients;
    form.separable = mask == constrained.data() ? host_separable : device_separable;
    form.uniform = uniform;
    form.uniform_coefficients = uniform_coefficients;
    return form;
  }

  void upload_separable(Stream stream) const {
    device_flags = DeviceArray<std::uint8_t>::from_host(host_flags, stream);
    device_separable.flags = device_flags.data();
    device_tables.reserve(3 * (1 + detail::kMaxCoefficientTermsPerAxis));
    fill_program(device_separable, [&](const std::vector<double>& table) {
      const std::vector<T> converted(table.begin(), table.end());
      device_tables.push_back(DeviceArray<T>::from_host(converted, stream));
      device::synchronize(stream);  // before converted goes away
      return static_cast<const T*>(device_tables.back().data());
    });
  }

  // UsageError unless the device coefficients are on this mesh and hold the slots the form reads.
  void require_fits(const DeviceCoefficients<T>& coefficients) const {
    if (coefficients.nodes() != mesh.nodes() || coefficients.slots() < slots) {
      throw UsageError(
          fmt::format("device coefficients of {} nodes and {} slots for a form on {} nodes reading {} slots",
                      coefficients.nodes(), coefficients.slots(), mesh.nodes(), slots));
    }
  }

  void upload(Stream stream) const {
    if (uploaded) return;
    device_view = host_arrays.view;
    for (int a = 0; a < 3; ++a) {
      device_arrays[2 * a] = DeviceArray<T>::from_host(host_arrays.h[a], stream);
      device_arrays[2 * a + 1] = DeviceArray<T>::from_host(host_arrays.hhalf[a], stream);
      device_view.h[a] = device_arrays[2 * a].data();
      device_view.hhalf[a] = device_arrays[2 * a + 1].data();
    }
    device_constrained = DeviceArray<std::uint8_t>::from_host(constrained, stream);
    if (separable) upload_separable(stream);
    device::synchronize(stream);
    uploaded = true;
  }
};

template <typename T>
MatrixFreeOperator<T>::MatrixFreeOperator(const Mesh& mesh, const BilinearForm& form,
                                          const std::vector<Marker>& dirichlet, AssemblyOptions options)
    : state_(std::make_unique<State>(mesh, form, dirichlet, options)) {}

template <typename T>
MatrixFreeOperator<T>::~MatrixFreeOperator() = default;
template <typename T>
MatrixFreeOperator<T>::MatrixFreeOperator(MatrixFreeOperator&&) noexcept = default;
template <typename T>
MatrixFreeOperator<T>& MatrixFreeOperator<T>::operator=(MatrixFreeOperator&&) noexcept = default;

template <typename T>
std::int32_t MatrixFreeOperator<T>::size() const noexcept {
  return state_->mesh.nodes();
}
template <typename T>
const Mesh& MatrixFreeOperator<T>::mesh() const noexcept {
  return state_->mesh;
}
template <typename T>
const std::vector<std::uint8_t>& MatrixFreeOperator<T>::constrained() const noexcept {
  return state_->constrained;
}

template <typename T>
bool MatrixFreeOperator<T>::separable() const noexcept {
  return state_->separable.has_value();
}

template <typename T>
bool MatrixFreeOperator<T>::uses_uniform_constant_path() const noexcept {
  return state_->uniform.usable;
}

template <typename T>
bool MatrixFreeOperator<T>::uses_uniform_coefficient_path() const noexcept {
  return state_->uniform_coefficients.usable;
}

namespace {

void check_coefficients(const Mesh& mesh, std::int32_t slots, const Mesh& coefficients_mesh,
                        std::int32_t coefficient_slots, const char* what) {
  require_same_mesh(mesh, coefficients_mesh, what);
  if (coefficient_slots < slots) {
    throw UsageError(
        fmt::format("the form reads {} coefficient slots, the coefficients hold {}", slots, coefficient_slots));
  }
}

}  // namespace

template <typename T>
void MatrixFreeOperator<T>::apply(const Coefficients<T>& coefficients, std::span<const T> x, std::span<T> y,
                                  Backend backend) const {
  const State& s = *state_;
  check_coefficients(s.mesh, s.slots, coefficients.mesh(), coefficients.slots(), "matrix-free apply");
  const auto n = static_cast<std::size_t>(s.mesh.nodes());
  if (x.size() != n || y.size() != n) {
    throw UsageError(fmt::format("matrix-free apply on {} nodes needs x and y of that length, got {} and {}", n,
                                 x.size(), y.size()));
  }
  switch (resolve_with_vulkan(backend)) {
    case Backend::reference:
      reference::matrix_free_apply(s.view(s.host_arrays.view, s.constrained.data(), coefficients.packed().data()),
                                   x.data(), y.data(), nullptr);
      return;
    case Backend::cpu:
      cpu::matrix_free_apply(s.view(s.host_arrays.view, s.constrained.data(), coefficients.packed().data()), x.data(),
                             y.data(), nullptr);
      return;
    case Backend::cuda: {
      DeviceCoefficients<T> device_coefficients(coefficients);
      auto device_x = DeviceArray<T>::from_host(x);
      DeviceArray<T> device_y(n);
      apply(device_coefficients, device_x, device_y, nullptr);
      device_y.copy_to_host(y);
      device::synchronize(nullptr);
      return;
    }
    case Backend::vulkan:
      vulkan::matrix_free_apply(s.view(s.host_arrays.view, s.constrained.data(), coefficients.packed().data()),
                                x.data(), y.data());
      return;
    case Backend::automatic:
      break;  // resolve_with_vulkan() never returns it
  }
  throw Error("matrix-free apply: unresolved backend");
}

template <typename T>
SolveResult MatrixFreeOperator<T>::cg(const Coefficients<T>& coefficients, std::span<const T> b, std::span<T> x,
                                      Preconditioner preconditioner, const SolverOptions& options,
                                      Backend backend) const {
  const State& s = *state_;
  check_coefficients(s.mesh, s.slots, coefficients.mesh(), coefficients.slots(), "matrix-free cg");
  if (backend != Backend::vulkan) {
    HostLinearOperator<T> op;
    op.size = size();
    op.apply = [&](std::span<const T> in, std::span<T> out) { apply(coefficients, in, out, backend); };
    if (preconditioner == Preconditioner::jacobi) op.diagonal = diagonal(coefficients);
    return grid::cg<T>(op, b, x, options, backend);
  }
  resolve_with_vulkan(backend);
  const std::vector<T> jacobi = preconditioner == Preconditioner::jacobi ? diagonal(coefficients) : std::vector<T>();
  return detail::vulkan_cg_frame<T>(size(), b.size(), x.size(), jacobi, options, [&](bool usable) {
    return vulkan::cg(s.view(s.host_arrays.view, s.constrained.data(), coefficients.packed().data()), b.data(),
                      x.data(), jacobi, usable, options);
  });
}

template <typename T>
void MatrixFreeOperator<T>::apply(const DeviceCoefficients<T>& coefficients, const DeviceArray<T>& x, DeviceArray<T>& y,
                                  Stream stream) const {
  const State& s = *state_;
  const auto n = static_cast<std::size_t>(s.mesh.nodes());
  s.require_fits(coefficients);
  if (x.size() != n || y.size() != n) {
    throw UsageError(fmt::format("matrix-free apply on {} nodes needs x and y of that length, got {} and {}", n,
                                 x.size(), y.size()));
  }
  apply(coefficients, x.data(), y.data(), stream);
}

template <typename T>
void MatrixFreeOperator<T>::apply(const DeviceCoefficients<T>& coefficients, const T* x, T* y, Stream stream) const {
  const State& s = *state_;
  s.require_fits(coefficients);
  s.upload(stream);
  cuda::matrix_free_apply(s.view(s.device_view, s.device_constrained.data(), coefficients.packed()), x, y, stream);
}

template <typename T>
DeviceLinearOperator<T> MatrixFreeOperator<T>::device_operator(const DeviceCoefficients<T>& coefficients,
                                                               const T* diagonal) const {
  state_->require_fits(coefficients);
  state_->upload(nullptr);
  DeviceLinearOperator<T> op;
  op.size = size();
  op.apply = [this, &coefficients](const T* x, T* y, Stream stream) { apply(coefficients, x, y, stream); };
  op.diagonal = diagonal;
  if (uses_uniform_constant_path() || uses_uniform_coefficient_path()) {
    op.smoothing_step = [this, &coefficients](const T* b, const T* x, T alpha, T beta,
                                              const InverseDiagonalView<T>& inverse_diagonal, T* d, T* x_out,
                                              Stream stream) {
      const State& s = *state_;
      s.upload(stream);
      return cuda::matrix_free_smoothing_step(s.view(s.device_view, s.device_constrained.data(), coefficients.packed()),
                                              {b, x, inverse_diagonal, d, x_out}, alpha, beta, stream);
    };
    op.residual = [this, &coefficients](const T* b, const T* x, T* r, Stream stream) {
      const State& s = *state_;
      s.upload(stream);
      return cuda::matrix_free_residual(s.view(s.device_view, s.device_constrained.data(), coefficients.packed()), b, x,
                                        r, stream);
    };
  }
  return op;
}

template <typename T>
std::vector<T> MatrixFreeOperator<T>::diagonal(const Coefficients<T>& coefficients) const {
  const State& s = *state_;
  require_same_mesh(s.mesh, coefficients.mesh(), "matrix-free diagonal");
  const std::int32_t nodes = s.mesh.nodes();
  std::vector<T> diagonal(static_cast<std::size_t>(nodes));
  const detail::MeshView<T>& mesh = s.host_arrays.view;
  const T* packed = coefficients.packed().data();
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < nodes; ++row) {
    if (s.constrained[static_cast<std::size_t>(row)]) {
      diagonal[static_cast<std::size_t>(row)] = T(1);
      continue;
    }
    const std::int32_t r[3] = {row % mesh.extent[0], (row / mesh.extent[0]) % mesh.extent[1],
                               row / (mesh.extent[0] * mesh.extent[1])};
    T sum = 0;
    detail::for_each_contribution(mesh, s.terms.data(), static_cast<std::int32_t>(s.terms.size()), r,
                                  [&](std::int32_t col, std::int32_t slot, std::int32_t p, T g) {
                                    if (col != row) return;
                                    sum += (slot < 0 ? T(1) : packed[1 + slot * nodes + p]) * g;
                                  });
    diagonal[static_cast<std::size_t>(row)] = sum;
  }
  return diagonal;
}

template class MatrixFreeOperator<float>;
template class MatrixFreeOperator<double>;

}  // namespace trellis::grid
