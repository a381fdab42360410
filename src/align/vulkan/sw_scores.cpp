// Smith-Waterman scores on the Vulkan device: sw_scores.comp over every
// subject with 16-bit lanes packed in its scratch words, then its 32-bit
// build over the subjects that reached 16 bits.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "../kernels.hpp"
#include "core/vulkan/context.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::vulkan {
namespace {

constexpr std::uint32_t kPackedPass[] =
#include "align/vulkan/sw_scores_packed.spv.inc"
    ;
constexpr std::uint32_t kExactPass[] =
#include "align/vulkan/sw_scores_exact.spv.inc"
    ;

// sw_scores.comp's layout.
constexpr std::size_t kColumns = 16;
constexpr std::size_t kMatrixSide = 32;
constexpr std::uint32_t kPaddingCode = 31;
static_assert(kAlphabetSize < static_cast<int>(kPaddingCode));
// Below -(the largest H check_score_range allows), without wrapping when added to one.
constexpr std::int32_t kPaddingScore = -(1 << 30);
// The packed pass's ceiling: a score there may have been saturated.
constexpr std::int32_t kPackedCeiling = 65535;

// One dispatch's scratch by default: the device's storage-buffer range
// (maxStorageBufferRange, at least 2^27 bytes), at most this much. A long
// query needs a scratch row per residue for each subject in flight, so a
// small scratch leaves most of a large GPU idle.
constexpr std::size_t kMostScratchBytes = std::size_t{1} << 30;
// Dispatches recorded per submission.
constexpr std::size_t kDispatchesPerSubmission = 128;

struct Arguments {
  std::uint32_t query_length;
  std::uint32_t first;
  std::uint32_t count;
  std::int32_t open_extend;
  std::int32_t extend;
};

}  // namespace

struct SubjectsOnDevice::State {
  State(const SequenceSet& subjects_in, const Scoring& scoring_in, std::size_t scratch_bytes)
      : subjects(subjects_in),
        scoring(scoring_in),
        scratch_limit(scratch_bytes != 0 ? scratch_bytes : kMostScratchBytes) {}

  const SequenceSet& subjects;
  Scoring scoring;
  std::size_t scratch_limit = 0;
  std::int64_t longest = 0;
  std::unique_ptr<vk::Buffer> residues, extents, matrix, by_length, scores, scratch;

  // Scores order[0, count) with kernel, whose scratch takes row_bytes a row
  // per invocation; dispatches of as many invocations as scratch_limit holds,
  // one after another on one scratch buffer.
  void run_pass(const vk::Kernel& kernel, const vk::Buffer& query, const vk::Buffer& order, std::size_t count,
                std::size_t query_length, std::size_t row_bytes) {
    const std::uint64_t range = vk::Context::get().max_storage_buffer_bytes();
    const std::size_t limit = std::min<std::uint64_t>(scratch_limit, range);
    const std::size_t per_invocation = query_length * row_bytes;
    const std::size_t fit = limit / per_invocation / vk::kWorkgroupSize * vk::kWorkgroupSize;
    const std::size_t per_dispatch = std::min(std::max<std::size_t>(fit, vk::kWorkgroupSize), count);
    const std::size_t scratch_bytes = per_dispatch * per_invocation;
    if (scratch_bytes > range) {
      throw BackendUnavailable(
          fmt::format("a query of {} residues needs {} bytes of vulkan scratch, past the device's storage-buffer "
                      "range of {} bytes",
                      query_length, scratch_bytes, range));
    }
    if (!scratch || scratch->bytes() < scratch_bytes) {
      scratch.reset();
      scratch = std::make_unique<vk::Buffer>(scratch_bytes);
    }
    vk::Context& context = vk::Context::get();
    for (std::size_t first = 0; first < count;) {
      context.run([&](vk::Recorder& recorder) {
        for (std::size_t d = 0; d < kDispatchesPerSubmission && first < count; ++d) {
          const std::size_t items = std::min(per_dispatch, count - first);
          const Arguments arguments{static_cast<std::uint32_t>(query_length), static_cast<std::uint32_t>(first),
                                    static_cast<std::uint32_t>(items), scoring.gaps.open + scoring.gaps.extend,
                                    scoring.gaps.extend};
          recorder.dispatch(kernel,
                            {&query, residues.get(), extents.get(), matrix.get(), &order, scratch.get(), scores.get()},
                            &arguments, sizeof(arguments), items);
          recorder.barrier();  // the next dispatch reuses the scratch
          first += items;
        }
      });
    }
  }
};

