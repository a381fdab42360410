// The multigrid hierarchy built on the GPU: transfers, Galerkin operators,
// inverse diagonals and the eigenvalue estimate's Lanczos steps, from the
// finest matrix already there (multigrid_device.hpp).
//
// Every matrix is built in two passes over its rows: one counts each row's
// entries, a scan places the rows, the second writes them. The transfers are
// P and R = P^T of the tensor-product interpolation, each row visited as the
// host visits it. The Galerkin product gives each coarse row a thread that
// visits R[I][i] * A[i][j] * P[j][J] in the cpu product's order and sums into
// a window of 5 coarse nodes per axis around I (a coarse row of an operator
// reaching two fine nodes per axis reaches two coarse ones), rounded without
// fused multiply-adds: the cpu product's sums, bit for bit.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../kernels.hpp"
#include "../multigrid_device.hpp"
#include "../multigrid_lines.hpp"
#include "grid_stride.cuh"
#include "rounding.cuh"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

unsigned blocks_for(std::int64_t n) { return launch_blocks(n, kThreads, kMaxBlocks); }

// ------------------------------------------------------------ two-pass CSR

struct CountEntries {
  RowOffset count = 0;
  template <typename V>
  __device__ void operator()(ColumnIndex, V) {
    ++count;
  }
};

template <typename T>
struct WriteEntries {
  ColumnIndex* cols;
  T* values;
  RowOffset at;
  template <typename V>
  __device__ void operator()(ColumnIndex col, V value) {
    cols[at] = col;
    values[at] = static_cast<T>(value);
    ++at;
  }
};

template <typename Rows>
__global__ void __launch_bounds__(kThreads)
    count_rows(std::int32_t rows, Rows visitor, RowOffset* __restrict__ counts) {
  for (std::int64_t row = first_index(); row < rows; row += grid_stride()) {
    CountEntries count;
    visitor(static_cast<std::int32_t>(row), count);
    counts[row] = count.count;
  }
}

template <typename T, typename Rows>
__global__ void __launch_bounds__(kThreads)
    write_rows(std::int32_t rows, Rows visitor, const RowOffset* __restrict__ offsets, ColumnIndex* __restrict__ cols,
               T* __restrict__ values) {
  for (std::int64_t row = first_index(); row < rows; row += grid_stride()) {
    WriteEntries<T> write{cols, values, offsets[row]};
    visitor(static_cast<std::int32_t>(row), write);
  }
}

// Row offsets from per-row counts (an inclusive scan behind a leading zero).
DeviceArray<RowOffset> offsets_from_counts(const DeviceArray<RowOffset>& counts, std::int32_t rows) {
  DeviceArray<RowOffset> offsets(static_cast<std::size_t>(rows) + 1);
  device::fill_zero(offsets.data(), sizeof(RowOffset), nullptr);
  std::size_t scratch_bytes = 0;
  TRELLIS_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(nullptr, scratch_bytes, counts.data(), offsets.data() + 1, rows, nullptr));
  DeviceArray<unsigned char> scratch(std::max<std::size_t>(scratch_bytes, 1));
  TRELLIS_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(scratch.data(), scratch_bytes, counts.data(), offsets.data() + 1, rows, nullptr));
  return offsets;
}

RowOffset last_offset(const DeviceArray<RowOffset>& offsets) {
  RowOffset nnz = 0;
  device::copy_to_host(&nnz, offsets.data() + offsets.size() - 1, sizeof(RowOffset), nullptr);
  device::synchronize(nullptr);
  return nnz;
}

// Rows here are short (a transfer row at most 27 entries, a Galerkin row at
// most 125), so none is heavy.
template <typename T, typename Rows>
DeviceCsr<T> build_csr(std::int32_t rows, std::int32_t cols, const Rows& visitor) {
  DeviceArray<RowOffset> counts(static_cast<std::size_t>(std::max(rows, 1)));
  TRELLIS_LAUNCH(count_rows<Rows>, blocks_for(rows), kThreads, 0, nullptr, rows, visitor, counts.data());
  DeviceArray<RowOffset> offsets = offsets_from_counts(counts, rows);
  const RowOffset nnz = last_offset(offsets);
  DeviceArray<ColumnIndex> col_indices(static_cast<std::size_t>(nnz));
  DeviceArray<T> values(static_cast<std::size_t>(nnz));
  TRELLIS_LAUNCH((write_rows<T, Rows>), blocks_for(rows), kThreads, 0, nullptr, rows, visitor, offsets.data(),
                 col_indices.data(), values.data());
  return DeviceCsr<T>(rows, cols, std::move(offsets), std::move(col_indices), std::move(values),
                      DeviceArray<std::int32_t>());
}

// ------------------------------------------------------------ transfers

using detail::AxisRow;
using detail::CoarseAxisRow;
using detail::TransferView;

// Row `row` of P: multigrid_transfer.cpp's loop (axis 2 outermost).
struct ProlongationRows {
  TransferView t;
  template <typename Emit>
  __device__ void operator()(std::int32_t row, Emit& emit) const {
    if (t.fine_constrained[row]) return;
    const std::int32_t i0 = row % t.fine[0];
    const std::int32_t i1 = (row / t.fine[0]) % t.fine[1];
    const std::int32_t i2 = row / (t.fine[0] * t.fine[1]);
    const AxisRow& w0 = t.axis[0][i0];
    const AxisRow& w1 = t.axis[1][i1];
    const AxisRow& w2 = t.axis[2][i2];
    for (int c2 = 0; c2 < w2.count; ++c2) {
      for (int c1 = 0; c1 < w1.count; ++c1) {
        for (int c0 = 0; c0 < w0.count; ++c0) {
          const std::int32_t col = w0.coarse[c0] + t.coarse[0] * (w1.coarse[c1] + t.coarse[1] * w2.coarse[c2]);
          if (t.coarse_constrained[col]) continue;
          const double weight = mul_rn(mul_rn(w0.weight[c0], w1.weight[c1]), w2.weight[c2]);
          if (weight == 0) continue;
          emit(col, weight);
        }
      }
    }
  }
};

