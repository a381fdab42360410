// Exact Smith-Waterman protein database search with BLAST-style hits.
//
// Every query is scored against every database sequence with the chosen
// engine (local_alignment_scores: exact, the same scores on every backend).
// Subjects scoring above zero are ranked by score, highest first, ties by
// subject index (database order), so the hits are the same on every run and
// every backend. The best `top` of them whose E-value is at most
// `max_evalue` are reported, and only those get a traceback.
//
// Statistics: bit scores and E-values use the Karlin-Altschul parameters NCBI
// publishes for the matrix and gap pair (statistics.hpp), with the query's
// length and the database's total residues as the search space and no
// length adjustment. Where there are no published parameters (another gap
// pair, a matrix read from a file), a hit's bit score is NaN, its E-value is
// empty, and max_evalue filters nothing: the best `top` subjects are reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/backend.hpp"

namespace trellis::align {

struct SearchOptions {
  std::int32_t top = 10;     // most hits reported per query
  double max_evalue = 10.0;  // hits with a larger E-value are dropped
  Backend backend = Backend::automatic;
};

// Throws UsageError for top < 1 or a max_evalue that is not a positive number.
void validate(const SearchOptions& options);

struct Hit {
  std::size_t query = 0;    // index into the query set
  std::size_t subject = 0;  // index into the database
  std::int32_t score = 0;   // raw score, > 0
  double bit_score = 0;     // NaN without published parameters
  std::optional<double> evalue;  // empty without published parameters
  Alignment alignment;      // the traceback reaching `score`
};

// hits[q] holds query q's hits in rank order (possibly none). Throws
// UsageError for an empty database, invalid options, or sequences too long
// for the engines (see alignment.hpp); BackendUnavailable when cuda is asked for and cannot run.
std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     const SearchOptions& options = {});

// The same with a scorer made for `database` and `scoring`, which keeps the
// database prepared (on cuda: in device memory) from one call to the next;
// options.backend is the scorer's.
std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     SubjectScorer& scorer, const SearchOptions& options = {});

}  // namespace trellis::align
