// Database search in shards: a database split into parts, each searched on
// its own (on a device, in a process of an MPI job, or one part after
// another where the database is larger than memory), the parts' hits merged.
//
// The merge is exact: a search of shards reports the same hits, scores,
// E-values and order as search() over the whole database. Each shard ranks
// its subjects by their index in the whole database and computes E-values
// with the whole database's totals, and the rank order (search.hpp) is a
// total order, so the best `top` of the whole database are among the union
// of the shards' best `top`, in the same order. Tracebacks run after the
// merge, for the reported hits only. docs/align.md, "Sharded search".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align {

// Some sequences of a database: sequences[i] is the database's sequence
// database_index[i].
struct DatabaseShard {
  SequenceSet sequences;                    // the shard's sequences
  std::vector<std::size_t> database_index;  // each sequence's index in the whole database
};

// What the statistics need of the whole database.
struct DatabaseTotals {
  std::int64_t residues = 0;   // residues of the whole database
  std::int64_t sequences = 0;  // sequences of the whole database
};

// A subject ranked for a query: its index in the whole database, its score
// and its E-value (0 without statistics). Plain data, sent between processes.
struct RankedHit {
  std::uint64_t subject = 0;  // index in the whole database
  std::int32_t score = 0;     // raw score
  double evalue = 0;          // E-value, 0 without statistics
  // Equal when subject, score and E-value are.
  friend bool operator==(const RankedHit&, const RankedHit&) = default;
};

// Per query, its hits best first.
using RankedHits = std::vector<std::vector<RankedHit>>;

// The best options.top subjects of a shard for each query, in rank order,
// with E-values up to options.max_evalue. `database_index` maps the shard's
// sequences to the database's (empty: the shard is the whole database);
// `scorer` is made for `shard`. Throws as search() does.
RankedHits rank_shard(const SequenceSet& queries, const SequenceSet& shard, std::span<const std::size_t> database_index,
                      const DatabaseTotals& totals, const Scoring& scoring, SubjectScorer& scorer,
                      const SearchOptions& options);

// Throws UsageError for a built-in matrix and gap pair without published
// statistics (search.hpp) unless statistics is none.
void validate_statistics(const Scoring& scoring, EvalueStatistics statistics);

// Whether a ranks before b for a search with these statistics (search.hpp).
bool ranks_before(const RankedHit& a, const RankedHit& b, EvalueStatistics statistics);

// The best `top` of several shards' hits, per query in rank order: the merge
// of rank_shard's results. Every part must hold the same number of queries
// (UsageError otherwise).
RankedHits merge_ranked_hits(std::span<const RankedHits> parts, std::size_t top, EvalueStatistics statistics);

// Hits with their tracebacks. `subjects` holds every ranked subject:
// subject_at(database index) is its index in `subjects`, which becomes the
// hit's subject. Bit scores as search() gives them.
std::vector<std::vector<Hit>> traced_hits(const RankedHits& ranked, const SequenceSet& queries,
                                          const SequenceSet& subjects,
                                          const std::function<std::size_t(std::uint64_t)>& subject_at,
                                          const Scoring& scoring, EvalueStatistics statistics);

// Bounds of `shards` consecutive parts of a set whose cumulative residue
// offsets are `offsets` (size + 1 values, offsets[0] = 0), each holding about
// the same residues: part k is [bounds[k], bounds[k+1]). shards + 1 values;
// a part may be empty when there are fewer sequences than parts.
std::vector<std::size_t> residue_balanced_bounds(std::span<const std::int64_t> offsets, std::size_t shards);

// Sequences [begin, end) of a set as a shard (a copy).
DatabaseShard shard_of(const SequenceSet& database, std::size_t begin, std::size_t end);

// A database that hands out its sequences in consecutive ranges, in an order
// of its own: `offsets` are the cumulative residues in that order, read()
// returns a range as a shard. Reads may come from several threads at once.
struct ShardSource {
  std::vector<std::int64_t> offsets;  // size + 1 cumulative residues in the source's order
  // Reads sequences [begin, end) in the source's order.
  std::function<DatabaseShard(std::size_t begin, std::size_t end)> read;
  DatabaseTotals totals;  // the whole database's residues and sequences
};

// A database in memory as a ShardSource in its own order; it refers to
// `database`, which must outlive it.
ShardSource source_of(const SequenceSet& database);

// How one process searches its part of a database.
struct ShardedSearchOptions {
  // cuda device indices to spread the part over, each searching a share
  // balanced by residues on a thread of its own; empty: the current device.
  // On a host backend the shares run on threads the same way.
  std::vector<int> devices;
  // The most residues one device (or the cpu) holds at once; a larger share
  // is read and searched in consecutive pieces. 0: no limit.
  std::int64_t residues_at_once = 0;
  ScorerOptions scorer;  // options of each device's scorer
};

// rank_shard over sequences [begin, end) of `source`, spread over the
// devices and pieces of `sharded`, merged. A failure on any device is
// rethrown once every device has stopped.
RankedHits rank_database_part(const SequenceSet& queries, const ShardSource& source, std::size_t begin, std::size_t end,
                              const Scoring& scoring, const SearchOptions& options,
                              const ShardedSearchOptions& sharded);

}  // namespace trellis::align
