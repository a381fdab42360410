// The traceback's direction pass on AVX2 (8 lanes of 32 bits). This file
// alone is compiled with -mavx2; traceback.cpp calls it only after
// __builtin_cpu_supports("avx2").
#include <immintrin.h>

#include "traceback_kernel.hpp"

namespace trellis::align::cpu::avx2 {
namespace {

struct Lanes32 {
  using Vector = __m256i;
  using Mask = std::uint8_t;
  static constexpr std::size_t kLanes = 8;

  static __m256i load(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::int32_t* p, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static __m256i splat(std::int32_t x) { return _mm256_set1_epi32(x); }
  static __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
  static __m256i sub(__m256i a, __m256i b) { return _mm256_sub_epi32(a, b); }
  static __m256i max(__m256i a, __m256i b) { return _mm256_max_epi32(a, b); }
  static Mask greater(__m256i a, __m256i b) {
    return static_cast<Mask>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b))));
  }
  static Mask equal(__m256i a, __m256i b) {
    return static_cast<Mask>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
  }
  static __m256i shift_up(__m256i v, std::int32_t fill) {
    const __m256i moved = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
    return _mm256_blend_epi32(moved, _mm256_set1_epi32(fill), 0x01);
  }
  static std::int32_t horizontal_max(__m256i v) {
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
  }
};

}  // namespace

EndCell traceback_directions(const std::int32_t* profile, std::size_t segments, const Residue* query,
                             std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                             std::int32_t stop_score, std::int32_t* workspace, DirectionMasks<Mask>* directions) {
  return striped_traceback_directions<Lanes32>(profile, segments, query, query_length, subject_length, costs,
                                               stop_score, workspace, directions);
}

}  // namespace trellis::align::cpu::avx2
