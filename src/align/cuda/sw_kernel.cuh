// The Smith-Waterman-Gotoh score kernel.
//
// One group of G lanes (G divides 32) scores one database entry. The query's
// rows are split among the lanes, R consecutive rows each, and the group
// sweeps the entry's columns as a wavefront: at step t lane l works on
// columns 2(t - l) and 2(t - l) + 1, and passes its last row's H and F (the
// vertical gap entering the next row) at both to lane l + 1 by shuffle. A
// query longer than G * R rows takes several passes over the columns; between passes the last row's H and F of
// every column wait in device memory (`boundary`). The query profile (the
// substitution score of every residue against every query row) of the
// current pass sits in shared memory, which every group of the block shares,
// so the block's groups run the passes in step.
//
// Recurrence per cell, with oe = gap open + extend and e = extend (BLAST's
// convention: a gap of length k costs open + k * extend):
//   H = max(0, H_diag + s, E, F)
//   E (for the next column) = max(E - e, H - oe)
//   F (for the next row)    = max(F - e, H - oe)
// E and F enter the first column and row as -oe, which acts as minus
// infinity because H >= 0 everywhere.
//
// Two forms of the substitution scores (KernelForm), each a policy below:
// - CompactForm: a 16-bit profile; a byte permute merges two subjects'
//   scores into one word, and the diagonal add rides in an add-max.
// - WideForm: a 32-bit profile; a multiply-add merges the scores and H is one
//   three-way max. The integer max instructions, DPX included, issue on the
//   ALU pipe at half the rate of instruction issue (H200: 64 lanes a cycle a
//   multiprocessor), and with the device full that pipe bounds the kernel;
//   this form moves the merge and the diagonal add to the FMA pipe, for
//   twice the shared-memory traffic and a longer chain from row to row.
//
// The lane arithmetic comes from a policy:
// - PackedPairs: two subjects in the two signed 16-bit halves of a word, the
//   add/max instructions Hopper executes in hardware (DPX). Additions wrap,
//   so a score that could have wrapped is reported as kOverflow instead: an
//   H can only wrap after some H reached 32767 - (largest substitution
//   score), and the running maximum is monotone. Padding (columns past the
//   shorter subject's end, rows past the query's end) scores -1 against
//   everything: every path through padding only loses score, so the maximum
//   over real cells is unchanged.
// - Exact32: one subject in a 32-bit word; exact whenever check_score_range
//   accepts the lengths. It rescores the entries PackedPairs reported.
#pragma once

#include <cstdint>

#include "sw_launch.hpp"

namespace trellis::align::cuda::detail {

struct PackedPairs {
  using Word = unsigned;
  static constexpr int kSubjectsPerEntry = 2;

  __device__ static Word splat(std::int32_t value) {
    const unsigned half = static_cast<unsigned>(value) & 0xFFFFu;
    return half | (half << 16);
  }
  // Profile words hold two consecutive rows; a pairs the rows' scores
  // against subject A's residue, b against B's.
  __device__ static void rows_of(unsigned a, unsigned b, Word& first, Word& second) {
    first = __byte_perm(a, b, 0x5410);
    second = __byte_perm(a, b, 0x7632);
  }
  // WideForm's profile holds each score's low 16 bits, zero-extended: B's
  // times 65536 plus A's is the pair's word, in one multiply-add.
  __device__ static Word pair(unsigned a, unsigned b) {
    unsigned word;
    asm("mad.lo.u32 %0, %1, 65536, %2;" : "=r"(word) : "r"(b), "r"(a));
    return word;
  }
  __device__ static Word add(Word a, Word b) { return __vadd2(a, b); }
  __device__ static Word max(Word a, Word b) { return __vmaxs2(a, b); }
  __device__ static Word max3(Word a, Word b, Word c) { return __vimax3_s16x2(a, b, c); }
  // max(a, b, c, 0)
  __device__ static Word max3_relu(Word a, Word b, Word c) { return __vimax3_s16x2_relu(a, b, c); }
  // max(a + b, c, 0)
  __device__ static Word add_max_relu(Word a, Word b, Word c) { return __viaddmax_s16x2_relu(a, b, c); }
  __device__ static Word add_max(Word a, Word b, Word c) { return __viaddmax_s16x2(a, b, c); }
  __device__ static void store(const KernelParams& p, std::int32_t entry, Word best) {
    const std::int32_t halves[2] = {static_cast<std::int16_t>(best & 0xFFFFu), static_cast<std::int16_t>(best >> 16)};
    for (int s = 0; s < 2; ++s) {
      p.scores[2 * entry + s] = halves[s] >= p.overflow_threshold ? kOverflow : halves[s];
    }
  }
};

struct Exact32 {
  using Word = std::int32_t;
  static constexpr int kSubjectsPerEntry = 1;

