// CSR SpMM on the GPU: Y = alpha * A * X + beta * Y for up to kMaxTile
// right-hand sides per pass, reading each matrix entry once for all of them.
//
// A group of `group_lanes` lanes (1 to 32, a power of two chosen from the
// mean row length) takes one row at a time. Each lane walks the row's entries
// with stride group_lanes and keeps one running sum per right-hand side in
// registers (the tile width is a template parameter, so the sums array is
// fully unrolled), then the group adds its lanes' sums with an xor butterfly,
// after which every lane holds the same totals and lane j % group_lanes
// writes column j. Across a warp the groups take consecutive rows, so for a
// stencil the x reads of one right-hand side are nearly contiguous.
//
// With one lane per row (short rows, the finite-difference case) each sum
// adds the row's products in storage order with the reference's rounding (no
// fused multiply-add), so results match the reference bitwise; wider groups
// add partial sums in a fixed tree order, equal within rounding and the same
// on every run.
//
// Heavy rows (more than kHeavyRowEntries entries, listed by DeviceCsr) are
// skipped by the groups and given a whole block each.
//
// More than kMaxTile right-hand sides run as several passes over column tiles.
#include <cstdint>

#include "../kernels.hpp"
#include "rounding.cuh"
#include "trellis/core/cuda_check.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpSize = 32;
constexpr int kWarps = kThreads / kWarpSize;
constexpr std::int32_t kMaxTile = 32;
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;

// y = alpha * sum + beta * y, rounded like the reference; y unread when beta is 0.
template <typename T>
__device__ __forceinline__ void finish(T alpha, T sum, T beta, T* out) {
  *out = beta == T(0) ? mul_rn(alpha, sum) : add_rn(mul_rn(alpha, sum), mul_rn(beta, *out));
}

template <typename T>
__device__ __forceinline__ bool is_heavy(const CsrView<T>& a, RowOffset length) {
  return a.heavy_row_count > 0 && length > kHeavyRowEntries;
}

// x and y point at the tile's first column; width <= kTile columns are live.
template <typename T, int kTile>
__global__ void __launch_bounds__(kThreads)
    spmm_lane_groups(CsrView<T> a, T alpha, const T* __restrict__ x, std::int32_t width, T beta, T* __restrict__ y,
                     int group_lanes) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int lane_in_group = lane & (group_lanes - 1);
  const unsigned group_mask =
      group_lanes == kWarpSize ? 0xffffffffu : ((1u << group_lanes) - 1u) << (lane - lane_in_group);
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const std::int64_t groups = static_cast<std::int64_t>(gridDim.x) * kThreads / group_lanes;
  const auto cols = static_cast<std::size_t>(a.cols);
  const auto rows = static_cast<std::size_t>(a.rows);

  // The row, and so every branch below, is the same for all lanes of a group.
  for (std::int64_t r = thread / group_lanes; r < a.rows; r += groups) {
    const RowOffset begin = a.row_offsets[r];
    const RowOffset end = a.row_offsets[r + 1];
    if (is_heavy(a, end - begin)) continue;
    T sums[kTile];
#pragma unroll
    for (int j = 0; j < kTile; ++j) sums[j] = 0;
    for (RowOffset k = begin + lane_in_group; k < end; k += group_lanes) {
      const T value = __ldg(&a.values[k]);
      const T* x_entry = x + __ldg(&a.col_indices[k]);
#pragma unroll
      for (int j = 0; j < kTile; ++j) {
        if (j < width) sums[j] = add_rn(sums[j], mul_rn(value, __ldg(x_entry + j * cols)));
      }
    }
    for (int offset = group_lanes / 2; offset > 0; offset /= 2) {
#pragma unroll
      for (int j = 0; j < kTile; ++j) {
        if (j < width) sums[j] = add_rn(sums[j], __shfl_xor_sync(group_mask, sums[j], offset));
      }
    }
#pragma unroll
    for (int j = 0; j < kTile; ++j) {
      if (j < width && j % group_lanes == lane_in_group) finish(alpha, sums[j], beta, &y[j * rows + r]);
    }
  }
}

