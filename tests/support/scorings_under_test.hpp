// Scorings the align engines are tested under: built-in matrices with
// BLAST's and unusual gap pairs (zero, huge), a matrix too wide for 8-bit
// lanes, and an asymmetric one with no negative entries.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "trellis/align/scoring.hpp"

namespace trellis::testing {

// A matrix whose range does not fit the 8-bit lanes (they are skipped).
inline align::ScoringMatrix wide_matrix() {
  std::mt19937 random(77);
  align::ScoringMatrix::Scores scores{};
  for (auto& s : scores) s = static_cast<std::int32_t>(random() % 301) - 200;
  for (int r = 0; r < align::kAlphabetSize; ++r)
    scores[static_cast<std::size_t>(r) * static_cast<std::size_t>(align::kAlphabetSize + 1)] = 300;
  return align::ScoringMatrix("wide", scores, false);
}

// An asymmetric matrix with no negative entries (bias 0).
inline align::ScoringMatrix positive_asymmetric_matrix() {
  std::mt19937 random(78);
  align::ScoringMatrix::Scores scores{};
  for (auto& s : scores) s = static_cast<std::int32_t>(random() % 6);
  return align::ScoringMatrix("positive", scores, false);
}

inline std::vector<align::Scoring> scorings_under_test() {
  using align::builtin_matrix;
  using align::Scoring;
  return {
      Scoring(builtin_matrix("BLOSUM62"), {11, 1}),
      Scoring(builtin_matrix("BLOSUM45"), {14, 2}),
      Scoring(builtin_matrix("PAM30"), {9, 1}),
      Scoring(builtin_matrix("BLOSUM80"), {10, 0}),
      Scoring(builtin_matrix("PAM250"), {0, 0}),
      Scoring(builtin_matrix("BLOSUM50"), {0, 3}),
      Scoring(builtin_matrix("BLOSUM62"), {1000, 1}),
      Scoring(builtin_matrix("PAM70"), {1'000'000, 1'000'000}),
      Scoring(wide_matrix(), {40, 7}),
      Scoring(positive_asymmetric_matrix(), {3, 1}),
  };
}

}  // namespace trellis::testing
