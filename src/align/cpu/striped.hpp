// The striped kernels of each x86-64 instruction set, on raw buffers: the
// engine (sw_scores.cpp) owns the memory, so the AVX2 file shares no
// library code with the rest of the program (nothing compiled with -mavx2
// can be picked by the linker for a machine without AVX2).
#pragma once

#include <cstddef>
#include <cstdint>

#include "trellis/align/sequence.hpp"

namespace trellis::align::cpu {

// Gap costs as the kernels subtract them (BLAST's open + extend for the
// first position), and the 8-bit profile's bias (minus the smallest score).
struct StripedCosts {
  std::int32_t open_cost = 0;
  std::int32_t extend_cost = 0;
  std::int32_t bias = 0;
};

// Both kernels return the best local score, or -1 when a lane saturated.
// profile: residue r's `segments` vectors start at r * segments vectors;
// 8-bit entries hold score + bias (0 for padding), 16-bit entries the score
// (0 for padding). workspace: 3 * segments vectors. Both buffers are aligned
// to the vector size.
namespace sse2 {
inline constexpr std::size_t kVectorBytes = 16;
std::int32_t best_score_8bit(const void* profile, std::size_t segments, const Residue* subject,
                             std::size_t subject_length, const StripedCosts& costs, void* workspace);
std::int32_t best_score_16bit(const void* profile, std::size_t segments, const Residue* subject,
                              std::size_t subject_length, const StripedCosts& costs, void* workspace);
}  // namespace sse2

namespace avx2 {
inline constexpr std::size_t kVectorBytes = 32;
std::int32_t best_score_8bit(const void* profile, std::size_t segments, const Residue* subject,
                             std::size_t subject_length, const StripedCosts& costs, void* workspace);
std::int32_t best_score_16bit(const void* profile, std::size_t segments, const Residue* subject,
                              std::size_t subject_length, const StripedCosts& costs, void* workspace);
}  // namespace avx2

}  // namespace trellis::align::cpu
