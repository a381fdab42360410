// Ranking subjects by score, as a search reports them: scores above zero
// only, best first, ties by subject index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "trellis/align/alignment.hpp"

namespace trellis::align {

// The best `keep` of every subject's score (scores[s] is subject s's).
std::vector<ScoredSubject> best_subjects(std::span<const std::int32_t> scores, std::size_t keep);

// The best `keep` of some subjects' scores, in any order.
std::vector<ScoredSubject> best_subjects(std::vector<ScoredSubject> candidates, std::size_t keep);

}  // namespace trellis::align
