// Kronecker levels on the GPU (multigrid_device.hpp). The apply reads tiles
// of x into shared memory (apply_tiles) and factors the bands' products axis
// by axis, handing each row's sum to an epilogue (a residual, a whole
// smoothing step, or a Lanczos step's product and its dot); the reach is a
// template parameter so the loops unroll. The sums are the host's
// kronecker_row's in another order: equal to rounding, not bitwise. A
// Lanczos step on a level with one stencil for its free rows takes a thread
// a row instead, in kronecker_row's order.
// The setup's kernels (diagonal, probe, comparison) take a thread a row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <cub/block/block_reduce.cuh>

#include "../kernels.hpp"
#include "../multigrid_device.hpp"
#include "grid_stride.cuh"
#include "rounding.cuh"
#include "smoothing_step.cuh"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

unsigned blocks_for(std::int64_t n) { return launch_blocks(n, kThreads, kMaxBlocks); }

struct RowIndex {
  std::int32_t i0, i1, i2;
};

// Nodes number below 2^31 (KroneckerOperator::nodes), so 32-bit division.
template <typename T>
__device__ __forceinline__ RowIndex row_index(const detail::KroneckerView<T>& op, std::int64_t row) {
  const auto node = static_cast<std::uint32_t>(row);
  const auto e0 = static_cast<std::uint32_t>(op.extents[0]), e1 = static_cast<std::uint32_t>(op.extents[1]);
  const std::uint32_t line = node / e0, plane = line / e1;
  return {static_cast<std::int32_t>(node - line * e0), static_cast<std::int32_t>(line - plane * e1),
          static_cast<std::int32_t>(plane)};
}

// Rows a block: kTileX along axis 0 (a warp's loads of a line coalesce) by
// kTileY along axis 1 by kTileZ planes (each plane's sums serve the rows
// beside it; more planes a block cost more registers).
constexpr int kTileX = 32, kTileY = 8, kTileZ = 4, kTileThreads = kTileX * kTileY;

// What a row's (A x)_row becomes: y = A x (b null) or y = b - A x.
template <typename T>
struct StoreResidual {
  static constexpr bool kSumsDot = false;
  const T* b;
  T* y;
  __device__ __forceinline__ void operator()(std::int64_t row, T x_row, T ax) const {
    static_cast<void>(x_row);
    y[row] = b == nullptr ? ax : b[row] - ax;
  }
};

// A smoothing step from the residual b - A x (smoothing_step.cuh, as
// cuda/multigrid.cu's smoothing_step): d = alpha d + beta D^-1 r,
// x_next = x + d, x_next another vector than x (other blocks read x round
// their tiles).
template <typename T>
struct SmoothingStep {
  static constexpr bool kSumsDot = false;
  const T* b;
  T alpha, beta;
  const T* inverse_diagonal;
  T* d;
  T* x_next;
  __device__ __forceinline__ void operator()(std::int64_t row, T x_row, T ax) const {
    const T r = b[row] - ax;
    const T step = smoothing_direction(alpha, previous_direction(alpha, d, row), beta, inverse_diagonal[row], r);
    d[row] = step;
    x_next[row] = add_rn(x_row, step);
  }
};

// A Lanczos step's product (cuda/multigrid_setup.cu's lanczos_w_dot, the
// same bits for w): w = scale (A x) - beta q_previous, beta = *beta_at in T
// (0 where null), returning the row's term of w . q for the block's sum.
template <typename T>
struct LanczosProduct {
  static constexpr bool kSumsDot = true;
  const T* scale;
  const double* beta_at;
  const T* q_previous;
  const T* q;
  T* w;
  double* partials;  // one a block
  __device__ __forceinline__ double operator()(std::int64_t row, T x_row, T ax) const {
    static_cast<void>(x_row);
    const T beta = beta_at == nullptr ? T(0) : static_cast<T>(*beta_at);
    const T value = add_rn(mul_rn(scale[row], ax), -mul_rn(beta, q_previous[row]));
    w[row] = value;
    return static_cast<double>(value) * static_cast<double>(q[row]);
  }
};