// The weight of coarse index I in fine index i's 1-D row, or 0 (with found false).
__device__ inline double axis_weight(const AxisRow& w, std::int32_t coarse, bool& found) {
  for (int c = 0; c < w.count; ++c) {
    if (w.coarse[c] == coarse) {
      found = true;
      return w.weight[c];
    }
  }
  found = false;
  return 0;
}

// Row `row` (coarse node I) of R = P^T: the fine nodes whose P rows hold I,
// ascending, with the same products.
struct RestrictionRows {
  TransferView t;
  template <typename Emit>
  __device__ void operator()(std::int32_t row, Emit& emit) const {
    if (t.coarse_constrained[row]) return;
    const std::int32_t at[3] = {row % t.coarse[0], (row / t.coarse[0]) % t.coarse[1],
                                row / (t.coarse[0] * t.coarse[1])};
    std::int32_t first[3], last[3];
    for (int a = 0; a < 3; ++a) {
      const bool halved = t.fine[a] != t.coarse[a];
      first[a] = halved ? max(2 * at[a] - 1, 0) : at[a];
      last[a] = halved ? min(2 * at[a] + 1, t.fine[a] - 1) : at[a];
    }
    for (std::int32_t i2 = first[2]; i2 <= last[2]; ++i2) {
      bool found2;
      const double w2 = axis_weight(t.axis[2][i2], at[2], found2);
      if (!found2) continue;
      for (std::int32_t i1 = first[1]; i1 <= last[1]; ++i1) {
        bool found1;
        const double w1 = axis_weight(t.axis[1][i1], at[1], found1);
        if (!found1) continue;
        for (std::int32_t i0 = first[0]; i0 <= last[0]; ++i0) {
          bool found0;
          const double w0 = axis_weight(t.axis[0][i0], at[0], found0);
          if (!found0) continue;
          const std::int32_t fine = i0 + t.fine[0] * (i1 + t.fine[1] * i2);
          if (t.fine_constrained[fine]) continue;
          const double weight = mul_rn(mul_rn(w0, w1), w2);
          if (weight == 0) continue;
          emit(fine, weight);
        }
      }
    }
  }
};

// The transfers applied in the cycle: the entries RestrictionRows and
// ProlongationRows emit, in their order, summed as the device SpMV sums a
// row (spmv.cu: sum += value * x, then alpha sum + beta y with alpha 1 and
// beta 0 or 1), so the results are the SpMV's with R and P bit for bit.
// Every row's loads are issued before its sums: the loops' bounds come from
// the axes' rows, read first, so no load waits behind another's branch.

// Node `row`'s index along each axis of a mesh of extent[0] x extent[1] x
// extent[2] nodes (axis 0 fastest).
struct AxisIndices {
  std::int32_t along[3];
};
__device__ __forceinline__ AxisIndices axis_indices(std::int32_t row, const std::int32_t (&extent)[3]) {
  return {{row % extent[0], (row / extent[0]) % extent[1], row / (extent[0] * extent[1])}};
}

// coarse = R fine: a coarse row's at most 3 x 3 x 3 fine nodes, a plane of
// 3 x 3 at a time loaded at clamped indices (a value past an axis's count is
// never summed): a plane's loads in flight together, at 74 registers a
// thread where all 27 at once took 128 and ran slower.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    restrict_rows(std::int32_t rows, TransferView t, const T* __restrict__ fine, T* __restrict__ coarse) {
  for (std::int64_t row64 = first_index(); row64 < rows; row64 += grid_stride()) {
    const auto row = static_cast<std::int32_t>(row64);
    T sum = T(0);
    if (!t.coarse_constrained[row]) {
      const AxisIndices at = axis_indices(row, t.coarse);
      const CoarseAxisRow a0 = t.coarse_axis[0][at.along[0]];
      const CoarseAxisRow a1 = t.coarse_axis[1][at.along[1]];
      const CoarseAxisRow a2 = t.coarse_axis[2][at.along[2]];
#pragma unroll
      for (int c2 = 0; c2 < 3; ++c2) {
        if (c2 >= a2.count || !a2.found[c2]) continue;
        T value[3][3];
        std::uint8_t constrained[3][3];
#pragma unroll
        for (int c1 = 0; c1 < 3; ++c1) {
#pragma unroll
          for (int c0 = 0; c0 < 3; ++c0) {
            const std::int32_t node = a0.first + min(c0, a0.count - 1) +
                                      t.fine[0] * (a1.first + min(c1, a1.count - 1) + t.fine[1] * (a2.first + c2));
            value[c1][c0] = __ldg(fine + node);
            constrained[c1][c0] = __ldg(t.fine_constrained + node);
          }
        }
#pragma unroll
        for (int c1 = 0; c1 < 3; ++c1) {
          if (c1 >= a1.count || !a1.found[c1]) continue;
#pragma unroll
          for (int c0 = 0; c0 < 3; ++c0) {
            if (c0 >= a0.count || !a0.found[c0] || constrained[c1][c0]) continue;
            const double weight = mul_rn(mul_rn(a0.weight[c0], a1.weight[c1]), a2.weight[c2]);
            if (weight == 0) continue;
            sum = add_rn(sum, mul_rn(static_cast<T>(weight), value[c1][c0]));
          }
        }
      }
    }
    coarse[row] = mul_rn(T(1), sum);
  }
}

// Coarse index c (0 or 1) of a P row, the first where the row has one only
// (c known at compile time: no indexing into local memory).
__device__ __forceinline__ std::int32_t second_or_first(const AxisRow& w, int c) {
  return c == 1 && w.count > 1 ? w.coarse[1] : w.coarse[0];
}

