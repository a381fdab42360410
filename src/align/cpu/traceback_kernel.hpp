// The striped direction pass of cpu::sw_traceback (traceback.cpp), written
// once over a small set of 32-bit lane operations so that each instruction
// set's file instantiates it with its own vector type.
//
// Layout: the subject's n columns are cut into `lanes` blocks of `segments`
// consecutive columns; vector k holds column lane * segments + k of every
// block (Farrar's striping, along the subject so that the query's rows come
// one after another, as in the reference's row-major order). Columns past
// the subject's end pad the last blocks; they only carry values to larger
// columns, so no real cell ever reads them.
//
// Each row takes two passes and a carry between them: the first computes
// everything but the gap along the row (D) and D within each block, the
// carry passes D from block to block across the lanes, the second applies
// it. Farrar's lazy loop instead re-walks blocks while D still improves a
// cell, and on related sequences long gaps out of high-scoring cells do
// that for most of a row, where two fixed passes do not.
//
// Values are exact 32-bit integers with the reference's arithmetic, so every
// comparison the reference makes gives the same answer here. A cell's
// direction is kept as five bits (one bit of five lane masks per vector)
// instead of the reference's byte; traceback.cpp decodes them with the
// reference's precedence.
//
// This header is included by files compiled with different -m flags. It
// must stay free of non-inline library templates: the instantiations live
// in each file's anonymous namespace, so none can be shared across them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trellis/align/sequence.hpp"