SubjectsOnDevice::SubjectsOnDevice(const SequenceSet& subjects, const Scoring& scoring, std::size_t scratch_bytes)
    : state_(std::make_unique<State>(subjects, scoring, scratch_bytes)) {
  State& s = *state_;
  constexpr std::uint64_t kLimit = std::numeric_limits<std::uint32_t>::max();
  std::uint64_t words = 0;
  for (std::size_t k = 0; k < subjects.size(); ++k) {
    const auto length = static_cast<std::uint64_t>(subjects.length(k));
    s.longest = std::max<std::int64_t>(s.longest, subjects.length(k));
    words += (length + kColumns - 1) / kColumns * (kColumns / 4);
  }
  if (words > kLimit || subjects.size() > kLimit) {
    throw BackendUnavailable(fmt::format(
        "the vulkan backend takes databases of up to 2^32 - 1 subjects and 2^34 residues, this one has {} and {}",
        subjects.size(), subjects.total_residues()));
  }
  const std::uint64_t range = vk::Context::get().max_storage_buffer_bytes();
  if (words * sizeof(std::uint32_t) > range) {
    throw BackendUnavailable(
        fmt::format("the database's residues take {} bytes on the vulkan device, past its storage-buffer range of {} "
                    "bytes",
                    words * sizeof(std::uint32_t), range));
  }
  std::vector<std::uint32_t> packed(words, 0);
  std::vector<std::uint32_t> extents(2 * subjects.size());
  std::size_t at = 0;
  for (std::size_t k = 0; k < subjects.size(); ++k) {
    const std::span<const Residue> residues = subjects.residues(k);
    const std::size_t blocks = (residues.size() + kColumns - 1) / kColumns;
    extents[2 * k] = static_cast<std::uint32_t>(at);
    extents[2 * k + 1] = static_cast<std::uint32_t>(blocks);
    for (std::size_t j = 0; j < blocks * kColumns; ++j) {
      const std::uint32_t code = j < residues.size() ? residues[j] : kPaddingCode;
      packed[at + j / 4] |= code << (8 * (j % 4));
    }
    at += blocks * (kColumns / 4);
  }
  std::vector<std::int32_t> matrix(kMatrixSide * kMatrixSide, kPaddingScore);
  for (int q = 0; q < kAlphabetSize; ++q) {
    for (int t = 0; t < kAlphabetSize; ++t) {
      matrix[static_cast<std::size_t>(q) * kMatrixSide + static_cast<std::size_t>(t)] =
          scoring.matrix.score(static_cast<Residue>(q), static_cast<Residue>(t));
    }
  }
  // Longest first: a workgroup's subjects are of about one length, so its
  // invocations finish together.
  std::vector<std::uint32_t> by_length(subjects.size());
  std::iota(by_length.begin(), by_length.end(), 0u);
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return subjects.length(a) > subjects.length(b); });
  s.residues = vk::Buffer::from<std::uint32_t>(packed);
  s.extents = vk::Buffer::from<std::uint32_t>(extents);
  s.matrix = vk::Buffer::from<std::int32_t>(matrix);
  s.by_length = vk::Buffer::from<std::uint32_t>(by_length);
  s.scores = std::make_unique<vk::Buffer>(subjects.size() * sizeof(std::int32_t));
}

SubjectsOnDevice::~SubjectsOnDevice() = default;

void SubjectsOnDevice::scores(std::span<const Residue> query, std::span<std::int32_t> scores) {
  State& s = *state_;
  if (scores.size() != s.subjects.size()) {
    throw UsageError(fmt::format("{} scores asked for {} subjects", scores.size(), s.subjects.size()));
  }
  check_score_range(static_cast<std::int64_t>(query.size()), s.longest, s.scoring.matrix);
  if (query.size() > std::numeric_limits<std::uint32_t>::max() / kMatrixSide) {
    throw BackendUnavailable(
        fmt::format("the vulkan backend takes queries of up to 2^27 residues, not {}", query.size()));
  }
  std::fill(scores.begin(), scores.end(), 0);
  if (scores.empty() || query.empty()) return;

  std::vector<std::uint32_t> rows(query.size());
  for (std::size_t i = 0; i < query.size(); ++i) rows[i] = std::uint32_t{query[i]} * kMatrixSide;
  const auto query_rows = vk::Buffer::from<std::uint32_t>(rows);
  vk::Context& context = vk::Context::get();
  const vk::Kernel& packed = context.kernel("align/sw_scores_packed", kPackedPass, 7, sizeof(Arguments));
  s.run_pass(packed, *query_rows, *s.by_length, scores.size(), query.size(), sizeof(std::uint32_t));
  s.scores->download(scores);

  std::vector<std::uint32_t> saturated;
  for (std::size_t k = 0; k < scores.size(); ++k) {
    if (scores[k] >= kPackedCeiling) saturated.push_back(static_cast<std::uint32_t>(k));
  }
  if (!saturated.empty()) {
    const vk::Kernel& exact = context.kernel("align/sw_scores_exact", kExactPass, 7, sizeof(Arguments));
    const auto order = vk::Buffer::from<std::uint32_t>(saturated);
    s.run_pass(exact, *query_rows, *order, saturated.size(), query.size(), 2 * sizeof(std::int32_t));
    s.scores->download(scores);
  }
}

}  // namespace trellis::align::vulkan
