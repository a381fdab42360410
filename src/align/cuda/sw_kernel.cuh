// The Smith-Waterman-Gotoh score kernel.
//
// One group of G lanes (G divides 32) scores one database entry. The query's
// rows are split among the lanes, R consecutive rows each, and the group
// sweeps the entry's columns as a wavefront: at step t lane l works on
// columns 2(t - l) and 2(t - l) + 1, and passes its last row's H and F (the
// vertical gap entering the next row) at both to lane l + 1 by shuffle. A
// query longer than G * R rows takes several passes over the columns;
// between passes the last row's H and F of every column wait in device
// memory (`boundary`). The query profile (the substitution score of every
// residue against every query row) of the current pass sits in shared
// memory, which every group of the block shares, so the block's groups run
// the passes in step.
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
#include <type_traits>

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
      const std::int32_t slot = 2 * entry + s;
      const std::int32_t at = p.subject_of_slot == nullptr ? slot : p.subject_of_slot[slot];
      if (at >= 0) p.scores[at] = halves[s] >= p.overflow_threshold ? kOverflow : halves[s];
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
  __device__ static void store(const KernelParams& p, std::int32_t entry, Word best) {
    const std::int32_t at = p.subject_of_slot == nullptr ? entry : p.subject_of_slot[entry];
    if (at >= 0) p.scores[at] = best;
  }
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
  template <int G, int R, class Lanes, int kColumn>
  __device__ static void column_scores(const uint2* __restrict__ lane_profile, const unsigned residues,
                                       typename Lanes::Word (&scores)[R]) {
    constexpr int kWordsPerResidue = G * R / 4;
    const unsigned residue_pair = residues >> (16 * kColumn);
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

// 128 bits of shared memory at a 32-bit shared-memory address. Volatile: a
// pass's profile replaces the previous one at the same addresses, so no load
// may be merged with or moved past another pass's.
__device__ __forceinline__ uint4 load_shared(const unsigned address) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(address));
  return v;
}

// WideForm: the profile of a pass in shared memory is kProfileResidues x
// G * R scores, 32 bits each, laid out as wide_profile_index() says (the four rows
// a lane loads at once sit beside the next lane's, so the eight lanes a
// 128-bit load serves at a time hit eight different bank groups).
struct WideForm {
  template <int G, int R>
  static constexpr int kSharedWords = kProfileResidues* G* R / 4;  // 128-bit words

  // A lane's profile as a shared-memory address (32 bits), so that a
  // residue's scores are one multiply-add away from it.
  template <int G, int R>
  __device__ static unsigned lane_profile(const uint4* shared, int lane) {
    return static_cast<unsigned>(__cvta_generic_to_shared(shared + lane));
  }

  // The host lays every pass out as shared memory holds it: one copy.
  template <int G, int R>
  __device__ static void load_pass(uint4* shared, const KernelParams& p, int pass) {
    constexpr int kWords = kSharedWords<G, R>;
    const uint4* const source = static_cast<const uint4*>(p.profile) + static_cast<std::int64_t>(pass) * kWords;
    for (int i = static_cast<int>(threadIdx.x); i < kWords; i += kBlockThreads) shared[i] = source[i];
  }

