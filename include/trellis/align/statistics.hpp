// Karlin-Altschul statistics for gapped local alignment scores.
//
// lambda, K and H are the values NCBI BLAST publishes for each built-in
// matrix and gap pair (src/align/statistics.cpp cites the table). They were
// estimated by NCBI for those exact combinations; any other combination, and
// any matrix read from a file, has no parameters, and then bit scores and
// E-values are absent rather than invented.
//
//   bit score  S' = (lambda * S - ln K) / ln 2
//   E-value    E  = m * n * 2^(-S') = K * m * n * exp(-lambda * S)
//
// with m the query length and n the database's total residues. BLAST also
// shortens m and n by a length adjustment computed from alpha and beta;
// evalue() does not apply it (the parameters are carried for it), so its
// E-values are slightly larger (more conservative) than BLAST's.
#pragma once

#include <cstdint>
#include <optional>

#include "trellis/align/scoring.hpp"

namespace trellis::align {

struct KarlinAltschul {
  double lambda = 0;
  double k = 0;
  double h = 0;      // relative entropy, nats per aligned pair
  double alpha = 0;  // length adjustment parameters (BLAST's alpha and beta)
  double beta = 0;
};

// The published gapped parameters for a built-in matrix with these gap
// penalties; std::nullopt for any other combination or a matrix from a file.
std::optional<KarlinAltschul> gapped_parameters(const ScoringMatrix& matrix, const GapPenalties& gaps);
std::optional<KarlinAltschul> gapped_parameters(std::string_view builtin_matrix_name, const GapPenalties& gaps);

double bit_score(std::int64_t raw_score, const KarlinAltschul& parameters) noexcept;

// E = K * query_length * database_residues * exp(-lambda * raw_score).
double evalue(std::int64_t raw_score, const KarlinAltschul& parameters, std::int64_t query_length,
              std::int64_t database_residues) noexcept;

}  // namespace trellis::align
