// The striped kernels on AVX2 (32 lanes of 8 bits, 16 of 16 bits). This
// file alone is compiled with -mavx2; the engine calls it only after
// __builtin_cpu_supports("avx2").
#include <immintrin.h>

#include "striped.hpp"
#include "striped_kernel.hpp"

namespace trellis::align::cpu::avx2 {
namespace {

// Moves every lane up by `bytes` across the whole 256-bit register (the
// byte shift of AVX2 works within each 128-bit half): the low half's top
// bytes enter the high half, zeros enter the low half.
template <int bytes>
__m256i shift_lanes_up(__m256i v) {
  const __m256i low_half_moved_up = _mm256_permute2x128_si256(v, v, 0x08);  // [0, low]
  return _mm256_alignr_epi8(v, low_half_moved_up, 16 - bytes);
}

bool all_zero_bytes(__m256i v) { return _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())) == -1; }

// See striped_sse2.cpp for the lane conventions; they are the same.
struct Lanes8 {
  using Vector = __m256i;
  __m256i bias, open, extend, ceiling_minus_one;

  explicit Lanes8(const StripedCosts& costs)
      : bias(_mm256_set1_epi8(static_cast<char>(costs.bias))),
        open(_mm256_set1_epi8(static_cast<char>(costs.open_cost < 255 ? costs.open_cost : 255))),
        extend(_mm256_set1_epi8(static_cast<char>(costs.extend_cost < 255 ? costs.extend_cost : 255))),
        ceiling_minus_one(_mm256_set1_epi8(static_cast<char>(255 - costs.bias - 1))) {}

  static __m256i zero() { return _mm256_setzero_si256(); }
  __m256i add_score(__m256i h, __m256i score) const { return _mm256_subs_epu8(_mm256_adds_epu8(h, score), bias); }
  __m256i gap_open(__m256i v) const { return _mm256_subs_epu8(v, open); }
  __m256i gap_extend(__m256i v) const { return _mm256_subs_epu8(v, extend); }
  static __m256i max(__m256i a, __m256i b) { return _mm256_max_epu8(a, b); }
  static bool any_greater(__m256i a, __m256i b) { return !all_zero_bytes(_mm256_subs_epu8(a, b)); }
  static __m256i shift_up(__m256i v) { return shift_lanes_up<1>(v); }
  bool reached_ceiling(__m256i best) const { return any_greater(best, ceiling_minus_one); }
  static std::int32_t horizontal_max(__m256i v) {
    alignas(32) std::uint8_t lanes[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    std::int32_t best = 0;
    for (const std::uint8_t lane : lanes) best = lane > best ? lane : best;
    return best;
  }
};

struct Lanes16 {
  using Vector = __m256i;
  __m256i open, extend, ceiling_minus_one;

  explicit Lanes16(const StripedCosts& costs)
      : open(_mm256_set1_epi16(static_cast<short>(costs.open_cost < 32767 ? costs.open_cost : 32767))),
        extend(_mm256_set1_epi16(static_cast<short>(costs.extend_cost < 32767 ? costs.extend_cost : 32767))),
        ceiling_minus_one(_mm256_set1_epi16(32766)) {}

  static __m256i zero() { return _mm256_setzero_si256(); }
  static __m256i add_score(__m256i h, __m256i score) { return _mm256_adds_epi16(h, score); }
  __m256i gap_open(__m256i v) const { return _mm256_subs_epu16(v, open); }
  __m256i gap_extend(__m256i v) const { return _mm256_subs_epu16(v, extend); }
  static __m256i max(__m256i a, __m256i b) { return _mm256_max_epi16(a, b); }
  static bool any_greater(__m256i a, __m256i b) { return !all_zero_bytes(_mm256_cmpgt_epi16(a, b)); }
  static __m256i shift_up(__m256i v) { return shift_lanes_up<2>(v); }
  bool reached_ceiling(__m256i best) const { return any_greater(best, ceiling_minus_one); }
  static std::int32_t horizontal_max(__m256i v) {
    alignas(32) std::int16_t lanes[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    std::int32_t best = 0;
    for (const std::int16_t lane : lanes) best = lane > best ? lane : best;
    return best;
  }
};

}  // namespace

std::int32_t best_score_8bit(const void* profile, std::size_t segments, const Residue* subject,
                             std::size_t subject_length, const StripedCosts& costs, void* workspace) {
  return striped_best_score(Lanes8(costs), static_cast<const __m256i*>(profile), segments, subject, subject_length,
                            static_cast<__m256i*>(workspace));
}

std::int32_t best_score_16bit(const void* profile, std::size_t segments, const Residue* subject,
                              std::size_t subject_length, const StripedCosts& costs, void* workspace) {
  return striped_best_score(Lanes16(costs), static_cast<const __m256i*>(profile), segments, subject, subject_length,
                            static_cast<__m256i*>(workspace));
}

}  // namespace trellis::align::cpu::avx2