// (A x)_row on a level with one stencil for its free rows (uniform_stencil):
// the sum in kronecker_row's order, x_row itself on a constrained row.
template <typename T>
__device__ __forceinline__ T uniform_row(const detail::KroneckerView<T>& op, const detail::UniformStencil<T>& stencil,
                                         const T* __restrict__ x, std::int64_t row, T x_row) {
  const RowIndex r = row_index(op, row);
  if (detail::kronecker_constrained(op, r.i0, r.i1, r.i2)) return x_row;
  T ax = 0;
  for (int e = 0; e < stencil.count; ++e) ax = add_rn(ax, mul_rn(stencil.weight[e], x[row + stencil.offset[e]]));
  return ax;
}

// LanczosProduct on a level with one stencil for its free rows
// (uniform_stencil), a thread a row: its sum in kronecker_row's order, the
// constrained rows x itself; x zero on the constrained nodes.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    uniform_lanczos_product(detail::KroneckerView<T> op, detail::UniformStencil<T> stencil, std::int64_t n,
                            const T* __restrict__ x, LanczosProduct<T> out) {
  double dot = 0;
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const T x_row = x[row];
    dot += out(row, x_row, uniform_row(op, stencil, x, row, x_row));
  }
  using BlockReduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const double block_dot = BlockReduce(scratch).Sum(dot);
  if (threadIdx.x == 0) out.partials[blockIdx.x] = block_dot;
}

// A residual or a smoothing step (out) on a level with one stencil for its
// free rows, a thread a row, as uniform_lanczos_product sums: x must be zero
// on the constrained nodes (a coarse level's correction), whose rows are x.
template <typename T, typename Out>
__global__ void __launch_bounds__(kThreads) uniform_rows(detail::KroneckerView<T> op, detail::UniformStencil<T> stencil,
                                                         std::int64_t n, const T* __restrict__ x, Out out) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const T x_row = x[row];
    out(row, x_row, uniform_row(op, stencil, x, row, x_row));
  }
}

