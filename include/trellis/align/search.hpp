// Exact Smith-Waterman protein database search with BLAST-style hits.
//
// Every query is scored against every database sequence with the chosen
// engine (local_alignment_scores: exact, the same scores on every backend).
// Hits are ranked as BLAST+ ranks them: by E-value (values below 1e-180
// count as equal), then by score, highest first, then the later database
// sequence first; without statistics by score, then database order. So the
// hits are the same on every run and every backend. The best `top`
// whose E-value is at most `max_evalue` are reported, and only those get a
// traceback.
//
// Statistics (statistics.hpp), with the database's residues and sequences
// as BLAST+ counts them (`database_size` replaces the residues, as blastp's
// -dbsize does):
//   spouge (default): the E-values blastp prints (BLAST+ 2.12, no
//     composition-based statistics): Spouge's finite-size correction, per
//     subject length, so subjects of one score can rank apart and a lower
//     score can rank above a higher one.
//   karlin_altschul: K m' n' exp(-lambda S) over BLAST's length-adjusted
//     search space (blastp with OLD_FSC set); ranks as the score does.
//   none: no E-values; hits ranked by score, max_evalue ignored.
// A built-in matrix with a gap pair that has no published parameters is
// refused (UsageError listing the pairs that have them) unless statistics
// is none; a matrix read from a file never has parameters and searches as
// with none. Without statistics a hit's bit score is NaN and its E-value
// empty.
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

// Which E-values a search computes (see above): BLAST+'s default (spouge), the older one, or none.
enum class EvalueStatistics {
  spouge,           // Spouge's finite-size correction (BLAST+'s default)
  karlin_altschul,  // K m' n' exp(-lambda S) over the length-adjusted space
  none              // no E-values
};

// What a search reports and how it runs.
struct SearchOptions {
  std::int32_t top = 10;                                   // most hits reported per query
  double max_evalue = 10.0;                                // hits with a larger E-value are dropped
  Backend backend = Backend::automatic;                    // backend of the scores pass
  EvalueStatistics statistics = EvalueStatistics::spouge;  // which E-values rank and filter the hits
  std::optional<std::int64_t> database_size{};             // residues for the statistics; default the database's
};

// Throws UsageError for top < 1, a max_evalue that is not a positive
// number, or a database_size below 1.
void validate(const SearchOptions& options);

// One reported hit: a query, a database sequence, its scores and its traceback.
struct Hit {
  std::size_t query = 0;         // index into the query set
  std::size_t subject = 0;       // index into the database
  std::int32_t score = 0;        // raw score, > 0
  double bit_score = 0;          // NaN without published parameters
  std::optional<double> evalue;  // empty without published parameters
  Alignment alignment;           // the traceback reaching `score`
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
