// Database search: score everything, rank, then trace back only the hits
// that are reported (the traceback costs a byte per cell, the scores none);
// the whole database is one shard of sharded_search.hpp.
#include "trellis/align/search.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "trellis/align/sharded_search.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {

void validate(const SearchOptions& options) {
  if (options.top < 1) {
    throw UsageError(fmt::format("the number of hits per query must be at least 1 (got {})", options.top));
  }
  if (std::isnan(options.max_evalue) || options.max_evalue <= 0) {
    throw UsageError(fmt::format("the E-value cutoff must be a positive number (got {})", options.max_evalue));
  }
  if (options.database_size && *options.database_size < 1) {
    throw UsageError(fmt::format("the database size must be at least 1 residue (got {})", *options.database_size));
  }
}

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  validate_statistics(scoring, options.statistics);  // refused before the database is prepared
  SubjectScorer scorer(database, scoring, options.backend);
  return search(queries, database, scoring, scorer, options);
}

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     SubjectScorer& scorer, const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  const DatabaseTotals totals{database.total_residues(), static_cast<std::int64_t>(database.size())};
  const RankedHits ranked = rank_shard(queries, database, {}, totals, scoring, scorer, options);
  return traced_hits(
      ranked, queries, database, [](std::uint64_t subject) { return static_cast<std::size_t>(subject); }, scoring,
      options.statistics);
}

}  // namespace trellis::align