// (A x)_row for every row, handed to out with the row's x; constrained rows: x. Flat:
// a mesh of one plane (2-D and 1-D), whose bands reach no plane beside it:
// a block takes one plane of rows and reads no halo planes (a 3-D tile there
// would load and sum kTileZ + 2 Reach planes for the one it writes). A block
// reads its tile of x with the halo its reach asks (0 outside the mesh)
// into shared memory once; each thread then sums its column per term and
// plane, S_t(j2) = sum_o1 b1_t sum_o0 b0_t x (offsets beyond the term's
// reach skipped: uniform branches), and each of its rows (kTileZ, 1 flat) is
// sum_t sum_o2 b2_t S_t(i2 + o2), so a plane's sums serve the rows beside it
// and a band entry along axes 0 and 1 is read once a column.
template <typename T, int Reach, bool Flat, typename Out>
__global__ void __launch_bounds__(kTileThreads)
    apply_tiles(detail::KroneckerView<T> op, const T* __restrict__ x, Out out) {
  constexpr int kTerms = detail::kMaxKroneckerTerms;
  constexpr int kZ = Flat ? 1 : kTileZ, kReachZ = Flat ? 0 : Reach;
  constexpr int kSpanX = kTileX + 2 * Reach, kSpanY = kTileY + 2 * Reach, kPlanes = kZ + 2 * kReachZ;
  __shared__ T slab[kPlanes][kSpanY][kSpanX];
  const std::int32_t e0 = op.extents[0], e1 = op.extents[1], e2 = op.extents[2];
  // Tiles numbered along axis 0 first, in one grid dimension (the others
  // stop at 65,535 blocks; a level has fewer tiles than nodes).
  const std::uint32_t tiles_x = (e0 + kTileX - 1) / kTileX, tiles_y = (e1 + kTileY - 1) / kTileY;
  const std::uint32_t tile = blockIdx.x, tile_yz = tile / tiles_x;
  const auto x0 = static_cast<std::int32_t>(tile - tile_yz * tiles_x) * kTileX;
  const auto y0 = static_cast<std::int32_t>(tile_yz % tiles_y) * kTileY;
  const auto z0 = static_cast<std::int32_t>(tile_yz / tiles_y) * kZ;
  for (int at = static_cast<int>(threadIdx.x); at < kPlanes * kSpanY * kSpanX; at += kTileThreads) {
    const int p = at / (kSpanY * kSpanX), sy = (at / kSpanX) % kSpanY, sx = at % kSpanX;
    const std::int32_t j0 = x0 - Reach + sx, j1 = y0 - Reach + sy, j2 = z0 - kReachZ + p;
    const bool inside = j0 >= 0 && j0 < e0 && j1 >= 0 && j1 < e1 && j2 >= 0 && j2 < e2;
    slab[p][sy][sx] = inside ? x[(static_cast<std::int64_t>(j2) * e1 + j1) * e0 + j0] : T(0);
  }
  __syncthreads();
  const int tx = static_cast<int>(threadIdx.x) % kTileX, ty = static_cast<int>(threadIdx.x) / kTileX;
  // A thread past the mesh's edge has no row: it leaves, unless the block
  // sums a dot, where every thread takes part (loading an edge row's bands).
  const bool has_rows = x0 + tx < e0 && y0 + ty < e1;
  if (!Out::kSumsDot && !has_rows) return;
  const std::int32_t i0 = min(x0 + tx, e0 - 1), i1 = min(y0 + ty, e1 - 1);
  std::int32_t r[kTerms][3];
#pragma unroll
  for (int t = 0; t < kTerms; ++t) {
#pragma unroll
    for (int a = 0; a < 3; ++a) r[t][a] = t < op.terms ? op.reach[t][a] : -1;
  }
  T sums[kPlanes][kTerms];
#pragma unroll
  for (int t = 0; t < kTerms; ++t) {
    T along[2 * Reach + 1], across[2 * Reach + 1];
#pragma unroll
    for (int o = -Reach; o <= Reach; ++o) {
      along[o + Reach] = o >= -r[t][0] && o <= r[t][0] ? op.band[t][0][(o + r[t][0]) * e0 + i0] : T(0);
      across[o + Reach] = o >= -r[t][1] && o <= r[t][1] ? op.band[t][1][(o + r[t][1]) * e1 + i1] : T(0);
    }
#pragma unroll
    for (int p = 0; p < kPlanes; ++p) {
      T sum = 0;
#pragma unroll
      for (int o1 = -Reach; o1 <= Reach; ++o1) {
        if (o1 < -r[t][1] || o1 > r[t][1]) continue;
        T line = 0;
#pragma unroll
        for (int o0 = -Reach; o0 <= Reach; ++o0) {
          if (o0 >= -r[t][0] && o0 <= r[t][0]) line += along[o0 + Reach] * slab[p][ty + Reach + o1][tx + Reach + o0];
        }
        sum += across[o1 + Reach] * line;
      }
      sums[p][t] = sum;
    }
  }
  const bool column_constrained = op.constrained[0][i0] != 0 || op.constrained[1][i1] != 0;
  double dot = 0;
#pragma unroll
  for (int z = 0; z < kZ; ++z) {
    const std::int32_t i2 = z0 + z;
    if (i2 >= e2 || !has_rows) break;
    const std::int64_t row = (static_cast<std::int64_t>(i2) * e1 + i1) * e0 + i0;
    const T x_row = slab[z + kReachZ][ty + Reach][tx + Reach];
    T ax = 0;
    if (column_constrained || op.constrained[2][i2] != 0) {
      ax = x_row;
    } else {
#pragma unroll
      for (int t = 0; t < kTerms; ++t) {
        T term = 0;
#pragma unroll
        for (int o2 = -kReachZ; o2 <= kReachZ; ++o2) {
          if (o2 >= -r[t][2] && o2 <= r[t][2])
            term += op.band[t][2][(o2 + r[t][2]) * e2 + i2] * sums[z + kReachZ + o2][t];
        }
        ax += term;
      }
    }
    if constexpr (Out::kSumsDot) {
      dot += out(row, x_row, ax);
    } else {
      out(row, x_row, ax);
    }
  }
  if constexpr (Out::kSumsDot) {
    using BlockReduce = cub::BlockReduce<double, kTileThreads>;
    __shared__ typename BlockReduce::TempStorage scratch;
    const double block_dot = BlockReduce(scratch).Sum(dot);
    if (threadIdx.x == 0) out.partials[blockIdx.x] = block_dot;
  }
}

// One plane whose bands along axis 2 reach nothing (a single node).
template <typename T>
bool flat_mesh(const detail::KroneckerView<T>& op) {
  bool flat = op.extents[2] == 1;
  for (int t = 0; t < op.terms; ++t) flat = flat && op.reach[t][2] == 0;
  return flat;
}

// The blocks apply_tiles runs on a's mesh.
template <typename T>
std::int64_t tile_blocks(const detail::KroneckerView<T>& op) {
  const std::int64_t tiles_xy =
      std::int64_t{(op.extents[0] + kTileX - 1) / kTileX} * ((op.extents[1] + kTileY - 1) / kTileY);
  return flat_mesh(op) ? tiles_xy : tiles_xy * ((op.extents[2] + kTileZ - 1) / kTileZ);
}

