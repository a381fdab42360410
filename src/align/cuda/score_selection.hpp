// Picking on the device the subjects whose scores can rank among a query's
// best, so that only those leave it: the scores are counted into bins, the
// host reads the bins and finds the lowest bin that still holds one of the
// best, and the subjects from that bin up are gathered. Plain C++, so the
// engine's host code needs no CUDA compiler.
#pragma once

#include <cstdint>

#include "trellis/core/stream.hpp"

namespace trellis::align::cuda::detail {

// Score s falls in bin s; every score from kScoreBins - 1 up, and a score
// the 16-bit lanes could not certify (kOverflow, whose exact score is at
// least 32767 less the matrix's largest score), in the last bin. Scores of
// zero are never reported and fall in none.
inline constexpr int kScoreBins = 4096;

struct ScoredSlot {
  std::int32_t subject;
  std::int32_t score;
};

// bins[b] += the number of scores[0, count) in bin b (kScoreBins counters).
void count_scores(const std::int32_t* scores, std::int32_t count, std::uint32_t* bins, Stream stream);

// Writes (s, scores[s]) for every s whose score falls in first_bin or above,
// at out[*next++] (the order is the device's; *next starts at zero).
void gather_scores(const std::int32_t* scores, std::int32_t count, int first_bin, std::uint32_t* next,
                   ScoredSlot* out, Stream stream);

}  // namespace trellis::align::cuda::detail