// fine += P coarse: a fine row's at most 2 x 2 x 2 coarse nodes, all loaded
// before the sums.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    prolong_rows(std::int32_t rows, TransferView t, const T* __restrict__ coarse, T* __restrict__ fine) {
  for (std::int64_t row64 = first_index(); row64 < rows; row64 += grid_stride()) {
    const auto row = static_cast<std::int32_t>(row64);
    T sum = T(0);
    if (!t.fine_constrained[row]) {
      const AxisIndices at = axis_indices(row, t.fine);
      const AxisRow w0 = t.axis[0][at.along[0]];
      const AxisRow w1 = t.axis[1][at.along[1]];
      const AxisRow w2 = t.axis[2][at.along[2]];
      T value[2][2][2];
      std::uint8_t constrained[2][2][2];
#pragma unroll
      for (int c2 = 0; c2 < 2; ++c2) {
#pragma unroll
        for (int c1 = 0; c1 < 2; ++c1) {
#pragma unroll
          for (int c0 = 0; c0 < 2; ++c0) {
            // Only the entries the row has (a fine node on a coarse one
            // has one along that axis): the sums below skip the others.
            value[c2][c1][c0] = T(0);
            constrained[c2][c1][c0] = 1;
            if (c0 >= w0.count || c1 >= w1.count || c2 >= w2.count) continue;
            const std::int32_t col = second_or_first(w0, c0) +
                                     t.coarse[0] * (second_or_first(w1, c1) + t.coarse[1] * second_or_first(w2, c2));
            value[c2][c1][c0] = __ldg(coarse + col);
            constrained[c2][c1][c0] = __ldg(t.coarse_constrained + col);
          }
        }
      }
#pragma unroll
      for (int c2 = 0; c2 < 2; ++c2) {
        if (c2 >= w2.count) continue;
#pragma unroll
        for (int c1 = 0; c1 < 2; ++c1) {
          if (c1 >= w1.count) continue;
#pragma unroll
          for (int c0 = 0; c0 < 2; ++c0) {
            if (c0 >= w0.count || constrained[c2][c1][c0]) continue;
            const double weight = mul_rn(mul_rn(w0.weight[c0], w1.weight[c1]), w2.weight[c2]);
            if (weight == 0) continue;
            sum = add_rn(sum, mul_rn(static_cast<T>(weight), value[c2][c1][c0]));
          }
        }
      }
    }
    fine[row] = add_rn(mul_rn(T(1), sum), mul_rn(T(1), fine[row]));
  }
}

// ------------------------------------------------------------ Galerkin product

constexpr int kWindowReach = 2;
constexpr int kWindowSpan = 2 * kWindowReach + 1;
constexpr int kWindowCells = kWindowSpan * kWindowSpan * kWindowSpan;

template <typename T>
struct GalerkinView {
  CsrView<T> r;
  CsrView<T> a;
  CsrView<T> p;
  std::int32_t coarse[3];
  const std::uint8_t* constrained;
  int* overflow;
};

// The window cell of coarse column col around the row's node at[], ascending
// with the column; -1 outside the window.
__device__ inline int window_cell(const std::int32_t (&extent)[3], const std::int32_t (&at)[3], std::int32_t col) {
  const std::int32_t j0 = col % extent[0];
  const std::int32_t j1 = (col / extent[0]) % extent[1];
  const std::int32_t j2 = col / (extent[0] * extent[1]);
  const std::int32_t d0 = j0 - at[0], d1 = j1 - at[1], d2 = j2 - at[2];
  if (d0 < -kWindowReach || d0 > kWindowReach || d1 < -kWindowReach || d1 > kWindowReach || d2 < -kWindowReach ||
      d2 > kWindowReach) {
    return -1;
  }
  return (d0 + kWindowReach) + kWindowSpan * ((d1 + kWindowReach) + kWindowSpan * (d2 + kWindowReach));
}

// cpu/multigrid.cpp's visit_row: every (J, R[I][i] * A[i][j] * P[j][J]) of row I, in its order.
template <typename T, typename Visit>
__device__ inline void visit_galerkin_row(const GalerkinView<T>& g, std::int32_t row, Visit&& visit) {
  for (RowOffset kr = g.r.row_offsets[row]; kr < g.r.row_offsets[row + 1]; ++kr) {
    const std::int32_t i = g.r.col_indices[kr];
    const double rv = static_cast<double>(g.r.values[kr]);
    for (RowOffset ka = g.a.row_offsets[i]; ka < g.a.row_offsets[i + 1]; ++ka) {
      const double ra = mul_rn(rv, static_cast<double>(g.a.values[ka]));
      const std::int32_t j = g.a.col_indices[ka];
      for (RowOffset kp = g.p.row_offsets[j]; kp < g.p.row_offsets[j + 1]; ++kp) {
        visit(g.p.col_indices[kp], mul_rn(ra, static_cast<double>(g.p.values[kp])));
      }
    }
  }
}

