// The striped kernels on SSE2 (16 lanes of 8 bits, 8 of 16 bits): the
// baseline of every x86-64 processor.
#include <emmintrin.h>

#include "striped.hpp"
#include "striped_kernel.hpp"

namespace trellis::align::cpu::sse2 {
namespace {

// Unsigned 8-bit lanes; the profile holds score + bias so it is unsigned.
struct Lanes8 {
  using Vector = __m128i;
  __m128i bias, open, extend, ceiling_minus_one;

  explicit Lanes8(const StripedCosts& costs)
      : bias(_mm_set1_epi8(static_cast<char>(costs.bias))),
        open(_mm_set1_epi8(static_cast<char>(costs.open_cost < 255 ? costs.open_cost : 255))),
        extend(_mm_set1_epi8(static_cast<char>(costs.extend_cost < 255 ? costs.extend_cost : 255))),
        // A cell whose true score passes 255 - bias is stored as exactly that.
        ceiling_minus_one(_mm_set1_epi8(static_cast<char>(255 - costs.bias - 1))) {}

  static __m128i zero() { return _mm_setzero_si128(); }
  __m128i add_score(__m128i h, __m128i score) const { return _mm_subs_epu8(_mm_adds_epu8(h, score), bias); }
  __m128i gap_open(__m128i v) const { return _mm_subs_epu8(v, open); }
  __m128i gap_extend(__m128i v) const { return _mm_subs_epu8(v, extend); }
  static __m128i max(__m128i a, __m128i b) { return _mm_max_epu8(a, b); }
  static bool any_greater(__m128i a, __m128i b) {
    return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(a, b), _mm_setzero_si128())) != 0xFFFF;
  }
  static __m128i shift_up(__m128i v) { return _mm_slli_si128(v, 1); }
  bool reached_ceiling(__m128i best) const { return any_greater(best, ceiling_minus_one); }
  static std::int32_t horizontal_max(__m128i v) {
    alignas(16) std::uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
    std::int32_t best = 0;
    for (const std::uint8_t lane : lanes) best = lane > best ? lane : best;
    return best;
  }
};

// Signed 16-bit lanes holding values in [0, 32767]; gap subtraction is
// unsigned so it stops at zero, the score addition signed and saturating.
struct Lanes16 {
  using Vector = __m128i;
  __m128i open, extend, ceiling_minus_one;

  explicit Lanes16(const StripedCosts& costs)
      : open(_mm_set1_epi16(static_cast<short>(costs.open_cost < 32767 ? costs.open_cost : 32767))),
        extend(_mm_set1_epi16(static_cast<short>(costs.extend_cost < 32767 ? costs.extend_cost : 32767))),
        ceiling_minus_one(_mm_set1_epi16(32766)) {}

  static __m128i zero() { return _mm_setzero_si128(); }
  // May go negative; the max with E (never negative) that follows restores 0.
  static __m128i add_score(__m128i h, __m128i score) { return _mm_adds_epi16(h, score); }
  __m128i gap_open(__m128i v) const { return _mm_subs_epu16(v, open); }
  __m128i gap_extend(__m128i v) const { return _mm_subs_epu16(v, extend); }
  static __m128i max(__m128i a, __m128i b) { return _mm_max_epi16(a, b); }
  static bool any_greater(__m128i a, __m128i b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
  static __m128i shift_up(__m128i v) { return _mm_slli_si128(v, 2); }
  bool reached_ceiling(__m128i best) const { return any_greater(best, ceiling_minus_one); }
  static std::int32_t horizontal_max(__m128i v) {
    alignas(16) std::int16_t lanes[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
    std::int32_t best = 0;
    for (const std::int16_t lane : lanes) best = lane > best ? lane : best;
    return best;
  }
};

}  // namespace

std::int32_t best_score_8bit(const void* profile, std::size_t segments, const Residue* subject,
                             std::size_t subject_length, const StripedCosts& costs, void* workspace) {
  return striped_best_score(Lanes8(costs), static_cast<const __m128i*>(profile), segments, subject, subject_length,
                            static_cast<__m128i*>(workspace));
}

std::int32_t best_score_16bit(const void* profile, std::size_t segments, const Residue* subject,
                              std::size_t subject_length, const StripedCosts& costs, void* workspace) {
  return striped_best_score(Lanes16(costs), static_cast<const __m128i*>(profile), segments, subject, subject_length,
                            static_cast<__m128i*>(workspace));
}

}  // namespace trellis::align::cpu::sse2
