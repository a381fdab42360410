// What the host side of the cuda Smith-Waterman engine shares with its
// kernel (sw_kernel.cuh): the padding conventions, the launch parameters and
// the launches, one per compiled shape. Plain C++, so the engine's host code
// needs no CUDA compiler.
#pragma once

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
  const std::int16_t* profile;         // [kProfileResidues][padded_rows]
  std::int32_t padded_rows;            // passes * G * R
  std::int32_t passes;
  const std::uint16_t* residues;       // per column: subject A's residue in the low byte, B's in the high byte
  const std::int64_t* column_offsets;  // entry e owns columns [column_offsets[e], column_offsets[e + 1])
  std::int32_t entries;
  std::uint64_t* boundary;             // per column: H (low word) and F (high word) of the previous pass's last row
  std::int32_t* scores;                // per entry: 2 (A then B) for PackedPairs, 1 for Exact32
  std::int32_t open_extend;            // gap penalties as the lanes apply them (see PackedPairs)
  std::int32_t extend;
  std::int32_t overflow_threshold;     // PackedPairs: scores at or above it are reported as kOverflow
};

// The 16-bit kernel over pairs of subjects for a shape of kernel_shapes().
void launch_packed(KernelShape shape, const KernelParams& params, unsigned blocks, Stream stream = nullptr);

// The exact 32-bit kernel, one subject per entry, in kExactShape.
inline constexpr KernelShape kExactShape{32, 8};
void launch_exact(const KernelParams& params, unsigned blocks, Stream stream = nullptr);

}  // namespace trellis::align::cuda::detail
