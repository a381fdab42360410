// The device side of score_selection.hpp.
#include <cuda_runtime.h>

#include "score_selection.hpp"
#include "sw_launch.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::align::cuda::detail {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill an H200 several times over; each walks the scores
// at the grid's stride, so a block's shared bins are merged once.
constexpr unsigned kMaxBlocks = 1024;

__device__ __forceinline__ int bin_of(std::int32_t score) {
  return score == kOverflow || score >= kScoreBins - 1 ? kScoreBins - 1 : score;
}

unsigned blocks_for(std::int32_t count) {
  const unsigned needed = (static_cast<unsigned>(count) + kThreads - 1) / kThreads;
  return needed < kMaxBlocks ? needed : kMaxBlocks;
}

__global__ void __launch_bounds__(kThreads) count_scores_kernel(const std::int32_t* scores, std::int32_t count,
                                                                 std::uint32_t* bins) {
  __shared__ std::uint32_t block_bins[kScoreBins];
  for (int b = static_cast<int>(threadIdx.x); b < kScoreBins; b += kThreads) block_bins[b] = 0;
  __syncthreads();
  const auto stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t s = blockIdx.x * kThreads + threadIdx.x; s < count; s += stride) {
    const std::int32_t score = scores[s];
    if (score != 0) atomicAdd(&block_bins[bin_of(score)], 1u);
  }
  __syncthreads();
  for (int b = static_cast<int>(threadIdx.x); b < kScoreBins; b += kThreads) {
    if (block_bins[b] != 0) atomicAdd(&bins[b], block_bins[b]);
  }
}

__global__ void __launch_bounds__(kThreads) gather_scores_kernel(const std::int32_t* scores, std::int32_t count,
                                                                  int first_bin, std::uint32_t* next,
                                                                  ScoredSlot* out) {
  const auto stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t s = blockIdx.x * kThreads + threadIdx.x; s < count; s += stride) {
    const std::int32_t score = scores[s];
    if (score != 0 && bin_of(score) >= first_bin) out[atomicAdd(next, 1u)] = {static_cast<std::int32_t>(s), score};
  }
}

}  // namespace

void count_scores(const std::int32_t* scores, std::int32_t count, std::uint32_t* bins, Stream stream) {
  if (count <= 0) return;
  TRELLIS_LAUNCH(count_scores_kernel, blocks_for(count), kThreads, 0, stream, scores, count, bins);
}

void gather_scores(const std::int32_t* scores, std::int32_t count, int first_bin, std::uint32_t* next,
                   ScoredSlot* out, Stream stream) {
  if (count <= 0) return;
  TRELLIS_LAUNCH(gather_scores_kernel, blocks_for(count), kThreads, 0, stream, scores, count, first_bin, next, out);
}

}  // namespace trellis::align::cuda::detail