template <typename T>
__device__ inline void row_position(const GalerkinView<T>& g, std::int32_t row, std::int32_t (&at)[3]) {
  at[0] = row % g.coarse[0];
  at[1] = (row / g.coarse[0]) % g.coarse[1];
  at[2] = row / (g.coarse[0] * g.coarse[1]);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) count_galerkin_rows(GalerkinView<T> g, RowOffset* __restrict__ counts) {
  const std::int32_t rows = g.r.rows;
  for (std::int64_t k = first_index(); k < rows; k += grid_stride()) {
    const auto row = static_cast<std::int32_t>(k);
    if (g.constrained[row]) {
      counts[row] = 1;  // the identity row
      continue;
    }
    std::int32_t at[3];
    row_position(g, row, at);
    std::uint64_t seen[2] = {0, 0};
    bool outside = false;
    visit_galerkin_row(g, row, [&](std::int32_t col, double) {
      const int cell = window_cell(g.coarse, at, col);
      if (cell < 0)
        outside = true;
      else
        seen[cell >> 6] |= std::uint64_t{1} << (cell & 63);
    });
    if (outside) atomicExch(g.overflow, 1);
    counts[row] = __popcll(seen[0]) + __popcll(seen[1]);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    write_galerkin_rows(GalerkinView<T> g, const RowOffset* __restrict__ offsets, ColumnIndex* __restrict__ cols,
                        T* __restrict__ values) {
  const std::int32_t rows = g.r.rows;
  for (std::int64_t k = first_index(); k < rows; k += grid_stride()) {
    const auto row = static_cast<std::int32_t>(k);
    RowOffset out = offsets[row];
    if (g.constrained[row]) {
      cols[out] = row;
      values[out] = T(1);
      continue;
    }
    std::int32_t at[3];
    row_position(g, row, at);
    double sums[kWindowCells];
    std::uint64_t seen[2] = {0, 0};
    visit_galerkin_row(g, row, [&](std::int32_t col, double value) {
      const int cell = window_cell(g.coarse, at, col);
      const std::uint64_t bit = std::uint64_t{1} << (cell & 63);
      if (!(seen[cell >> 6] & bit)) {
        seen[cell >> 6] |= bit;
        sums[cell] = 0;
      }
      sums[cell] = add_rn(sums[cell], value);
    });
    for (int half = 0; half < 2; ++half) {
      std::uint64_t bits = seen[half];
      while (bits != 0) {
        const int cell = half * 64 + __ffsll(static_cast<long long>(bits)) - 1;
        bits &= bits - 1;
        const int d0 = cell % kWindowSpan - kWindowReach;
        const int d1 = (cell / kWindowSpan) % kWindowSpan - kWindowReach;
        const int d2 = cell / (kWindowSpan * kWindowSpan) - kWindowReach;
        cols[out] = (at[0] + d0) + g.coarse[0] * ((at[1] + d1) + g.coarse[1] * (at[2] + d2));
        values[out] = static_cast<T>(sums[cell]);
        ++out;
      }
    }
  }
}

// ------------------------------------------------------------ diagonals

template <typename T>
__device__ inline T diagonal_of(const CsrView<T>& a, std::int32_t row) {
  T diagonal = 0;
  for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
    if (a.col_indices[k] == row) diagonal = add_rn(diagonal, a.values[k]);
  }
  return diagonal;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    inverse_diagonal_rows(CsrView<T> a, const std::uint8_t* __restrict__ constrained, T* __restrict__ inverse,
                          int* __restrict__ first_bad_row) {
  for (std::int64_t k = first_index(); k < a.rows; k += grid_stride()) {
    const auto row = static_cast<std::int32_t>(k);
    if (constrained[row]) {
      inverse[row] = T(0);
      continue;
    }
    const T diagonal = diagonal_of(a, row);
    if (diagonal == T(0) || !isfinite(static_cast<double>(diagonal))) {
      atomicMin(first_bad_row, row);
      inverse[row] = T(0);
      continue;
    }
    inverse[row] = T(1) / diagonal;
  }
}

// The bits of a value, so that -0 and 0 differ and a NaN equals itself.
__device__ inline std::uint32_t bits_of(float value) { return __float_as_uint(value); }
__device__ inline std::uint64_t bits_of(double value) {
  return static_cast<std::uint64_t>(__double_as_longlong(value));
}

// *differs = 1 where a row off the box's faces holds other bits than the
// row `reference`.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    interior_rows_differ(const T* __restrict__ values, std::int32_t dim, std::int32_t nx, std::int32_t ny,
                         std::int32_t nz, std::int64_t reference, int* __restrict__ differs) {
  const auto expected = bits_of(values[reference]);
  const std::int64_t plane = static_cast<std::int64_t>(nx) * ny;
  for (std::int64_t k = first_index(); k < plane * nz; k += grid_stride()) {
    const std::int64_t i = k % nx, j = (k / nx) % ny, l = k / plane;
    const bool interior =
        i > 0 && i < nx - 1 && (dim < 2 || (j > 0 && j < ny - 1)) && (dim < 3 || (l > 0 && l < nz - 1));
    if (interior && bits_of(values[k]) != expected) *differs = 1;  // every writer stores 1: no atomics needed
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    diagonal_at_nodes(CsrView<T> a, const std::int32_t* __restrict__ nodes, std::int64_t count, T* __restrict__ out) {
  for (std::int64_t k = first_index(); k < count; k += grid_stride()) out[k] = diagonal_of(a, nodes[k]);
}

// ------------------------------------------------------------ Lanczos

constexpr int kMaxPartials = 1024;

// The blocks of a dot product over n entries: a fixed tree for a given n.
int dot_blocks(std::int32_t n) {
  return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{n} + kThreads - 1) / kThreads, 1, kMaxPartials));
}

// One term of a dot product, written once so that every kernel that sums
// one (alone or beside the step that makes x) rounds it alike.
template <typename T>
__device__ __forceinline__ double plus_product(double sum, T x, T y) {
  return sum + static_cast<double>(x) * static_cast<double>(y);
}

// A block's sum of its threads' partial sums into partials[blockIdx.x].
__device__ __forceinline__ void store_block_sum(double sum, double* __restrict__ partials) {
  using BlockReduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const double block_sum = BlockReduce(scratch).Sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    dot_partials(std::int32_t n, const T* __restrict__ x, const T* __restrict__ y, double* __restrict__ partials) {
  double sum = 0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) sum = plus_product(sum, x[i], y[i]);
  store_block_sum(sum, partials);
}

// The partials' sum into *out, or its square root (double's sqrt rounds
// as the host's std::sqrt); a thread adds every kMaxPartials-th partial
// first where there are more, so a given count sums in one fixed order.
__global__ void __launch_bounds__(kMaxPartials)
    sum_partials(std::int64_t count, const double* __restrict__ partials, bool root, double* __restrict__ out) {
  using BlockReduce = cub::BlockReduce<double, kMaxPartials>;
  __shared__ typename BlockReduce::TempStorage scratch;
  double value = 0;
  for (std::int64_t i = threadIdx.x; i < count; i += kMaxPartials) value += partials[i];
  const double total = BlockReduce(scratch).Sum(value);
  if (threadIdx.x == 0) *out = root ? sqrt(total) : total;
}

