// Tabulating a separable form's 1-D stencils (see form_kernels.hpp).
#include "separable_form.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace trellis::grid::detail {
namespace {

// The axis a term acts along, or -1 when it is not separable.
int term_axis(const TermCode& term) {
  if (term.test.count > 1 || term.trial.count > 1) return -1;
  int axis = -1;
  auto use = [&axis](int a) {
    if (axis >= 0 && axis != a) return false;
    axis = a;
    return true;
  };
  if (term.test.count == 1 && !use(term.test.axis[0])) return -1;
  if (term.trial.count == 1 && !use(term.trial.axis[0])) return -1;
  if (term.weight == InnerProduct::plus && !use(term.axis)) return -1;
  return axis < 0 ? 0 : axis;
}

// True when values[first..last] all have the bits of values[first].
template <typename T>
bool same_bits(const T* values, std::int32_t first, std::int32_t last) {
  for (std::int32_t i = first + 1; i <= last; ++i) {
    if (std::memcmp(&values[i], &values[first], sizeof(T)) != 0) return false;
  }
  return true;
}

// True when constrained marks exactly the nodes with an index 0 or
// extent - 1 along some axis of the mesh.
template <typename T>
bool constrained_on_boundary_only(const MeshView<T>& mesh, const std::vector<std::uint8_t>& constrained) {
  const std::int32_t nx = mesh.extent[0], ny = mesh.extent[1], nz = mesh.extent[2];
  bool exact = true;
#pragma omp parallel for schedule(static) reduction(&& : exact)
  for (std::int32_t k = 0; k < nz; ++k) {
    const bool k_edge = mesh.dim >= 3 && (k == 0 || k == nz - 1);
    for (std::int32_t j = 0; j < ny && exact; ++j) {
      const bool j_edge = k_edge || (mesh.dim >= 2 && (j == 0 || j == ny - 1));
      const std::size_t first =
          static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
          static_cast<std::size_t>(k) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
      for (std::int32_t i = 0; i < nx; ++i) {
        const bool boundary = j_edge || i == 0 || i == nx - 1;
        if ((constrained[first + static_cast<std::size_t>(i)] != 0) != boundary) {
          exact = false;
          break;
        }
      }
    }
  }
  return exact;
}

// True when program is usable, the mesh's nodes are numbered x fastest and
// constrained has one flag per node: what both uniform paths need first.
template <typename T>
bool uniform_layout(const MeshView<T>& mesh, const SeparableForm<T>& program,
                    const std::vector<std::uint8_t>& constrained) {
  if (!program.usable) return false;
  if (mesh.stride[0] != 1 || mesh.stride[1] != mesh.extent[0] || mesh.stride[2] != mesh.extent[0] * mesh.extent[1]) {
    return false;
  }
  return constrained.size() == static_cast<std::size_t>(mesh.extent[0]) * static_cast<std::size_t>(mesh.extent[1]) *
                                   static_cast<std::size_t>(mesh.extent[2]);
}

// separable_row's product of the other axes' interior half spacings, factor
// by factor, so the bits match.
template <typename T>
void other_axes_products(const MeshView<T>& mesh, T (&others)[3]) {
  for (int a = 0; a < mesh.dim; ++a) {
    T product = T(1);
    for (int b = 0; b < 3; ++b) product *= b == a || b >= mesh.dim ? T(1) : mesh.hhalf[b][1];
    others[a] = product;
  }
}

}  // namespace

template <typename T>
UniformConstantForm<T> uniform_constant_form(const MeshView<T>& mesh, const SeparableForm<T>& program,
                                             const std::vector<std::uint8_t>& constrained) {
  UniformConstantForm<T> form;
  if (!uniform_layout(mesh, program, constrained)) return form;
  bool interior = true;  // some node is unconstrained
  for (int a = 0; a < mesh.dim; ++a) {
    const AxisProgram<T>& axis = program.axis[a];
    if (axis.reach > 1 || axis.coefficient_terms > 0 || axis.constant_table == nullptr) return form;
    interior = interior && mesh.extent[a] >= 3;
  }
  if (!constrained_on_boundary_only(mesh, constrained)) return form;
  if (interior) {
    for (int a = 0; a < mesh.dim; ++a) {
      const std::int32_t n = mesh.extent[a];
      if (!same_bits(mesh.hhalf[a], 1, n - 2)) return form;
      for (int o = 0; o < 3; ++o) {
        // Offsets -1, 0, +1 are rows 1, 2, 3 of the offset-major table.
        const T* entries =
            program.axis[a].constant_table + static_cast<std::size_t>(o + 1) * static_cast<std::size_t>(n);
        if (!same_bits(entries, 1, n - 2)) return form;
        form.weight[a][o] = entries[1];
      }
    }
    other_axes_products(mesh, form.others);
  }
  form.usable = true;
  return form;
}

