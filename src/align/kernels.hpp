// Smith-Waterman kernels, declared once per backend. Every backend returns,
// for each subject, exactly the score reference::sw_score gives (integer
// arithmetic: the same bits everywhere). cpu::sw_traceback returns exactly
// the reference's traceback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align {

// Throws UsageError when matrix max score x min(query, subject length) could
// leave 32 bits (the engines' common precondition).
void check_score_range(std::int64_t query_length, std::int64_t subject_length, const ScoringMatrix& matrix);

namespace reference {

// Scalar Gotoh in 32-bit integers, score only, O(min(m, n)) memory.
std::int32_t sw_score(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring);

// One query against every subject of a set (scores.size() == subjects.size()).
void sw_scores(std::span<const Residue> query, const SequenceSet& subjects, const Scoring& scoring,
               std::span<std::int32_t> scores);

// Scalar Gotoh with one byte of directions per cell, then the traceback
// (tie rules in alignment.hpp). Throws UsageError past kMaxTracebackCells.
Alignment sw_traceback(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring);

}  // namespace reference

namespace cpu {

// Farrar's striped SIMD over OpenMP threads, subjects longest first: 8-bit
// lanes, then 16-bit lanes for subjects that saturated, then the exact
// 32-bit recurrence for those that saturated again. Equals
// reference::sw_scores bit for bit; throws the same UsageError for lengths
// check_score_range rejects, before any work starts.
void sw_scores(std::span<const Residue> query, const SequenceSet& subjects, const Scoring& scoring,
               std::span<std::int32_t> scores);

// reference::sw_traceback's Alignment, every field the same for every input
// (the same UsageError too), from a striped SIMD direction pass
// (cpu/traceback.cpp); the reference itself where AVX2 is missing. Given
// the pair's score (known_score), the pass stops at the first row reaching
// it, and an alignment of another score throws Error.
Alignment sw_traceback(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring,
                       std::optional<std::int32_t> known_score = std::nullopt);

}  // namespace cpu

namespace cuda {

// How the 16-bit kernel takes its substitution scores (sw_kernel.cuh):
// - compact: a 16-bit profile, two subjects' scores merged by byte permutes.
//   Half the shared-memory traffic and the shorter chain from one row to the
//   next: the faster form where a few long subjects set the time.
// - wide: a 32-bit profile, the scores merged by multiply-adds and H taken in
//   one three-way max. The fewest instructions on the ALU pipe, which bounds
//   the kernel when the device is full: the faster form on large databases.
enum class KernelForm { compact, wide };

// The device kernel's lane groups (sw_kernel.cuh): `lanes` lanes score one
// pair of subjects, each lane holding `rows_per_lane` query rows.
struct KernelShape {
  int lanes = 32;
  int rows_per_lane = 8;
  KernelForm form = KernelForm::compact;
  friend bool operator==(const KernelShape&, const KernelShape&) = default;
};

// Every shape the kernel is compiled for.
std::span<const KernelShape> kernel_shapes();

// Subjects resident in device memory, sorted by length and paired for the
// 16-bit kernel, scored against one query at a time. Pairs whose 16-bit
// score could have wrapped are rescored exactly in 32 bits. Keeps a
// reference to `subjects` (the rescoring reads them), which must outlive it.
//
// device_memory_bytes bounds the device memory the layout takes (0: 80% of
// the memory free at construction). A layout beyond it stays in page-locked
// host memory and every query streams it to the device in chunks of
// consecutive pairs, copies overlapping the kernel; the scores are the same.
// A pair longer than a chunk's share of the budget takes a chunk of its own,
// exceeding the budget by what it needs.
class ResidentSubjects {
 public:
  ResidentSubjects(const SequenceSet& subjects, const Scoring& scoring, std::size_t device_memory_bytes = 0);
  ~ResidentSubjects();
  ResidentSubjects(const ResidentSubjects&) = delete;
  ResidentSubjects& operator=(const ResidentSubjects&) = delete;

  // Whether queries stream the subjects from host memory, and in how many
  // chunks (1 when resident, 0 without subjects).
  bool streamed() const noexcept;
  std::size_t chunks() const noexcept;

  // scores.size() == subjects.size(). `shape` forces a kernel shape (one of
  // kernel_shapes(); tests run each); by default it is chosen from the
  // query's length and the number of subjects. Throws UsageError as
  // check_score_range does, before any work starts.
  void scores(std::span<const Residue> query, std::span<std::int32_t> scores,
              std::optional<KernelShape> shape = std::nullopt);
  // The `keep` best subjects as best_subjects() ranks scores(): the scores
  // stay on the device, which returns only the subjects that can rank among
  // the best `keep` (score_selection.hpp).
  std::vector<ScoredSubject> best(std::span<const Residue> query, std::size_t keep,
                                  std::optional<KernelShape> shape = std::nullopt);
  // best() of every query, several of them on the device at once where the
  // layout is resident (one query's longest pairs, which finish last,
  // overlap the next ones' work).
  std::vector<std::vector<ScoredSubject>> best(std::span<const std::span<const Residue>> queries, std::size_t keep,
                                               std::optional<KernelShape> shape = std::nullopt);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cuda
}  // namespace trellis::align
