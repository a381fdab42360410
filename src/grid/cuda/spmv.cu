// CSR SpMV on the GPU.
//
// Rows are handed to groups of LANES consecutive threads, LANES the power of
// two nearest above the mean row length (8 for a 7-point stencil), so one
// warp reads several short rows with coalesced loads instead of idling 25 of
// 32 lanes on one row. Rows longer than kHeavyRowEntries are skipped there and
// given a whole block each by a second kernel, so one huge row does not
// serialise on a few lanes. Summation order is fixed, so results are the same
// on every run (not bitwise the reference's: lanes sum partial sums).
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "../kernels.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreadsPerBlock = 256;

template <typename T>
__device__ __forceinline__ T finish_row(T alpha, T sum, T beta, const T* y, std::int32_t row) {
  return beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

template <typename T, int LANES>
__global__ void __launch_bounds__(kThreadsPerBlock)
    spmv_lane_groups(CsrView<T> a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row64 = thread / LANES;
  const int lane = static_cast<int>(thread % LANES);
  // Whole warps stay in the loop so the shuffles below see every lane.
  const bool active = row64 < a.rows;
  const std::int32_t row = active ? static_cast<std::int32_t>(row64) : 0;
  RowOffset begin = 0;
  RowOffset end = 0;
  if (active) {
    begin = a.row_offsets[row];
    end = a.row_offsets[row + 1];
  }
  const bool heavy = a.heavy_row_count > 0 && end - begin > kHeavyRowEntries;
  T sum = 0;
  if (active && !heavy) {
    for (RowOffset k = begin + lane; k < end; k += LANES) sum += a.values[k] * __ldg(&x[a.col_indices[k]]);
  }
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, LANES);
  if (active && !heavy && lane == 0) y[row] = finish_row(alpha, sum, beta, y, row);
}

template <typename T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    spmv_heavy_rows(CsrView<T> a, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  using BlockReduce = cub::BlockReduce<T, kThreadsPerBlock>;
  __shared__ typename BlockReduce::TempStorage scratch;
  for (std::int32_t h = blockIdx.x; h < a.heavy_row_count; h += gridDim.x) {
    const std::int32_t row = a.heavy_rows[h];
    T sum = 0;
    for (RowOffset k = a.row_offsets[row] + threadIdx.x; k < a.row_offsets[row + 1]; k += kThreadsPerBlock) {
      sum += a.values[k] * __ldg(&x[a.col_indices[k]]);
    }
    T total = BlockReduce(scratch).Sum(sum);
    if (threadIdx.x == 0) y[row] = finish_row(alpha, total, beta, y, row);
    __syncthreads();  // scratch is reused by the next row
  }
}

template <typename T, int LANES>
void launch_lane_groups(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream) {
  const std::int64_t threads = static_cast<std::int64_t>(a.rows) * LANES;
  const auto blocks = static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
  TRELLIS_LAUNCH((spmv_lane_groups<T, LANES>), blocks, kThreadsPerBlock, 0, stream, a, alpha, x, beta, y);
}

template <typename T>
void spmv_any(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream) {
  if (a.rows == 0) return;
  const double mean = static_cast<double>(a.nnz) / a.rows;
  if (mean <= 1.0) launch_lane_groups<T, 1>(alpha, a, x, beta, y, stream);
  else if (mean <= 2.0) launch_lane_groups<T, 2>(alpha, a, x, beta, y, stream);
  else if (mean <= 4.0) launch_lane_groups<T, 4>(alpha, a, x, beta, y, stream);
  else if (mean <= 8.0) launch_lane_groups<T, 8>(alpha, a, x, beta, y, stream);
  else if (mean <= 16.0) launch_lane_groups<T, 16>(alpha, a, x, beta, y, stream);
  else launch_lane_groups<T, 32>(alpha, a, x, beta, y, stream);
  if (a.heavy_row_count > 0) {
    const auto blocks = static_cast<unsigned>(a.heavy_row_count < 1024 ? a.heavy_row_count : 1024);
    TRELLIS_LAUNCH(spmv_heavy_rows<T>, blocks, kThreadsPerBlock, 0, stream, a, alpha, x, beta, y);
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