  __device__ static Word splat(std::int32_t value) { return value; }
  __device__ static void rows_of(unsigned a, unsigned /*b*/, Word& first, Word& second) {
    first = static_cast<std::int16_t>(a & 0xFFFFu);
    second = static_cast<std::int32_t>(a) >> 16;
  }
  __device__ static Word add(Word a, Word b) { return a + b; }
  __device__ static Word max(Word a, Word b) { return a > b ? a : b; }
  __device__ static Word pair(unsigned a, unsigned /*b*/) { return static_cast<Word>(a); }
  __device__ static Word max3(Word a, Word b, Word c) { return __vimax3_s32(a, b, c); }
  __device__ static Word max3_relu(Word a, Word b, Word c) { return __vimax3_s32_relu(a, b, c); }
  __device__ static Word add_max_relu(Word a, Word b, Word c) { return __viaddmax_s32_relu(a, b, c); }
  __device__ static Word add_max(Word a, Word b, Word c) { return __viaddmax_s32(a, b, c); }
  __device__ static void store(const KernelParams& p, std::int32_t entry, Word best) { p.scores[entry] = best; }
};

// The group's state through one entry (one or two subjects).
struct Entry {
  std::int64_t first_column;
  int columns;
};

// E (for the next column) and F (for the next row) after a cell whose H is h.
template <class Lanes>
__device__ __forceinline__ void gaps_after(const typename Lanes::Word h, typename Lanes::Word& e,
                                           typename Lanes::Word& f, const typename Lanes::Word minus_open_extend,
                                           const typename Lanes::Word minus_extend) {
  const typename Lanes::Word h_open = Lanes::add(h, minus_open_extend);
  e = Lanes::add_max(e, minus_extend, h_open);
  f = Lanes::add_max(f, minus_extend, h_open);
}

// CompactForm: the profile of a pass in shared memory is kProfileResidues
// rows of G * R 16-bit scores, as 64-bit words of four consecutive query rows.
struct CompactForm {
  template <int G, int R>
  __device__ static const uint2* lane_profile(const uint4* shared, int lane) {
    return reinterpret_cast<const uint2*>(shared) + lane * (R / 4);
  }

  // The pass's rows of the profile, [kProfileResidues][padded_rows] in
  // global memory, into shared memory.
  template <int G, int R>
  __device__ static void load_pass(uint4* shared, const KernelParams& p, int pass) {
    constexpr int kWordsPerResidue = G * R / 4;
    auto* const words = reinterpret_cast<uint2*>(shared);
    const auto* source = static_cast<const uint2*>(p.profile);
    for (int i = static_cast<int>(threadIdx.x); i < kProfileResidues * kWordsPerResidue; i += kBlockThreads) {
      const int residue = i / kWordsPerResidue;
      words[i] = source[(static_cast<std::int64_t>(residue) * p.padded_rows + pass * G * R) / 4 + i % kWordsPerResidue];
    }
  }

  // The query's scores against one column's residue pair, for this lane's R
  // rows: profile words hold two consecutive rows, a byte permute pairs the
  // rows' scores against subject A's residue with B's.
  template <int G, int R, class Lanes>
  __device__ static void column_scores(const uint2* __restrict__ lane_profile, const unsigned residue_pair,
                                       typename Lanes::Word (&scores)[R]) {
    constexpr int kWordsPerResidue = G * R / 4;
    const uint2* const profile_a = lane_profile + (residue_pair & 0xFFu) * kWordsPerResidue;
    const uint2* const profile_b = lane_profile + ((residue_pair >> 8) & 0xFFu) * kWordsPerResidue;
    if constexpr (R % 8 == 0) {  // 128-bit loads: half the shared-memory requests
#pragma unroll
      for (int q = 0; q < R / 4; q += 2) {
        const uint4 a = *reinterpret_cast<const uint4*>(profile_a + q);
        const uint4 b = Lanes::kSubjectsPerEntry == 2 ? *reinterpret_cast<const uint4*>(profile_b + q) : a;
        Lanes::rows_of(a.x, b.x, scores[4 * q], scores[4 * q + 1]);
        Lanes::rows_of(a.y, b.y, scores[4 * q + 2], scores[4 * q + 3]);
        Lanes::rows_of(a.z, b.z, scores[4 * q + 4], scores[4 * q + 5]);
        Lanes::rows_of(a.w, b.w, scores[4 * q + 6], scores[4 * q + 7]);
      }
    } else {
#pragma unroll
      for (int q = 0; q < R / 4; ++q) {
        const uint2 a = profile_a[q];
        const uint2 b = Lanes::kSubjectsPerEntry == 2 ? profile_b[q] : a;
        Lanes::rows_of(a.x, b.x, scores[4 * q], scores[4 * q + 1]);
        Lanes::rows_of(a.y, b.y, scores[4 * q + 2], scores[4 * q + 3]);
      }
    }
  }

