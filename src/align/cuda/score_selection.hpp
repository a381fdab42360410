// Picking on the device the subjects whose scores can rank among a query's
// best, so that only those leave it: the scores are counted into bins, the
// lowest bin that still holds one of the best is found from the bins, and
// the subjects from that bin up are gathered. Every step runs on the
// query's stream with no wait on the host until the gathered subjects are
// copied back. Plain C++, so the engine's host code needs no CUDA compiler.
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

// What select_bins() leaves for gather_scores() and the host.
struct Selected {
  std::uint32_t first_bin;  // the subjects gathered are those from this bin up
  std::uint32_t count;      // how many there are
  std::uint32_t next;       // gather_scores()'s next free slot (zero before it)
};

// bins[b] += the number of scores[0, count) in bin b (kScoreBins counters).
void count_scores(const std::int32_t* scores, std::int32_t count, std::uint32_t* bins, Stream stream);

// The lowest bin whose bins from it up hold at least `keep` scores (bin 1,
// above zero, where all of them hold fewer), and their count, into
// *selected (next set to zero). keep >= 1.
void select_bins(const std::uint32_t* bins, std::uint32_t keep, Selected* selected, Stream stream);

// Writes (s, scores[s]) for every s whose score falls in selected->first_bin
// or above, at out[selected->next++] (the order is the device's); out has
// room for selected->count.
void gather_scores(const std::int32_t* scores, std::int32_t count, Selected* selected, ScoredSlot* out, Stream stream);

}  // namespace trellis::align::cuda::detail
