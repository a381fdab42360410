// The cpu engine: one query against many subjects, subjects spread over
// OpenMP threads, each scored by the striped kernels in 8-bit lanes, then
// 16-bit lanes if those saturated, then the exact 32-bit recurrence. Every
// stage either gives the exact score or reports saturation, so the result
// equals reference::sw_score bit for bit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <numeric>

#include <omp.h>

#include "../kernels.hpp"
#include "engine.hpp"
#include "striped.hpp"

namespace trellis::align::cpu {
namespace {

#if defined(__x86_64__)
constexpr std::size_t kAlignment = 64;

// Zeroed bytes whose start is aligned for any vector width used here.
class AlignedBytes {
 public:
  explicit AlignedBytes(std::size_t size) : storage_(size + kAlignment) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = (kAlignment - address % kAlignment) % kAlignment;
  }
  std::byte* data() noexcept { return storage_.data() + offset_; }
  const std::byte* data() const noexcept { return storage_.data() + offset_; }

 private:
  std::vector<std::byte> storage_;
  std::size_t offset_ = 0;
};

using StripedKernel = std::int32_t (*)(const void*, std::size_t, const Residue*, std::size_t, const StripedCosts&,
                                       void*);

// Farrar's query profile: for each residue code, `segments` vectors whose
// lane k of vector i scores query position i + k * segments against that
// residue. Positions past the query's end get `padding` (at most a score
// of 0, see striped_kernel.hpp).
template <typename Lane>
AlignedBytes striped_profile(std::span<const Residue> query, const ScoringMatrix& matrix, std::size_t lanes,
                             std::size_t segments, std::int32_t bias) {
  AlignedBytes profile(kAlphabetSize * segments * lanes * sizeof(Lane));
  std::byte* out = profile.data();
  for (int residue = 0; residue < kAlphabetSize; ++residue) {
    for (std::size_t segment = 0; segment < segments; ++segment) {
      for (std::size_t lane = 0; lane < lanes; ++lane) {
        const std::size_t position = segment + lane * segments;
        const Lane value = position < query.size()
                               ? static_cast<Lane>(matrix.score(query[position], static_cast<Residue>(residue)) + bias)
                               : Lane{0};
        std::memcpy(out, &value, sizeof(Lane));
        out += sizeof(Lane);
      }
    }
  }
  return profile;
}

// One query prepared for one instruction set: both profiles, built once.
struct PreparedQuery {
  std::size_t vector_bytes = 0;
  StripedKernel kernel_8bit = nullptr;
  StripedKernel kernel_16bit = nullptr;
  bool use_8bit = false;  // false when the matrix's range does not fit a byte
  std::size_t segments_8bit = 0;
  std::size_t segments_16bit = 0;
  StripedCosts costs;
  AlignedBytes profile_8bit{0};
  AlignedBytes profile_16bit{0};
};

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

PreparedQuery prepare(InstructionSet set, std::span<const Residue> query, const Scoring& scoring) {
  PreparedQuery prepared;
  if (set == InstructionSet::avx2) {
    prepared.vector_bytes = avx2::kVectorBytes;
    prepared.kernel_8bit = &avx2::best_score_8bit;
    prepared.kernel_16bit = &avx2::best_score_16bit;
  } else {
    prepared.vector_bytes = sse2::kVectorBytes;
    prepared.kernel_8bit = &sse2::best_score_8bit;
    prepared.kernel_16bit = &sse2::best_score_16bit;
  }
  const ScoringMatrix& matrix = scoring.matrix;
  const std::int32_t bias = std::max(0, -matrix.min_score());
  prepared.costs = {scoring.gaps.open + scoring.gaps.extend, scoring.gaps.extend, bias};
  // Profile entries are score + bias in 0..255, and the ceiling 255 - bias
  // must leave room above every single score.
  prepared.use_8bit = std::max(0, matrix.max_score()) + bias < 255;
  prepared.segments_8bit = ceil_div(query.size(), prepared.vector_bytes);
  prepared.segments_16bit = ceil_div(query.size(), prepared.vector_bytes / 2);
  if (prepared.use_8bit) {
    prepared.profile_8bit =
        striped_profile<std::uint8_t>(query, matrix, prepared.vector_bytes, prepared.segments_8bit, bias);
  }
  prepared.profile_16bit =
      striped_profile<std::int16_t>(query, matrix, prepared.vector_bytes / 2, prepared.segments_16bit, 0);
  return prepared;
}

std::int32_t striped_score(const PreparedQuery& prepared, std::span<const Residue> query,
                           std::span<const Residue> subject, const Scoring& scoring, void* workspace) {
  if (subject.empty()) return 0;
  if (prepared.use_8bit) {
    const std::int32_t score = prepared.kernel_8bit(prepared.profile_8bit.data(), prepared.segments_8bit,
                                                    subject.data(), subject.size(), prepared.costs, workspace);
    if (score >= 0) return score;
  }
  const std::int32_t score = prepared.kernel_16bit(prepared.profile_16bit.data(), prepared.segments_16bit,
                                                   subject.data(), subject.size(), prepared.costs, workspace);
  if (score >= 0) return score;
  return reference::sw_score(query, subject, scoring);
}
#endif  // __x86_64__

// Subjects longest first, so the dynamic schedule ends on short ones.
std::vector<std::size_t> longest_first(const SequenceSet& subjects) {
  std::vector<std::size_t> order(subjects.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return subjects.length(a) > subjects.length(b); });
  return order;
}

