// What the align engine tests share: relatives that push scores past 8 and
// 16 bits with gaps of both kinds, and the reference's scores to compare with.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "align/kernels.hpp"
#include "support/random_proteins.hpp"

namespace trellis::testing {

// Relatives gain and lose residues and change many, so that scores climb
// past 8 bits and alignments hold gaps of both kinds.
inline std::string engine_relative_of(std::mt19937& random, const std::string& source) {
  return relative_of(random, source, MutationRates{3, 6, 20, 8});
}

inline std::vector<std::int32_t> reference_scores(std::span<const align::Residue> query,
                                                  const align::SequenceSet& subjects, const align::Scoring& scoring) {
  std::vector<std::int32_t> scores(subjects.size());
  align::reference::sw_scores(query, subjects, scoring, scores);
  return scores;
}

}  // namespace trellis::testing
