// Ranking a database's subjects for each query, in shards, and merging the
// shards' hits (sharded_search.hpp): the E-values, the rank order and the
// choice of candidates that search() reports from.
#include "trellis/align/sharded_search.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "best_subjects.hpp"
#include "trellis/align/statistics.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {

namespace {

// The parameters a search uses, or none; refuses a built-in matrix and gap
// pair without published parameters, as blastp does.
std::optional<KarlinAltschul> search_parameters(const Scoring& scoring, EvalueStatistics statistics) {
  if (statistics == EvalueStatistics::none) return std::nullopt;
  std::optional<KarlinAltschul> parameters = gapped_parameters(scoring.matrix, scoring.gaps);
  if (!parameters && scoring.matrix.is_builtin()) {
    std::vector<std::string> pairs;
    for (const GapPenalties& gaps : published_gap_penalties(scoring.matrix.name())) {
      pairs.push_back(fmt::format("{}/{}", gaps.open, gaps.extend));
    }
    throw UsageError(
        fmt::format("{} has no published statistics for gap open/extend {}/{} (it has them for {}); "
                    "search without statistics (--statistics none) for hits without E-values",
                    scoring.matrix.name(), scoring.gaps.open, scoring.gaps.extend, fmt::join(pairs, ", ")));
  }
  return parameters;
}

// BLAST's order of a query's hits (blast_hits.c, s_EvalueCompareHSPLists):
// E-values below 1e-180 count as equal, then the higher score, then the
// later database sequence.
bool ranks_before_by_evalue(const RankedHit& a, const RankedHit& b) {
  constexpr double kEqualBelow = 1.0e-180;
  const bool both_tiny = a.evalue < kEqualBelow && b.evalue < kEqualBelow;
  if (!both_tiny && a.evalue != b.evalue) return a.evalue < b.evalue;
  if (a.score != b.score) return a.score > b.score;
  return a.subject > b.subject;
}

// Everything the E-values need: the database's part once per shard, the
// query's per query.
class EvalueModel {
 public:
  EvalueModel(const KarlinAltschul& parameters, EvalueStatistics statistics, const SequenceSet& shard,
              const DatabaseTotals& totals, std::optional<std::int64_t> database_size)
      : parameters_(parameters),
        statistics_(statistics),
        residues_(database_size.value_or(totals.residues)),
        sequences_(totals.sequences) {
    for (std::size_t s = 0; s < shard.size(); ++s) lengths_.push_back(shard.length(s));
    std::sort(lengths_.begin(), lengths_.end());
    lengths_.erase(std::unique(lengths_.begin(), lengths_.end()), lengths_.end());
  }

  class ForQuery {
   public:
    ForQuery(const EvalueModel& model, std::int64_t query_length)
        : model_(model),
          query_length_(query_length),
          search_space_(model.statistics_ == EvalueStatistics::karlin_altschul
                            ? effective_search_space(model.parameters_, query_length, model.residues_, model.sequences_)
                            : 0) {}

    double evalue(std::int32_t score, std::int64_t subject_length) const {
      if (model_.statistics_ == EvalueStatistics::karlin_altschul) {
        return karlin_altschul_evalue(score, model_.parameters_, search_space_);
      }
      return spouge_evalue(score, model_.parameters_, query_length_, subject_length, model_.residues_);
    }

    // The smallest E-value any subject of the shard could have with this
    // score or a lower one (the E-value falls as the score rises, for every
    // subject length: checked for every published row in the tests).
    double lowest_evalue_at_or_below(std::int32_t score) const {
      double lowest = std::numeric_limits<double>::infinity();
      for (const std::int64_t length : model_.lengths_) lowest = std::min(lowest, evalue(score, length));
      return lowest;
    }

   private:
    const EvalueModel& model_;
    std::int64_t query_length_;
    std::int64_t search_space_;
  };

 private:
  KarlinAltschul parameters_;
  EvalueStatistics statistics_;
  std::int64_t residues_;
  std::int64_t sequences_;
  std::vector<std::int64_t> lengths_;  // the shard's distinct subject lengths
};

// A shard's subjects as the whole database knows them.
class ShardIndex {
 public:
  explicit ShardIndex(std::span<const std::size_t> database_index) : database_index_(database_index) {}
  std::uint64_t operator()(std::size_t local) const { return database_index_.empty() ? local : database_index_[local]; }