template <typename T, int Reach, typename Out>
void launch_tiles(const detail::DeviceKronecker<T>& a, const T* x, const Out& out, Stream stream) {
  const detail::KroneckerView<T>& op = a.view();
  const auto tiles = static_cast<unsigned>(tile_blocks(op));
  if (flat_mesh(op)) {
    TRELLIS_LAUNCH((apply_tiles<T, Reach, true, Out>), tiles, kTileThreads, 0, stream, op, x, out);
    return;
  }
  TRELLIS_LAUNCH((apply_tiles<T, Reach, false, Out>), tiles, kTileThreads, 0, stream, op, x, out);
}

template <typename T, typename Out>
void launch_apply(const detail::DeviceKronecker<T>& a, const T* x, const Out& out, Stream stream) {
  switch (a.reach()) {
    case 0:
      launch_tiles<T, 0>(a, x, out, stream);
      break;
    case 1:
      launch_tiles<T, 1>(a, x, out, stream);
      break;
    default:
      launch_tiles<T, 2>(a, x, out, stream);
      break;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    inverse_diagonal_rows(detail::KroneckerView<T> op, std::int64_t n, T* __restrict__ inverse, int* __restrict__ bad) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    if (detail::kronecker_constrained(op, r.i0, r.i1, r.i2)) {
      inverse[row] = T(0);
      continue;
    }
    const T diagonal = detail::kronecker_diagonal(op, r.i0, r.i1, r.i2);
    if (diagonal == T(0) || !isfinite(diagonal)) {
      atomicMin(bad, static_cast<int>(row));
      inverse[row] = T(0);
    } else {
      inverse[row] = T(1) / diagonal;
    }
  }
}

// The probe on free nodes; on constrained ones too where everywhere, else zero.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    fill_probe(detail::KroneckerView<T> op, std::int64_t n, bool everywhere, T* __restrict__ x) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    const bool zero = !everywhere && detail::kronecker_constrained(op, r.i0, r.i1, r.i2);
    x[row] = zero ? T(0) : static_cast<T>(detail::probe(row));
  }
}

struct Larger {
  __device__ __forceinline__ double operator()(double a, double b) const { return fmax(a, b); }
};

// Over the free rows: the largest |from_a| and |from_a - from_op|, as the
// bits of non-negative doubles (ordered like the values), a block's maxima
// first so only one atomic a block meets each word.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    compare_rows(detail::KroneckerView<T> op, std::int64_t n, const T* __restrict__ from_a,
                 const T* __restrict__ from_op, unsigned long long* __restrict__ largest) {
  double value = 0, difference = 0;
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    if (detail::kronecker_constrained(op, r.i0, r.i1, r.i2)) continue;
    value = fmax(value, fabs(static_cast<double>(from_a[row])));
    difference = fmax(difference, fabs(static_cast<double>(from_a[row]) - static_cast<double>(from_op[row])));
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const double block_value = Reduce(storage).Reduce(value, Larger{});
  __syncthreads();
  const double block_difference = Reduce(storage).Reduce(difference, Larger{});
  if (threadIdx.x == 0) {
    atomicMax(&largest[0], static_cast<unsigned long long>(__double_as_longlong(block_value)));
    atomicMax(&largest[1], static_cast<unsigned long long>(__double_as_longlong(block_difference)));
  }
}

// Whether from_a equals from_op on the free rows within
// detail::kDescribesTolerance of from_a's largest.
template <typename T>
bool rows_match(const detail::DeviceKronecker<T>& op, const T* from_a, const T* from_op) {
  const auto rows = static_cast<std::int64_t>(op.nodes());
  DeviceArray<unsigned long long> largest(2);
  largest.fill_zero();
  TRELLIS_LAUNCH(compare_rows<T>, blocks_for(rows), kThreads, 0, nullptr, op.view(), rows, from_a, from_op,
                 largest.data());
  unsigned long long bits[2] = {0, 0};
  device::copy_to_host(bits, largest.data(), sizeof(bits), nullptr);
  device::synchronize(nullptr);
  double values[2];
  std::memcpy(values, bits, sizeof(values));
  return values[1] <= detail::kDescribesTolerance<T> * values[0];
}

}  // namespace

