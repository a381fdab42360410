// cpu::sw_traceback: the reference's alignment, bit for bit, from a striped
// SIMD direction pass (traceback_kernel.hpp) instead of the scalar one.
//
// The reference pays for each cell with branches, matrix look-ups and a
// byte store; here a profile row of the query residue's scores against the
// striped subject is read contiguously, 16 (AVX-512) or 8 (AVX2) cells are
// scored at once in exact 32-bit arithmetic, and the five direction bits of
// a vector's cells leave as five lane masks (5/8 byte a cell instead of 1).
// The walk back decodes a cell's bits with the reference's precedence, so
// every tie falls the same way. Exact 32-bit lanes rather than saturating
// 16-bit ones: no overflow case to detect and redo, and in 32-bit lanes the
// direction pass is already no longer what a search waits for. Without
// AVX2 the reference itself runs.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../alignment_columns.hpp"
#include "../kernels.hpp"
#include "traceback.hpp"
#include "traceback_kernel.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::cpu {
namespace {

// The kernels load whole vectors from aligned addresses.
constexpr std::align_val_t kVectorAlignment{64};

struct AlignedDelete {
  void operator()(void* p) const noexcept { ::operator delete[](p, kVectorAlignment); }
};

template <class T>
std::unique_ptr<T[], AlignedDelete> aligned_array(std::size_t count) {
  return std::unique_ptr<T[], AlignedDelete>(static_cast<T*>(::operator new[](count * sizeof(T), kVectorAlignment)));
}

// The reference's walk back from `end` over the striped direction masks,
// and the reference's bookkeeping of the columns it collects.
template <class Mask>
Alignment walk_back(std::span<const Residue> query, std::span<const Residue> subject,
                    const DirectionMasks<Mask>* directions, std::size_t segments, const EndCell& end) {
  Alignment result;
  if (end.score == 0) return result;
  enum class State { pair, query_residue_gap, subject_residue_gap };
  State state = State::pair;
  std::int64_t i = end.row;
  std::int64_t j = end.column;
  detail::WalkedColumns walked;
  while (i > 0 && j > 0) {
    const auto column = static_cast<std::size_t>(j - 1);
    const DirectionMasks<Mask>& masks = directions[static_cast<std::size_t>(i - 1) * segments + column % segments];
    const auto bit = static_cast<Mask>(1u << (column / segments));
    if (state == State::pair) {
      if (masks.zero & bit) break;
      if (masks.d_wins & bit) {
        state = State::subject_residue_gap;
        continue;
      }
      if (masks.i_wins & bit) {
        state = State::query_residue_gap;
        continue;
      }
      walked.pair(query[static_cast<std::size_t>(i - 1)], subject[column]);
      --i;
      --j;
    } else if (state == State::query_residue_gap) {
      walked.query_residue(query[static_cast<std::size_t>(i - 1)]);
      if ((masks.i_extended & bit) == 0) state = State::pair;
      --i;
    } else {
      walked.subject_residue(subject[column]);
      if ((masks.d_extended & bit) == 0) state = State::pair;
      --j;
    }
  }

  result.score = end.score;
  result.query_start = i + 1;
  result.query_end = end.row;
  result.subject_start = j + 1;
  result.subject_end = end.column;
  std::move(walked).finish(result);
  return result;
}

// The direction pass of one instruction set: profile and buffers in, the
// end cell out (traceback_kernel.hpp).
template <class Mask>
using DirectionPass = EndCell (*)(const std::int32_t* profile, std::size_t segments, const Residue* query,
                                  std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                                  std::int32_t stop_score, std::int32_t* workspace, DirectionMasks<Mask>* directions);

template <std::size_t lanes, class Mask>
Alignment striped_traceback(DirectionPass<Mask> direction_pass, std::span<const Residue> query,
                            std::span<const Residue> subject, const Scoring& scoring, std::int32_t stop_score) {
  const std::size_t m = query.size();
  const std::size_t n = subject.size();
  const std::size_t segments = (n + lanes - 1) / lanes;
  const std::size_t stride = segments * lanes;

  // Residue r's row: its score against every striped subject column.
  auto profile = aligned_array<std::int32_t>(kAlphabetSize * stride);
  for (int r = 0; r < kAlphabetSize; ++r) {
    std::int32_t* row = profile.get() + static_cast<std::size_t>(r) * stride;
    const auto scores = scoring.matrix.row(static_cast<Residue>(r));
    for (std::size_t k = 0; k < segments; ++k) {
      for (std::size_t lane = 0; lane < lanes; ++lane) {
        const std::size_t column = lane * segments + k;
        row[k * lanes + lane] = column < n ? scores[subject[column]] : kTracebackMinusInfinity;
      }
    }
  }
  auto workspace = aligned_array<std::int32_t>(4 * stride);
  // Written in full by the kernel, so left uninitialised.
  auto directions = aligned_array<DirectionMasks<Mask>>(m * segments);
  const TracebackCosts costs{scoring.gaps.open + scoring.gaps.extend, scoring.gaps.extend};
  const EndCell end =
      direction_pass(profile.get(), segments, query.data(), m, n, costs, stop_score, workspace.get(), directions.get());
  return walk_back(query, subject, directions.get(), segments, end);
}

// The traceback on one path. With the pair's score known, the direction
// pass stops after the first row that reaches it: the end is the first cell
// of the first row reaching the best score, so the rows below cannot move it
// and the walk back never reads them.
Alignment traceback_on(TracebackPath path, std::span<const Residue> query, std::span<const Residue> subject,
                       const Scoring& scoring, std::optional<std::int32_t> known_score) {
  const auto m = static_cast<std::int64_t>(query.size());
  const auto n = static_cast<std::int64_t>(subject.size());
  if (m == 0 || n == 0) return {};

  // The reference's preconditions, with its messages.
  check_score_range(m, n, scoring.matrix);
  if (m > kMaxTracebackCells / n) {
    throw UsageError(
        fmt::format("a traceback of {} x {} residues needs {} cells of directions, more than the "
                    "limit of {}",
                    m, n, m * n, kMaxTracebackCells));
  }
  [[maybe_unused]] const std::int32_t stop_score = known_score ? *known_score : kNoStopScore;
  switch (path) {
#if defined(__x86_64__)
    case TracebackPath::avx2:
      return striped_traceback<avx2::kLanes, avx2::Mask>(avx2::traceback_directions, query, subject, scoring,
                                                         stop_score);
    case TracebackPath::avx512:
      return striped_traceback<avx512::kLanes, avx512::Mask>(avx512::traceback_directions, query, subject, scoring,
                                                             stop_score);
#endif
    default:
      return reference::sw_traceback(query, subject, scoring);
  }
}

}  // namespace

