// CSR SpMV on the GPU.
//
// Short rows (mean length up to 32, the finite-difference case): each block
// takes 256 consecutive rows. Its threads first stage all products
// values[k] * x[col[k]] of those rows in shared memory with coalesced loads,
// then thread r sums row r's products in storage order. Products and sums are
// rounded exactly as the reference rounds them (no fused multiply-add), so
// these rows match the reference bitwise. Blocks whose rows hold more than
// kMaxStagedEntries entries fall back to one warp per row.
//
// Long rows (mean above 32): one warp per row.
//
// Heavy rows (more than kHeavyRowEntries entries, listed by DeviceCsr) are
// skipped by both and given a whole block each, so one huge row does not
// serialise on a few lanes. Summation order is fixed everywhere, so every
// run gives the same bits.
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "../kernels.hpp"
#include "rounding.cuh"
#include "trellis/core/cuda_check.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads;
constexpr int kStageCapacity = 2048;                   // products staged at once
constexpr int kMaxStagedEntries = 4 * kStageCapacity;  // more: warp per row instead
constexpr int kWarpSize = 32;

// y = alpha * sum + beta * y, rounded like the reference; y unread when beta is 0.
template <typename T>
__device__ __forceinline__ T finish_row(T alpha, T sum, T beta, const T* y, std::int32_t row) {
  return beta == T(0) ? mul_rn(alpha, sum) : add_rn(mul_rn(alpha, sum), mul_rn(beta, y[row]));
}

template <typename T>
__device__ __forceinline__ bool is_heavy(const CsrView<T>& a, RowOffset length) {
  return a.heavy_row_count > 0 && length > kHeavyRowEntries;
}

// Warp `warp` of `warps` sums rows first + warp, first + warp + warps, ...
template <typename T>
__device__ void warp_per_row(const CsrView<T>& a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y,
                             std::int64_t first, std::int64_t last, std::int64_t warp, std::int64_t warps) {
  const int lane = threadIdx.x % kWarpSize;
  for (std::int64_t r = first + warp; r < last; r += warps) {
    const auto row = static_cast<std::int32_t>(r);
    const RowOffset begin = a.row_offsets[row];
    const RowOffset end = a.row_offsets[row + 1];
    if (is_heavy(a, end - begin)) continue;  // uniform across the warp
    T sum = 0;
    for (RowOffset k = begin + lane; k < end; k += kWarpSize) sum += a.values[k] * __ldg(&x[a.col_indices[k]]);
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = finish_row(alpha, sum, beta, y, row);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    spmv_row_blocks(CsrView<T> a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  __shared__ RowOffset offsets[kRowsPerBlock + 1];
  __shared__ T products[kStageCapacity];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock;
  const int rows_here = static_cast<int>(min(static_cast<std::int64_t>(kRowsPerBlock), a.rows - first));
  for (int i = threadIdx.x; i <= rows_here; i += kThreads) offsets[i] = a.row_offsets[first + i];
  __syncthreads();
  const RowOffset begin = offsets[0];
  const RowOffset end = offsets[rows_here];
  if (end - begin > kMaxStagedEntries) {  // uniform across the block
    warp_per_row(a, alpha, x, beta, y, first, first + rows_here, threadIdx.x / kWarpSize, kThreads / kWarpSize);
    return;
  }

  const bool has_row = static_cast<int>(threadIdx.x) < rows_here;
  const RowOffset row_begin = has_row ? offsets[threadIdx.x] : 0;
  const RowOffset row_end = has_row ? offsets[threadIdx.x + 1] : 0;
  const bool sums = has_row && !is_heavy(a, row_end - row_begin);
  T sum = 0;
  for (RowOffset chunk = begin; chunk < end; chunk += kStageCapacity) {
    const RowOffset chunk_end = min(end, chunk + kStageCapacity);
#pragma unroll 4
    for (RowOffset k = chunk + threadIdx.x; k < chunk_end; k += kThreads) {
      products[k - chunk] = mul_rn(a.values[k], __ldg(&x[a.col_indices[k]]));
    }
    __syncthreads();
    if (sums) {
      const RowOffset lo = max(row_begin, chunk);
      const RowOffset hi = min(row_end, chunk_end);
      for (RowOffset k = lo; k < hi; ++k) sum = add_rn(sum, products[k - chunk]);
    }
    __syncthreads();  // products is overwritten by the next chunk
  }
  if (sums) y[first + threadIdx.x] = finish_row(alpha, sum, beta, y, static_cast<std::int32_t>(first + threadIdx.x));
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    spmv_warp_per_row(CsrView<T> a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const std::int64_t warps_per_block = kThreads / kWarpSize;
  const std::int64_t warp = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + threadIdx.x / kWarpSize;
  warp_per_row(a, alpha, x, beta, y, 0, a.rows, warp, static_cast<std::int64_t>(gridDim.x) * warps_per_block);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    spmv_heavy_rows(CsrView<T> a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  using BlockReduce = cub::BlockReduce<T, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  for (std::int32_t h = blockIdx.x; h < a.heavy_row_count; h += gridDim.x) {
    const std::int32_t row = a.heavy_rows[h];
    T sum = 0;
    for (RowOffset k = a.row_offsets[row] + threadIdx.x; k < a.row_offsets[row + 1]; k += kThreads) {
      sum += a.values[k] * __ldg(&x[a.col_indices[k]]);
    }
    T total = BlockReduce(scratch).Sum(sum);
    if (threadIdx.x == 0) y[row] = finish_row(alpha, total, beta, y, row);
    __syncthreads();  // scratch is reused by the next row
  }
}

unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

template <typename T>
void spmv_any(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream) {
  if (a.rows == 0) return;
  const double mean = static_cast<double>(a.nnz) / a.rows;
  if (mean <= 32.0) {
    TRELLIS_LAUNCH(spmv_row_blocks<T>, blocks_for(a.rows, kRowsPerBlock), kThreads, 0, stream, a, alpha, x, beta, y);
  } else {
    const unsigned blocks = blocks_for(a.rows, kThreads / kWarpSize);
    TRELLIS_LAUNCH(spmv_warp_per_row<T>, blocks, kThreads, 0, stream, a, alpha, x, beta, y);
  }
  if (a.heavy_row_count > 0) {
    const auto blocks = static_cast<unsigned>(a.heavy_row_count < 1024 ? a.heavy_row_count : 1024);
    TRELLIS_LAUNCH(spmv_heavy_rows<T>, blocks, kThreads, 0, stream, a, alpha, x, beta, y);
  }
}

}  // namespace

void spmv(float alpha, const CsrView<float>& a, const float* x, float beta, float* y, Stream stream) {
  spmv_any(alpha, a, x, beta, y, stream);
}
void spmv(double alpha, const CsrView<double>& a, const double* x, double beta, double* y, Stream stream) {
  spmv_any(alpha, a, x, beta, y, stream);
}

}  // namespace trellis::grid::cuda
