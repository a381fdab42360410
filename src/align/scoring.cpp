#include "trellis/align/scoring.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "builtin_matrices.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

std::string upper_case(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

}  // namespace

ScoringMatrix::ScoringMatrix(std::string name, const Scores& scores, bool builtin)
    : name_(std::move(name)),
      scores_(scores),
      builtin_(builtin),
      max_score_(*std::max_element(scores.begin(), scores.end())),
      min_score_(*std::min_element(scores.begin(), scores.end())) {}

std::span<const std::string_view> builtin_matrix_names() noexcept { return matrices_detail::names(); }

ScoringMatrix builtin_matrix(std::string_view name) {
  const std::string canonical = upper_case(name);
  if (auto scores = matrices_detail::find(canonical)) return ScoringMatrix(canonical, *scores, true);
  throw UsageError(fmt::format("unknown scoring matrix '{}': the built-in matrices are {}", name,
                               fmt::join(builtin_matrix_names(), ", ")));
}

void validate(const GapPenalties& gaps) {
  for (const auto& [what, value] : {std::pair{"gap open", gaps.open}, std::pair{"gap extend", gaps.extend}}) {
    if (value < 0) {
      throw UsageError(
          fmt::format("{} penalty {} is negative: penalties are costs, given as non-negative "
                      "numbers (a gap of length k costs open + k * extend)",
                      what, value));
    }
    if (value > kMaxGapPenalty) {
      throw UsageError(fmt::format("{} penalty {} is too large (at most {})", what, value, kMaxGapPenalty));
    }
  }
}

GapPenalties default_gap_penalties(std::string_view matrix_name) noexcept {
  // BLAST's preferred pair for each matrix (BLAST_MATRIX_BEST in blast_stat.c).
  const std::string canonical = upper_case(matrix_name);
  if (canonical == "BLOSUM45") return {14, 2};
  if (canonical == "BLOSUM50") return {13, 2};
  if (canonical == "BLOSUM80") return {10, 1};
  if (canonical == "PAM30") return {9, 1};
  if (canonical == "PAM70") return {10, 1};
  if (canonical == "PAM250") return {14, 2};
  return {11, 1};
}

Scoring::Scoring(ScoringMatrix matrix_in, GapPenalties gaps_in) : matrix(std::move(matrix_in)), gaps(gaps_in) {
  validate(gaps);
}

}  // namespace trellis::align
