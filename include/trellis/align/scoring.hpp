// Substitution matrices and affine gap penalties.
//
// Gap convention (BLAST's): a gap of length k costs open + k * extend, so
// with BLOSUM62 11/1 a one-residue gap costs 12. Tools that charge `open`
// alone for the first gap position (parasail, SSW, Biopython's open score)
// take open + extend as their open penalty: trellis 11/1 is parasail 12/1.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "trellis/align/sequence.hpp"

namespace trellis::align {

// Scores in matrix files must lie in this range, so that 32-bit alignment
// scores are safe for sequences of millions of residues.
inline constexpr std::int32_t kMaxMatrixMagnitude = 1000;

// A square matrix over the 24-letter alphabet of sequence.hpp, row = query
// residue, column = subject residue (matrix files need not be symmetric).
class ScoringMatrix {
 public:
  // Scores row by row: entry query * kAlphabetSize + subject.
  using Scores = std::array<std::int32_t, kAlphabetSize * kAlphabetSize>;

  // A matrix called name; builtin marks the published matrices.
  ScoringMatrix(std::string name, const Scores& scores, bool builtin);

  // The matrix's name (the built-in name or the file's).
  const std::string& name() const noexcept { return name_; }
  // Built-in matrices are the ones published statistics exist for.
  bool is_builtin() const noexcept { return builtin_; }

  // The score of a query residue against a subject residue.
  std::int32_t score(Residue query, Residue subject) const noexcept {
    return scores_[static_cast<std::size_t>(query) * kAlphabetSize + subject];
  }
  // The scores of a query residue against every subject residue.
  std::span<const std::int32_t> row(Residue query) const noexcept {
    return std::span<const std::int32_t>(scores_).subspan(static_cast<std::size_t>(query) * kAlphabetSize,
                                                          kAlphabetSize);
  }
  // All scores, row by row.
  const Scores& scores() const noexcept { return scores_; }
  // The largest entry.
  std::int32_t max_score() const noexcept { return max_score_; }
  // The smallest entry.
  std::int32_t min_score() const noexcept { return min_score_; }

 private:
  std::string name_;
  Scores scores_;
  bool builtin_;
  std::int32_t max_score_;
  std::int32_t min_score_;
};

// BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM30, PAM70, PAM250.
std::span<const std::string_view> builtin_matrix_names() noexcept;

// A built-in matrix by name in any letter case; throws UsageError listing
// the names otherwise.
ScoringMatrix builtin_matrix(std::string_view name);

// An NCBI-format matrix file: '#' comments, a header row of letters, then
// one row per letter starting with that letter. Rows and columns may come in
// any order; every letter of the 24-letter alphabet must have a row and a
// column; J, U and O may appear and are ignored (sequence.hpp maps them onto
// X). Entries are integers within +-kMaxMatrixMagnitude. Throws InputError
// with the file and line for ragged rows, non-integers, unknown, missing or
// duplicate letters. The matrix is named after the file.
ScoringMatrix read_matrix_file(const std::filesystem::path& path);
// read_matrix_file() on text in memory; `name` names the matrix and the input in messages.
ScoringMatrix parse_matrix(std::string_view text, const std::string& name);

// Penalties as positive costs in BLAST's convention (see above).
struct GapPenalties {
  std::int32_t open = 11;   // cost of opening a gap (charged once per gap)
  std::int32_t extend = 1;  // cost per gap position
  // Equal when both penalties are equal.
  friend bool operator==(const GapPenalties&, const GapPenalties&) = default;
};

// Largest penalty accepted: keeps every intermediate score within 32 bits.
inline constexpr std::int32_t kMaxGapPenalty = 1'000'000;

// Throws UsageError for a negative penalty or one above kMaxGapPenalty.
void validate(const GapPenalties& gaps);

// BLAST's default penalties for a built-in matrix (BLOSUM62 11/1, BLOSUM45
// 14/2, BLOSUM50 13/2, BLOSUM80 10/1, PAM30 9/1, PAM70 10/1, PAM250 14/2);
// 11/1 for any other name.
GapPenalties default_gap_penalties(std::string_view matrix_name) noexcept;

// A matrix and gap penalties checked together.
struct Scoring {
  Scoring(ScoringMatrix matrix_in, GapPenalties gaps_in);  // validates the gaps
  ScoringMatrix matrix;                                    // the substitution matrix
  GapPenalties gaps;                                       // the gap penalties, validated
};

}  // namespace trellis::align
