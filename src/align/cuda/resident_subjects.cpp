// The cuda Smith-Waterman engine: lays the subjects out in device memory,
// builds each query's profile, picks a kernel shape, launches the 16-bit
// kernel over pairs of subjects, and rescores in 32 bits the subjects whose
// 16-bit score could have wrapped.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "sw_launch.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::cuda {
namespace {

using detail::KernelParams;

std::int64_t padded_rows(std::int64_t query_length, KernelShape shape) {
  const std::int64_t per_pass = static_cast<std::int64_t>(shape.lanes) * shape.rows_per_lane;
  return std::max<std::int64_t>(1, (query_length + per_pass - 1) / per_pass) * per_pass;
}

// The shape with the least estimated time, in units of one lane's work on
// one row of one column. A lane's step covers two columns and costs their
// rows plus about three rows' worth of shuffles and bookkeeping, one more for
// each halving of the group (its inputs are fetched every G steps). Two
// bounds: the device's throughput (every group's work spread over the lanes
// it keeps resident, about 1,024 a multiprocessor at these register counts),
// and the longest pair's own passes, which one group runs alone at about
// five times the pace of a full device. Fitted to H200 timings of every shape
// on the mmseqs2 example database and pseudo-databases of one million 256-
// and 512-residue sequences: it picks the fastest shape or one within 13%.
KernelShape choose_shape(std::int64_t query_length, std::int64_t pairs, std::int64_t total_columns,
                         std::int64_t longest, int multiprocessors) {
  constexpr double kAlonePace = 0.2;
  const double resident_lanes = 1024.0 * multiprocessors;
  KernelShape chosen = kernel_shapes().front();
  double least = std::numeric_limits<double>::infinity();
  for (const KernelShape& shape : kernel_shapes()) {
    const double passes = static_cast<double>(padded_rows(query_length, shape)) / (shape.lanes * shape.rows_per_lane);
    const double per_column = shape.rows_per_lane + (3 + std::log2(32.0 / shape.lanes)) / 2;
    const double steps = static_cast<double>(total_columns) / 2 + static_cast<double>(pairs) * (shape.lanes - 1);
    const double throughput = passes * steps * shape.lanes * 2 * per_column / resident_lanes;
    const double alone = kAlonePace * passes * (static_cast<double>(longest) / 2 + shape.lanes - 1) * 2 * per_column;
    const double estimate = std::max(throughput, alone);
    if (estimate < least) {
      least = estimate;
      chosen = shape;
    }
  }
  return chosen;
}

// Subjects laid out for the kernel: entry e holds one subject (low byte of
// every column) or two (high byte), columns as long as its longer subject.
struct DeviceEntries {
  std::int32_t count = 0;
  std::int64_t columns = 0;
  DeviceArray<std::uint16_t> residues;
  DeviceArray<std::int64_t> column_offsets;
  DeviceArray<std::int32_t> scores;
  DeviceArray<std::uint64_t> boundary;  // allocated on the first query that needs two passes

  // members[e] lists the subjects of entry e (one or two; the longer first).
  // subjects_per_entry: 2 for the 16-bit kernel's pairs, 1 for the 32-bit one.
  DeviceEntries(const SequenceSet& subjects, const std::vector<std::vector<std::size_t>>& members,
                int subjects_per_entry) {
    count = static_cast<std::int32_t>(members.size());
    std::vector<std::int64_t> offsets{0};
    offsets.reserve(members.size() + 1);
    for (const auto& entry : members) offsets.push_back(offsets.back() + subjects.length(entry.front()));
    columns = offsets.back();
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(columns), detail::kPadPair);
    for (std::size_t e = 0; e < members.size(); ++e) {
      for (std::size_t s = 0; s < members[e].size(); ++s) {
        const std::span<const Residue> sequence = subjects.residues(members[e][s]);
        const int shift = 8 * static_cast<int>(s);
        for (std::size_t j = 0; j < sequence.size(); ++j) {
          std::uint16_t& column = packed[static_cast<std::size_t>(offsets[e]) + j];
          column = static_cast<std::uint16_t>((column & ~(0xFFu << shift)) | (unsigned{sequence[j]} << shift));
        }
      }
    }
    residues = DeviceArray<std::uint16_t>::from_host(packed);
    column_offsets = DeviceArray<std::int64_t>::from_host(offsets);
    scores = DeviceArray<std::int32_t>(static_cast<std::size_t>(count) * subjects_per_entry);
  }

