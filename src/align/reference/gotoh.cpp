// Smith-Waterman with Gotoh's affine gaps, the oracle every engine is
// checked against. BLAST's convention: a gap of length k costs
// open + k * extend, so opening costs open + extend and each further
// position extend.
//
// With H the best local score ending in a residue pair or gap at (i, j),
// I a gap in the subject (query residue i against '-') and D a gap in the
// query (subject residue j against '-'):
//   I(i,j) = max(H(i-1,j) - (open+extend), I(i-1,j) - extend)
//   D(i,j) = max(H(i,j-1) - (open+extend), D(i,j-1) - extend)
//   H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), I(i,j), D(i,j))
#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "../alignment_columns.hpp"
#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

// Far below any reachable score, yet subtracting a penalty cannot wrap.
constexpr std::int32_t kMinusInfinity = std::numeric_limits<std::int32_t>::min() / 2;

// The recurrence over `rows` x `columns`, keeping one row of H and of the
// vertical gap state. score_of(row residue, column residue) hides whether
// rows are the query or the subject, so the shorter sequence can always be
// the one stored.
template <typename ScoreOf>
std::int32_t best_score(std::span<const Residue> rows, std::span<const Residue> columns, std::int32_t open_cost,
                        std::int32_t extend_cost, ScoreOf score_of) {
  const std::size_t n = columns.size();
  std::vector<std::int32_t> h(n + 1, 0);                      // H of the previous row, then this one
  std::vector<std::int32_t> vertical(n + 1, kMinusInfinity);  // gap state along the columns
  std::int32_t best = 0;
  for (const Residue row_residue : rows) {
    std::int32_t diagonal = 0;  // H(i-1, j-1)
    std::int32_t horizontal = kMinusInfinity;
    std::int32_t left = 0;  // H(i, j-1)
    for (std::size_t j = 1; j <= n; ++j) {
      vertical[j] = std::max(h[j] - open_cost, vertical[j] - extend_cost);
      horizontal = std::max(left - open_cost, horizontal - extend_cost);
      const std::int32_t cell =
          std::max({0, diagonal + score_of(row_residue, columns[j - 1]), vertical[j], horizontal});
      diagonal = h[j];
      h[j] = cell;
      left = cell;
      best = std::max(best, cell);
    }
  }
  return best;
}

// Direction byte of one cell.
constexpr std::uint8_t kFromZero = 0;
constexpr std::uint8_t kFromDiagonal = 1;
constexpr std::uint8_t kFromQueryResidueGap = 2;    // I: query residue against '-'
constexpr std::uint8_t kFromSubjectResidueGap = 3;  // D: subject residue against '-'
constexpr std::uint8_t kSourceMask = 3;
constexpr std::uint8_t kIExtended = 4;  // I here continues I of the cell above
constexpr std::uint8_t kDExtended = 8;  // D here continues D of the cell to the left

}  // namespace

void check_score_range(std::int64_t query_length, std::int64_t subject_length, const ScoringMatrix& matrix) {
  const std::int64_t shorter = std::min(query_length, subject_length);
  const std::int64_t best_conceivable = std::max<std::int64_t>(matrix.max_score(), 0) * shorter;
  if (best_conceivable > std::numeric_limits<std::int32_t>::max() / 2) {
    throw UsageError(
        fmt::format("alignment scores of {} x {} residues under {} (largest entry {}) could exceed "
                    "32 bits",
                    query_length, subject_length, matrix.name(), matrix.max_score()));
  }
}

