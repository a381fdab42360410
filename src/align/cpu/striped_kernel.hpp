// Farrar's striped Smith-Waterman (Bioinformatics 23(2), 2007), score only,
// written once over a small set of lane operations so that the SSE2 and
// AVX2 files instantiate it with their own vector types.
//
// Values are kept non-negative: every gap subtraction saturates at zero.
// That is exact for Smith-Waterman, because H = max(0, ...) and
// max(0, x) - c clamped at zero equals max(0, x - c) clamped at zero.
// Only the addition of a substitution score can reach the top of a lane;
// the first cell that would pass it is stored as the lane's ceiling, so a
// best score at the ceiling means "rescore wider", never a wrong answer.
//
// Query positions past the query's end (padding in the last stripes) score
// at most 0, so they never exceed a real cell and never feed one: the
// recurrences only carry values to larger query positions.
//
// This header is included by files compiled with different -m flags. It
// must stay free of non-inline library templates: the instantiations live
// in each file's anonymous namespace, so none can be shared across them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trellis/align/sequence.hpp"

namespace trellis::align::cpu {

// Ops provides: Vector; zero(); add_score(h, profile); gap_open(v);
// gap_extend(v); max(a, b); any_greater(a, b); shift_up(v) (lane k moves
// to k+1, zero enters lane 0); reached_ceiling(best); horizontal_max(best).
//
// profile: `segments` vectors per residue code, residue r first at
// profile + r * segments. Workspace: 3 * segments vectors.
// Returns the best score, or -1 when a lane saturated (rescore wider).
template <class Ops>
std::int32_t striped_best_score(const Ops& ops, const typename Ops::Vector* profile, std::size_t segments,
                                const Residue* subject, std::size_t subject_length, typename Ops::Vector* workspace) {
  using Vector = typename Ops::Vector;
  const Vector zero = ops.zero();
  Vector* h_load = workspace;              // H of the previous column
  Vector* h_store = workspace + segments;  // H of this column
  Vector* e = workspace + 2 * segments;    // gap along the subject
  for (std::size_t i = 0; i < segments; ++i) {
    h_load[i] = zero;
    h_store[i] = zero;
    e[i] = zero;
  }
  Vector best = zero;
  for (std::size_t j = 0; j < subject_length; ++j) {
    const Vector* scores = profile + static_cast<std::size_t>(subject[j]) * segments;
    Vector f = zero;
    // The diagonal of the first segment is the previous column's last
    // segment, one query position earlier: shifted one lane up.
    Vector h = ops.shift_up(h_store[segments - 1]);
    Vector* const swap = h_load;
    h_load = h_store;
    h_store = swap;
    for (std::size_t i = 0; i < segments; ++i) {
      h = ops.add_score(h, scores[i]);
      const Vector e_here = e[i];
      h = ops.max(h, e_here);
      h = ops.max(h, f);
      best = ops.max(best, h);
      h_store[i] = h;
      const Vector h_opened = ops.gap_open(h);
      e[i] = ops.max(ops.gap_extend(e_here), h_opened);
      f = ops.max(ops.gap_extend(f), h_opened);
      h = h_load[i];
    }
    // Lazy F: carry the vertical gap across stripe boundaries until it can
    // no longer improve any cell. F never exceeds an H already counted in
    // `best`, so `best` needs no update here. The shifts feed zeros in, so
    // the loop ends even when extending costs nothing.
    f = ops.shift_up(f);
    std::size_t i = 0;
    while (ops.any_greater(f, ops.gap_open(h_store[i]))) {
      const Vector raised = ops.max(h_store[i], f);
      h_store[i] = raised;
      e[i] = ops.max(e[i], ops.gap_open(raised));
      f = ops.gap_extend(f);
      if (++i == segments) {
        i = 0;
        f = ops.shift_up(f);
      }
    }
    if (ops.reached_ceiling(best)) return -1;
  }
  return ops.horizontal_max(best);
}

}  // namespace trellis::align::cpu