 private:
  std::span<const std::size_t> database_index_;
};

std::vector<RankedHit> ranked(const std::vector<ScoredSubject>& subjects, const EvalueModel::ForQuery& model,
                              const SequenceSet& shard, const ShardIndex& index) {
  std::vector<RankedHit> result;
  result.reserve(subjects.size());
  for (const ScoredSubject& s : subjects) {
    result.push_back({index(s.subject), s.score, model.evalue(s.score, shard.length(s.subject))});
  }
  std::sort(result.begin(), result.end(), ranks_before_by_evalue);
  return result;
}

// Whether the best `top` of `candidates` (ranked) are the best of the whole
// shard, given that every other subject scores at most `floor`.
bool candidates_suffice(const std::vector<RankedHit>& candidates, std::size_t top, std::int32_t floor,
                        const EvalueModel::ForQuery& model, double max_evalue, std::uint64_t past_every_subject) {
  const double bound = model.lowest_evalue_at_or_below(floor);
  if (bound > max_evalue) return true;  // no other subject would be reported
  if (candidates.size() < top) return false;
  // The best an unseen subject could rank: at the bound, scoring `floor`,
  // later in the database than any.
  return ranks_before_by_evalue(candidates[top - 1], RankedHit{past_every_subject, floor, bound});
}

void check_increasing(std::span<const std::size_t> database_index, std::size_t shard_size) {
  if (database_index.empty()) return;
  if (database_index.size() != shard_size) {
    throw UsageError(fmt::format("a shard of {} sequences has {} database indices", shard_size, database_index.size()));
  }
  // best() breaks ties by the shard's order, which must be the database's.
  if (!std::is_sorted(database_index.begin(), database_index.end()) ||
      std::adjacent_find(database_index.begin(), database_index.end()) != database_index.end()) {
    throw UsageError("a shard's database indices must increase");
  }
}

}  // namespace

void validate_statistics(const Scoring& scoring, EvalueStatistics statistics) {
  search_parameters(scoring, statistics);
}

bool ranks_before(const RankedHit& a, const RankedHit& b, EvalueStatistics statistics) {
  if (statistics != EvalueStatistics::none) return ranks_before_by_evalue(a, b);
  return a.score != b.score ? a.score > b.score : a.subject < b.subject;
}

RankedHits rank_shard(const SequenceSet& queries, const SequenceSet& shard, std::span<const std::size_t> database_index,
                      const DatabaseTotals& totals, const Scoring& scoring, SubjectScorer& scorer,
                      const SearchOptions& options) {
  validate(options);
  check_increasing(database_index, shard.size());
  const std::optional<KarlinAltschul> parameters = search_parameters(scoring, options.statistics);
  const auto top = static_cast<std::size_t>(options.top);
  const ShardIndex index(database_index);

  RankedHits hits(queries.size());
  if (shard.empty()) return hits;
  if (!parameters) {
    const auto best_of_each = scorer.best(queries, top);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (const ScoredSubject& best : best_of_each[q]) hits[q].push_back({index(best.subject), best.score, 0.0});
    }
    return hits;
  }
  EvalueModel model(*parameters, options.statistics, shard, totals, options.database_size);
  // The best by E-value are nearly always among the best few hundred by
  // score (the E-value can depend on the subject's length, and ties go to
  // the later subject where best() keeps the earlier); where they cannot
  // be shown to be, the query's every score is ranked, at the cost of
  // scoring it again. 512 more than `top` needed no second scoring for
  // any mmseqs2 example query tried; with 32 more, one query in six did.
  const std::size_t candidates = 4 * top + 512;
  const auto best_of_each = scorer.best(queries, candidates);
  std::vector<std::vector<RankedHit>> orders(queries.size());
  std::vector<char> rank_every_score(queries.size(), 0);
  const std::uint64_t past_every_subject =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(std::max<std::int64_t>(totals.sequences, 0)),
                              database_index.empty() ? shard.size() : database_index.back() + 1);
  // Per query a few thousand E-values (the bound runs over the distinct
  // subject lengths): spread over the threads.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const EvalueModel::ForQuery query_model(model, queries.length(q));
    orders[q] = ranked(best_of_each[q], query_model, shard, index);
    if (best_of_each[q].size() < candidates) continue;  // every subject above zero is there
    std::int32_t floor = best_of_each[q].front().score;
    for (const ScoredSubject& s : best_of_each[q]) floor = std::min(floor, s.score);
    rank_every_score[q] =
        candidates_suffice(orders[q], top, floor, query_model, options.max_evalue, past_every_subject) ? 0 : 1;
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (rank_every_score[q] != 0) {
      const EvalueModel::ForQuery query_model(model, queries.length(q));
      orders[q] = ranked(best_subjects(scorer.scores(queries.residues(q)), shard.size()), query_model, shard, index);
    }
    for (const RankedHit& r : orders[q]) {
      if (hits[q].size() == top || r.evalue > options.max_evalue) break;
      hits[q].push_back(r);
    }
  }
  return hits;
}