// x . y (or its square root) into *out on the device: a fixed tree for a
// given n, so the same bits every run.
template <typename T>
void queue_dot(std::int32_t n, const T* x, const T* y, bool root, DeviceArray<double>& partials, double* out,
               Stream stream) {
  const int blocks = dot_blocks(n);
  TRELLIS_LAUNCH(dot_partials<T>, blocks, kThreads, 0, stream, n, x, y, partials.data());
  TRELLIS_LAUNCH(sum_partials, 1, kMaxPartials, 0, stream, blocks, static_cast<const double*>(partials.data()), root,
                 out);
}

// Entry i takes the generator's state after i + 1 steps: a thread finds
// its first entry's by squarings, then jumps the grid's stride (by_stride).
// q_previous starts at zero (here, not by a memset: a memset keeps work
// queued after it on one stream from running beside another's).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    lanczos_start_vector(std::int32_t n, detail::LanczosJump by_stride, const T* __restrict__ inverse_diagonal,
                         T* __restrict__ scale, T* __restrict__ q, T* __restrict__ q_previous) {
  std::int64_t i = first_index();
  if (i >= n) return;
  std::uint64_t state = detail::lanczos_state_after(static_cast<std::uint64_t>(i) + 1);
  for (; i < n; i += grid_stride(), state = by_stride(state)) {
    scale[i] = static_cast<T>(sqrt(static_cast<double>(inverse_diagonal[i])));
    q[i] = inverse_diagonal[i] == T(0) ? T(0) : static_cast<T>(detail::lanczos_start_value(state));
    q_previous[i] = T(0);
  }
}

// q = w / *divisor in double, rounded to T (w may be q), and scaled =
// scale q, the next step's input to the operator.
template <typename T>
__global__ void __launch_bounds__(kThreads) divide_and_scale(std::int32_t n, const T* w, const double* divisor, T* q,
                                                             const T* __restrict__ scale, T* __restrict__ scaled) {
  const double by = *divisor;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T value = static_cast<T>(static_cast<double>(w[i]) / by);
    q[i] = value;
    scaled[i] = mul_rn(scale[i], value);
  }
}

// w = scale w - beta q_previous, beta = *beta_at rounded to T (0 where
// null); with the partials of w . q. Run on dot_blocks(n) blocks.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    lanczos_w_dot(std::int32_t n, const T* __restrict__ scale, const double* __restrict__ beta_at,
                  const T* __restrict__ q_previous, const T* __restrict__ q, T* __restrict__ w,
                  double* __restrict__ partials) {
  const T beta = beta_at == nullptr ? T(0) : static_cast<T>(*beta_at);
  double sum = 0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T value = add_rn(mul_rn(scale[i], w[i]), -mul_rn(beta, q_previous[i]));
    w[i] = value;
    sum = plus_product(sum, value, q[i]);
  }
  store_block_sum(sum, partials);
}

// y -= *a x (the host axpy's rounding: -*a in T, product then sum), with
// the partials of y . y. Run on dot_blocks(n) blocks.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    subtract_multiple_dot(std::int32_t n, const double* __restrict__ a, const T* __restrict__ x, T* __restrict__ y,
                          double* __restrict__ partials) {
  const auto by = static_cast<T>(-*a);
  double sum = 0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T value = add_rn(y[i], mul_rn(by, x[i]));
    y[i] = value;
    sum = plus_product(sum, value, value);
  }
  store_block_sum(sum, partials);
}

// R's rows along one axis from P's (rows, per fine index): RestrictionRows'
// candidates and axis_weight's lookups, done once.
std::vector<detail::CoarseAxisRow> coarse_axis_rows(const std::vector<AxisRow>& rows, std::int32_t coarse) {
  const auto fine = static_cast<std::int32_t>(rows.size());
  const bool halved = fine != coarse;
  std::vector<detail::CoarseAxisRow> out(static_cast<std::size_t>(coarse));
  for (std::int32_t at = 0; at < coarse; ++at) {
    detail::CoarseAxisRow& r = out[static_cast<std::size_t>(at)];
    r.first = halved ? std::max(2 * at - 1, 0) : at;
    const std::int32_t last = halved ? std::min(2 * at + 1, fine - 1) : at;
    r.count = last - r.first + 1;
    for (std::int32_t c = 0; c < 3; ++c) {
      r.found[c] = false;
      r.weight[c] = 0;
      if (c >= r.count) continue;
      const AxisRow& w = rows[static_cast<std::size_t>(r.first + c)];
      for (int k = 0; k < w.count; ++k) {
        if (w.coarse[k] == at) {
          r.found[c] = true;
          r.weight[c] = w.weight[k];
          break;
        }
      }
    }
  }
  return out;
}

std::vector<AxisRow> axis_rows(const std::vector<detail::AxisWeights>& weights) {
  std::vector<AxisRow> rows;
  rows.reserve(weights.size());
  for (const detail::AxisWeights& w : weights) {
    rows.push_back({{w.coarse[0], w.coarse[1]}, {w.weight[0], w.weight[1]}, w.count});
  }
  return rows;
}

}  // namespace

template <typename T>
DeviceCsr<T> interpolation(const detail::DeviceTransfer& transfer, bool transposed) {
  if (transposed) return build_csr<T>(transfer.coarse_nodes(), transfer.fine_nodes(), RestrictionRows{transfer.view()});
  return build_csr<T>(transfer.fine_nodes(), transfer.coarse_nodes(), ProlongationRows{transfer.view()});
}