  void ensure_boundary() {
    if (boundary.size() < static_cast<std::size_t>(columns)) boundary = DeviceArray<std::uint64_t>(static_cast<std::size_t>(columns));
  }
};

// The query's profile for a shape: kProfileResidues rows of padded_rows
// scores, residue-major; padding rows and the padding residue score
// kPadScore.
std::vector<std::int16_t> build_profile(std::span<const Residue> query, const ScoringMatrix& matrix,
                                        std::int64_t rows) {
  std::vector<std::int16_t> profile(static_cast<std::size_t>(detail::kProfileResidues * rows),
                                    static_cast<std::int16_t>(detail::kPadScore));
  for (int residue = 0; residue < kAlphabetSize; ++residue) {
    std::int16_t* row = profile.data() + static_cast<std::ptrdiff_t>(residue) * rows;
    for (std::size_t i = 0; i < query.size(); ++i) {
      row[i] = static_cast<std::int16_t>(matrix.score(query[i], static_cast<Residue>(residue)));
    }
  }
  return profile;
}

}  // namespace

struct ResidentSubjects::State {
  const SequenceSet& subjects;
  Scoring scoring;
  std::vector<std::vector<std::size_t>> pairs;  // subject indices, longest pairs first
  DeviceEntries entries;
  std::int64_t longest = 0;
  int multiprocessors = 0;
  std::vector<std::int16_t> host_profile;
  DeviceArray<std::int16_t> profile;

  State(const SequenceSet& subjects_in, const Scoring& scoring_in, std::vector<std::vector<std::size_t>> pairs_in)
      : subjects(subjects_in),
        scoring(scoring_in),
        pairs(std::move(pairs_in)),
        entries(subjects, pairs, 2),
        multiprocessors(current_device().multiprocessors) {
    if (!pairs.empty()) longest = subjects.length(pairs.front().front());
  }

  // Uploads the profile for `rows` rows and returns the kernel parameters
  // every launch for this query shares.
  KernelParams prepare(std::span<const Residue> query, std::int64_t rows, KernelShape shape) {
    // Kept until the next query: the copy may still be reading it.
    host_profile = build_profile(query, scoring.matrix, rows);
    if (profile.size() != host_profile.size()) profile = DeviceArray<std::int16_t>(host_profile.size());
    profile.copy_from_host(host_profile);
    KernelParams params{};
    params.profile = profile.data();
    params.padded_rows = static_cast<std::int32_t>(rows);
    params.passes = static_cast<std::int32_t>(rows / (static_cast<std::int64_t>(shape.lanes) * shape.rows_per_lane));
    return params;
  }
};

namespace {

template <typename Launch>
void run(DeviceEntries& entries, KernelParams params, KernelShape shape, Launch launch) {
  if (entries.count == 0) return;
  if (params.passes > 1) entries.ensure_boundary();
  params.residues = entries.residues.data();
  params.column_offsets = entries.column_offsets.data();
  params.entries = entries.count;
  params.boundary = entries.boundary.data();
  params.scores = entries.scores.data();
  const unsigned groups_per_block = detail::kBlockThreads / static_cast<unsigned>(shape.lanes);
  const unsigned blocks = (static_cast<unsigned>(entries.count) + groups_per_block - 1) / groups_per_block;
  launch(params, blocks);
}

}  // namespace

ResidentSubjects::ResidentSubjects(const SequenceSet& subjects, const Scoring& scoring) {
  std::vector<std::size_t> order(subjects.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return subjects.length(a) > subjects.length(b); });
  std::vector<std::vector<std::size_t>> pairs;
  pairs.reserve((order.size() + 1) / 2);
  for (std::size_t i = 0; i < order.size(); i += 2) {
    pairs.push_back(i + 1 < order.size() ? std::vector<std::size_t>{order[i], order[i + 1]}
                                         : std::vector<std::size_t>{order[i]});
  }
  if (pairs.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw UsageError(fmt::format("{} subjects are more than the cuda engine indexes", subjects.size()));
  }
  state_ = std::make_unique<State>(subjects, scoring, std::move(pairs));
}