  // `residues` holds two columns' residue pairs; kColumn picks one. Each
  // residue is taken out by one byte permute and becomes an address in one
  // multiply-add (a mask, a shift and two adds before).
  template <int G, int R, class Lanes, int kColumn>
  __device__ static void column_scores(const unsigned lane_profile, const unsigned residues,
                                       typename Lanes::Word (&scores)[R]) {
    constexpr unsigned kResidueBytes = R / 4 * G * sizeof(uint4);
    const unsigned residue_a = __byte_perm(residues, 0, 0x4440 + 2 * kColumn);
    const unsigned residue_b = __byte_perm(residues, 0, 0x4441 + 2 * kColumn);
    const unsigned profile_a = residue_a * kResidueBytes + lane_profile;
    const unsigned profile_b = residue_b * kResidueBytes + lane_profile;
#pragma unroll
    for (int q = 0; q < R / 4; ++q) {
      const uint4 a = load_shared(profile_a + q * G * sizeof(uint4));
      const uint4 b = Lanes::kSubjectsPerEntry == 2 ? load_shared(profile_b + q * G * sizeof(uint4)) : a;
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

// Lane 0's inputs for one step: the residue pairs of the step's two columns
// and, where the pass reads a top row, the H and F above them. Past the
// entry's end: padding, and the matrix's zero row. Other lanes load nothing
// (the loads are predicated, not branched round). Every entry starts at an
// even column and has an even number of them (the layout pads odd lengths
// with a padding column), so a step's two columns are one aligned load each.
struct StepInputs {
  unsigned residues;  // the first column's residue pair in the low half, the second's in the high
  uint4 top;          // H and F above the first column, then the second
};

// Two padding columns' residue pairs, as StepInputs holds them.
inline constexpr unsigned kPadColumns = kPadPair | (unsigned{kPadPair} << 16);

// Lane 0 loads the columns below `residue_columns` and, where it reads a top
// row, below `top_columns`; both are 0 elsewhere, which makes each
// predicate one comparison.
template <bool kPasses>
__device__ __forceinline__ void load_step_inputs(const unsigned* residues, const uint4* boundary, int residue_columns,
                                                 int top_columns, int pair_of_columns, StepInputs& inputs) {
  const int c = 2 * pair_of_columns;
  inputs.residues = c < residue_columns ? residues[pair_of_columns] : kPadColumns;
  // Past the entry's end the row above keeps the last one loaded: the
  // padding columns below it score -1 a cell, so nothing there reaches a
  // score the entry's real cells have not. Not assigning saves a move a
  // load. A pass that reads no top row keeps the zero row it started with.
  if constexpr (kPasses) {
    if (c < top_columns) inputs.top = boundary[pair_of_columns];
  }
}

// Steps a sweep's loop takes an iteration (even: each set of lane 0's inputs
// keeps its registers). The wide form's loop has its per-iteration work and
// register moves spread over 4 steps (8 x 32: 979 instructions a two steps
// against 989); the compact form's three loops of each kind of pass keep 2
// (with 4 they grow twice as long and were slower on long queries; 8 steps
// made the wide loop too large for the instruction cache). Timings:
// bench/results/NOTES.md, "Two columns a load, four steps an iteration".
template <class Form>
inline constexpr int kStepsAnIteration = std::is_same_v<Form, WideForm> ? 4 : 2;

// One pass over the entry's columns for the G * R rows whose profile is in
// shared memory, two columns a step: lane l works on columns 2(t - l) and
// 2(t - l) + 1 at step t, so the shuffles and bookkeeping of a step serve
// two columns, and the second column's rows can start while the first
// column's F chain runs. Where the query takes several passes (kPasses),
// reads_top says the rows above come from the previous pass (else they are
// the matrix's zero row) and writes_bottom that the last row is kept for the
// next pass. In the wide form these two are flags at run time: one loop
// serves every pass, so the multiprocessor's instruction cache holds one
// loop where passes in different phases would otherwise run three (a loop
// of 32 rows a lane is about 16 KB of code); the kernel passes the compact
// form constants instead.
//
// Every lane of the warp computes at every one of the warp's `steps`, with
// no branch round the recurrence: a lane before its first column sees
// padding residues and the zero row from the lane above, which leave its
// zero state as it is, and a lane past its entry's end (or with no entry)
// scores padding columns, which only lose score. So the warp never diverges
// inside the loop and its shuffles need no convergence check. Lane 0 loads
// its inputs two steps ahead (two steps to an iteration, so each set of
// inputs keeps its registers), and the last lane stores its bottom row
// itself.
template <int G, int R, class Lanes, class Form, bool kPasses>
__device__ __forceinline__ void sweep(const KernelParams& p, const uint4* __restrict__ profile, const Entry entry,
                                      const int lane, const int steps, const bool reads_top, const bool writes_bottom,
                                      typename Lanes::Word& best) {
  using Word = typename Lanes::Word;
  constexpr unsigned kWarp = 0xFFFFFFFFu;
  auto* const boundary = reinterpret_cast<uint4*>(p.boundary + entry.first_column);
  const auto* const residues = reinterpret_cast<const unsigned*>(p.residues + entry.first_column);
  const Word minus_extend = Lanes::splat(-p.extend);
  const Word minus_open_extend = Lanes::splat(-p.open_extend);
  const auto lane_profile = Form::template lane_profile<G, R>(profile, lane);
  const int columns = entry.columns;
  const uint2 zero_row = make_uint2(0u, static_cast<unsigned>(minus_open_extend));
  const bool loads = lane == 0;
  const int residue_columns = loads ? columns : 0;
  const int top_columns = loads && reads_top ? columns : 0;
  const unsigned bottom_columns = writes_bottom && lane == G - 1 ? columns : 0;

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
  unsigned residues_of_step = kPadColumns;  // two columns' residue pairs

  // `inputs` holds lane 0's inputs for step t; once taken, it is refilled
  // for step t + 2, so the loads have two steps to arrive (the boundary row
  // comes from device memory).
  const auto step = [&](const int t, StepInputs& inputs) {
    Word h_above[2] = {__shfl_up_sync(kWarp, last_h[0], 1, G), __shfl_up_sync(kWarp, last_h[1], 1, G)};
    Word f[2] = {__shfl_up_sync(kWarp, last_f[0], 1, G), __shfl_up_sync(kWarp, last_f[1], 1, G)};
    const unsigned passed_residues = __shfl_up_sync(kWarp, residues_of_step, 1, G);
    if (loads) {
      h_above[0] = static_cast<Word>(kPasses ? inputs.top.x : zero_row.x);
      f[0] = static_cast<Word>(kPasses ? inputs.top.y : zero_row.y);
      h_above[1] = static_cast<Word>(kPasses ? inputs.top.z : zero_row.x);
      f[1] = static_cast<Word>(kPasses ? inputs.top.w : zero_row.y);
    }
    residues_of_step = loads ? inputs.residues : passed_residues;
    load_step_inputs<kPasses>(residues, boundary, residue_columns, top_columns, t + 2, inputs);

    Word scores[R];
    Form::template column_scores<G, R, Lanes, 0>(lane_profile, residues_of_step, scores);
    Form::template column_update<R, Lanes>(scores, h_above_previous, h_left, e, f[0], minus_open_extend, minus_extend,
                                           best);
    last_h[0] = h_left[R - 1];
    last_f[0] = f[0];
    Form::template column_scores<G, R, Lanes, 1>(lane_profile, residues_of_step, scores);
    Form::template column_update<R, Lanes>(scores, h_above[0], h_left, e, f[1], minus_open_extend, minus_extend, best);
    last_h[1] = h_left[R - 1];
    last_f[1] = f[1];
    h_above_previous = h_above[1];

    if constexpr (kPasses) {            // the last lane's rows are the next pass's top
      const int c = 2 * (t - (G - 1));  // negative before the last lane's first column
      if (static_cast<unsigned>(c) < bottom_columns) {
        boundary[c / 2] = make_uint4(static_cast<unsigned>(last_h[0]), static_cast<unsigned>(last_f[0]),
                                     static_cast<unsigned>(last_h[1]), static_cast<unsigned>(last_f[1]));
      }
    }
  };

  StepInputs even{kPadColumns, make_uint4(zero_row.x, zero_row.y, zero_row.x, zero_row.y)};
  StepInputs odd = even;
  load_step_inputs<kPasses>(residues, boundary, residue_columns, top_columns, 0, even);
  load_step_inputs<kPasses>(residues, boundary, residue_columns, top_columns, 1, odd);
  for (int t = 0; t < steps; t += kStepsAnIteration<Form>) {
    step(t, even);
    if (t + 1 == steps) break;
    step(t + 1, odd);
    if constexpr (kStepsAnIteration<Form> == 4) {
      if (t + 2 == steps) break;
      step(t + 2, even);
      if (t + 3 == steps) break;
      step(t + 3, odd);
    }
  }
}

// Blocks a multiprocessor should hold at once, which caps the registers a
// thread: six (80 registers) for 12 rows a lane or fewer and five (96) for
// 16, which fit without spilling, for more warps to hide the recurrence's
// latencies; 0, the compiler's own choice, for larger shapes, which spill
// under a cap of six (bench/results/NOTES.md, "The sweep: a warp that never
// diverges").
template <int R>
inline constexpr int kMinBlocks = R <= 12 ? 6 : (R == 16 ? 5 : 0);

// The profile of the current pass sits in dynamic shared memory, as Form
// lays it out.
template <int G, int R, class Lanes, class Form>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks<R>) sw_scores_kernel(const KernelParams p) {
  static_assert(32 % G == 0 && G >= 8 && R % 4 == 0,
                "groups tile a warp, and fill the eight lanes a 128-bit load serves; lanes load four rows at a time");
  using Word = typename Lanes::Word;
  extern __shared__ uint4 profile[];

  const int lane = static_cast<int>(threadIdx.x) % G;
  const std::int32_t entry_index = static_cast<std::int32_t>((blockIdx.x * blockDim.x + threadIdx.x) / G);
  const bool has_entry = entry_index < p.entries;
  Entry entry{0, 0};
  if (has_entry) {
    entry.first_column = p.column_offsets[entry_index];
    entry.columns = static_cast<int>(p.column_offsets[entry_index + 1] - entry.first_column);
  }
  // The warp's groups sweep together, as many steps as its longest entry
  // takes; a warp with no entry has none.
  const int warp_pairs_of_columns = static_cast<int>(__reduce_max_sync(0xFFFFFFFFu, (entry.columns + 1) / 2));
  const bool warp_has_entry = __any_sync(0xFFFFFFFFu, has_entry);
  const int steps = warp_pairs_of_columns + G - 1;

  Word best = Lanes::splat(0);
  for (int pass = 0; pass < p.passes; ++pass) {
    __syncthreads();  // every group is done with the previous pass's profile
    Form::template load_pass<G, R>(profile, p, pass);
    __syncthreads();
    if (!warp_has_entry) continue;
    const bool first = pass == 0;
    const bool last = pass == p.passes - 1;
    if (first && last) {
      sweep<G, R, Lanes, Form, false>(p, profile, entry, lane, steps, false, false, best);
    } else if (std::is_same_v<Form, WideForm>) {
      // One loop for every pass where the device is full (see sweep()).
      sweep<G, R, Lanes, Form, true>(p, profile, entry, lane, steps, !first, !last, best);
    } else if (first) {
      // The compact form runs where a few long subjects set the time and
      // few warps are resident: a loop for each kind of pass, the flags
      // constant, shortens their steps (bench/results/NOTES.md, "32 rows a
      // lane, one loop for every pass").
      sweep<G, R, Lanes, Form, true>(p, profile, entry, lane, steps, false, true, best);
    } else if (last) {
      sweep<G, R, Lanes, Form, true>(p, profile, entry, lane, steps, true, false, best);
    } else {
      sweep<G, R, Lanes, Form, true>(p, profile, entry, lane, steps, true, true, best);
    }
  }

#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    best = Lanes::max(best, static_cast<Word>(__shfl_xor_sync(0xFFFFFFFFu, best, offset, G)));
  }
  if (has_entry && lane == 0) Lanes::store(p, entry_index, best);
}

}  // namespace trellis::align::cuda::detail
