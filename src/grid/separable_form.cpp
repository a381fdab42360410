// Tabulating a separable form's 1-D stencils (see form_kernels.hpp).
#include "separable_form.hpp"

#include <algorithm>
#include <cstdlib>

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

}  // namespace

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
      axis.coefficient_terms.push_back({term.coefficient, -test_offset, std::vector<double>(static_cast<std::size_t>(n) * 6, 0.0)});
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
            coefficient_term->table[static_cast<std::size_t>((q * 3 + (columns[e] - p + 1)) * n + i)] += value;
          } else {
            axis.constant[static_cast<std::size_t>((offset + 2) * n + i)] += value;
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