std::string_view to_string(TracebackPath path) noexcept {
  switch (path) {
    case TracebackPath::reference:
      return "reference";
    case TracebackPath::avx2:
      return "avx2";
    case TracebackPath::avx512:
      return "avx512";
  }
  return "unknown";
}

std::vector<TracebackPath> supported_traceback_paths() {
  std::vector<TracebackPath> paths{TracebackPath::reference};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) paths.push_back(TracebackPath::avx2);
  if (__builtin_cpu_supports("avx512f")) paths.push_back(TracebackPath::avx512);
#endif
  return paths;
}

Alignment sw_traceback_with(TracebackPath path, std::span<const Residue> query, std::span<const Residue> subject,
                            const Scoring& scoring, std::optional<std::int32_t> known_score) {
  Alignment alignment = traceback_on(path, query, subject, scoring, known_score);
  if (known_score && alignment.score != *known_score) {
    throw Error(fmt::format("the traceback of a {} x {} pair found the best score {} where its score was given as {}",
                            query.size(), subject.size(), alignment.score, *known_score));
  }
  return alignment;
}

Alignment sw_traceback(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring,
                       std::optional<std::int32_t> known_score) {
  static const TracebackPath widest = supported_traceback_paths().back();
  return sw_traceback_with(widest, query, subject, scoring, known_score);
}

}  // namespace trellis::align::cpu
