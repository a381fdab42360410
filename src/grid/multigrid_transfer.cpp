// Coarse meshes and the interpolation between levels, built as the tensor
// product of one 1-D interpolation per axis.
#include "multigrid_transfer.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace trellis::grid::detail {

// Flag arrays this long or longer are walked by the host's cores side by side.
constexpr std::int64_t kParallelFlags = std::int64_t{1} << 20;

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
  // Line by line along axis 0, lines side by side: each coarse line reads
  // one fine line, every node or every other node of it (no multi-index
  // per node).
  std::array<std::int32_t, 3> step{};
  for (int a = 0; a < 3; ++a) step[static_cast<std::size_t>(a)] = coarse.extent(a) != fine.extent(a) ? 2 : 1;
  std::vector<std::uint8_t> constrained(static_cast<std::size_t>(coarse.nodes()), 0);
  const std::int32_t length = coarse.extent(0), lines_j = coarse.extent(1);
  const std::int64_t lines = std::int64_t{lines_j} * coarse.extent(2);
#pragma omp parallel for schedule(static) if (static_cast <std::int64_t>(constrained.size()) >= kParallelFlags)
  for (std::int64_t line = 0; line < lines; ++line) {
    const auto j = static_cast<std::int32_t>(line % lines_j), k = static_cast<std::int32_t>(line / lines_j);
    const std::uint8_t* from = fine_constrained.data() + fine.index({0, j * step[1], k * step[2]});
    std::uint8_t* to = constrained.data() + line * length;
    for (std::int32_t i = 0; i < length; ++i) to[i] = from[static_cast<std::ptrdiff_t>(i) * step[0]];
  }
  return constrained;
}

namespace {

// Calls visit(node) for each flagged node of flags[begin, end), in order;
// eight flags a word, as most words of a mesh's flags are zero.
template <typename Visit>
void visit_flagged(const std::vector<std::uint8_t>& flags, std::size_t begin, std::size_t end, Visit&& visit) {
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, flags.data() + i, sizeof(word));
    if (word == 0) continue;
    for (std::size_t b = i; b < i + 8; ++b) {
      if (flags[b] != 0) visit(static_cast<std::int32_t>(b));
    }
  }
  for (; i < end; ++i) {
    if (flags[i] != 0) visit(static_cast<std::int32_t>(i));
  }
}

}  // namespace

std::vector<std::int32_t> flagged_nodes(const std::vector<std::uint8_t>& flags) {
  // Chunks counted side by side, then written at their offsets.
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const std::size_t n = flags.size();
  const auto chunks = static_cast<std::int64_t>((n + kChunk - 1) / kChunk);
  std::vector<std::size_t> starts(static_cast<std::size_t>(chunks) + 1, 0);
  const bool parallel = static_cast<std::int64_t>(n) >= kParallelFlags;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * kChunk;
    std::size_t count = 0;
    visit_flagged(flags, begin, std::min(n, begin + kChunk), [&](std::int32_t) { ++count; });
    starts[static_cast<std::size_t>(c) + 1] = count;
  }
  for (std::size_t c = 0; c < static_cast<std::size_t>(chunks); ++c) starts[c + 1] += starts[c];
  std::vector<std::int32_t> nodes(starts.back());
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * kChunk;
    std::size_t at = starts[static_cast<std::size_t>(c)];
    visit_flagged(flags, begin, std::min(n, begin + kChunk), [&](std::int32_t node) { nodes[at++] = node; });
  }
  return nodes;
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