template <typename T>
std::optional<DeviceCsr<T>> galerkin_product(const CsrView<T>& r, const CsrView<T>& a, const CsrView<T>& p,
                                             const detail::LevelExtents& coarse,
                                             const std::uint8_t* coarse_constrained) {
  DeviceArray<int> overflow(1);
  overflow.fill_zero();
  GalerkinView<T> g{r, a, p, {coarse[0], coarse[1], coarse[2]}, coarse_constrained, overflow.data()};
  const std::int32_t rows = r.rows;
  DeviceArray<RowOffset> counts(static_cast<std::size_t>(std::max(rows, 1)));
  TRELLIS_LAUNCH(count_galerkin_rows<T>, blocks_for(rows), kThreads, 0, nullptr, g, counts.data());
  int outside = 0;
  device::copy_to_host(&outside, overflow.data(), sizeof(int), nullptr);
  device::synchronize(nullptr);
  if (outside != 0) return std::nullopt;
  DeviceArray<RowOffset> offsets = offsets_from_counts(counts, rows);
  const RowOffset nnz = last_offset(offsets);
  DeviceArray<ColumnIndex> col_indices(static_cast<std::size_t>(nnz));
  DeviceArray<T> values(static_cast<std::size_t>(nnz));
  TRELLIS_LAUNCH(write_galerkin_rows<T>, blocks_for(rows), kThreads, 0, nullptr, g, offsets.data(), col_indices.data(),
                 values.data());
  return DeviceCsr<T>(rows, p.cols, std::move(offsets), std::move(col_indices), std::move(values),
                      DeviceArray<std::int32_t>());
}

template <typename T>
void inverse_diagonal(const CsrView<T>& a, const std::uint8_t* constrained, T* inverse, int* bad_row) {
  TRELLIS_LAUNCH(inverse_diagonal_rows<T>, blocks_for(a.rows), kThreads, 0, nullptr, a, constrained, inverse, bad_row);
}

template <typename T>
std::optional<T> interior_value(const T* values, std::int32_t dim, const detail::LevelExtents& extents) {
  std::int64_t reference = 0;
  std::int64_t stride = 1;
  for (int a = 0; a < 3; ++a) {
    if (a < dim) {
      if (extents[static_cast<std::size_t>(a)] < 3) return std::nullopt;  // no interior row
      reference += stride;                                                // index 1 along the axis
    }
    stride *= extents[static_cast<std::size_t>(a)];
  }
  DeviceArray<int> differs(1);
  differs.fill_zero();
  TRELLIS_LAUNCH(interior_rows_differ<T>, blocks_for(stride), kThreads, 0, nullptr, values, dim, extents[0], extents[1],
                 extents[2], reference, differs.data());
  T value{};
  int differ = 0;
  device::copy_to_host(&value, values + reference, sizeof(T), nullptr);
  device::copy_to_host(&differ, differs.data(), sizeof(int), nullptr);
  device::synchronize(nullptr);
  if (differ != 0) return std::nullopt;
  return value;
}

namespace {

__global__ void __launch_bounds__(kThreads)
    set_flags(std::int64_t count, const std::int32_t* __restrict__ nodes, std::uint8_t* __restrict__ flags) {
  for (std::int64_t k = first_index(); k < count; k += grid_stride()) flags[nodes[k]] = 1;
}

}  // namespace

DeviceArray<std::uint8_t> flags_at(std::int32_t n, std::span<const std::int32_t> nodes) {
  DeviceArray<std::uint8_t> flags(static_cast<std::size_t>(n));
  flags.fill_zero();
  if (!nodes.empty()) {
    const DeviceArray<std::int32_t> listed = DeviceArray<std::int32_t>::from_host(nodes);
    const auto count = static_cast<std::int64_t>(nodes.size());
    TRELLIS_LAUNCH(set_flags, blocks_for(count), kThreads, 0, nullptr, count, listed.data(), flags.data());
    device::synchronize(nullptr);  // listed is freed next
  }
  return flags;
}

template <typename T>
DeviceArray<T> diagonal_at(const CsrView<T>& a, const DeviceArray<std::int32_t>& nodes) {
  DeviceArray<T> out(nodes.size());
  const auto count = static_cast<std::int64_t>(nodes.size());
  if (count > 0) {
    TRELLIS_LAUNCH(diagonal_at_nodes<T>, blocks_for(count), kThreads, 0, nullptr, a, nodes.data(), count, out.data());
  }
  return out;
}

namespace {

// multigrid_lines.cpp's factor_line, one thread a line; bad_row takes the
// least free row with a zero or non-finite pivot.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    factor_line_kernel(CsrView<T> a, const std::uint8_t* __restrict__ constrained, std::int32_t stride,
                       std::int32_t length, std::int32_t lines, T* __restrict__ lower, T* __restrict__ upper,
                       T* __restrict__ inverse_pivot, std::int32_t* bad_row) {
  for (std::int64_t line = first_index(); line < lines; line += grid_stride()) {
    const std::int32_t first = detail::line_start(static_cast<std::int32_t>(line), stride, length);
    T above = 0;
    for (std::int32_t k = 0; k < length; ++k) {
      const std::int32_t row = first + k * stride;
      T below = 0, diagonal = 0, beyond = 0;
      for (RowOffset e = a.row_offsets[row]; e < a.row_offsets[row + 1]; ++e) {
        const std::int32_t column = a.col_indices[e];
        if (column == row)
          diagonal = add_rn(diagonal, a.values[e]);
        else if (k > 0 && column == row - stride)
          below = add_rn(below, a.values[e]);
        else if (k + 1 < length && column == row + stride)
          beyond = add_rn(beyond, a.values[e]);
      }
      if (constrained[row]) {
        lower[row] = 0;
        upper[row] = 0;
        inverse_pivot[row] = 0;
        above = 0;
        continue;
      }
      const T pivot = add_rn(diagonal, -mul_rn(below, above));
      if (pivot == T(0) || !isfinite(pivot)) {
        atomicMin(bad_row, row);
        break;
      }
      const T inverse = T(1) / pivot;
      lower[row] = below;
      upper[row] = mul_rn(beyond, inverse);
      inverse_pivot[row] = inverse;
      above = upper[row];
    }
  }
}

}  // namespace

