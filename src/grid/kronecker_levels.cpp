// Kronecker-product levels of separable constant-coefficient forms: the
// fine bands from the form's 1-D tables, their 1-D Galerkin products, and
// the CSR and check the rest of the hierarchy needs.
#include "kronecker_levels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "form_codes.hpp"
#include "separable_form.hpp"

namespace trellis::grid::detail {

std::int32_t KroneckerOperator::reach() const {
  std::int32_t reach = 0;
  for (const std::array<Band, 3>& term : terms) {
    for (const Band& band : term) reach = std::max(reach, band.reach);
  }
  return reach;
}

namespace {

Band empty_band(std::int32_t reach, std::int32_t extent) {
  Band band;
  band.reach = reach;
  band.extent = extent;
  const auto size = static_cast<std::size_t>(2 * reach + 1) * static_cast<std::size_t>(extent);
  band.values.assign(size, 0.0);
  band.present.assign(size, 0);
  return band;
}

std::size_t at(const Band& band, std::int32_t i, std::int32_t offset) {
  return static_cast<std::size_t>(offset + band.reach) * static_cast<std::size_t>(band.extent) +
         static_cast<std::size_t>(i);
}

// Offset -1, 0 or 1 as an index into three.
constexpr std::size_t slot(int offset) { return offset < 0 ? 0 : (offset == 0 ? 1 : 2); }

// Constrained-node lists this long or longer are walked by the host's cores side by side.
constexpr std::int64_t kParallelNodes = std::int64_t{1} << 16;

// Per axis, the indices whose whole face is constrained, when the
// constrained nodes are exactly the union of those faces.
std::optional<std::array<std::vector<std::uint8_t>, 3>> constrained_faces(const std::array<std::int32_t, 3>& extents,
                                                                          int dim,
                                                                          const std::vector<std::int32_t>& nodes) {
  std::array<std::vector<std::int64_t>, 3> counts;
  for (int a = 0; a < 3; ++a) counts[static_cast<std::size_t>(a)].assign(static_cast<std::size_t>(extents[a]), 0);
  const std::int64_t plane = static_cast<std::int64_t>(extents[0]) * extents[1];
  // Nodes number below 2^31: 32-bit divisions.
  const auto e0 = static_cast<std::uint32_t>(extents[0]), e1 = static_cast<std::uint32_t>(extents[1]);
  auto indices = [&](std::int32_t node) {
    const auto at = static_cast<std::uint32_t>(node);
    const std::uint32_t line = at / e0;
    return std::array<std::int32_t, 3>{static_cast<std::int32_t>(at - line * e0), static_cast<std::int32_t>(line % e1),
                                       static_cast<std::int32_t>(line / e1)};
  };
  const auto count = static_cast<std::int64_t>(nodes.size());
  const bool parallel = count >= kParallelNodes;
#pragma omp parallel if (parallel)
  {
    std::array<std::vector<std::int64_t>, 3> mine;
    for (int a = 0; a < dim; ++a) mine[static_cast<std::size_t>(a)].assign(static_cast<std::size_t>(extents[a]), 0);
#pragma omp for schedule(static) nowait
    for (std::int64_t k = 0; k < count; ++k) {
      const auto r = indices(nodes[static_cast<std::size_t>(k)]);
      for (int a = 0; a < dim; ++a) ++mine[static_cast<std::size_t>(a)][static_cast<std::size_t>(r[a])];
    }
#pragma omp critical
    for (int a = 0; a < dim; ++a) {
      for (std::size_t i = 0; i < mine[static_cast<std::size_t>(a)].size(); ++i) {
        counts[static_cast<std::size_t>(a)][i] += mine[static_cast<std::size_t>(a)][i];
      }
    }
  }
  const std::int64_t total = plane * extents[2];
  std::array<std::vector<std::uint8_t>, 3> faces;
  std::int64_t free_nodes = 1;
  for (int a = 0; a < 3; ++a) {
    auto& face = faces[static_cast<std::size_t>(a)];
    face.assign(static_cast<std::size_t>(extents[a]), 0);
    std::int64_t free_indices = extents[a];
    for (std::int32_t i = 0; a < dim && i < extents[a]; ++i) {
      if (counts[static_cast<std::size_t>(a)][static_cast<std::size_t>(i)] == total / extents[a]) {
        face[static_cast<std::size_t>(i)] = 1;
        --free_indices;
      }
    }
    free_nodes *= free_indices;
  }
  // Every constrained node lies on such a face and there are as many as the faces hold: the union, exactly.
  if (total - free_nodes != static_cast<std::int64_t>(nodes.size())) return std::nullopt;
  bool on_faces = true;
#pragma omp parallel for schedule(static) reduction(&& : on_faces) if (parallel)
  for (std::int64_t k = 0; k < count; ++k) {
    const auto r = indices(nodes[static_cast<std::size_t>(k)]);
    on_faces = on_faces && (faces[0][static_cast<std::size_t>(r[0])] || faces[1][static_cast<std::size_t>(r[1])] ||
                            faces[2][static_cast<std::size_t>(r[2])]);
  }
  if (!on_faces) return std::nullopt;
  return faces;
}

// values on the free rows and columns of one axis; constrained ones and
// columns outside the axis dropped.
Band free_band(std::int32_t reach, std::int32_t extent, const std::vector<std::uint8_t>& constrained,
               const auto& value) {
  Band band = empty_band(reach, extent);
  for (std::int32_t i = 0; i < extent; ++i) {
    if (constrained[static_cast<std::size_t>(i)]) continue;
    for (std::int32_t o = -reach; o <= reach; ++o) {
      const std::int32_t j = i + o;
      if (j < 0 || j >= extent || constrained[static_cast<std::size_t>(j)]) continue;
      const double v = value(i, o);
      if (v == 0) continue;
      band.values[at(band, i, o)] = v;
      band.present[at(band, i, o)] = 1;
    }
  }
  return band;
}

// P^T F P along one axis; coarse columns of constrained coarse indices left out.
Band galerkin_1d(const Band& fine, const std::vector<AxisWeights>& p, std::int32_t coarse_extent,
                 const std::vector<std::uint8_t>& coarse_constrained) {
  std::int32_t reach = 0;
  auto visit = [&](auto&& add) {
    for (std::int32_t i = 0; i < fine.extent; ++i) {
      const AxisWeights& pi = p[static_cast<std::size_t>(i)];
      for (std::int32_t o = -fine.reach; o <= fine.reach; ++o) {
        if (!fine.present[at(fine, i, o)]) continue;
        const double f = fine.values[at(fine, i, o)];
        const std::int32_t j = i + o;
        const AxisWeights& pj = p[static_cast<std::size_t>(j)];
        for (int u = 0; u < pi.count; ++u) {
          const std::int32_t row = pi.coarse[static_cast<std::size_t>(u)];
          if (coarse_constrained[static_cast<std::size_t>(row)]) continue;
          for (int w = 0; w < pj.count; ++w) {
            const std::int32_t column = pj.coarse[static_cast<std::size_t>(w)];
            if (coarse_constrained[static_cast<std::size_t>(column)]) continue;
            add(row, column - row, pi.weight[static_cast<std::size_t>(u)] * f * pj.weight[static_cast<std::size_t>(w)]);
          }
        }
      }
    }
  };
  visit([&](std::int32_t, std::int32_t offset, double) { reach = std::max(reach, std::abs(offset)); });
  Band coarse = empty_band(reach, coarse_extent);
  visit([&](std::int32_t row, std::int32_t offset, double value) {
    coarse.values[at(coarse, row, offset)] += value;
    coarse.present[at(coarse, row, offset)] = 1;
  });
  return coarse;
}

}  // namespace

std::optional<KroneckerOperator> separable_operator(const Mesh& mesh, const BilinearForm& form,
                                                    const std::vector<std::int32_t>& constrained_nodes) {
  const int dim = mesh.dim();
  if (dim < 1 || dim > 3) return std::nullopt;
  const std::vector<TermCode> codes = term_codes(form, dim);
  const HostMeshArrays<double> arrays(mesh);
  const std::optional<std::array<AxisTables, 3>> tables = separable_tables(arrays, codes);
  if (!tables) return std::nullopt;
  KroneckerOperator op;
  for (int a = 0; a < 3; ++a) op.extents[static_cast<std::size_t>(a)] = a < dim ? mesh.extent(a) : 1;
  auto faces = constrained_faces(op.extents, dim, constrained_nodes);
  if (!faces) return std::nullopt;
  op.constrained = std::move(*faces);
  for (int a = 0; a < dim; ++a) {
    const AxisTables& axis = (*tables)[static_cast<std::size_t>(a)];
    if (!axis.coefficient_terms.empty()) return std::nullopt;
    if (axis.constant.empty()) continue;
    std::array<Band, 3> term;
    for (int b = 0; b < 3; ++b) {
      const std::int32_t extent = op.extents[static_cast<std::size_t>(b)];
      const auto& constrained = op.constrained[static_cast<std::size_t>(b)];
      if (b == a) {
        term[static_cast<std::size_t>(b)] = free_band(axis.reach, extent, constrained, [&](std::int32_t i, int o) {
          return axis.constant[static_cast<std::size_t>(o + 2) * static_cast<std::size_t>(extent) +
                               static_cast<std::size_t>(i)];
        });
      } else {
        const double* hhalf = b < dim ? arrays.hhalf[b].data() : nullptr;
        term[static_cast<std::size_t>(b)] =
            free_band(0, extent, constrained, [&](std::int32_t i, int) { return hhalf != nullptr ? hhalf[i] : 1.0; });
      }
    }
    op.terms.push_back(std::move(term));
  }
  if (op.terms.empty() || static_cast<int>(op.terms.size()) > kMaxKroneckerTerms) return std::nullopt;
  return op;
}

KroneckerOperator coarsened(const KroneckerOperator& fine, const std::array<std::vector<AxisWeights>, 3>& axes,
                            const std::array<std::int32_t, 3>& coarse) {
  KroneckerOperator op;
  op.extents = coarse;
  for (std::size_t a = 0; a < 3; ++a) {
    // A coarse index sits on fine index 2I of a halved axis, I of another.
    const bool halved = coarse[a] != fine.extents[a];
    op.constrained[a].assign(static_cast<std::size_t>(coarse[a]), 0);
    for (std::int32_t i = 0; i < coarse[a]; ++i) {
      op.constrained[a][static_cast<std::size_t>(i)] =
          fine.constrained[a][static_cast<std::size_t>(halved ? 2 * i : i)];
    }
  }
  for (const std::array<Band, 3>& term : fine.terms) {
    std::array<Band, 3> product;
    for (std::size_t a = 0; a < 3; ++a) product[a] = galerkin_1d(term[a], axes[a], coarse[a], op.constrained[a]);
    op.terms.push_back(std::move(product));
  }
  return op;
}

template <typename T>
CsrMatrix<T> to_csr(const KroneckerOperator& op) {
  const std::int32_t e0 = op.extents[0], e1 = op.extents[1], e2 = op.extents[2];
  const std::int32_t reach = op.reach();
  CsrMatrix<T> a;
  a.rows = a.cols = op.nodes();
  a.row_offsets.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  // Visits row's entries in ascending column order: (column, value, present).
  auto visit_row = [&](std::int32_t row, auto&& emit) {
    const std::int32_t i0 = row % e0, i1 = (row / e0) % e1, i2 = row / (e0 * e1);
    if (op.constrained[0][static_cast<std::size_t>(i0)] || op.constrained[1][static_cast<std::size_t>(i1)] ||
        op.constrained[2][static_cast<std::size_t>(i2)]) {
      emit(row, 1.0);
      return;
    }
    for (std::int32_t o2 = -reach; o2 <= reach; ++o2) {
      for (std::int32_t o1 = -reach; o1 <= reach; ++o1) {
        for (std::int32_t o0 = -reach; o0 <= reach; ++o0) {
          const std::int32_t j0 = i0 + o0, j1 = i1 + o1, j2 = i2 + o2;
          if (j0 < 0 || j0 >= e0 || j1 < 0 || j1 >= e1 || j2 < 0 || j2 >= e2) continue;
          double value = 0;
          bool present = false;
          for (const std::array<Band, 3>& term : op.terms) {
            const std::int32_t offsets[3] = {o0, o1, o2};
            const std::int32_t index[3] = {i0, i1, i2};
            double product = 1;
            bool reached = true;
            for (std::size_t b = 0; b < 3 && reached; ++b) {
              const Band& band = term[b];
              if (std::abs(offsets[b]) > band.reach || !band.present[at(band, index[b], offsets[b])]) {
                reached = false;
              } else {
                product *= band.values[at(band, index[b], offsets[b])];
              }
            }
            if (!reached) continue;
            value += product;
            present = true;
          }
          if (present) emit(j0 + e0 * (j1 + e1 * j2), value);
        }
      }
    }
  };
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < a.rows; ++row) {
    RowOffset count = 0;
    visit_row(row, [&](std::int32_t, double) { ++count; });
    a.row_offsets[static_cast<std::size_t>(row) + 1] = count;
  }
  for (std::int32_t row = 0; row < a.rows; ++row) {
    a.row_offsets[static_cast<std::size_t>(row) + 1] += a.row_offsets[static_cast<std::size_t>(row)];
  }
  a.col_indices.resize(static_cast<std::size_t>(a.row_offsets.back()));
  a.values.resize(a.col_indices.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < a.rows; ++row) {
    auto k = static_cast<std::size_t>(a.row_offsets[static_cast<std::size_t>(row)]);
    visit_row(row, [&](std::int32_t column, double value) {
      a.col_indices[k] = column;
      a.values[k] = static_cast<T>(value);
      ++k;
    });
  }
  return a;
}