namespace trellis::align::cpu {

// Gap costs as the recurrence subtracts them (BLAST's open + extend for a
// gap's first position, extend for each further one).
struct TracebackCosts {
  std::int32_t open_cost = 0;
  std::int32_t extend_cost = 0;
};

// The first cell in row-major order holding the best score: 1-based row
// (query position) and column (subject position), 0 when the score is 0.
struct EndCell {
  std::int32_t score = 0;
  std::int64_t row = 0;
  std::int64_t column = 0;
};

// One vector's directions, bit `lane` of each mask for that lane's cell.
// The reference's source of H is recovered as: zero if `zero`, else the
// query gap (D) if `d_wins`, else the subject gap (I) if `i_wins`, else the
// diagonal; that is its order of strict comparisons.
template <class Mask>
struct DirectionMasks {
  Mask i_wins;      // I > H(i-1,j-1) + s
  Mask i_extended;  // I extends I of the cell above (strictly better than opening)
  Mask zero;        // H == 0: the alignment starts after this cell
  Mask d_wins;      // D > max(H(i-1,j-1) + s, I)
  Mask d_extended;  // D extends D of the cell to the left (strictly better than opening)
};

// Far below any reachable score, yet subtracting a penalty cannot wrap (the
// reference's value).
inline constexpr std::int32_t kTracebackMinusInfinity = INT32_MIN / 2;
inline constexpr std::int32_t kNoStopScore = INT32_MAX;

#if defined(__x86_64__)
// Each function fills directions[row * segments + k] for every query row and
// returns the end cell; it stops after the first row that reaches
// stop_score (the rows below cannot move the end: it is the first cell
// reaching the best score), kNoStopScore for none. profile: for residue r, `segments` vectors of
// scores against the striped subject at profile + r * segments * lanes
// (padding columns hold kTracebackMinusInfinity). workspace: 4 * segments
// vectors. Both are aligned to 64 bytes.
namespace avx2 {
inline constexpr std::size_t kLanes = 8;
using Mask = std::uint8_t;
EndCell traceback_directions(const std::int32_t* profile, std::size_t segments, const Residue* query,
                             std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                             std::int32_t stop_score, std::int32_t* workspace, DirectionMasks<Mask>* directions);
}  // namespace avx2

namespace avx512 {
inline constexpr std::size_t kLanes = 16;
using Mask = std::uint16_t;
EndCell traceback_directions(const std::int32_t* profile, std::size_t segments, const Residue* query,
                             std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                             std::int32_t stop_score, std::int32_t* workspace, DirectionMasks<Mask>* directions);
}  // namespace avx512
#endif

// Ops provides: Vector, Mask, kLanes; load(p), store(p, v), splat(x),
// add(a, b), sub(a, b), max(a, b), greater(a, b) and equal(a, b) as lane
// masks, shift_up(v, fill) (lane k moves to k+1, fill enters lane 0),
// horizontal_max(v).
template <class Ops>
EndCell striped_traceback_directions(const std::int32_t* profile, std::size_t segments, const Residue* query,
                                     std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                                     std::int32_t stop_score, std::int32_t* workspace,
                                     DirectionMasks<typename Ops::Mask>* directions) {
  using Vector = typename Ops::Vector;
  using Mask = typename Ops::Mask;
  constexpr std::size_t lanes = Ops::kLanes;
  const std::size_t stride = segments * lanes;   // int32 values per row array
  std::int32_t* h_previous = workspace;          // H of the row above
  std::int32_t* h_current = workspace + stride;  // max(0, H(i-1,j-1) + s, I), then H
  std::int32_t* i_gap = workspace + 2 * stride;  // I along each column
  std::int32_t* d_gap = workspace + 3 * stride;  // D within each block, before the carry
  for (std::size_t k = 0; k < stride; ++k) {
    h_previous[k] = 0;
    i_gap[k] = kTracebackMinusInfinity;
  }

  const Vector zero = Ops::splat(0);
  const Vector minus_infinity = Ops::splat(kTracebackMinusInfinity);
  const Vector open_cost = Ops::splat(costs.open_cost);
  const Vector extend_cost = Ops::splat(costs.extend_cost);
  // D of each block's first column before the carry from the block to its
  // left: exact in lane 0 (H(i,0) = 0, so D = -open_cost), nothing elsewhere.
  const Vector d_first = Ops::shift_up(minus_infinity, -costs.open_cost);
  const std::int64_t block_extend_cost = static_cast<std::int64_t>(segments) * costs.extend_cost;

  EndCell end;
  for (std::size_t row = 0; row < query_length; ++row) {
    const std::int32_t* scores = profile + static_cast<std::size_t>(query[row]) * stride;
    DirectionMasks<Mask>* masks = directions + row * segments;

    // Pass 1: everything but D, and D within each block. D needs no H that
    // D itself raised: where H(j-1) = D(j-1), opening from it costs at least
    // extending D(j-1), so D(j) = max(H'(j-1) - open, D(j-1) - extend) with
    // H' = max(0, H(i-1,j-1) + s, I). This replaces Farrar's lazy loop,
    // which on related sequences carries long gaps through whole blocks.
    Vector diagonal = Ops::shift_up(Ops::load(h_previous + (segments - 1) * lanes), 0);  // H(i-1, j-1)
    Vector d = d_first;
    for (std::size_t k = 0; k < segments; ++k) {
      const std::size_t at = k * lanes;
      const Vector above = Ops::load(h_previous + at);
      const Vector through_pair = Ops::add(diagonal, Ops::load(scores + at));
      const Vector i_open = Ops::sub(above, open_cost);
      const Vector i_extend = Ops::sub(Ops::load(i_gap + at), extend_cost);
      const Vector i = Ops::max(i_open, i_extend);
      Ops::store(i_gap + at, i);
      masks[k].i_extended = Ops::greater(i_extend, i_open);
      masks[k].i_wins = Ops::greater(i, through_pair);
      const Vector h_without_d = Ops::max(Ops::max(through_pair, i), zero);
      Ops::store(h_current + at, h_without_d);
      Ops::store(d_gap + at, d);
      d = Ops::max(Ops::sub(h_without_d, open_cost), Ops::sub(d, extend_cost));
      diagonal = above;
    }

    // The carry into each block: D of its first column, from the block to
    // its left (what that block's D left over, or the carry into it minus
    // one extension per column). Clamped at -infinity: below -open_cost a
    // D never matters, since every D after a block's first column is at
    // least H' - open_cost >= -open_cost.
    alignas(64) std::int32_t carry[lanes];
    alignas(64) std::int32_t leaving[lanes];
    Ops::store(leaving, d);
    carry[0] = kTracebackMinusInfinity;  // lane 0's first D was exact
    for (std::size_t lane = 1; lane < lanes; ++lane) {
      const std::int64_t decayed = static_cast<std::int64_t>(carry[lane - 1]) - block_extend_cost;
      const std::int64_t best = decayed > leaving[lane - 1] ? decayed : leaving[lane - 1];
      carry[lane] = best > kTracebackMinusInfinity ? static_cast<std::int32_t>(best) : kTracebackMinusInfinity;
    }

    // Pass 2: the final D and H, the masks that need them, the row's best.
    Vector carried = Ops::load(carry);
    Vector left = zero;  // H(i, j-1) and D(i, j-1); segment 0's are fixed below
    Vector d_first_final = zero;
    Vector row_best = zero;
    for (std::size_t k = 0; k < segments; ++k) {
      const std::size_t at = k * lanes;
      const Vector d_here = Ops::max(Ops::load(d_gap + at), carried);
      carried = Ops::max(Ops::sub(carried, extend_cost), minus_infinity);
      const Vector h_without_d = Ops::load(h_current + at);
      const Vector h = Ops::max(h_without_d, d_here);
      Ops::store(h_current + at, h);
      masks[k].zero = Ops::equal(h, zero);
      // Against H' rather than max(H(i-1,j-1) + s, I): they differ only
      // where both are <= 0, and then H = 0 and `zero` decides.
      masks[k].d_wins = Ops::greater(d_here, h_without_d);
      // D = max(opening, extending), so D exceeds the opening exactly when
      // extending strictly beats it: the reference's comparison.
      masks[k].d_extended = Ops::greater(d_here, Ops::sub(left, open_cost));
      if (k == 0) d_first_final = d_here;
      row_best = Ops::max(row_best, h);
      left = h;
    }
    // Segment 0's left neighbour is the block to the left's last column.
    masks[0].d_extended = Ops::greater(
        d_first_final, Ops::sub(Ops::shift_up(Ops::load(h_current + (segments - 1) * lanes), 0), open_cost));

    // The reference moves its end only to a strictly better cell, so the
    // end is the first column of the first row reaching the best score.
    const std::int32_t row_max = Ops::horizontal_max(row_best);
    if (row_max > end.score) {
      // Blocks are consecutive columns: the first lane whose block reaches
      // row_max holds the first such column.
      alignas(64) std::int32_t lane_max[lanes];
      Ops::store(lane_max, row_best);
      std::int64_t column = -1;
      for (std::size_t lane = 0; lane < lanes && column < 0; ++lane) {
        if (lane_max[lane] != row_max) continue;
        for (std::size_t k = 0; k < segments; ++k) {
          const std::size_t index = lane * segments + k;  // 0-based column
          if (index >= subject_length) break;
          if (h_current[k * lanes + lane] == row_max) {
            column = static_cast<std::int64_t>(index) + 1;
            break;
          }
        }
      }
      if (column < 0) {
        // Only padding reached row_max (never seen, but then the real
        // columns decide): the first real column holding the real maximum.
        std::int32_t real_max = 0;
        for (std::size_t index = 0; index < subject_length; ++index) {
          const std::int32_t h = h_current[(index % segments) * lanes + index / segments];
          if (h > real_max) {
            real_max = h;
            column = static_cast<std::int64_t>(index) + 1;
          }
        }
        if (real_max <= end.score) column = -1;
        if (column > 0) end.score = real_max;
      } else {
        end.score = row_max;
      }
      if (column > 0) {
        end.row = static_cast<std::int64_t>(row) + 1;
        end.column = column;
      }
    }
    if (end.score >= stop_score) break;
    std::int32_t* const swap = h_previous;
    h_previous = h_current;
    h_current = swap;
  }
  return end;
}

}  // namespace trellis::align::cpu
