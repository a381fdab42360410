// The public alignment entry points, the one backend switch for database
// scores, and the independent re-scoring of a traceback.
#include "trellis/align/alignment.hpp"

#include <charconv>

#include <fmt/format.h>

#include "best_subjects.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"
#include "vulkan/kernels.hpp"

namespace trellis::align {

std::int32_t local_alignment_score(std::span<const Residue> query, std::span<const Residue> subject,
                                   const Scoring& scoring) {
  return reference::sw_score(query, subject, scoring);
}

struct SubjectScorer::State {
  const SequenceSet& subjects;
  Scoring scoring;
  Backend backend;
  std::unique_ptr<cuda::ResidentSubjects> device;           // cuda only
  std::unique_ptr<vulkan::SubjectsOnDevice> vulkan_device;  // vulkan only
};

SubjectScorer::SubjectScorer(const SequenceSet& subjects, const Scoring& scoring, Backend backend,
                             const ScorerOptions& options)
    : state_(std::make_unique<State>(State{subjects, scoring, resolve_with_vulkan(backend), nullptr, nullptr})) {
  if (state_->backend == Backend::cuda) {
    state_->device = std::make_unique<cuda::ResidentSubjects>(subjects, scoring, options.device_memory_bytes);
  }
  if (state_->backend == Backend::vulkan) {
    state_->vulkan_device = std::make_unique<vulkan::SubjectsOnDevice>(subjects, scoring);
  }
}

SubjectScorer::~SubjectScorer() = default;
SubjectScorer::SubjectScorer(SubjectScorer&&) noexcept = default;
SubjectScorer& SubjectScorer::operator=(SubjectScorer&&) noexcept = default;

Backend SubjectScorer::backend() const noexcept { return state_->backend; }

std::vector<std::int32_t> SubjectScorer::scores(std::span<const Residue> query) {
  const State& state = *state_;
  std::vector<std::int32_t> scores(state.subjects.size());
  switch (state.backend) {
    case Backend::reference:
      reference::sw_scores(query, state.subjects, state.scoring, scores);
      break;
    case Backend::cpu:
      cpu::sw_scores(query, state.subjects, state.scoring, scores);
      break;
    case Backend::cuda:
      state.device->scores(query, scores);
      break;
    case Backend::vulkan:
      state.vulkan_device->scores(query, scores);
      break;
    case Backend::automatic:
      throw Error("the backend was not resolved");  // unreachable: resolve() never returns it
  }
  return scores;
}

std::vector<ScoredSubject> SubjectScorer::best(std::span<const Residue> query, std::size_t keep) {
  if (state_->backend == Backend::cuda) return state_->device->best(query, keep);
  return best_subjects(scores(query), keep);
}

std::vector<std::vector<ScoredSubject>> SubjectScorer::best(const SequenceSet& queries, std::size_t keep) {
  if (state_->backend == Backend::cuda) {
    std::vector<std::span<const Residue>> residues;
    residues.reserve(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) residues.push_back(queries.residues(q));
    return state_->device->best(residues, keep);
  }
  std::vector<std::vector<ScoredSubject>> best_of_each;
  best_of_each.reserve(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) best_of_each.push_back(best(queries.residues(q), keep));
  return best_of_each;
}

std::vector<std::int32_t> local_alignment_scores(std::span<const Residue> query, const SequenceSet& subjects,
                                                 const Scoring& scoring, Backend backend) {
  return SubjectScorer(subjects, scoring, backend).scores(query);
}

Alignment local_alignment(std::span<const Residue> query, std::span<const Residue> subject, const Scoring& scoring,
                          std::optional<std::int32_t> known_score) {
  Alignment result = cpu::sw_traceback(query, subject, scoring, known_score);
  for (std::size_t i = 0; i < result.query_aligned.size(); ++i) {
    const char q = result.query_aligned[i];
    const char s = result.subject_aligned[i];
    if (q != '-' && s != '-' && scoring.matrix.score(encode_residue(q), encode_residue(s)) > 0) ++result.positives;
  }
  return result;
}

std::int64_t rescore(const Alignment& alignment, std::span<const Residue> query, std::span<const Residue> subject,
                     const Scoring& scoring) {
  if (alignment.cigar.empty()) return 0;
  if (alignment.query_start < 1 || alignment.subject_start < 1) {
    throw UsageError("the alignment's start coordinates are not 1-based positions");
  }
  auto q = static_cast<std::size_t>(alignment.query_start - 1);
  auto s = static_cast<std::size_t>(alignment.subject_start - 1);
  std::int64_t score = 0;
  std::string_view cigar = alignment.cigar;
  while (!cigar.empty()) {
    std::int64_t count = 0;
    const auto [stop, error] = std::from_chars(cigar.data(), cigar.data() + cigar.size(), count);
    if (error != std::errc() || count <= 0 || stop == cigar.data() + cigar.size()) {
      throw UsageError(fmt::format("malformed CIGAR '{}'", alignment.cigar));
    }
    const char op = *stop;
    cigar.remove_prefix(static_cast<std::size_t>(stop - cigar.data()) + 1);
    const auto length = static_cast<std::size_t>(count);
    const bool takes_query = op == 'M' || op == 'I';
    const bool takes_subject = op == 'M' || op == 'D';
    if (!takes_query && !takes_subject) throw UsageError(fmt::format("unknown CIGAR operation '{}'", op));
    if ((takes_query && length > query.size() - std::min(q, query.size())) ||
        (takes_subject && length > subject.size() - std::min(s, subject.size()))) {
      throw UsageError(fmt::format("CIGAR '{}' runs past the end of a sequence", alignment.cigar));
    }
    if (op == 'M') {
      for (std::size_t k = 0; k < length; ++k) score += scoring.matrix.score(query[q + k], subject[s + k]);
    } else {
      score -= scoring.gaps.open + count * scoring.gaps.extend;
    }
    if (takes_query) q += length;
    if (takes_subject) s += length;
  }
  return score;
}

}  // namespace trellis::align
