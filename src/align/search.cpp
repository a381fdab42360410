// Database search: score everything, rank, then trace back only the hits
// that are reported (the traceback costs a byte per cell, the scores none).
#include "trellis/align/search.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include <fmt/format.h>

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
}

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  SubjectScorer scorer(database, scoring, options.backend);
  return search(queries, database, scoring, scorer, options);
}

std::vector<std::vector<Hit>> search(const SequenceSet& queries, const SequenceSet& database, const Scoring& scoring,
                                     SubjectScorer& scorer, const SearchOptions& options) {
  validate(options);
  if (database.empty()) throw UsageError("the database holds no sequences");
  const std::optional<KarlinAltschul> parameters = gapped_parameters(scoring.matrix, scoring.gaps);

  std::vector<std::vector<Hit>> hits(queries.size());
  const auto best_of_each = scorer.best(queries, static_cast<std::size_t>(options.top));
  for (std::size_t q = 0; q < queries.size(); ++q) {
    // The E-value falls as the score rises, so the cutoff keeps a prefix of
    // the ranking: ranking the best `top` first and then cutting is the same
    // as cutting first.
    for (const ScoredSubject& best : best_of_each[q]) {
      Hit hit;
      hit.query = q;
      hit.subject = best.subject;
      hit.score = best.score;
      hit.bit_score = std::numeric_limits<double>::quiet_NaN();
      if (parameters) {
        const double e = evalue(hit.score, *parameters, queries.length(q), database.total_residues());
        if (e > options.max_evalue) break;
        hit.evalue = e;
        hit.bit_score = bit_score(hit.score, *parameters);
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
