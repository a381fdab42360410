// Smith-Waterman-Gotoh local alignment of protein sequences.
//
// Score: the best local alignment score under a Scoring (affine gaps in
// BLAST's convention, see scoring.hpp), computed exactly in 32-bit integers;
// 0 when either sequence is empty or nothing scores above zero.
//
// Traceback, for reported hits: the alignment reaching that score, chosen
// deterministically. Among cells with the best score the alignment ends at
// the smallest query position, then the smallest subject position. Walking
// back, a cell prefers the diagonal, then a gap in the subject (a query
// residue against '-'), then a gap in the query; a gap prefers being opened
// over being extended when both give the same score (the shorter gap). The
// alignment starts at the first cell after a zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/backend.hpp"

namespace trellis::align {

// One local alignment as BLAST's tabular output reports it.
struct Alignment {
  std::int32_t score = 0;  // the alignment's raw score
  // 1-based inclusive coordinates as BLAST prints them; 0 when score is 0.
  std::int64_t query_start = 0;
  std::int64_t query_end = 0;      // last query residue, 1-based
  std::int64_t subject_start = 0;  // first subject residue, 1-based
  std::int64_t subject_end = 0;    // last subject residue, 1-based
  std::int64_t length = 0;         // columns: aligned pairs plus gap positions
  std::int64_t identities = 0;     // pairs of equal residue codes
  std::int64_t mismatches = 0;     // pairs of different residue codes
  std::int64_t positives = 0;      // pairs scoring above zero (identities included)
  std::int64_t gap_opens = 0;      // gap runs
  std::int64_t gaps = 0;           // gap positions
  std::string query_aligned;       // residue letters with '-' for gaps
  std::string subject_aligned;     // residue letters with '-' for gaps
  // Runs of M (a residue pair), I (a query residue against a gap) and D (a
  // subject residue against a gap), e.g. "12M2I30M".
  std::string cigar;

  // 100 * identities / length; 0 for an empty alignment.
  double percent_identity() const noexcept {
    return length == 0 ? 0.0 : 100.0 * static_cast<double>(identities) / static_cast<double>(length);
  }
};

// The largest query length x subject length the traceback accepts: it keeps
// one byte of directions per cell (1 GiB at this limit). Beyond it the
// traceback throws UsageError; the score-only functions have no limit.
inline constexpr std::int64_t kMaxTracebackCells = std::int64_t{1} << 30;

// The best local score (reference engine, O(min(m, n)) memory). Throws
// UsageError when the best conceivable score (the matrix's largest entry
// times the shorter length) could overflow 32 bits.
std::int32_t local_alignment_score(std::span<const Residue> query, std::span<const Residue> subject,
                                   const Scoring& scoring);

// One query against every sequence of a set: scores[i] for subjects[i],
// the same on every backend. reference: the scalar oracle, one thread; cpu:
// striped SIMD on all OpenMP threads; cuda: the subjects in device memory,
// pairs of them in the 16-bit lanes of Hopper's DPX instructions, rescored
// in 32 bits where 16 could overflow; vulkan: the subjects on the Vulkan
// device, 16-bit lanes packed in 32-bit words, rescored likewise.
// automatic is cuda where a device is usable, else cpu (never vulkan).
// Throws UsageError as local_alignment_score does.
std::vector<std::int32_t> local_alignment_scores(std::span<const Residue> query, const SequenceSet& subjects,
                                                 const Scoring& scoring, Backend backend = Backend::automatic);

// How a SubjectScorer may use the device.
struct ScorerOptions {
  // cuda: the device memory the subjects may take, in bytes; 0 is 80% of the
  // memory free when the scorer is made. Subjects beyond it stay in
  // page-locked host memory and stream to the device in chunks for every
  // query, copies overlapping the kernel: the same scores, at the host link's
  // pace where it is slower than the kernel. Other backends ignore it.
  std::size_t device_memory_bytes = 0;
};

// A subject of a scorer's set, by its index there, and its score.
struct ScoredSubject {
  std::size_t subject = 0;  // index into the scorer's subjects
  std::int32_t score = 0;   // its local alignment score
  // Equal when subject and score are.
  friend bool operator==(const ScoredSubject&, const ScoredSubject&) = default;
};

// Scores queries one after another against one set of subjects, keeping
// what the backend prepared between them (on cuda the subjects stay in
// device memory, or in host memory streamed to it past
// options.device_memory_bytes). Equal to local_alignment_scores for every
// query. `subjects` must outlive the scorer.
class SubjectScorer {
 public:
  // Prepares subjects for scoring on backend (uploads them on cuda).
  SubjectScorer(const SequenceSet& subjects, const Scoring& scoring, Backend backend = Backend::automatic,
                const ScorerOptions& options = {});
  ~SubjectScorer();  // frees what the backend prepared
  // Takes other's prepared subjects.
  SubjectScorer(SubjectScorer&&) noexcept;
  // Releases this scorer's state and takes other's.
  SubjectScorer& operator=(SubjectScorer&&) noexcept;

  // The backend the scorer runs on (resolved).
  Backend backend() const noexcept;
  // The score of query against every subject, in the set's order.
  std::vector<std::int32_t> scores(std::span<const Residue> query);
  // The `keep` best subjects scoring above zero, best first, ties by index:
  // scores() ranked, where on cuda only the few subjects that can rank that
  // high leave the device.
  std::vector<ScoredSubject> best(std::span<const Residue> query, std::size_t keep);
  // best() of every query of the set, in its order; on cuda several run on
  // the device at once, so that one query's longest subjects, which finish
  // last, overlap the next queries' work.
  std::vector<std::vector<ScoredSubject>> best(const SequenceSet& queries, std::size_t keep);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The best local alignment with its traceback (see the tie rules above).
// Where the pair's score is known already (a search's scores pass), give it
// as known_score: the same alignment comes back for less work (the cells
// beyond the first row reaching that score are not computed), and one of
// any other score throws Error.
Alignment local_alignment(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring,
                          std::optional<std::int32_t> known_score = std::nullopt);

// Recomputes the score of an alignment from its CIGAR and start coordinates
// against the sequences; throws UsageError when the alignment does not fit
// them (a run past a sequence's end, an unknown CIGAR operation).
std::int64_t rescore(const Alignment& alignment, std::span<const Residue> query, std::span<const Residue> subject,
                     const Scoring& scoring);

}  // namespace trellis::align
