// The device side of score_selection.hpp.
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

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

__global__ void __launch_bounds__(kThreads)
    count_scores_kernel(const std::int32_t* scores, std::int32_t count, std::uint32_t* bins) {
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

// One block: thread t holds the bins kScoreBins - 1 - 4t down to
// kScoreBins - 4 - 4t, and a scan of the threads' totals gives the count
// above each thread's bins.
constexpr int kSelectThreads = kScoreBins / 4;

__global__ void __launch_bounds__(kSelectThreads)
    select_bins_kernel(const std::uint32_t* bins, std::uint32_t keep, Selected* selected) {
  using Scan = cub::BlockScan<std::uint32_t, kSelectThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  const int t = static_cast<int>(threadIdx.x);
  std::uint32_t own[4];
  std::uint32_t total = 0;
  for (int k = 0; k < 4; ++k) {
    own[k] = bins[kScoreBins - 1 - (4 * t + k)];
    total += own[k];
  }
  std::uint32_t above = 0;
  std::uint32_t everything = 0;
  Scan(scan_storage).ExclusiveSum(total, above, everything);
  if (everything < keep) {  // every subject above zero
    if (t == 0) *selected = {1, everything, 0};
    return;
  }
  // The one bin where the count from the top first reaches keep.
  std::uint32_t reached = above;
  for (int k = 0; k < 4; ++k) {
    if (reached < keep && reached + own[k] >= keep) {
      *selected = {static_cast<std::uint32_t>(kScoreBins - 1 - (4 * t + k)), reached + own[k], 0};
    }
    reached += own[k];
  }
}

__global__ void __launch_bounds__(kThreads)
    gather_scores_kernel(const std::int32_t* scores, std::int32_t count, Selected* selected, ScoredSlot* out) {
  const int first_bin = static_cast<int>(selected->first_bin);
  const auto stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t s = blockIdx.x * kThreads + threadIdx.x; s < count; s += stride) {
    const std::int32_t score = scores[s];
    if (score != 0 && bin_of(score) >= first_bin) {
      out[atomicAdd(&selected->next, 1u)] = {static_cast<std::int32_t>(s), score};
    }
  }
}

}  // namespace

void count_scores(const std::int32_t* scores, std::int32_t count, std::uint32_t* bins, Stream stream) {
  if (count <= 0) return;
  TRELLIS_LAUNCH(count_scores_kernel, blocks_for(count), kThreads, 0, stream, scores, count, bins);
}

void select_bins(const std::uint32_t* bins, std::uint32_t keep, Selected* selected, Stream stream) {
  TRELLIS_LAUNCH(select_bins_kernel, 1, kSelectThreads, 0, stream, bins, keep, selected);
}

void gather_scores(const std::int32_t* scores, std::int32_t count, Selected* selected, ScoredSlot* out, Stream stream) {
  if (count <= 0) return;
  TRELLIS_LAUNCH(gather_scores_kernel, blocks_for(count), kThreads, 0, stream, scores, count, selected, out);
}

}  // namespace trellis::align::cuda::detail