  // One column for this lane's R rows: h_left and e arrive as the previous
  // column's and leave as this one's; f enters above the first row and
  // leaves below the last. Everything but F's chain comes first, from the
  // previous column, so no row waits on another for it; H overwrites h_left
  // in place.
  template <int R, class Lanes>
  __device__ static void column_update(const typename Lanes::Word (&scores)[R], const typename Lanes::Word h_diagonal,
                                       typename Lanes::Word (&h_left)[R], typename Lanes::Word (&e)[R],
                                       typename Lanes::Word& f, const typename Lanes::Word minus_open_extend,
                                       const typename Lanes::Word minus_extend, typename Lanes::Word& best) {
    using Word = typename Lanes::Word;
    Word t[R];
    t[0] = Lanes::add_max_relu(h_diagonal, scores[0], e[0]);
#pragma unroll
    for (int r = 1; r < R; ++r) t[r] = Lanes::add_max_relu(h_left[r - 1], scores[r], e[r]);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      h_left[r] = Lanes::max(t[r], f);
      gaps_after<Lanes>(h_left[r], e[r], f, minus_open_extend, minus_extend);
    }
    // The best H is a best t: an H equal to F is below the H its gap opened from.
#pragma unroll
    for (int r = 0; r + 1 < R; r += 2) best = Lanes::max3(best, t[r], t[r + 1]);
  }
};

// WideForm: the profile of a pass in shared memory is kProfileResidues x
// G * R scores, 32 bits each, laid out as wide_profile_index() says (the four rows
// a lane loads at once sit beside the next lane's, so the eight lanes a
// 128-bit load serves at a time hit eight different bank groups).
struct WideForm {
  template <int G, int R>
  static constexpr int kSharedWords = kProfileResidues * G * R / 4;  // 128-bit words

  template <int G, int R>
  __device__ static const uint4* lane_profile(const uint4* shared, int lane) {
    return shared + lane;
  }

  // The host lays every pass out as shared memory holds it: one copy.
  template <int G, int R>
  __device__ static void load_pass(uint4* shared, const KernelParams& p, int pass) {
    constexpr int kWords = kSharedWords<G, R>;
    const uint4* const source = static_cast<const uint4*>(p.profile) + static_cast<std::int64_t>(pass) * kWords;
    for (int i = static_cast<int>(threadIdx.x); i < kWords; i += kBlockThreads) shared[i] = source[i];
  }

  template <int G, int R, class Lanes>
  __device__ static void column_scores(const uint4* __restrict__ lane_profile, const unsigned residue_pair,
                                       typename Lanes::Word (&scores)[R]) {
    constexpr int kPerResidue = R / 4 * G;
    const uint4* const profile_a = lane_profile + (residue_pair & 0xFFu) * kPerResidue;
    const uint4* const profile_b = lane_profile + ((residue_pair >> 8) & 0xFFu) * kPerResidue;
#pragma unroll
    for (int q = 0; q < R / 4; ++q) {
      const uint4 a = profile_a[q * G];
      const uint4 b = Lanes::kSubjectsPerEntry == 2 ? profile_b[q * G] : a;
      scores[4 * q] = Lanes::pair(a.x, b.x);
      scores[4 * q + 1] = Lanes::pair(a.y, b.y);
      scores[4 * q + 2] = Lanes::pair(a.z, b.z);
      scores[4 * q + 3] = Lanes::pair(a.w, b.w);
    }
  }

  // As CompactForm's, with the diagonal sums taken first (on the FMA pipe)
  // and H in one three-way max with the floor at zero.
  template <int R, class Lanes>
  __device__ static void column_update(const typename Lanes::Word (&scores)[R], const typename Lanes::Word h_diagonal,
                                       typename Lanes::Word (&h_left)[R], typename Lanes::Word (&e)[R],
                                       typename Lanes::Word& f, const typename Lanes::Word minus_open_extend,
                                       const typename Lanes::Word minus_extend, typename Lanes::Word& best) {
    using Word = typename Lanes::Word;
    Word diagonal[R];
    diagonal[0] = Lanes::add(h_diagonal, scores[0]);
#pragma unroll
    for (int r = 1; r < R; ++r) diagonal[r] = Lanes::add(h_left[r - 1], scores[r]);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      h_left[r] = Lanes::max3_relu(diagonal[r], e[r], f);
      gaps_after<Lanes>(h_left[r], e[r], f, minus_open_extend, minus_extend);
    }
#pragma unroll
    for (int r = 0; r + 1 < R; r += 2) best = Lanes::max3(best, h_left[r], h_left[r + 1]);
  }
};