KroneckerView<double> host_view(const KroneckerOperator& op) {
  KroneckerView<double> view;
  for (std::size_t a = 0; a < 3; ++a) {
    view.extents[a] = op.extents[a];
    view.constrained[a] = op.constrained[a].data();
  }
  view.terms = static_cast<std::int32_t>(op.terms.size());
  for (std::size_t t = 0; t < op.terms.size(); ++t) {
    for (std::size_t a = 0; a < 3; ++a) {
      view.band[t][a] = op.terms[t][a].values.data();
      view.reach[t][a] = op.terms[t][a].reach;
    }
  }
  return view;
}

template <typename T>
std::optional<UniformStencil<T>> uniform_stencil(const KroneckerOperator& op) {
  if (op.reach() > 1 || op.terms.empty() || op.terms.size() > static_cast<std::size_t>(kMaxKroneckerTerms)) {
    return std::nullopt;
  }
  std::array<std::int32_t, 3> lo{}, hi{};
  for (std::size_t a = 0; a < 3; ++a) {
    const std::vector<std::uint8_t>& constrained = op.constrained[a];
    const auto first = std::find(constrained.begin(), constrained.end(), std::uint8_t{0});
    if (first == constrained.end()) return std::nullopt;  // no free row
    const auto last = std::find(constrained.rbegin(), constrained.rend(), std::uint8_t{0});
    lo[a] = static_cast<std::int32_t>(first - constrained.begin());
    hi[a] = static_cast<std::int32_t>(constrained.rend() - last) - 1;
    if (std::any_of(first, last.base(), [](std::uint8_t c) { return c != 0; })) return std::nullopt;
  }
  // value[t][a][o + 1]: the band's entry for offset o along the free run.
  std::array<std::array<std::array<T, 3>, 3>, kMaxKroneckerTerms> value{};
  for (std::size_t t = 0; t < op.terms.size(); ++t) {
    for (std::size_t a = 0; a < 3; ++a) {
      const Band& band = op.terms[t][a];
      if (lo[a] - band.reach < 0 || hi[a] + band.reach >= op.extents[a]) return std::nullopt;
      for (std::int32_t o = -band.reach; o <= band.reach; ++o) {
        std::optional<T> seen;
        for (std::int32_t i = lo[a]; i <= hi[a]; ++i) {
          if (i + o < lo[a] || i + o > hi[a]) continue;  // a constrained column: empty
          const auto entry = static_cast<T>(band.values[at(band, i, o)]);
          if (seen && *seen != entry) return std::nullopt;
          seen = entry;
        }
        value[t][a][slot(o)] = seen.value_or(T(0));
      }
    }
  }
  UniformStencil<T> stencil;
  const std::int64_t e0 = op.extents[0], plane = e0 * op.extents[1];
  for (int o2 = -1; o2 <= 1; ++o2) {
    for (int o1 = -1; o1 <= 1; ++o1) {
      for (int o0 = -1; o0 <= 1; ++o0) {
        T weight = 0;
        for (std::size_t t = 0; t < op.terms.size(); ++t) {
          const std::array<Band, 3>& term = op.terms[t];
          if (std::abs(o0) > term[0].reach || std::abs(o1) > term[1].reach || std::abs(o2) > term[2].reach) continue;
          weight += value[t][0][slot(o0)] * value[t][1][slot(o1)] * value[t][2][slot(o2)];
        }
        if (weight == T(0)) continue;
        stencil.offset[stencil.count] = o0 + o1 * e0 + o2 * plane;
        stencil.weight[stencil.count] = weight;
        ++stencil.count;
      }
    }
  }
  return stencil;
}