namespace reference {

std::int32_t sw_score(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring) {
  if (query.empty() || subject.empty()) return 0;
  check_score_range(static_cast<std::int64_t>(query.size()), static_cast<std::int64_t>(subject.size()), scoring.matrix);
  const std::int32_t open_cost = scoring.gaps.open + scoring.gaps.extend;
  const std::int32_t extend_cost = scoring.gaps.extend;
  const ScoringMatrix& matrix = scoring.matrix;
  // Store a row as long as the shorter sequence; the matrix may be
  // asymmetric, so the transposed pass looks scores up as (query, subject).
  if (subject.size() <= query.size()) {
    return best_score(query, subject, open_cost, extend_cost, [&](Residue q, Residue s) { return matrix.score(q, s); });
  }
  return best_score(subject, query, open_cost, extend_cost, [&](Residue s, Residue q) { return matrix.score(q, s); });
}

void sw_scores(std::span<const Residue> query, const SequenceSet& subjects, const Scoring& scoring,
               std::span<std::int32_t> scores) {
  for (std::size_t i = 0; i < subjects.size(); ++i) scores[i] = sw_score(query, subjects.residues(i), scoring);
}

Alignment sw_traceback(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring) {
  Alignment result;
  const auto m = static_cast<std::int64_t>(query.size());
  const auto n = static_cast<std::int64_t>(subject.size());
  if (m == 0 || n == 0) return result;
  check_score_range(m, n, scoring.matrix);
  if (m > kMaxTracebackCells / n) {
    throw UsageError(
        fmt::format("a traceback of {} x {} residues needs {} cells of directions, more than the "
                    "limit of {}",
                    m, n, m * n, kMaxTracebackCells));
  }
  const std::int32_t open_cost = scoring.gaps.open + scoring.gaps.extend;
  const std::int32_t extend_cost = scoring.gaps.extend;
  const ScoringMatrix& matrix = scoring.matrix;
  const auto columns = static_cast<std::size_t>(n);

  // Row i of directions is directions[(i-1)*n + (j-1)].
  std::vector<std::uint8_t> directions(static_cast<std::size_t>(m) * columns);
  std::vector<std::int32_t> h(columns + 1, 0);
  std::vector<std::int32_t> gap_in_subject(columns + 1, kMinusInfinity);  // I along each column
  std::int32_t best = 0;
  std::int64_t best_i = 0;
  std::int64_t best_j = 0;
  for (std::int64_t i = 1; i <= m; ++i) {
    const Residue q = query[static_cast<std::size_t>(i - 1)];
    std::uint8_t* row = directions.data() + static_cast<std::size_t>(i - 1) * columns;
    std::int32_t diagonal = 0;
    std::int32_t gap_in_query = kMinusInfinity;  // D along the row
    std::int32_t left = 0;
    for (std::size_t j = 1; j <= columns; ++j) {
      std::uint8_t direction = 0;
      // Opening wins ties: the shorter gap.
      const std::int32_t i_open = h[j] - open_cost;
      const std::int32_t i_extend = gap_in_subject[j] - extend_cost;
      if (i_extend > i_open) direction |= kIExtended;
      gap_in_subject[j] = std::max(i_open, i_extend);
      const std::int32_t d_open = left - open_cost;
      const std::int32_t d_extend = gap_in_query - extend_cost;
      if (d_extend > d_open) direction |= kDExtended;
      gap_in_query = std::max(d_open, d_extend);

      const std::int32_t through_pair = diagonal + matrix.score(q, subject[j - 1]);
      std::int32_t cell = through_pair;
      std::uint8_t source = kFromDiagonal;
      if (gap_in_subject[j] > cell) {
        cell = gap_in_subject[j];
        source = kFromQueryResidueGap;
      }
      if (gap_in_query > cell) {
        cell = gap_in_query;
        source = kFromSubjectResidueGap;
      }
      if (cell <= 0) {
        cell = 0;
        source = kFromZero;
      }
      row[j - 1] = static_cast<std::uint8_t>(direction | source);
      diagonal = h[j];
      h[j] = cell;
      left = cell;
      // Strictly greater: the first best cell in row-major order ends it.
      if (cell > best) {
        best = cell;
        best_i = i;
        best_j = static_cast<std::int64_t>(j);
      }
    }
  }
  if (best == 0) return result;

  // Walk back from the best cell, collecting columns in reverse.
  enum class State { pair, query_residue_gap, subject_residue_gap };
  State state = State::pair;
  std::int64_t i = best_i;
  std::int64_t j = best_j;
  detail::WalkedColumns walked;
  const auto direction_at = [&](std::int64_t row_index, std::int64_t column_index) {
    return directions[static_cast<std::size_t>(row_index - 1) * columns + static_cast<std::size_t>(column_index - 1)];
  };
  while (i > 0 && j > 0) {
    const std::uint8_t direction = direction_at(i, j);
    if (state == State::pair) {
      const std::uint8_t source = direction & kSourceMask;
      if (source == kFromZero) break;
      if (source == kFromQueryResidueGap) {
        state = State::query_residue_gap;
        continue;
      }
      if (source == kFromSubjectResidueGap) {
        state = State::subject_residue_gap;
        continue;
      }
      walked.pair(query[static_cast<std::size_t>(i - 1)], subject[static_cast<std::size_t>(j - 1)]);
      --i;
      --j;
    } else if (state == State::query_residue_gap) {
      walked.query_residue(query[static_cast<std::size_t>(i - 1)]);
      if ((direction & kIExtended) == 0) state = State::pair;
      --i;
    } else {
      walked.subject_residue(subject[static_cast<std::size_t>(j - 1)]);
      if ((direction & kDExtended) == 0) state = State::pair;
      --j;
    }
  }

  result.score = best;
  result.query_start = i + 1;
  result.query_end = best_i;
  result.subject_start = j + 1;
  result.subject_end = best_j;
  std::move(walked).finish(result);
  return result;
}

}  // namespace reference
}  // namespace trellis::align