template <typename T>
UniformCoefficientForm<T> uniform_coefficient_form(const MeshView<T>& mesh, const SeparableForm<T>& program,
                                                   const std::vector<std::uint8_t>& constrained) {
  UniformCoefficientForm<T> form;
  if (!uniform_layout(mesh, program, constrained)) return form;
  bool any_terms = false;
  bool interior = true;  // some node is unconstrained
  for (int a = 0; a < mesh.dim; ++a) {
    const AxisProgram<T>& axis = program.axis[a];
    if (axis.reach > 1) return form;
    for (std::int32_t v = 0; v < axis.coefficient_terms; ++v) {
      if (axis.shift[v] < -1 || axis.shift[v] > 1) return form;
    }
    any_terms = any_terms || axis.coefficient_terms > 0;
    interior = interior && mesh.extent[a] >= 3;
  }
  if (!any_terms || !constrained_on_boundary_only(mesh, constrained)) return form;
  if (interior) {
    for (int a = 0; a < mesh.dim; ++a) {
      const AxisProgram<T>& axis = program.axis[a];
      const std::int32_t n = mesh.extent[a];
      if (!same_bits(mesh.hhalf[a], 1, n - 2)) return form;
      form.constant[a] = axis.constant_table != nullptr;
      for (int o = 0; form.constant[a] && o < 3; ++o) {
        // Offsets -1, 0, +1 are rows 1, 2, 3 of the offset-major table.
        const T* entries = axis.constant_table + static_cast<std::size_t>(o + 1) * static_cast<std::size_t>(n);
        if (!same_bits(entries, 1, n - 2)) return form;
        form.weight[a][o] = entries[1];
      }
      form.terms[a] = axis.coefficient_terms;
      for (std::int32_t v = 0; v < axis.coefficient_terms; ++v) {
        form.slot[a][v] = axis.coefficient_slot[v];
        form.shift[a][v] = axis.shift[v];
        for (int q = 0; q < 6; ++q) {
          const T* entries = axis.coefficient_table[v] + static_cast<std::size_t>(q) * static_cast<std::size_t>(n);
          if (!same_bits(entries, 1, n - 2)) return form;
          form.entries[a][v][q] = entries[1];
        }
      }
    }
    other_axes_products(mesh, form.others);
  }
  for (int a = 0; a < mesh.dim; ++a) {
    for (std::int32_t v = 0; v < program.axis[a].coefficient_terms; ++v) {
      const std::int32_t slot = program.axis[a].coefficient_slot[v];
      form.single_slot = form.single_slot == -1 || form.single_slot == slot ? slot : -2;
    }
  }
  if (form.single_slot < 0) form.single_slot = -1;
  form.usable = true;
  return form;
}

template UniformCoefficientForm<float> uniform_coefficient_form(const MeshView<float>&, const SeparableForm<float>&,
                                                                const std::vector<std::uint8_t>&);
template UniformCoefficientForm<double> uniform_coefficient_form(const MeshView<double>&, const SeparableForm<double>&,
                                                                 const std::vector<std::uint8_t>&);

template UniformConstantForm<float> uniform_constant_form(const MeshView<float>&, const SeparableForm<float>&,
                                                          const std::vector<std::uint8_t>&);
template UniformConstantForm<double> uniform_constant_form(const MeshView<double>&, const SeparableForm<double>&,
                                                           const std::vector<std::uint8_t>&);