template <typename T>
detail::DeviceLineFactors<T> line_factors(const CsrView<T>& a, const std::uint8_t* constrained, std::int32_t stride,
                                          std::int32_t length, std::int32_t& bad_row) {
  detail::DeviceLineFactors<T> f;
  f.stride = stride;
  f.length = length;
  const auto n = static_cast<std::size_t>(a.rows);
  f.lines = a.rows / f.length;
  f.lower = DeviceArray<T>(n);
  f.upper = DeviceArray<T>(n);
  f.inverse_pivot = DeviceArray<T>(n);
  DeviceArray<std::int32_t> bad = DeviceArray<std::int32_t>::from_host(std::vector<std::int32_t>{INT32_MAX});
  TRELLIS_LAUNCH(factor_line_kernel<T>, blocks_for(f.lines), kThreads, 0, nullptr, a, constrained, f.stride, f.length,
                 f.lines, f.lower.data(), f.upper.data(), f.inverse_pivot.data(), bad.data());
  const std::int32_t least_bad = bad.to_host().front();
  bad_row = least_bad == INT32_MAX ? -1 : least_bad;
  return f;
}

// Partials a Lane keeps per row: more than the Kronecker apply's tiles
// need on any mesh of 64 rows a tile or more.
constexpr std::int64_t kRowsAPartial = 64;

template <typename T>
struct LanczosQueue<T>::Lane {
  Lane(std::int32_t rows, device::StreamPriority priority)
      : stream(priority),
        scale(static_cast<std::size_t>(rows)),
        q(scale.size()),
        q_previous(scale.size()),
        w(scale.size()),
        scaled(scale.size()),
        // A block's partial of a dot, for dot_blocks or the Kronecker apply's tiles.
        partials(static_cast<std::size_t>(std::max<std::int64_t>(kMaxPartials, rows / kRowsAPartial))) {
    TRELLIS_CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready, cudaEventDisableTiming));
  }
  ~Lane() { cudaEventDestroy(inputs_ready); }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  device::OwnedStream stream;
  cudaEvent_t inputs_ready = nullptr;  // recorded on the default stream as a level is added
  DeviceArray<T> scale, q, q_previous, w, scaled;
  DeviceArray<double> partials;
};

template <typename T>
LanczosQueue<T>::LanczosQueue(std::int32_t largest_rows, std::int32_t other_rows, std::int32_t steps,
                              std::size_t levels)
    : steps_(steps),
      first_(std::make_unique<Lane>(largest_rows, device::StreamPriority::normal)),
      // The coarse levels' steps are short launches in a chain: at a high
      // priority their blocks start as soon as the finest level's free a
      // multiprocessor, not after all of them.
      rest_(levels > 1 ? std::make_unique<Lane>(other_rows, device::StreamPriority::high) : nullptr),
      coefficients_(levels * coefficients_a_level()) {}

template <typename T>
LanczosQueue<T>::~LanczosQueue() = default;

template <typename T>
typename LanczosQueue<T>::Lane& LanczosQueue<T>::next_lane() {
  Lane* lane = added_ == 0 ? first_.get() : rest_.get();
  if (lane == nullptr || (added_ + 1) * coefficients_a_level() > coefficients_.size()) {
    throw std::logic_error("LanczosQueue: more levels than it was made for");
  }
  return *lane;
}

template <typename T>
template <typename Apply, typename Product>
void LanczosQueue<T>::queue(std::int32_t n, const Apply& apply, const Product& product, const T* inverse_diagonal) {
  Lane& lane = next_lane();
  if (static_cast<std::size_t>(n) > lane.scale.size()) {
    throw std::logic_error("LanczosQueue: more rows than it was made for");
  }
  const Stream stream = lane.stream.get();
  // The level's matrix and inverse diagonal come from the default stream.
  TRELLIS_CUDA_CHECK(cudaEventRecord(lane.inputs_ready, nullptr));
  TRELLIS_CUDA_CHECK(cudaStreamWaitEvent(stream, lane.inputs_ready, 0));
  double* const c = coefficients_.data() + added_ * coefficients_a_level();
  ++added_;
  const unsigned blocks = blocks_for(n);
  const int dot_grid = dot_blocks(n);
  const auto sum_into = [&](std::int64_t partials, bool root, double* out) {
    TRELLIS_LAUNCH(sum_partials, 1, kMaxPartials, 0, stream, partials, static_cast<const double*>(lane.partials.data()),
                   root, out);
  };
  // Each elementwise step that precedes a dot product computes it too, on
  // the dot's blocks and in its order (plus_product): the same bits as the
  // step and the dot apart, with fewer passes over the vectors.
  const auto divide_and_scale_into = [&](const T* w, const double* divisor) {
    TRELLIS_LAUNCH(divide_and_scale<T>, blocks, kThreads, 0, stream, n, w, divisor, lane.q.data(),
                   static_cast<const T*>(lane.scale.data()), lane.scaled.data());
  };
  TRELLIS_LAUNCH(lanczos_start_vector<T>, blocks, kThreads, 0, stream, n,
                 detail::lanczos_jump(std::uint64_t{blocks} * kThreads), inverse_diagonal, lane.scale.data(),
                 lane.q.data(), lane.q_previous.data());
  queue_dot<T>(n, lane.q.data(), lane.q.data(), true, lane.partials, c, stream);
  divide_and_scale_into(lane.q.data(), c);
  // Step s leaves alpha in c[1 + 2 s] and beta in c[2 + 2 s]; steps past a
  // breakdown compute what tridiagonals() leaves out.
  for (std::int32_t step = 0; step < steps_; ++step) {
    double* const alpha = c + 1 + 2 * step;
    double* const beta = alpha + 1;
    // w = scale (A scaled) - beta q_previous and the partials of w . q: in
    // the apply's pass where product does it (0: not done), else after it.
    const double* const beta_before = step == 0 ? nullptr : alpha - 1;
    std::int64_t partials =
        product(lane.scaled.data(), lane.scale.data(), beta_before, lane.q_previous.data(), lane.q.data(),
                lane.w.data(), lane.partials.data(), static_cast<std::int64_t>(lane.partials.size()), stream);
    if (partials == 0) {
      apply(static_cast<const T*>(lane.scaled.data()), lane.w.data(), stream);
      TRELLIS_LAUNCH(lanczos_w_dot<T>, dot_grid, kThreads, 0, stream, n, static_cast<const T*>(lane.scale.data()),
                     beta_before, static_cast<const T*>(lane.q_previous.data()), static_cast<const T*>(lane.q.data()),
                     lane.w.data(), lane.partials.data());
      partials = dot_grid;
    }
    sum_into(partials, false, alpha);
    TRELLIS_LAUNCH(subtract_multiple_dot<T>, dot_grid, kThreads, 0, stream, n, static_cast<const double*>(alpha),
                   static_cast<const T*>(lane.q.data()), lane.w.data(), lane.partials.data());
    sum_into(dot_grid, true, beta);
    if (step + 1 == steps_) break;
    std::swap(lane.q_previous, lane.q);
    divide_and_scale_into(lane.w.data(), beta);
  }
}

