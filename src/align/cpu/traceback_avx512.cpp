// The traceback's direction pass on AVX-512 (16 lanes of 32 bits). This file
// alone is compiled with -mavx512f; traceback.cpp calls it only after
// __builtin_cpu_supports("avx512f").
// GCC 12's AVX-512 intrinsics fill unused result lanes from a deliberately
// uninitialised _mm512_undefined_epi32() and then warn about it once inlined
// (GCC bug 105593, fixed in GCC 13): silenced here, where nothing else is.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "traceback_kernel.hpp"

namespace trellis::align::cpu::avx512 {
namespace {

struct Lanes32 {
  using Vector = __m512i;
  using Mask = std::uint16_t;
  static constexpr std::size_t kLanes = 16;

  static __m512i load(const std::int32_t* p) { return _mm512_load_si512(p); }
  static void store(std::int32_t* p, __m512i v) { _mm512_store_si512(p, v); }
  static __m512i splat(std::int32_t x) { return _mm512_set1_epi32(x); }
  static __m512i add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
  static __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
  static __m512i max(__m512i a, __m512i b) { return _mm512_max_epi32(a, b); }
  static Mask greater(__m512i a, __m512i b) { return static_cast<Mask>(_mm512_cmpgt_epi32_mask(a, b)); }
  static Mask equal(__m512i a, __m512i b) { return static_cast<Mask>(_mm512_cmpeq_epi32_mask(a, b)); }
  static __m512i shift_up(__m512i v, std::int32_t fill) {
    // Lanes 1..15 take lanes 0..14; lane 0, outside the mask, takes fill.
    return _mm512_mask_permutexvar_epi32(_mm512_set1_epi32(fill), __mmask16{0xFFFE},
                                         _mm512_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), v);
  }
  static std::int32_t horizontal_max(__m512i v) { return _mm512_reduce_max_epi32(v); }
};

}  // namespace

EndCell traceback_directions(const std::int32_t* profile, std::size_t segments, const Residue* query,
                             std::size_t query_length, std::size_t subject_length, const TracebackCosts& costs,
                             std::int32_t stop_score, std::int32_t* workspace, DirectionMasks<Mask>* directions) {
  return striped_traceback_directions<Lanes32>(profile, segments, query, query_length, subject_length, costs,
                                               stop_score, workspace, directions);
}

}  // namespace trellis::align::cpu::avx512