// One block per heavy row: each thread sums its strided share of the entries
// for every column, then warps and finally the block add them in fixed order.
template <typename T, int kTile>
__global__ void __launch_bounds__(kThreads)
    spmm_heavy_rows(CsrView<T> a, T alpha, const T* __restrict__ x, std::int32_t width, T beta, T* __restrict__ y) {
  __shared__ T warp_sums[kWarps][kTile];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const auto cols = static_cast<std::size_t>(a.cols);
  const auto rows = static_cast<std::size_t>(a.rows);
  for (std::int32_t h = blockIdx.x; h < a.heavy_row_count; h += gridDim.x) {
    const std::int32_t row = a.heavy_rows[h];
    T sums[kTile];
#pragma unroll
    for (int j = 0; j < kTile; ++j) sums[j] = 0;
    for (RowOffset k = a.row_offsets[row] + threadIdx.x; k < a.row_offsets[row + 1]; k += kThreads) {
      const T value = __ldg(&a.values[k]);
      const T* x_entry = x + __ldg(&a.col_indices[k]);
#pragma unroll
      for (int j = 0; j < kTile; ++j) {
        if (j < width) sums[j] = add_rn(sums[j], mul_rn(value, __ldg(x_entry + j * cols)));
      }
    }
#pragma unroll
    for (int j = 0; j < kTile; ++j) {
      if (j < width) {
        for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
          sums[j] = add_rn(sums[j], __shfl_down_sync(0xffffffffu, sums[j], offset));
        }
        if (lane == 0) warp_sums[warp][j] = sums[j];
      }
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < width) {
      T total = 0;
      for (int w = 0; w < kWarps; ++w) total = add_rn(total, warp_sums[w][threadIdx.x]);
      finish(alpha, total, beta, &y[threadIdx.x * rows + row]);
    }
    __syncthreads();  // warp_sums is reused by the next row
  }
}

// Lanes per row: enough that each lane has about eight entries or fewer.
int group_lanes_for(double mean_row_length) {
  int lanes = 1;
  while (lanes < kWarpSize && mean_row_length > 8.0 * lanes) lanes *= 2;
  return lanes;
}

template <typename T, int kTile>
void spmm_tile(T alpha, const CsrView<T>& a, const T* x, std::int32_t width, T beta, T* y, Stream stream) {
  const int lanes = group_lanes_for(static_cast<double>(a.nnz) / a.rows);
  const std::int64_t needed = (static_cast<std::int64_t>(a.rows) * lanes + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(needed < kMaxBlocks ? needed : kMaxBlocks);
  TRELLIS_LAUNCH((spmm_lane_groups<T, kTile>), blocks, kThreads, 0, stream, a, alpha, x, width, beta, y, lanes);
  if (a.heavy_row_count > 0) {
    const auto heavy_blocks = static_cast<unsigned>(a.heavy_row_count < 1024 ? a.heavy_row_count : 1024);
    TRELLIS_LAUNCH((spmm_heavy_rows<T, kTile>), heavy_blocks, kThreads, 0, stream, a, alpha, x, width, beta, y);
  }
}

template <typename T>
void spmm_any(T alpha, const CsrView<T>& a, const T* x, std::int32_t right_hand_sides, T beta, T* y, Stream stream) {
  if (a.rows == 0) return;
  for (std::int32_t first = 0; first < right_hand_sides; first += kMaxTile) {
    const std::int32_t width = right_hand_sides - first < kMaxTile ? right_hand_sides - first : kMaxTile;
    const T* x_tile = x + static_cast<std::size_t>(first) * static_cast<std::size_t>(a.cols);
    T* y_tile = y + static_cast<std::size_t>(first) * static_cast<std::size_t>(a.rows);
    // The narrowest tile that holds the columns keeps registers for occupancy.
    if (width <= 1)
      spmm_tile<T, 1>(alpha, a, x_tile, width, beta, y_tile, stream);
    else if (width <= 2)
      spmm_tile<T, 2>(alpha, a, x_tile, width, beta, y_tile, stream);
    else if (width <= 4)
      spmm_tile<T, 4>(alpha, a, x_tile, width, beta, y_tile, stream);
    else if (width <= 8)
      spmm_tile<T, 8>(alpha, a, x_tile, width, beta, y_tile, stream);
    else if (width <= 16)
      spmm_tile<T, 16>(alpha, a, x_tile, width, beta, y_tile, stream);
    else
      spmm_tile<T, kMaxTile>(alpha, a, x_tile, width, beta, y_tile, stream);
  }
}

}  // namespace

void spmm(float alpha, const CsrView<float>& a, const float* x, std::int32_t right_hand_sides, float beta, float* y,
          Stream stream) {
  spmm_any(alpha, a, x, right_hand_sides, beta, y, stream);
}
void spmm(double alpha, const CsrView<double>& a, const double* x, std::int32_t right_hand_sides, double beta,
          double* y, Stream stream) {
  spmm_any(alpha, a, x, right_hand_sides, beta, y, stream);
}

}  // namespace trellis::grid::cuda