ResidentSubjects::~ResidentSubjects() = default;

void ResidentSubjects::scores(std::span<const Residue> query, std::span<std::int32_t> scores,
                              std::optional<KernelShape> requested) {
  State& state = *state_;
  if (scores.size() != state.subjects.size()) {
    throw UsageError(fmt::format("{} scores for {} subjects", scores.size(), state.subjects.size()));
  }
  const std::span<const KernelShape> shapes = kernel_shapes();
  if (requested && std::find(shapes.begin(), shapes.end(), *requested) == shapes.end()) {
    throw UsageError(fmt::format("the cuda kernel is not compiled for {} lanes x {} rows", requested->lanes,
                                 requested->rows_per_lane));
  }
  std::fill(scores.begin(), scores.end(), 0);
  if (query.empty() || state.pairs.empty()) return;
  check_score_range(static_cast<std::int64_t>(query.size()), state.longest, state.scoring.matrix);
  if (state.longest == 0) return;
  const auto m = static_cast<std::int64_t>(query.size());

  // 16-bit pass. Penalties beyond 16383 are clamped so that E - extend
  // cannot wrap; a clamped gap could only open from an H above 16383, so the
  // overflow threshold drops to 16383 and such subjects are rescored.
  const KernelShape shape = requested.value_or(choose_shape(m, static_cast<std::int64_t>(state.pairs.size()),
                                                            state.entries.columns, state.longest,
                                                            state.multiprocessors));
  const std::int64_t rows = padded_rows(m, shape);
  KernelParams params = state.prepare(query, rows, shape);
  constexpr std::int32_t kClamp = 16383;
  const std::int32_t open_extend = state.scoring.gaps.open + state.scoring.gaps.extend;
  const bool clamped = open_extend > kClamp;
  params.open_extend = std::min(open_extend, kClamp);
  params.extend = std::min(state.scoring.gaps.extend, kClamp);
  params.overflow_threshold = std::numeric_limits<std::int16_t>::max() - std::max(0, state.scoring.matrix.max_score());
  if (clamped) params.overflow_threshold = std::min(params.overflow_threshold, kClamp);
  run(state.entries, params, shape,
      [&](const KernelParams& p, unsigned blocks) { detail::launch_packed(shape, p, blocks); });
  const std::vector<std::int32_t> packed = state.entries.scores.to_host();

  std::vector<std::size_t> overflowed;
  for (std::size_t e = 0; e < state.pairs.size(); ++e) {
    for (std::size_t s = 0; s < state.pairs[e].size(); ++s) {
      const std::int32_t score = packed[2 * e + s];
      if (score == detail::kOverflow) {
        overflowed.push_back(state.pairs[e][s]);
      } else {
        scores[state.pairs[e][s]] = score;
      }
    }
  }
  if (overflowed.empty()) return;

  // 32-bit pass over the subjects the 16-bit lanes could not certify.
  std::vector<std::vector<std::size_t>> singles;
  singles.reserve(overflowed.size());
  for (const std::size_t subject : overflowed) singles.push_back({subject});
  DeviceEntries exact(state.subjects, singles, 1);
  const std::int64_t exact_rows = padded_rows(m, detail::kExactShape);
  KernelParams exact_params = state.prepare(query, exact_rows, detail::kExactShape);
  exact_params.open_extend = open_extend;
  exact_params.extend = state.scoring.gaps.extend;
  exact_params.overflow_threshold = std::numeric_limits<std::int32_t>::max();
  run(exact, exact_params, detail::kExactShape,
      [](const KernelParams& p, unsigned blocks) { detail::launch_exact(p, blocks); });
  const std::vector<std::int32_t> exact_scores = exact.scores.to_host();
  for (std::size_t i = 0; i < overflowed.size(); ++i) scores[overflowed[i]] = exact_scores[i];
}

}  // namespace trellis::align::cuda