bool avx2_available() noexcept {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

}  // namespace

std::string_view to_string(InstructionSet set) noexcept {
  switch (set) {
    case InstructionSet::portable:
      return "portable";
    case InstructionSet::sse2:
      return "sse2";
    case InstructionSet::avx2:
      return "avx2";
  }
  return "unknown";
}

std::vector<InstructionSet> supported_instruction_sets() {
  std::vector<InstructionSet> sets{InstructionSet::portable};
#if defined(__x86_64__)
  sets.push_back(InstructionSet::sse2);
  if (avx2_available()) sets.push_back(InstructionSet::avx2);
#endif
  return sets;
}

InstructionSet widest_instruction_set() { return supported_instruction_sets().back(); }

void sw_scores_with(InstructionSet set, std::span<const Residue> query, const SequenceSet& subjects,
                    const Scoring& scoring, std::span<std::int32_t> scores) {
  std::fill(scores.begin(), scores.end(), 0);
  if (query.empty() || subjects.empty()) return;
  // Range errors are raised here, before any thread starts.
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    if (subjects.length(i) > 0) {
      check_score_range(static_cast<std::int64_t>(query.size()), subjects.length(i), scoring.matrix);
    }
  }
  const std::vector<std::size_t> order = longest_first(subjects);
  const auto count = static_cast<std::int64_t>(order.size());
  std::exception_ptr failure;

#if defined(__x86_64__)
  if (set != InstructionSet::portable) {
    const PreparedQuery prepared = prepare(set, query, scoring);
    // One workspace per thread, allocated here so that allocation failures
    // surface as ordinary exceptions. The 16-bit stage has the most
    // segments; the 8-bit one fits in the same bytes.
    const int threads = omp_get_max_threads();
    std::vector<AlignedBytes> workspaces;
    workspaces.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) workspaces.emplace_back(3 * prepared.segments_16bit * prepared.vector_bytes);
#pragma omp parallel for schedule(dynamic, 4)
    for (std::int64_t k = 0; k < count; ++k) {
      const std::size_t index = order[static_cast<std::size_t>(k)];
      // An exception must not leave an OpenMP loop: keep the first one.
      try {
        void* workspace = workspaces[static_cast<std::size_t>(omp_get_thread_num())].data();
        scores[index] = striped_score(prepared, query, subjects.residues(index), scoring, workspace);
      } catch (...) {
#pragma omp critical(trellis_align_cpu_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    return;
  }
#endif

#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t k = 0; k < count; ++k) {
    const std::size_t index = order[static_cast<std::size_t>(k)];
    try {
      scores[index] = reference::sw_score(query, subjects.residues(index), scoring);
    } catch (...) {
#pragma omp critical(trellis_align_cpu_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void sw_scores(std::span<const Residue> query, const SequenceSet& subjects, const Scoring& scoring,
               std::span<std::int32_t> scores) {
  sw_scores_with(widest_instruction_set(), query, subjects, scoring, scores);
}

}  // namespace trellis::align::cpu