template <typename T>
void LanczosQueue<T>::add(const CsrView<T>& a, const T* inverse_diagonal) {
  queue(
      a.rows, [&](const T* in, T* out, Stream stream) { spmv(T(1), a, in, T(0), out, stream); },
      [](const T*, const T*, const double*, const T*, const T*, T*, double*, std::int64_t, Stream) {
        return std::int64_t{0};
      },
      inverse_diagonal);
}

template <typename T>
void LanczosQueue<T>::add(const detail::DeviceKronecker<T>& a, const T* inverse_diagonal) {
  queue(
      a.nodes(), [&](const T* in, T* out, Stream stream) { kronecker_apply<T>(a, in, out, stream); },
      [&](const T* scaled, const T* scale, const double* beta_at, const T* q_previous, const T* q, T* w,
          double* partials, std::int64_t capacity, Stream stream) {
        return kronecker_lanczos_product<T>(a, scaled, scale, beta_at, q_previous, q, w, partials, capacity, stream);
      },
      inverse_diagonal);
}

template <typename T>
std::vector<LanczosTridiagonal> LanczosQueue<T>::tridiagonals() const {
  device::synchronize(first_->stream.get());
  if (rest_) device::synchronize(rest_->stream.get());
  std::vector<double> c(added_ * coefficients_a_level());
  device::copy_to_host(c.data(), coefficients_.data(), c.size() * sizeof(double), nullptr);
  device::synchronize(nullptr);
  std::vector<LanczosTridiagonal> out(added_);
  for (std::size_t level = 0; level < added_; ++level) {
    const double* const at = c.data() + level * coefficients_a_level();
    LanczosTridiagonal& t = out[level];
    if (at[0] == 0) continue;  // no free row: the caller takes 1
    // Where the host's loop stops: an invariant subspace, or the last step.
    for (std::int32_t step = 0; step < steps_; ++step) {
      const double alpha = at[1 + 2 * step], beta = at[2 + 2 * step];
      t.alpha.push_back(alpha);
      if (!(beta > 1e-12 * std::abs(alpha)) || step + 1 == steps_) break;
      t.beta.push_back(beta);
    }
  }
  return out;
}

TRELLIS_GRID_MULTIGRID_SETUP(float)
TRELLIS_GRID_MULTIGRID_SETUP(double)

}  // namespace trellis::grid::cuda

namespace trellis::grid::detail {

DeviceTransfer::DeviceTransfer(const DeviceTransferInput& transfer) {
  PackedUpload packed;
  std::array<std::size_t, 3> rows_at{}, coarse_rows_at{};
  for (int a = 0; a < 3; ++a) {
    const auto at = static_cast<std::size_t>(a);
    view_.fine[a] = transfer.fine[at];
    view_.coarse[a] = transfer.coarse[at];
    const std::vector<AxisRow> rows = cuda::axis_rows(transfer.axes[at]);
    rows_at[at] = packed.add<AxisRow>(rows);
    coarse_rows_at[at] = packed.add<CoarseAxisRow>(cuda::coarse_axis_rows(rows, view_.coarse[a]));
  }
  storage_ = packed.upload();
  for (int a = 0; a < 3; ++a) {
    const auto at = static_cast<std::size_t>(a);
    view_.axis[a] = reinterpret_cast<const AxisRow*>(storage_.data() + rows_at[at]);
    view_.coarse_axis[a] = reinterpret_cast<const CoarseAxisRow*>(storage_.data() + coarse_rows_at[at]);
  }
  view_.fine_constrained = transfer.fine_constrained;
  view_.coarse_constrained = transfer.coarse_constrained;
}

std::int32_t DeviceTransfer::fine_nodes() const { return view_.fine[0] * view_.fine[1] * view_.fine[2]; }
std::int32_t DeviceTransfer::coarse_nodes() const { return view_.coarse[0] * view_.coarse[1] * view_.coarse[2]; }

template <typename T>
void DeviceTransfer::prolong_add(const T* coarse, T* fine, Stream stream) const {
  const std::int32_t rows = fine_nodes();
  TRELLIS_LAUNCH(cuda::prolong_rows<T>, cuda::blocks_for(rows), cuda::kThreads, 0, stream, rows, view_, coarse, fine);
}

template <typename T>
void DeviceTransfer::restrict_to(const T* fine, T* coarse, Stream stream) const {
  const std::int32_t rows = coarse_nodes();
  TRELLIS_LAUNCH(cuda::restrict_rows<T>, cuda::blocks_for(rows), cuda::kThreads, 0, stream, rows, view_, fine, coarse);
}

template void DeviceTransfer::prolong_add<float>(const float*, float*, Stream) const;
template void DeviceTransfer::prolong_add<double>(const double*, double*, Stream) const;
template void DeviceTransfer::restrict_to<float>(const float*, float*, Stream) const;
template void DeviceTransfer::restrict_to<double>(const double*, double*, Stream) const;

}  // namespace trellis::grid::detail
