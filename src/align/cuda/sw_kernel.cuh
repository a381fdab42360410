// The Smith-Waterman-Gotoh score kernel.
//
// One group of G lanes (G divides 32) scores one database entry. The query's
// rows are split among the lanes, R consecutive rows each, and the group
// sweeps the entry's columns as a wavefront: at step t lane l works on column
// t - l, and passes its last row's H and F (the vertical gap entering the
// next row) to lane l + 1 by shuffle. A query longer than G * R rows takes
// several passes over the columns; between passes the last row's H and F of
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
  __device__ static Word add(Word a, Word b) { return __vadd2(a, b); }
  __device__ static Word max(Word a, Word b) { return __vmaxs2(a, b); }
  __device__ static Word max3_relu(Word a, Word b, Word c) { return __vimax3_s16x2_relu(a, b, c); }
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
  __device__ static Word max3_relu(Word a, Word b, Word c) { return __vimax3_s32_relu(a, b, c); }
  __device__ static Word add_max(Word a, Word b, Word c) { return __viaddmax_s32(a, b, c); }
  __device__ static void store(const KernelParams& p, std::int32_t entry, Word best) { p.scores[entry] = best; }
};

// The shared profile: kProfileResidues rows of G * R scores, as 64-bit words
// of four consecutive query rows.
template <int G, int R, class Lanes>
__global__ void __launch_bounds__(kBlockThreads) sw_scores_kernel(const KernelParams p) {
  static_assert(32 % G == 0 && R % 4 == 0, "groups tile a warp; lanes load four rows per profile word");
  using Word = typename Lanes::Word;
  constexpr int kRowsPerPass = G * R;
  constexpr int kWordsPerResidue = kRowsPerPass / 4;
  __shared__ uint2 profile[kProfileResidues * kWordsPerResidue];

  const int lane = static_cast<int>(threadIdx.x) % G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : ((1u << G) - 1u) << (static_cast<int>(threadIdx.x) % 32 / G * G);
  const std::int32_t entry = static_cast<std::int32_t>((blockIdx.x * blockDim.x + threadIdx.x) / G);
  const bool has_entry = entry < p.entries;
  auto* const boundary = reinterpret_cast<uint2*>(p.boundary);
  const std::int64_t first_column = has_entry ? p.column_offsets[entry] : 0;
  const int columns = has_entry ? static_cast<int>(p.column_offsets[entry + 1] - first_column) : 0;

  const Word minus_extend = Lanes::splat(-p.extend);
  const Word minus_open_extend = Lanes::splat(-p.open_extend);
  Word best = Lanes::splat(0);

  for (int pass = 0; pass < p.passes; ++pass) {
    __syncthreads();  // every group is done with the previous pass's profile
    const auto* source = reinterpret_cast<const uint2*>(p.profile);
    for (int i = static_cast<int>(threadIdx.x); i < kProfileResidues * kWordsPerResidue; i += kBlockThreads) {
      const int residue = i / kWordsPerResidue;
      profile[i] = source[(static_cast<std::int64_t>(residue) * p.padded_rows + pass * kRowsPerPass) / 4 +
                          i % kWordsPerResidue];
    }
    __syncthreads();
    if (!has_entry) continue;

    const bool first_pass = pass == 0;
    const bool last_pass = pass == p.passes - 1;
    Word h_left[R];  // this lane's rows at the previous column
    Word e[R];       // the horizontal gap entering the current column
#pragma unroll
    for (int r = 0; r < R; ++r) {
      h_left[r] = Lanes::splat(0);
      e[r] = minus_open_extend;
    }
    Word last_h = Lanes::splat(0);        // H of this lane's last row at its current column
    Word last_f = minus_open_extend;      // F entering the next lane's first row there
    Word h_above_previous = Lanes::splat(0);  // H above the first row, one column back: the diagonal
    unsigned residue_pair = kPadPair;
    unsigned residue_chunk = kPadPair;
    uint2 boundary_chunk = make_uint2(0, 0);
    Word out_h = 0;
    Word out_f = 0;

    const int steps = columns + G - 1;
    for (int t = 0; t < steps; ++t) {
      const int column = t - lane;
      if (t % G == 0) {  // the group fetches the next G columns' inputs of lane 0 together
        const int c = t + lane;
        residue_chunk = c < columns ? p.residues[first_column + c] : kPadPair;
        if (!first_pass) {
          boundary_chunk = c < columns ? boundary[first_column + c]
                                       : make_uint2(0u, static_cast<unsigned>(minus_open_extend));
        }
      }
      const unsigned chunk_residue = __shfl_sync(mask, residue_chunk, t % G, G);
      Word top_h = Lanes::splat(0);
      Word top_f = minus_open_extend;
      if (!first_pass) {
        top_h = static_cast<Word>(__shfl_sync(mask, boundary_chunk.x, t % G, G));
        top_f = static_cast<Word>(__shfl_sync(mask, boundary_chunk.y, t % G, G));
      }
      Word h_above = __shfl_up_sync(mask, last_h, 1, G);
      Word f = __shfl_up_sync(mask, last_f, 1, G);
      const unsigned passed_residue = __shfl_up_sync(mask, residue_pair, 1, G);
      if (lane == 0) {
        h_above = top_h;
        f = top_f;
      }
      residue_pair = lane == 0 ? chunk_residue : passed_residue;

      if (column >= 0 && column < columns) {
        Word h_diag = h_above_previous;
        h_above_previous = h_above;
        const uint2* row_a = profile + (residue_pair & 0xFFu) * kWordsPerResidue + lane * (R / 4);
        const uint2* row_b = profile + (residue_pair >> 8) * kWordsPerResidue + lane * (R / 4);
#pragma unroll
        for (int q = 0; q < R / 4; ++q) {
          const uint2 a = row_a[q];
          const uint2 b = Lanes::kSubjectsPerEntry == 2 ? row_b[q] : a;
          Word scores[4];
          Lanes::rows_of(a.x, b.x, scores[0], scores[1]);
          Lanes::rows_of(a.y, b.y, scores[2], scores[3]);
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const int r = 4 * q + k;
            const Word h = Lanes::max3_relu(Lanes::add(h_diag, scores[k]), e[r], f);
            h_diag = h_left[r];
            h_left[r] = h;
            const Word h_open = Lanes::add(h, minus_open_extend);
            e[r] = Lanes::add_max(e[r], minus_extend, h_open);
            f = Lanes::add_max(f, minus_extend, h_open);
            best = Lanes::max(best, h);
          }
        }
        last_h = h_left[R - 1];
        last_f = f;
      }

      if (!last_pass) {
        // The last lane's row is the next pass's top: gather G columns of it
        // across the group, then store them together.
        const Word bottom_h = __shfl_sync(mask, last_h, G - 1, G);
        const Word bottom_f = __shfl_sync(mask, last_f, G - 1, G);
        const int written = t - (G - 1);
        if (written >= 0) {
          if (lane == written % G) {
            out_h = bottom_h;
            out_f = bottom_f;
          }
          if (written % G == G - 1 || written == columns - 1) {
            const int c = written - written % G + lane;
            if (c <= written) {
              boundary[first_column + c] = make_uint2(static_cast<unsigned>(out_h), static_cast<unsigned>(out_f));
            }
          }
        }
      }
    }
  }

  if (!has_entry) return;
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    best = Lanes::max(best, static_cast<Word>(__shfl_xor_sync(mask, best, offset, G)));
  }
  if (lane == 0) Lanes::store(p, entry, best);
}

}  // namespace trellis::align::cuda::detail