// One pass over the entry's columns for the G * R rows whose profile is in
// shared memory, two columns a step: lane l works on columns 2(t - l) and
// 2(t - l) + 1 at step t, so the shuffles and bookkeeping of a step serve
// two columns, and the second column's rows can start while the first
// column's F chain runs. kReadsTop: the rows above come from the previous
// pass (else they are the matrix's zero row); kWritesBottom: the last row is
// kept for the next pass. A column past an odd entry's end holds the padding
// residue and is never stored.
template <int G, int R, class Lanes, class Form, bool kReadsTop, bool kWritesBottom>
__device__ __forceinline__ void sweep(const KernelParams& p, const uint4* __restrict__ profile, const Entry entry,
                                      const int lane, const unsigned mask, typename Lanes::Word& best) {
  using Word = typename Lanes::Word;
  auto* const boundary = reinterpret_cast<uint2*>(p.boundary) + entry.first_column;
  const std::uint16_t* const residues = p.residues + entry.first_column;
  const Word minus_extend = Lanes::splat(-p.extend);
  const Word minus_open_extend = Lanes::splat(-p.open_extend);
  const auto* const lane_profile = Form::template lane_profile<G, R>(profile, lane);
  const int columns = entry.columns;
  const int pairs_of_columns = (columns + 1) / 2;
  const uint2 zero_row = make_uint2(0u, static_cast<unsigned>(minus_open_extend));

  Word h_left[R];  // this lane's rows at the previous column
  Word e[R];       // the horizontal gap entering the current column
#pragma unroll
  for (int r = 0; r < R; ++r) {
    h_left[r] = Lanes::splat(0);
    e[r] = minus_open_extend;
  }
  // The last row's H and the F below it, at this lane's two current columns.
  Word last_h[2] = {Lanes::splat(0), Lanes::splat(0)};
  Word last_f[2] = {minus_open_extend, minus_open_extend};
  Word h_above_previous = Lanes::splat(0);  // H above the first row, one column back: the diagonal
  unsigned residues_of_step = kPadPair | (kPadPair << 16);  // two columns' residue pairs
  unsigned residue_chunk = residues_of_step;
  uint4 top_chunk = make_uint4(zero_row.x, zero_row.y, zero_row.x, zero_row.y);
  uint4 bottom = make_uint4(0u, 0u, 0u, 0u);

  const int steps = pairs_of_columns + G - 1;
  for (int t = 0; t < steps; ++t) {
    const int pair_of_columns = t - lane;
    const int in_chunk = t % G;
    if (in_chunk == 0) {  // the group fetches lane 0's inputs for the next G steps together
      const int c = 2 * (t + lane);
      const unsigned first = c < columns ? residues[c] : kPadPair;
      const unsigned second = c + 1 < columns ? residues[c + 1] : kPadPair;
      residue_chunk = first | (second << 16);
      if constexpr (kReadsTop) {
        const uint2 top_first = c < columns ? boundary[c] : zero_row;
        const uint2 top_second = c + 1 < columns ? boundary[c + 1] : zero_row;
        top_chunk = make_uint4(top_first.x, top_first.y, top_second.x, top_second.y);
      }
    }
    Word h_above[2] = {__shfl_up_sync(mask, last_h[0], 1, G), __shfl_up_sync(mask, last_h[1], 1, G)};
    Word f[2] = {__shfl_up_sync(mask, last_f[0], 1, G), __shfl_up_sync(mask, last_f[1], 1, G)};
    const unsigned passed_residues = __shfl_up_sync(mask, residues_of_step, 1, G);
    const unsigned chunk_residues = __shfl_sync(mask, residue_chunk, in_chunk, G);
    if constexpr (kReadsTop) {
      const Word top_h0 = static_cast<Word>(__shfl_sync(mask, top_chunk.x, in_chunk, G));
      const Word top_f0 = static_cast<Word>(__shfl_sync(mask, top_chunk.y, in_chunk, G));
      const Word top_h1 = static_cast<Word>(__shfl_sync(mask, top_chunk.z, in_chunk, G));
      const Word top_f1 = static_cast<Word>(__shfl_sync(mask, top_chunk.w, in_chunk, G));
      if (lane == 0) {
        h_above[0] = top_h0;
        f[0] = top_f0;
        h_above[1] = top_h1;
        f[1] = top_f1;
      }
    } else if (lane == 0) {
      h_above[0] = h_above[1] = Lanes::splat(0);
      f[0] = f[1] = minus_open_extend;
    }
    residues_of_step = lane == 0 ? chunk_residues : passed_residues;

    if (pair_of_columns >= 0 && pair_of_columns < pairs_of_columns) {
      Word scores[R];
      Form::template column_scores<G, R, Lanes>(lane_profile, residues_of_step & 0xFFFFu, scores);
      Form::template column_update<R, Lanes>(scores, h_above_previous, h_left, e, f[0], minus_open_extend,
                                             minus_extend, best);
      last_h[0] = h_left[R - 1];
      last_f[0] = f[0];
      Form::template column_scores<G, R, Lanes>(lane_profile, residues_of_step >> 16, scores);
      Form::template column_update<R, Lanes>(scores, h_above[0], h_left, e, f[1], minus_open_extend, minus_extend,
                                             best);
      last_h[1] = h_left[R - 1];
      last_f[1] = f[1];
      h_above_previous = h_above[1];
    }

    if constexpr (kWritesBottom) {
      // The last lane's rows are the next pass's top: gather G steps of them
      // across the group, then store them together.
      const Word bottom_h0 = __shfl_sync(mask, last_h[0], G - 1, G);
      const Word bottom_f0 = __shfl_sync(mask, last_f[0], G - 1, G);
      const Word bottom_h1 = __shfl_sync(mask, last_h[1], G - 1, G);
      const Word bottom_f1 = __shfl_sync(mask, last_f[1], G - 1, G);
      const int written = t - (G - 1);
      if (written >= 0) {
        if (lane == written % G) {
          bottom = make_uint4(static_cast<unsigned>(bottom_h0), static_cast<unsigned>(bottom_f0),
                              static_cast<unsigned>(bottom_h1), static_cast<unsigned>(bottom_f1));
        }
        if (written % G == G - 1 || written == pairs_of_columns - 1) {
          const int stored = written - written % G + lane;
          const int c = 2 * stored;
          if (stored <= written) {
            boundary[c] = make_uint2(bottom.x, bottom.y);
            if (c + 1 < columns) boundary[c + 1] = make_uint2(bottom.z, bottom.w);
          }
        }
      }
    }
  }
}

