#include "best_subjects.hpp"

#include <algorithm>

namespace trellis::align {

namespace {

bool better(const ScoredSubject& a, const ScoredSubject& b) {
  return a.score != b.score ? a.score > b.score : a.subject < b.subject;
}

}  // namespace

std::vector<ScoredSubject> best_subjects(std::span<const std::int32_t> scores, std::size_t keep) {
  // One pass keeping the best `keep` in a heap whose top is the worst kept:
  // a database of millions costs a comparison a subject, not a sort.
  std::vector<ScoredSubject> kept;
  if (keep == 0) return kept;
  kept.reserve(std::min(keep, scores.size()));
  for (std::size_t s = 0; s < scores.size(); ++s) {
    if (scores[s] <= 0) continue;
    const ScoredSubject candidate{s, scores[s]};
    if (kept.size() < keep) {
      kept.push_back(candidate);
      std::push_heap(kept.begin(), kept.end(), better);
    } else if (better(candidate, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), better);
      kept.back() = candidate;
      std::push_heap(kept.begin(), kept.end(), better);
    }
  }
  std::sort_heap(kept.begin(), kept.end(), better);
  return kept;
}

std::vector<ScoredSubject> best_subjects(std::vector<ScoredSubject> candidates, std::size_t keep) {
  std::erase_if(candidates, [](const ScoredSubject& c) { return c.score <= 0; });
  const auto kept = candidates.begin() + static_cast<std::ptrdiff_t>(std::min(keep, candidates.size()));
  std::partial_sort(candidates.begin(), kept, candidates.end(), better);
  candidates.erase(kept, candidates.end());
  return candidates;
}

}  // namespace trellis::align
