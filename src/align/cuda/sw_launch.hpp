// What the host side of the cuda Smith-Waterman engine shares with its
// kernel (sw_kernel.cuh): the padding conventions, the launch parameters and
// the launches, one per compiled shape. Plain C++, so the engine's host code
// needs no CUDA compiler.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../kernels.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::align::cuda::detail {

// Alphabet codes plus the padding residue.
inline constexpr int kProfileResidues = kAlphabetSize + 1;
inline constexpr std::uint8_t kPadResidue = kAlphabetSize;
inline constexpr std::uint16_t kPadPair = kPadResidue | (kPadResidue << 8);
inline constexpr std::int32_t kPadScore = -1;
// A score the 16-bit lanes could not certify.
inline constexpr std::int32_t kOverflow = -1;
inline constexpr int kBlockThreads = 128;

struct KernelParams {
  const void* profile;       // compact: int16 [kProfileResidues][padded_rows]; wide: wide_profile_index()
  std::int32_t padded_rows;  // passes * G * R
  std::int32_t passes;
  const std::uint16_t* residues;       // per column: subject A's residue in the low byte, B's in the high byte
  const std::int64_t* column_offsets;  // entry e owns columns [column_offsets[e], column_offsets[e + 1]), all even
  std::int32_t entries;
  std::uint64_t* boundary;              // per column: H (low word) and F (high word) of the previous pass's last row
  std::int32_t* scores;                 // per entry slot (2, A then B, for PackedPairs; 1 for Exact32),
  const std::int32_t* subject_of_slot;  // or, where not null, at subject_of_slot[slot] (nothing where < 0)
  std::int32_t open_extend;             // gap penalties as the lanes apply them (see PackedPairs)
  std::int32_t extend;
  std::int32_t overflow_threshold;  // PackedPairs: scores at or above it are reported as kOverflow
};

// Where the wide form's profile keeps the score of profile residue
// `residue` against query row `row`, in 32-bit words: pass by pass, within a
// pass residue by residue, then by four-row chunk, then by lane, then the
// chunk's four rows. A lane's four rows of one residue are one 128-bit load,
// beside the next lane's.
constexpr std::int64_t wide_profile_index(KernelShape shape, int residue, std::int64_t row) {
  const std::int64_t rows_per_pass = static_cast<std::int64_t>(shape.lanes) * shape.rows_per_lane;
  const std::int64_t pass = row / rows_per_pass;
  const std::int64_t lane = row % rows_per_pass / shape.rows_per_lane;
  const std::int64_t chunk = row % shape.rows_per_lane / 4;
  return (((pass * kProfileResidues + residue) * (shape.rows_per_lane / 4) + chunk) * shape.lanes + lane) * 4 + row % 4;
}

// The shared memory a shape's kernel takes: one pass of its profile.
constexpr std::size_t profile_pass_bytes(KernelShape shape) {
  const std::size_t score_bytes = shape.form == KernelForm::wide ? 4 : 2;
  return static_cast<std::size_t>(kProfileResidues) * shape.lanes * shape.rows_per_lane * score_bytes;
}

// The 16-bit kernel over pairs of subjects for a shape of kernel_shapes().
// The compact form's profile holds int16 scores; the wide form's the low 16
// bits of each score, zero-extended.
void launch_packed(KernelShape shape, const KernelParams& params, unsigned blocks, Stream stream = nullptr);

// The exact 32-bit kernel, one subject per entry, in kExactShape (compact
// form: its profile holds int16 scores, which it widens).
inline constexpr KernelShape kExactShape{32, 8};
void launch_exact(const KernelParams& params, unsigned blocks, Stream stream = nullptr);

}  // namespace trellis::align::cuda::detail