// The profile of the current pass sits in dynamic shared memory, as Form
// lays it out.
template <int G, int R, class Lanes, class Form>
__global__ void __launch_bounds__(kBlockThreads) sw_scores_kernel(const KernelParams p) {
  static_assert(32 % G == 0 && G >= 8 && R % 4 == 0,
                "groups tile a warp, and fill the eight lanes a 128-bit load serves; lanes load four rows at a time");
  using Word = typename Lanes::Word;
  extern __shared__ uint4 profile[];

  const int lane = static_cast<int>(threadIdx.x) % G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : ((1u << G) - 1u) << (static_cast<int>(threadIdx.x) % 32 / G * G);
  const std::int32_t entry_index = static_cast<std::int32_t>((blockIdx.x * blockDim.x + threadIdx.x) / G);
  const bool has_entry = entry_index < p.entries;
  Entry entry{0, 0};
  if (has_entry) {
    entry.first_column = p.column_offsets[entry_index];
    entry.columns = static_cast<int>(p.column_offsets[entry_index + 1] - entry.first_column);
  }

  Word best = Lanes::splat(0);
  for (int pass = 0; pass < p.passes; ++pass) {
    __syncthreads();  // every group is done with the previous pass's profile
    Form::template load_pass<G, R>(profile, p, pass);
    __syncthreads();
    if (!has_entry) continue;
    const bool first = pass == 0;
    const bool last = pass == p.passes - 1;
    if (first && last) {
      sweep<G, R, Lanes, Form, false, false>(p, profile, entry, lane, mask, best);
    } else if (first) {
      sweep<G, R, Lanes, Form, false, true>(p, profile, entry, lane, mask, best);
    } else if (last) {
      sweep<G, R, Lanes, Form, true, false>(p, profile, entry, lane, mask, best);
    } else {
      sweep<G, R, Lanes, Form, true, true>(p, profile, entry, lane, mask, best);
    }
  }

  if (!has_entry) return;
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    best = Lanes::max(best, static_cast<Word>(__shfl_xor_sync(mask, best, offset, G)));
  }
  if (lane == 0) Lanes::store(p, entry_index, best);
}

}  // namespace trellis::align::cuda::detail
