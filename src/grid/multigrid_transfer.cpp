// Coarse meshes and the interpolation between levels, built as the tensor
// product of one 1-D interpolation per axis.
#include "multigrid_transfer.hpp"

#include <array>

namespace trellis::grid::detail {

std::vector<AxisWeights> axis_interpolation(const Mesh1D& fine, bool halved) {
  std::vector<AxisWeights> rows(static_cast<std::size_t>(fine.nodes()));
  for (std::int32_t i = 0; i < fine.nodes(); ++i) {
    AxisWeights& row = rows[static_cast<std::size_t>(i)];
    if (!halved || i % 2 == 0) {
      row.coarse[0] = halved ? i / 2 : i;
      row.weight[0] = 1;
      row.count = 1;
      continue;
    }
    // Between coarse nodes I = (i - 1) / 2 and I + 1, at fine points i - 1 and i + 1.
    const double left = fine.point(i - 1);
    const double right = fine.point(i + 1);
    const double to_right = fine.is_uniform() ? 0.5 : (right - fine.point(i)) / (right - left);
    row.coarse = {(i - 1) / 2, (i + 1) / 2};
    row.weight = {to_right, fine.is_uniform() ? 0.5 : 1 - to_right};
    row.count = 2;
  }
  return rows;
}

bool can_halve(const Mesh1D& axis) { return axis.cells() % 2 == 0 && axis.cells() >= 4; }

Mesh1D coarsened(const Mesh1D& axis) {
  if (!can_halve(axis)) return axis;
  if (axis.is_uniform()) return Mesh1D::uniform(axis.points().front(), axis.points().back(), axis.cells() / 2);
  std::vector<double> points;
  for (std::int32_t i = 0; i < axis.nodes(); i += 2) points.push_back(axis.point(i));
  return Mesh1D::from_points(std::move(points));
}

bool can_coarsen(const Mesh& mesh) {
  for (const Mesh1D& axis : mesh.axes()) {
    if (can_halve(axis)) return true;
  }
  return false;
}

Mesh coarsened(const Mesh& mesh) {
  std::vector<Mesh1D> axes;
  for (const Mesh1D& axis : mesh.axes()) axes.push_back(coarsened(axis));
  return Mesh(std::move(axes));
}

std::vector<std::uint8_t> coarse_constraints(const Mesh& fine, const Mesh& coarse,
                                             const std::vector<std::uint8_t>& fine_constrained) {
  std::vector<std::uint8_t> constrained(static_cast<std::size_t>(coarse.nodes()), 0);
  for (std::int32_t node = 0; node < coarse.nodes(); ++node) {
    MultiIndex at = coarse.multi_index(node);
    for (int a = 0; a < coarse.dim(); ++a) {
      if (coarse.extent(a) != fine.extent(a)) at[static_cast<std::size_t>(a)] *= 2;
    }
    constrained[static_cast<std::size_t>(node)] = fine_constrained[static_cast<std::size_t>(fine.index(at))];
  }
  return constrained;
}

template <typename T>
CsrMatrix<T> prolongation(const Mesh& fine, const Mesh& coarse, const std::vector<std::uint8_t>& fine_constrained,
                          const std::vector<std::uint8_t>& coarse_constrained) {
  std::array<std::vector<AxisWeights>, 3> axes;
  for (int a = 0; a < 3; ++a) {
    axes[static_cast<std::size_t>(a)] = a < fine.dim()
                                            ? axis_interpolation(fine.axis(a), coarse.extent(a) != fine.extent(a))
                                            : std::vector<AxisWeights>{AxisWeights{{0, 0}, {1, 0}, 1}};
  }
  CsrMatrix<T> p;
  p.rows = fine.nodes();
  p.cols = coarse.nodes();
  p.row_offsets.reserve(static_cast<std::size_t>(p.rows) + 1);
  for (std::int32_t node = 0; node < fine.nodes(); ++node) {
    if (!fine_constrained[static_cast<std::size_t>(node)]) {
      const MultiIndex i = fine.multi_index(node);
      const AxisWeights& w0 = axes[0][static_cast<std::size_t>(i[0])];
      const AxisWeights& w1 = axes[1][static_cast<std::size_t>(i[1])];
      const AxisWeights& w2 = axes[2][static_cast<std::size_t>(i[2])];
      // Axis 2 outermost so the columns of a row come out ascending.
      for (int c2 = 0; c2 < w2.count; ++c2) {
        for (int c1 = 0; c1 < w1.count; ++c1) {
          for (int c0 = 0; c0 < w0.count; ++c0) {
            const std::int32_t col =
                coarse.index({w0.coarse[static_cast<std::size_t>(c0)], w1.coarse[static_cast<std::size_t>(c1)],
                              w2.coarse[static_cast<std::size_t>(c2)]});
            if (coarse_constrained[static_cast<std::size_t>(col)]) continue;
            const double weight = w0.weight[static_cast<std::size_t>(c0)] * w1.weight[static_cast<std::size_t>(c1)] *
                                  w2.weight[static_cast<std::size_t>(c2)];
            if (weight == 0) continue;
            p.col_indices.push_back(col);
            p.values.push_back(static_cast<T>(weight));
          }
        }
      }
    }
    p.row_offsets.push_back(static_cast<RowOffset>(p.col_indices.size()));
  }
  return p;
}

template <typename T>
CsrMatrix<T> transposed(const CsrMatrix<T>& a) {
  CsrMatrix<T> t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_offsets.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  for (const ColumnIndex col : a.col_indices) ++t.row_offsets[static_cast<std::size_t>(col) + 1];
  for (std::int32_t row = 0; row < t.rows; ++row) t.row_offsets[row + 1] += t.row_offsets[row];
  t.col_indices.resize(a.col_indices.size());
  t.values.resize(a.values.size());
  std::vector<RowOffset> next(t.row_offsets.begin(), t.row_offsets.end() - 1);
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      const RowOffset at = next[static_cast<std::size_t>(a.col_indices[k])]++;
      t.col_indices[static_cast<std::size_t>(at)] = row;
      t.values[static_cast<std::size_t>(at)] = a.values[k];
    }
  }
  return t;
}

template CsrMatrix<float> prolongation<float>(const Mesh&, const Mesh&, const std::vector<std::uint8_t>&,
                                              const std::vector<std::uint8_t>&);
template CsrMatrix<double> prolongation<double>(const Mesh&, const Mesh&, const std::vector<std::uint8_t>&,
                                                const std::vector<std::uint8_t>&);
template CsrMatrix<float> transposed<float>(const CsrMatrix<float>&);
template CsrMatrix<double> transposed<double>(const CsrMatrix<double>&);

}  // namespace trellis::grid::detail