std::optional<std::array<AxisTables, 3>> separable_tables(const HostMeshArrays<double>& arrays,
                                                          const std::vector<TermCode>& terms) {
  const MeshView<double>& mesh = arrays.view;
  std::array<AxisTables, 3> tables;
  for (const TermCode& term : terms) {
    const int a = term_axis(term);
    if (a < 0) return std::nullopt;
    AxisTables& axis = tables[static_cast<std::size_t>(a)];
    const std::int32_t n = mesh.extent[a];
    const double* h = mesh.h[a];
    const bool with_coefficient = term.coefficient >= 0;
    AxisTables::CoefficientTerm* coefficient_term = nullptr;
    if (with_coefficient) {
      if (axis.coefficient_terms.size() == static_cast<std::size_t>(kMaxCoefficientTermsPerAxis)) return std::nullopt;
      const int test_offset = term.test.count == 1 ? atom_weights(term.test.kind[0], h, 0).offset : 0;
      axis.coefficient_terms.push_back(
          {term.coefficient, -test_offset, std::vector<double>(static_cast<std::size_t>(n) * 6, 0.0)});
      coefficient_term = &axis.coefficient_terms.back();
    } else if (axis.constant.empty()) {
      axis.constant.assign(static_cast<std::size_t>(n) * 5, 0.0);
    }
    for (std::int32_t i = 0; i < n; ++i) {
      for (int q = 0; q < (term.test.count == 1 ? 2 : 1); ++q) {
        std::int32_t p = i;
        double s = 1;
        if (term.test.count == 1) {
          const AtomWeights<double> w = atom_weights(term.test.kind[0], h, i);
          if (q == 1) p = i - w.offset;
          if (p < 0 || p >= n) continue;
          const AtomWeights<double> at_p = atom_weights(term.test.kind[0], h, p);
          s = q == 0 ? at_p.self : at_p.neighbour;
        }
        const double w = term.weight == InnerProduct::plus ? (p == 0 ? 0.0 : h[p]) : mesh.hhalf[a][p];
        const double base = term.scale * s * w;
        if (base == 0) continue;
        // The trial stencil at p: (column, weight) pairs.
        std::int32_t columns[2] = {p, p};
        double weights[2] = {1, 0};
        if (term.trial.count == 1) {
          const AtomWeights<double> t = atom_weights(term.trial.kind[0], h, p);
          weights[0] = t.self;
          columns[1] = p + t.offset;
          weights[1] = columns[1] >= 0 && columns[1] < n ? t.neighbour : 0.0;
        }
        for (int e = 0; e < 2; ++e) {
          if (weights[e] == 0) continue;
          const double value = base * weights[e];
          const int offset = columns[e] - i;  // -2 .. 2
          axis.reach = std::max(axis.reach, std::abs(offset));
          if (with_coefficient) {
            coefficient_term
                ->table[static_cast<std::size_t>(q * 3 + (columns[e] - p + 1)) * static_cast<std::size_t>(n) +
                        static_cast<std::size_t>(i)] += value;
          } else {
            axis.constant[static_cast<std::size_t>(offset + 2) * static_cast<std::size_t>(n) +
                          static_cast<std::size_t>(i)] += value;
          }
        }
      }
    }
  }
  return tables;
}

std::vector<std::uint8_t> separable_flags(const MeshView<double>& mesh, const std::array<AxisTables, 3>& tables,
                                          const std::vector<std::uint8_t>& constrained) {
  std::vector<std::uint8_t> flags(constrained.size(), 0);
  // The kernels read every axis at the largest reach, at least 1 (with_separable_shape).
  int reach = 1;
  for (int a = 0; a < mesh.dim; ++a) reach = std::max(reach, tables[static_cast<std::size_t>(a)].reach);
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < static_cast<std::int64_t>(constrained.size()); ++row) {
    std::uint8_t f = constrained[static_cast<std::size_t>(row)] ? kConstrainedNode : 0;
    std::int64_t rest = row;
    for (int a = 2; a >= 0; --a) {
      const std::int64_t i = rest / mesh.stride[a];
      rest -= i * mesh.stride[a];
      if (a >= mesh.dim) continue;
      for (int o = -reach; o <= reach; ++o) {
        if (o == 0) continue;
        if (i + o < 0 || i + o >= mesh.extent[a]) {
          f |= kNearEdgeNode;
          continue;
        }
        if (constrained[static_cast<std::size_t>(row + o * mesh.stride[a])]) f |= kNearConstrainedNode;
      }
    }
    flags[static_cast<std::size_t>(row)] = f;
  }
  return flags;
}

}  // namespace trellis::grid::detail