RankedHits merge_ranked_hits(std::span<const RankedHits> parts, std::size_t top, EvalueStatistics statistics) {
  if (parts.empty()) return {};
  const std::size_t query_count = parts.front().size();
  for (const RankedHits& part : parts) {
    if (part.size() != query_count) {
      throw UsageError(fmt::format("shards disagree on the number of queries ({} and {})", query_count, part.size()));
    }
  }
  RankedHits merged(query_count);
  const auto before = [statistics](const RankedHit& a, const RankedHit& b) { return ranks_before(a, b, statistics); };
  for (std::size_t q = 0; q < query_count; ++q) {
    std::vector<RankedHit>& hits = merged[q];
    for (const RankedHits& part : parts) hits.insert(hits.end(), part[q].begin(), part[q].end());
    const auto kept = hits.begin() + static_cast<std::ptrdiff_t>(std::min(top, hits.size()));
    std::partial_sort(hits.begin(), kept, hits.end(), before);
    hits.erase(kept, hits.end());
  }
  return merged;
}

std::vector<std::vector<Hit>> traced_hits(const RankedHits& ranked, const SequenceSet& queries,
                                          const SequenceSet& subjects,
                                          const std::function<std::size_t(std::uint64_t)>& subject_at,
                                          const Scoring& scoring, EvalueStatistics statistics) {
  const std::optional<KarlinAltschul> parameters = search_parameters(scoring, statistics);
  std::vector<std::vector<Hit>> hits(ranked.size());
  for (std::size_t q = 0; q < ranked.size(); ++q) {
    for (const RankedHit& r : ranked[q]) {
      Hit hit;
      hit.query = q;
      hit.subject = subject_at(r.subject);
      hit.score = r.score;
      if (parameters) {
        hit.evalue = r.evalue;
        hit.bit_score = bit_score(hit.score, *parameters);
      } else {
        hit.bit_score = std::numeric_limits<double>::quiet_NaN();
      }
      hits[q].push_back(std::move(hit));
    }
  }

  // Tracebacks, each independent and on the host (a byte per cell), spread
  // over the threads; the longest pairs first keep the threads even.
  std::vector<Hit*> pending;
  for (auto& query_hits : hits) {
    for (Hit& hit : query_hits) pending.push_back(&hit);
  }
  const auto cells = [&](const Hit* hit) { return queries.length(hit->query) * subjects.length(hit->subject); };
  std::stable_sort(pending.begin(), pending.end(), [&](const Hit* a, const Hit* b) { return cells(a) > cells(b); });
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Hit& hit = *pending[i];
    try {
      hit.alignment = local_alignment(queries.residues(hit.query), subjects.residues(hit.subject), scoring, hit.score);
    } catch (...) {
#pragma omp critical(search_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return hits;
}

std::vector<std::size_t> residue_balanced_bounds(std::span<const std::int64_t> offsets, std::size_t shards) {
  if (shards == 0) throw UsageError("a database splits into at least one shard");
  if (offsets.empty()) throw UsageError("residue offsets hold at least one value");
  const std::size_t count = offsets.size() - 1;
  const auto total = static_cast<long double>(offsets.back());
  std::vector<std::size_t> bounds(shards + 1, count);
  bounds[0] = 0;
  for (std::size_t k = 1; k < shards; ++k) {
    // The first sequence starting at or past k/shards of the residues; ties
    // of whole sequences go to the later part.
    const auto target = static_cast<std::int64_t>(std::floor(total * static_cast<long double>(k) / shards));
    const auto at = std::lower_bound(offsets.begin(), offsets.end() - 1, target);
    bounds[k] = std::max(bounds[k - 1], static_cast<std::size_t>(at - offsets.begin()));
  }
  return bounds;
}

DatabaseShard shard_of(const SequenceSet& database, std::size_t begin, std::size_t end) {
  if (begin > end || end > database.size()) {
    throw UsageError(fmt::format("shard [{}, {}) outside a database of {} sequences", begin, end, database.size()));
  }
  DatabaseShard shard;
  for (std::size_t s = begin; s < end; ++s) {
    shard.sequences.add(database.id(s), database.description(s), database.residues(s));
    shard.database_index.push_back(s);
  }
  return shard;
}

ShardSource source_of(const SequenceSet& database) {
  ShardSource source;
  source.offsets.assign(database.offsets().begin(), database.offsets().end());
  source.read = [&database](std::size_t begin, std::size_t end) { return shard_of(database, begin, end); };
  source.totals = {database.total_residues(), static_cast<std::int64_t>(database.size())};
  return source;
}

namespace {

// One device's (or the cpu's) share: pieces of at most `residues_at_once`,
// each read, scored and merged into the share's hits in turn.
RankedHits rank_share(const SequenceSet& queries, const ShardSource& source, std::size_t begin, std::size_t end,
                      const Scoring& scoring, const SearchOptions& options, const ShardedSearchOptions& sharded) {
  const std::int64_t residues = source.offsets[end] - source.offsets[begin];
  std::size_t pieces = 1;
  if (sharded.residues_at_once > 0 && residues > sharded.residues_at_once) {
    pieces = static_cast<std::size_t>((residues + sharded.residues_at_once - 1) / sharded.residues_at_once);
  }
  const std::span<const std::int64_t> offsets(source.offsets.data() + begin, end - begin + 1);
  std::vector<std::int64_t> relative(offsets.begin(), offsets.end());
  for (std::int64_t& o : relative) o -= offsets.front();
  const std::vector<std::size_t> bounds = residue_balanced_bounds(relative, pieces);

  RankedHits share(queries.size());
  for (std::size_t k = 0; k < pieces; ++k) {
    if (bounds[k] == bounds[k + 1]) continue;
    const DatabaseShard piece = source.read(begin + bounds[k], begin + bounds[k + 1]);
    SubjectScorer scorer(piece.sequences, scoring, options.backend, sharded.scorer);
    const RankedHits found =
        rank_shard(queries, piece.sequences, piece.database_index, source.totals, scoring, scorer, options);
    const RankedHits both[] = {std::move(share), found};
    share = merge_ranked_hits(both, static_cast<std::size_t>(options.top), options.statistics);
  }
  return share;
}

}  // namespace

RankedHits rank_database_part(const SequenceSet& queries, const ShardSource& source, std::size_t begin, std::size_t end,
                              const Scoring& scoring, const SearchOptions& options,
                              const ShardedSearchOptions& sharded) {
  validate(options);
  if (begin > end || end + 1 > source.offsets.size()) {
    throw UsageError(fmt::format("part [{}, {}) outside a database of {} sequences", begin, end,
                                 source.offsets.empty() ? 0 : source.offsets.size() - 1));
  }
  validate_statistics(scoring, options.statistics);  // refused before anything is read
  // On a host backend the devices split the part over threads the same way
  // (what the tests check where there is no device).
  const bool on_device = resolve(options.backend) == Backend::cuda;
  if (sharded.devices.size() <= 1) {
    if (sharded.devices.size() == 1 && on_device) device::set_current(sharded.devices.front());
    return rank_share(queries, source, begin, end, scoring, options, sharded);
  }
  // A thread per device: the CUDA runtime's current device is per thread,
  // so each scorer is made, used and freed on its device's thread.
  const std::span<const std::int64_t> offsets(source.offsets.data() + begin, end - begin + 1);
  std::vector<std::int64_t> relative(offsets.begin(), offsets.end());
  for (std::int64_t& o : relative) o -= offsets.front();
  const std::vector<std::size_t> bounds = residue_balanced_bounds(relative, sharded.devices.size());
  std::vector<RankedHits> shares(sharded.devices.size());
  std::vector<std::exception_ptr> failures(sharded.devices.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t d = 0; d < sharded.devices.size(); ++d) {
      threads.emplace_back([&, d] {
        try {
          if (on_device) device::set_current(sharded.devices[d]);
          shares[d] = rank_share(queries, source, begin + bounds[d], begin + bounds[d + 1], scoring, options, sharded);
        } catch (...) {
          failures[d] = std::current_exception();
        }
      });
    }
  }
  for (std::size_t d = 0; d < failures.size(); ++d) {
    if (!failures[d]) continue;
    try {
      std::rethrow_exception(failures[d]);
    } catch (const DeviceError& error) {
      throw DeviceError(fmt::format("device {}: {}", sharded.devices[d], error.what()));
    }
  }
  return merge_ranked_hits(shares, static_cast<std::size_t>(options.top), options.statistics);
}

}  // namespace trellis::align
