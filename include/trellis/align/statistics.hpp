// Bit scores and E-values of gapped local alignment scores, as NCBI BLAST+
// computes them for blastp without composition-based statistics.
//
// The parameters are the ones BLAST+ tabulates for each built-in matrix and
// gap pair (src/align/statistics.cpp cites the table); any other pair, and
// any matrix read from a file, has none: then a search either refuses to
// run or runs without E-values (search.hpp).
//
//   bit score   S' = (lambda S - ln K) / ln 2
//
// Two E-values, each what BLAST+ 2.12 prints in one of its modes:
//
//   spouge_evalue: BLAST+'s default since 2.2.29, Spouge's finite-size
//     correction. Per pair of a query of length m and a subject of length
//     n, E_pair = area(S, m, n) K exp(-lambda S), where area is the
//     expected product of the lengths left once the alignment's own
//     (normally distributed) lengths are taken off; in a database search
//     it is scaled by database residues / n. It depends on each subject's
//     length, so two hits of one score can have different E-values.
//   karlin_altschul_evalue: E = K m' n' exp(-lambda S) over the effective
//     search space m' n' of BLAST's length adjustment; what BLAST+ prints
//     with the environment variable OLD_FSC set, and before 2.2.29.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "trellis/align/scoring.hpp"

namespace trellis::align {

// Karlin-Altschul parameters of a scoring system, with BLAST's length adjustment and Spouge's corrections.
struct KarlinAltschul {
  double lambda = 0;  // scale: nats per unit of raw score
  double k = 0;       // the search-space constant K
  double h = 0;       // relative entropy, nats per aligned pair
  double alpha = 0;   // mean alignment length per unit of score (length adjustment, Spouge's a)
  double beta = 0;    // its intercept (length adjustment)
  // Spouge's finite-size correction: the slopes of the variance of an
  // alignment's length and of the covariance of its two lengths, the
  // ungapped row's alpha and variance slope, and open + extend.
  double alpha_v = 0;
  double sigma = 0;             // covariance slope of the two lengths
  double ungapped_alpha = 0;    // the ungapped row's alpha
  double ungapped_alpha_v = 0;  // the ungapped row's variance slope
  double gap_open_extend = 0;   // open + extend
};

// The published gapped parameters for a built-in matrix with these gap
// penalties; std::nullopt for any other combination or a matrix from a file.
std::optional<KarlinAltschul> gapped_parameters(const ScoringMatrix& matrix, const GapPenalties& gaps);
// The same for a built-in matrix given by name.
std::optional<KarlinAltschul> gapped_parameters(std::string_view builtin_matrix_name, const GapPenalties& gaps);

// The gap pairs a built-in matrix has parameters for, in BLAST's order;
// empty for an unknown name.
std::vector<GapPenalties> published_gap_penalties(std::string_view builtin_matrix_name);

// The bit score (lambda S - ln K) / ln 2 of a raw score.
double bit_score(std::int64_t raw_score, const KarlinAltschul& parameters) noexcept;

// E = K * query_length * database_residues * exp(-lambda * raw_score), no
// length adjustment (the textbook formula; not what BLAST+ prints).
double evalue(std::int64_t raw_score, const KarlinAltschul& parameters, std::int64_t query_length,
              std::int64_t database_residues) noexcept;

// BLAST's length adjustment: the largest whole ell not above the fixed point
// of ell = beta + (alpha / lambda) (ln K + ln((m - ell)(N - D ell))), where
// m is the query length, N the database residues and D its sequences,
// bounded so that K (m - ell)(N - D ell) stays above max(m, N); found by the
// same bisection BLAST uses (20 steps at most, the best bound kept if it
// does not converge). 0 where no positive ell fits.
std::int64_t length_adjustment(const KarlinAltschul& parameters, std::int64_t query_length,
                               std::int64_t database_residues, std::int64_t database_sequences) noexcept;

// (m - ell) * max(1, N - D ell), with ell the length adjustment.
std::int64_t effective_search_space(const KarlinAltschul& parameters, std::int64_t query_length,
                                    std::int64_t database_residues, std::int64_t database_sequences) noexcept;

// K * search_space * exp(-lambda * raw_score).
double karlin_altschul_evalue(std::int64_t raw_score, const KarlinAltschul& parameters,
                              std::int64_t search_space) noexcept;

// Spouge's E-value of a hit between a query and one subject of these
// lengths, in a database of database_residues (0: the pair alone, no
// scaling). See statistics.cpp for the formula.
double spouge_evalue(std::int64_t raw_score, const KarlinAltschul& parameters, std::int64_t query_length,
                     std::int64_t subject_length, std::int64_t database_residues) noexcept;

}  // namespace trellis::align