template <typename T>
void kronecker_apply(const detail::DeviceKronecker<T>& a, const T* x, T* y, Stream stream) {
  launch_apply<T>(a, x, StoreResidual<T>{nullptr, y}, stream);
}

// The tiles, or a thread a row where the level has one stencil for its free
// rows and x is zero on its constrained nodes (the tiles are bound by issue).
template <typename T, typename Out>
void launch_rows(const detail::DeviceKronecker<T>& a, bool zero_on_constrained, const T* x, const Out& out,
                 Stream stream) {
  if (zero_on_constrained && a.uniform()) {
    const auto rows = static_cast<std::int64_t>(a.nodes());
    TRELLIS_LAUNCH((uniform_rows<T, Out>), blocks_for(rows), kThreads, 0, stream, a.view(), *a.uniform(), rows, x, out);
    return;
  }
  launch_apply<T>(a, x, out, stream);
}

template <typename T>
void kronecker_residual(const detail::DeviceKronecker<T>& a, const T* b, const T* x, bool zero_on_constrained, T* r,
                        Stream stream) {
  launch_rows<T>(a, zero_on_constrained, x, StoreResidual<T>{b, r}, stream);
}

template <typename T>
void kronecker_smoothing_step(const detail::DeviceKronecker<T>& a, const T* b, const T* x, bool zero_on_constrained,
                              T alpha, T beta, const T* inverse_diagonal, T* d, T* x_next, Stream stream) {
  launch_rows<T>(a, zero_on_constrained, x, SmoothingStep<T>{b, alpha, beta, inverse_diagonal, d, x_next}, stream);
}

template <typename T>
std::int64_t kronecker_lanczos_product(const detail::DeviceKronecker<T>& a, const T* scaled, const T* scale,
                                       const double* beta_at, const T* q_previous, const T* q, T* w, double* partials,
                                       std::int64_t capacity, Stream stream) {
  const LanczosProduct<T> out{scale, beta_at, q_previous, q, w, partials};
  if (a.uniform()) {
    const auto rows = static_cast<std::int64_t>(a.nodes());
    const unsigned blocks = blocks_for(rows);
    if (blocks > capacity) return 0;
    TRELLIS_LAUNCH(uniform_lanczos_product<T>, blocks, kThreads, 0, stream, a.view(), *a.uniform(), rows, scaled, out);
    return blocks;
  }
  const std::int64_t blocks = tile_blocks(a.view());
  if (blocks > capacity) return 0;
  launch_apply<T>(a, scaled, out, stream);
  return blocks;
}

template <typename T>
void kronecker_inverse_diagonal(const detail::DeviceKronecker<T>& a, T* inverse_diagonal, int* bad_row) {
  TRELLIS_LAUNCH(inverse_diagonal_rows<T>, blocks_for(a.nodes()), kThreads, 0, nullptr, a.view(),
                 static_cast<std::int64_t>(a.nodes()), inverse_diagonal, bad_row);
}

// op applied once to the probe zero on the constrained nodes; a to the
// probe everywhere (free rows that reach no constrained node match), and
// only if that differs, to the probe zero there too (the free block).
template <typename T>
KroneckerMatch kronecker_describes(const detail::DeviceKronecker<T>& op, const CsrView<T>& a) {
  if (a.rows != op.nodes() || a.cols != op.nodes()) return KroneckerMatch::none;
  const auto n = static_cast<std::size_t>(op.nodes());
  const auto rows = static_cast<std::int64_t>(op.nodes());
  DeviceArray<T> x(n), from_a(n), from_op(n);
  TRELLIS_LAUNCH(fill_probe<T>, blocks_for(rows), kThreads, 0, nullptr, op.view(), rows, false, x.data());
  kronecker_apply<T>(op, x.data(), from_op.data(), nullptr);
  for (const bool everywhere : {true, false}) {
    TRELLIS_LAUNCH(fill_probe<T>, blocks_for(rows), kThreads, 0, nullptr, op.view(), rows, everywhere, x.data());
    spmv(T(1), a, x.data(), T(0), from_a.data(), nullptr);
    if (rows_match<T>(op, from_a.data(), from_op.data())) {
      return everywhere ? KroneckerMatch::free_rows : KroneckerMatch::free_block;
    }
  }
  return KroneckerMatch::none;
}

TRELLIS_GRID_KRONECKER(float)
TRELLIS_GRID_KRONECKER(double)

}  // namespace trellis::grid::cuda