template <typename T>
bool describes(const KroneckerOperator& op, const CsrMatrix<T>& a) {
  if (a.rows != op.nodes() || a.cols != op.nodes()) return false;
  const KroneckerView<double> view = host_view(op);
  const std::int32_t e0 = op.extents[0], e1 = op.extents[1];
  std::vector<double> x(static_cast<std::size_t>(a.rows));
#pragma omp parallel for schedule(static)
  for (std::int32_t node = 0; node < a.rows; ++node) {
    const bool constrained = kronecker_constrained(view, node % e0, (node / e0) % e1, node / (e0 * e1));
    x[static_cast<std::size_t>(node)] = constrained ? 0.0 : probe(node);
  }
  double largest = 0, difference = 0;
  const std::int32_t reach = op.reach();
#pragma omp parallel for schedule(static) reduction(max : largest, difference)
  for (std::int32_t row = 0; row < a.rows; ++row) {
    const std::int32_t i0 = row % e0, i1 = (row / e0) % e1, i2 = row / (e0 * e1);
    if (kronecker_constrained(view, i0, i1, i2)) continue;
    double from_a = 0;
    for (auto k = static_cast<std::size_t>(a.row_offsets[static_cast<std::size_t>(row)]);
         k < static_cast<std::size_t>(a.row_offsets[static_cast<std::size_t>(row) + 1]); ++k) {
      from_a += static_cast<double>(a.values[k]) * x[static_cast<std::size_t>(a.col_indices[k])];
    }
    const double from_op = reach == 0   ? kronecker_row<double, 0>(view, i0, i1, i2, x.data())
                           : reach == 1 ? kronecker_row<double, 1>(view, i0, i1, i2, x.data())
                                        : kronecker_row<double, 2>(view, i0, i1, i2, x.data());
    largest = std::max(largest, std::abs(from_a));
    difference = std::max(difference, std::abs(from_a - from_op));
  }
  return difference <= kDescribesTolerance<T> * largest;
}

template CsrMatrix<float> to_csr<float>(const KroneckerOperator&);
template CsrMatrix<double> to_csr<double>(const KroneckerOperator&);
template std::optional<UniformStencil<float>> uniform_stencil<float>(const KroneckerOperator&);
template std::optional<UniformStencil<double>> uniform_stencil<double>(const KroneckerOperator&);
template bool describes<float>(const KroneckerOperator&, const CsrMatrix<float>&);
template bool describes<double>(const KroneckerOperator&, const CsrMatrix<double>&);

}  // namespace trellis::grid::detail
