// Database search: score everything, rank, then trace back only the hits
// that are reported (the traceback costs a byte per cell, the scores none).
#include "trellis/align/search.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "best_subjects.hpp"
#include "trellis/align/statistics.hpp"
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

// A subject's E-value and score as they rank.
struct Ranked {
  double evalue = 0;
  ScoredSubject scored;
};

// BLAST's order of a query's hits (blast_hits.c, s_EvalueCompareHSPLists):
// E-values below 1e-180 count as equal, then the higher score, then the
// later database sequence.
bool ranks_before(const Ranked& a, const Ranked& b) {
  constexpr double kEqualBelow = 1.0e-180;
  const bool both_tiny = a.evalue < kEqualBelow && b.evalue < kEqualBelow;
  if (!both_tiny && a.evalue != b.evalue) return a.evalue < b.evalue;
  if (a.scored.score != b.scored.score) return a.scored.score > b.scored.score;
  return a.scored.subject > b.scored.subject;
}

// Everything the E-values need: the database's part once per search, the
// query's per query.
class EvalueModel {
 public:
  EvalueModel(const KarlinAltschul& parameters, EvalueStatistics statistics, const SequenceSet& database,
              std::optional<std::int64_t> database_size)
      : parameters_(parameters),
        statistics_(statistics),
        residues_(database_size.value_or(database.total_residues())),
        sequences_(static_cast<std::int64_t>(database.size())) {
    for (std::size_t s = 0; s < database.size(); ++s) lengths_.push_back(database.length(s));
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

    // The smallest E-value any subject of the database could have with this
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
  std::vector<std::int64_t> lengths_;  // the distinct subject lengths
};

std::vector<Ranked> ranked(const std::vector<ScoredSubject>& subjects, const EvalueModel::ForQuery& model,
                           const SequenceSet& database) {
  std::vector<Ranked> result;
  result.reserve(subjects.size());
  for (const ScoredSubject& s : subjects) result.push_back({model.evalue(s.score, database.length(s.subject)), s});
  std::sort(result.begin(), result.end(), ranks_before);
  return result;
}

// Whether the best `top` of `candidates` (ranked) are the best of the whole
// database, given that every other subject scores at most `floor`.
bool candidates_suffice(const std::vector<Ranked>& candidates, std::size_t top, std::int32_t floor,
                        const EvalueModel::ForQuery& model, double max_evalue, std::size_t database_size) {
  const double bound = model.lowest_evalue_at_or_below(floor);
  if (bound > max_evalue) return true;  // no other subject would be reported
  if (candidates.size() < top) return false;
  const Ranked& last = candidates[top - 1];
  // The best an unseen subject could rank: at the bound, scoring `floor`,
  // later in the database than any.
  return ranks_before(last, Ranked{bound, ScoredSubject{database_size, floor}});
}

}  // namespace

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  search_parameters(scoring, options.statistics);  // refused before the database is prepared
  SubjectScorer scorer(database, scoring, options.backend);
  return search(queries, database, scoring, scorer, options);
}

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     SubjectScorer& scorer, const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  const std::optional<KarlinAltschul> parameters = search_parameters(scoring, options.statistics);
  const auto top = static_cast<std::size_t>(options.top);

  std::vector<std::vector<Hit>> hits(queries.size());
  if (!parameters) {
    const auto best_of_each = scorer.best(queries, top);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (const ScoredSubject& best : best_of_each[q]) {
        Hit hit;
        hit.query = q;
        hit.subject = best.subject;
        hit.score = best.score;
        hit.bit_score = std::numeric_limits<double>::quiet_NaN();
        hits[q].push_back(std::move(hit));
      }
    }
  } else {
    EvalueModel model(*parameters, options.statistics, database, options.database_size);
    // The best by E-value are nearly always among the best few hundred by
    // score (the E-value can depend on the subject's length, and ties go to
    // the later subject where best() keeps the earlier); where they cannot
    // be shown to be, the query's every score is ranked, at the cost of
    // scoring it again. 512 more than `top` needed no second scoring for
    // any mmseqs2 example query tried; with 32 more, one query in six did.
    const std::size_t candidates = 4 * top + 512;
    const auto best_of_each = scorer.best(queries, candidates);
    std::vector<std::vector<Ranked>> orders(queries.size());
    std::vector<char> rank_every_score(queries.size(), 0);
    // Per query a few thousand E-values (the bound runs over the distinct
    // subject lengths): spread over the threads.
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const EvalueModel::ForQuery query_model(model, queries.length(q));
      orders[q] = ranked(best_of_each[q], query_model, database);
      if (best_of_each[q].size() < candidates) continue;  // every subject above zero is there
      std::int32_t floor = best_of_each[q].front().score;
      for (const ScoredSubject& s : best_of_each[q]) floor = std::min(floor, s.score);
      rank_every_score[q] =
          candidates_suffice(orders[q], top, floor, query_model, options.max_evalue, database.size()) ? 0 : 1;
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      if (rank_every_score[q] != 0) {
        const EvalueModel::ForQuery query_model(model, queries.length(q));
        orders[q] = ranked(best_subjects(scorer.scores(queries.residues(q)), database.size()), query_model, database);
      }
      for (const Ranked& r : orders[q]) {
        if (hits[q].size() == top || r.evalue > options.max_evalue) break;
        Hit hit;
        hit.query = q;
        hit.subject = r.scored.subject;
        hit.score = r.scored.score;
        hit.evalue = r.evalue;
        hit.bit_score = bit_score(hit.score, *parameters);
        hits[q].push_back(std::move(hit));
      }
    }
  }

  // Tracebacks, each independent and on the host (a byte per cell), spread
  // over the threads; the longest pairs first keep the threads even.
  std::vector<Hit*> pending;
  for (auto& query_hits : hits) {
    for (Hit& hit : query_hits) pending.push_back(&hit);
  }
  const auto cells = [&](const Hit* hit) { return queries.length(hit->query) * database.length(hit->subject); };
  std::stable_sort(pending.begin(), pending.end(), [&](const Hit* a, const Hit* b) { return cells(a) > cells(b); });
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Hit& hit = *pending[i];
    try {
      hit.alignment = local_alignment(queries.residues(hit.query), database.residues(hit.subject), scoring, hit.score);
    } catch (...) {
#pragma omp critical(search_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return hits;
}

}  // namespace trellis::align
