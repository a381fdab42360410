// The cuda Smith-Waterman engine: lays the subjects out for the kernel,
// builds each query's profile, picks a kernel shape, launches the 16-bit
// kernel over pairs of subjects, and rescores in 32 bits the subjects whose
// 16-bit score could have wrapped. scores() returns every score; best()
// leaves them on the device and returns only a query's best subjects
// (score_selection.hpp), which saves a search the copy and the host's pass
// over every score.
//
// A layout that fits the device-memory budget is uploaded once and stays
// resident. A larger one stays in page-locked host memory, cut into chunks of
// consecutive entries, and every query streams it through two device
// buffers: the copy of chunk k + 1 (copy stream) runs while the kernel scores
// chunk k (compute stream). Chunks change where the columns sit, never what
// the kernel computes, so the scores are the same bits either way.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../best_subjects.hpp"
#include "score_selection.hpp"
#include "sw_launch.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/pinned_array.hpp"

namespace trellis::align::cuda {
namespace {

using detail::KernelParams;

std::int64_t padded_rows(std::int64_t query_length, KernelShape shape) {
  const std::int64_t per_pass = static_cast<std::int64_t>(shape.lanes) * shape.rows_per_lane;
  return std::max<std::int64_t>(1, (query_length + per_pass - 1) / per_pass) * per_pass;
}

// The shape with the least estimated time, in units of one lane's work on
// one row of one column. A lane's step covers two columns. Two bounds:
// - the device's throughput: every group's work spread over the lanes the
//   device keeps resident (about 1,024 a multiprocessor), a column costing
//   its rows plus about two rows of shuffles and bookkeeping, one more where
//   passes read and keep a boundary row; the wide form does the same work in
//   0.9 of the time;
// - the longest pair's own passes, whose columns (while the rest of the
//   database shares its multiprocessor) cost their rows plus about twenty
//   rows of latency that a full device hides: fewer, longer passes pay off.
// Fitted to device timings of every shape on the mmseqs2 example database
// (20,000 sequences, queries of 144 to 4,291 residues), the same sequences
// repeated to 200 M residues, and pseudo-databases of one million sequences
// of 256 to 2,048 residues, on which it picks the fastest shape or one
// close to it (bench/results/NOTES.md, "The sweep: a warp that never
// diverges"). Refit it when shapes are added or the kernel changes.
KernelShape choose_shape(std::int64_t query_length, std::int64_t pairs, std::int64_t total_columns,
                         std::int64_t longest, int multiprocessors) {
  constexpr double kStepRows = 2.0;
  constexpr double kPassBoundaryRows = 1.0;
  constexpr double kWideThroughput = 0.9;
  constexpr double kAlonePace = 0.12;
  constexpr double kAloneLatencyRows = 20.0;
  const double resident_lanes = 1024.0 * multiprocessors;
  KernelShape chosen = kernel_shapes().front();
  double least = std::numeric_limits<double>::infinity();
  for (const KernelShape& shape : kernel_shapes()) {
    const double passes = static_cast<double>(padded_rows(query_length, shape)) / (shape.lanes * shape.rows_per_lane);
    const double per_column = shape.rows_per_lane + kStepRows + (passes > 1 ? kPassBoundaryRows : 0.0);
    const double steps = static_cast<double>(total_columns) / 2 + static_cast<double>(pairs) * (shape.lanes - 1);
    const bool wide = shape.form == KernelForm::wide;
    const double throughput =
        (wide ? kWideThroughput : 1.0) * passes * steps * shape.lanes * 2 * per_column / resident_lanes;
    const double alone = kAlonePace * passes * (static_cast<double>(longest) / 2 + shape.lanes - 1) * 2 *
                         (shape.rows_per_lane + kAloneLatencyRows);
    const double estimate = std::max(throughput, alone);
    if (estimate < least) {
      least = estimate;
      chosen = shape;
    }
  }
  return chosen;
}

// A CUDA event used only for ordering (no timing, so recording is cheap).
class OrderingEvent {
 public:
  OrderingEvent() { TRELLIS_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~OrderingEvent() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;

  void record(Stream stream) { TRELLIS_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  // Work issued on `stream` from now on waits for the last record.
  void hold(Stream stream) const { TRELLIS_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// The streams a query's work runs on and, per chunk buffer, the events that
// order a chunk's copy before its kernel and the kernel before the next copy
// into the same buffer. Both streams are non-blocking, so nothing here waits
// on work other code leaves on the default stream, and the reverse.
struct Pipeline {
  device::OwnedStream compute;
  device::OwnedStream copy;
  std::array<OrderingEvent, 2> copied;
  std::array<OrderingEvent, 2> scored;
};

// Device bytes a layout takes per column: the residues, and the boundary
// row (H and F) a query of several passes keeps between them.
constexpr std::size_t kResidueBytes = sizeof(std::uint16_t);
constexpr std::size_t kBoundaryBytes = sizeof(std::uint64_t);

enum class HostColumns { pinned, pageable };

// Where the kernel writes an entry's scores: at the subjects' own indices
// (the database's layout: the host reads them in place, with no pass to put
// them back in order), or entry by entry (a rescoring's few subjects).
enum class ScoreOrder { subject, entry };

// Subjects laid out for the kernel: entry e holds one subject (low byte of
// every column) or two (high byte), columns as long as its longer subject
// (rounded up to even).
// Within budget_bytes the columns are uploaded once; beyond it they stay on
// the host and are copied in for every query, a chunk of consecutive entries
// at a time, through two device buffers.
class EntryLayout {
 public:
  // members[e] lists the subjects of entry e (one or two; the longer first).
  // subjects_per_entry: 2 for the 16-bit kernel's pairs, 1 for the 32-bit one.
  // With ScoreOrder::subject every subject of `subjects` belongs to an entry.
  EntryLayout(const SequenceSet& subjects, const std::vector<std::vector<std::size_t>>& members, int subjects_per_entry,
              ScoreOrder order, std::size_t budget_bytes, HostColumns host_columns, Pipeline& pipeline)
      : pipeline_(pipeline),
        subjects_per_entry_(subjects_per_entry),
        order_(order),
        count_(static_cast<std::int32_t>(members.size())) {
    // Every entry starts at an even column and takes an even number of them
    // (an odd length gets a padding column), so that the kernel loads a
    // step's two columns at once.
    std::vector<std::int64_t> offsets{0};
    offsets.reserve(members.size() + 1);
    for (const auto& entry : members) {
      const auto length = static_cast<std::int64_t>(subjects.length(entry.front()));
      offsets.push_back(offsets.back() + length + length % 2);
    }
    columns_ = offsets.back();

    // Offsets, scores and, in subject order, the subject of every slot.
    const std::size_t per_entry_bytes =
        sizeof(std::int64_t) + (order == ScoreOrder::subject ? 2 : 1) * subjects_per_entry * sizeof(std::int32_t);
    const std::size_t resident_bytes = static_cast<std::size_t>(columns_) * (kResidueBytes + kBoundaryBytes) +
                                       static_cast<std::size_t>(count_) * per_entry_bytes + sizeof(std::int64_t);
    streamed_ = count_ > 0 && resident_bytes > budget_bytes;
    if (streamed_) {
      // Per entry, the offsets (at most one more per chunk) and the scores
      // stay resident; the rest of the budget holds two residue buffers and
      // one boundary. The kernels run one after another on the compute
      // stream, so the chunks can share the boundary; only the residues are
      // written while a kernel runs.
      const std::size_t kept_bytes =
          static_cast<std::size_t>(count_) * (per_entry_bytes + sizeof(std::int64_t)) + sizeof(std::int64_t);
      const std::size_t chunk_columns =
          (budget_bytes > kept_bytes ? budget_bytes - kept_bytes : 0) / (2 * kResidueBytes + kBoundaryBytes);
      plan_chunks(offsets, static_cast<std::int64_t>(chunk_columns));
    } else if (count_ > 0) {
      chunks_.push_back({0, count_, 0, columns_});
    }
    for (const Chunk& chunk : chunks_) largest_chunk_ = std::max(largest_chunk_, chunk.end_column - chunk.first_column);

    // Chunk c's offsets, relative to its first column (where its buffer
    // starts), sit at [first_entry + c, end_entry + c]: each chunk repeats
    // the offset where it starts.
    std::vector<std::int64_t> chunk_offsets;
    chunk_offsets.reserve(static_cast<std::size_t>(count_) + chunks_.size());
    for (const Chunk& chunk : chunks_) {
      for (std::int32_t e = chunk.first_entry; e <= chunk.end_entry; ++e) {
        chunk_offsets.push_back(offsets[static_cast<std::size_t>(e)] - chunk.first_column);
      }
    }
    const Stream compute = pipeline_.compute.get();
    chunk_offsets_ = DeviceArray<std::int64_t>::from_host(chunk_offsets, compute);
    const auto slots = static_cast<std::size_t>(count_) * static_cast<std::size_t>(subjects_per_entry);
    if (order == ScoreOrder::subject) {
      std::vector<std::int32_t> subject_of_slot(slots, -1);
      for (std::size_t e = 0; e < members.size(); ++e) {
        for (std::size_t s = 0; s < members[e].size(); ++s) {
          subject_of_slot[e * static_cast<std::size_t>(subjects_per_entry) + s] =
              static_cast<std::int32_t>(members[e][s]);
        }
      }
      subject_of_slot_ = DeviceArray<std::int32_t>::from_host(subject_of_slot, compute);
      scores_ = DeviceArray<std::int32_t>(subjects.size());
    } else {
      scores_ = DeviceArray<std::int32_t>(slots);
    }

    if (!streamed_) {
      // A pageable source is staged by the driver before the copy returns,
      // so the vector may go at the end of this scope.
      std::vector<std::uint16_t> packed(static_cast<std::size_t>(columns_));
      pack(subjects, members, offsets, packed);
      buffers_[0] = DeviceArray<std::uint16_t>::from_host(packed, compute);
      return;
    }
    // From page-locked memory the copies are DMA transfers that run beside
    // kernels; from pageable memory the driver stages them, which makes the
    // host wait for the copy stream and loses most of the overlap. A host
    // that will not lock this much leaves pinned_ empty: pageable then.
    if (host_columns == HostColumns::pinned) {
      pinned_ = PinnedArray<std::uint16_t>::try_allocate(static_cast<std::size_t>(columns_));
    }
    std::span<std::uint16_t> host = pinned_.span();
    if (host.size() != static_cast<std::size_t>(columns_)) {
      pageable_.resize(static_cast<std::size_t>(columns_));
      host = pageable_;
    }
    pack(subjects, members, offsets, host);
    host_ = host;
    for (auto& buffer : buffers_) buffer = DeviceArray<std::uint16_t>(static_cast<std::size_t>(largest_chunk_));
  }

  std::int32_t count() const noexcept { return count_; }
  std::int64_t columns() const noexcept { return columns_; }
  bool streamed() const noexcept { return streamed_; }
  std::size_t chunks() const noexcept { return chunks_.size(); }
  // What the layout holds on the device, the boundary counted as allocated.
  std::size_t device_bytes() const noexcept {
    const std::size_t buffers = streamed_ ? 2 : 1;
    return chunk_offsets_.bytes() + scores_.bytes() + subject_of_slot_.bytes() +
           static_cast<std::size_t>(largest_chunk_) * (buffers * kResidueBytes + kBoundaryBytes);
  }

  // Runs launch(params, blocks, stream) over every entry and copies the
  // scores into `scores`: in ScoreOrder::subject one per subject of the set,
  // at its index; in ScoreOrder::entry subjects_per_entry per entry, in entry
  // order. params carries the profile, the passes and the penalties; the
  // layout fills in the rest.
  template <typename Launch>
  void score(KernelParams params, KernelShape shape, Launch launch, std::span<std::int32_t> scores) {
    if (scores.size() != scores_.size()) {
      throw UsageError(fmt::format("{} scores for a layout of {}", scores.size(), scores_.size()));
    }
    if (count_ == 0) return;
    if (params.passes > 1 && boundary_.size() < static_cast<std::size_t>(largest_chunk_)) {
      boundary_ = DeviceArray<std::uint64_t>(static_cast<std::size_t>(largest_chunk_));
    }
    const Stream compute = pipeline_.compute.get();
    run(params, shape, launch, {compute, scores_.data(), boundary_.data()});
    scores_.copy_to_host(scores, compute);
    device::synchronize(compute);
  }

  // Where run() puts its work: the stream, the scores (as many as score()
  // gives, in its order) and, for a query of several passes, the boundary
  // row (boundary_columns() of them).
  struct Target {
    Stream stream;
    std::int32_t* scores;
    std::uint64_t* boundary;
  };

  // As score(), leaving the scores in device memory at target.scores for
  // work that follows on target.stream. Runs on different streams may
  // overlap where the layout is resident; a streamed layout's chunk buffers
  // allow one run at a time.
  template <typename Launch>
  void run(KernelParams params, KernelShape shape, Launch launch, const Target& target) {
    if (count_ == 0) return;
    const Stream compute = target.stream;
    const Stream copy = pipeline_.copy.get();
    const unsigned groups_per_block = detail::kBlockThreads / static_cast<unsigned>(shape.lanes);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const Chunk& chunk = chunks_[c];
      const std::size_t slot = c % 2;
      if (streamed_) {
        // The chunk two back was read from this buffer: its kernel must be
        // done before the copy overwrites it. Issued after kernel c - 1, the
        // copy overlaps it.
        if (c >= 2) pipeline_.scored[slot].hold(copy);
        const auto chunk_columns = static_cast<std::size_t>(chunk.end_column - chunk.first_column);
        if (chunk_columns > 0) {
          device::copy_to_device(buffers_[slot].data(), host_.data() + chunk.first_column,
                                 chunk_columns * kResidueBytes, copy);
        }
        pipeline_.copied[slot].record(copy);
        pipeline_.copied[slot].hold(compute);
      }
      const std::int32_t entries = chunk.end_entry - chunk.first_entry;
      params.residues = buffers_[slot].data();
      params.column_offsets = chunk_offsets_.data() + chunk.first_entry + static_cast<std::int64_t>(c);
      params.entries = entries;
      params.boundary = target.boundary;
      const std::int64_t first_entry_slot = static_cast<std::int64_t>(subjects_per_entry_) * chunk.first_entry;
      if (order_ == ScoreOrder::subject) {
        params.scores = target.scores;
        params.subject_of_slot = subject_of_slot_.data() + first_entry_slot;
      } else {
        params.scores = target.scores + first_entry_slot;
        params.subject_of_slot = nullptr;
      }
      const unsigned blocks = (static_cast<unsigned>(entries) + groups_per_block - 1) / groups_per_block;
      launch(params, blocks, compute);
      if (streamed_) pipeline_.scored[slot].record(compute);
    }
  }

  std::size_t boundary_columns() const noexcept { return static_cast<std::size_t>(largest_chunk_); }

 private:
  struct Chunk {
    std::int32_t first_entry;
    std::int32_t end_entry;
    std::int64_t first_column;
    std::int64_t end_column;
  };

  // Consecutive entries whose columns add up to at most chunk_columns; an
  // entry longer than that takes a chunk of its own (its buffers then exceed
  // the budget: the kernel needs an entry's columns all at once).
  void plan_chunks(const std::vector<std::int64_t>& offsets, std::int64_t chunk_columns) {
    std::int32_t first = 0;
    for (std::int32_t e = 1; e <= count_; ++e) {
      const bool full = offsets[static_cast<std::size_t>(e)] - offsets[static_cast<std::size_t>(first)] > chunk_columns;
      if (full && e - 1 > first) {
        chunks_.push_back(
            {first, e - 1, offsets[static_cast<std::size_t>(first)], offsets[static_cast<std::size_t>(e - 1)]});
        first = e - 1;
      }
    }
    chunks_.push_back({first, count_, offsets[static_cast<std::size_t>(first)], offsets.back()});
  }

  static void pack(const SequenceSet& subjects, const std::vector<std::vector<std::size_t>>& members,
                   const std::vector<std::int64_t>& offsets, std::span<std::uint16_t> packed) {
    std::fill(packed.begin(), packed.end(), detail::kPadPair);
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
  }

  Pipeline& pipeline_;
  int subjects_per_entry_ = 2;
  ScoreOrder order_ = ScoreOrder::entry;
  std::int32_t count_ = 0;
  std::int64_t columns_ = 0;
  bool streamed_ = false;
  std::vector<Chunk> chunks_;
  std::int64_t largest_chunk_ = 0;       // columns
  PinnedArray<std::uint16_t> pinned_;    // streamed from page-locked memory,
  std::vector<std::uint16_t> pageable_;  // or, where the host would not lock it, from here
  std::span<const std::uint16_t> host_;
  DeviceArray<std::int64_t> chunk_offsets_;
  DeviceArray<std::int32_t> scores_;
  DeviceArray<std::int32_t> subject_of_slot_;          // ScoreOrder::subject: a subject's index per entry slot, or -1
  std::array<DeviceArray<std::uint16_t>, 2> buffers_;  // resident: all columns in the first
  DeviceArray<std::uint64_t> boundary_;                // allocated on the first query that needs two passes
};

// The query's profile for a shape, laid out as its form reads it
// (sw_launch.hpp): every profile residue against `rows` rows (the query
// padded to whole passes); padding rows and the padding residue score
// kPadScore. Compact: int16 scores [kProfileResidues][rows], two to a 32-bit
// word; wide: the low 16 bits of each score, zero-extended, at
// wide_profile_index().
std::vector<std::uint32_t> build_profile(std::span<const Residue> query, const ScoringMatrix& matrix, std::int64_t rows,
                                         KernelShape shape) {
  const auto score_at = [&](int residue, std::int64_t row) {
    const bool real = residue < kAlphabetSize && row < static_cast<std::int64_t>(query.size());
    return real ? matrix.score(query[static_cast<std::size_t>(row)], static_cast<Residue>(residue)) : detail::kPadScore;
  };
  const auto words = static_cast<std::size_t>(detail::kProfileResidues * rows);
  if (shape.form == KernelForm::wide) {
    std::vector<std::uint32_t> profile(words);
    for (int residue = 0; residue < detail::kProfileResidues; ++residue) {
      for (std::int64_t row = 0; row < rows; ++row) {
        profile[static_cast<std::size_t>(detail::wide_profile_index(shape, residue, row))] =
            static_cast<std::uint32_t>(score_at(residue, row)) & 0xFFFFu;
      }
    }
    return profile;
  }
  std::vector<std::int16_t> scores(words);
  for (int residue = 0; residue < detail::kProfileResidues; ++residue) {
    for (std::int64_t row = 0; row < rows; ++row) {
      scores[static_cast<std::size_t>(residue * rows + row)] = static_cast<std::int16_t>(score_at(residue, row));
    }
  }
  std::vector<std::uint32_t> profile(words / 2);  // rows is a whole number of passes, so even
  std::memcpy(profile.data(), scores.data(), words * sizeof(std::int16_t));
  return profile;
}

// The automatic budget: most of the memory free when the subjects are laid
// out, leaving the rest for the query profile, the 32-bit rescoring and
// whatever else shares the device.
constexpr double kAutomaticBudgetShare = 0.8;

// The rescoring's layout gets what the subjects leave of the budget, but at
// least this share of it, so that rescoring beside a streamed database does
// not crawl one subject a chunk.
constexpr std::size_t kRescoringBudgetDivisor = 8;

// How many queries best() keeps on the device at once where the layout is
// resident: enough that one query's longest pairs, which finish last,
// overlap the next queries' work, within the device memory left.
constexpr std::size_t kQueriesInFlight = 4;

// One query's work on the device: its stream and the buffers nothing else
// touches until the query's results are taken, so that several queries
// can be in flight at once.
struct QuerySlot {
  device::OwnedStream stream;
  std::vector<std::uint32_t> host_profile;  // kept until the upload is done
  DeviceArray<std::uint32_t> profile;
  DeviceArray<std::int32_t> scores;     // one per subject
  DeviceArray<std::uint64_t> boundary;  // allocated by the first query of several passes
  DeviceArray<std::uint32_t> bins{detail::kScoreBins};
  DeviceArray<detail::Selected> selected{1};
  DeviceArray<detail::ScoredSlot> gathered;  // room for every subject
};

// Uploads the query's profile for `rows` rows on `stream`, ahead of the
// kernels that read it, and returns the kernel parameters every launch for
// this query shares. `host` must stay until the upload is done. `device`
// only grows: freeing device memory waits for the whole device, which
// would stall the other queries in flight.
KernelParams upload_profile(std::span<const Residue> query, const ScoringMatrix& matrix, std::int64_t rows,
                            KernelShape shape, std::vector<std::uint32_t>& host, DeviceArray<std::uint32_t>& device,
                            Stream stream) {
  host = build_profile(query, matrix, rows, shape);
  if (device.size() < host.size()) device = DeviceArray<std::uint32_t>(host.size());
  device::copy_to_device(device.data(), host.data(), host.size() * sizeof(std::uint32_t), stream);
  KernelParams params{};
  params.profile = device.data();
  params.padded_rows = static_cast<std::int32_t>(rows);
  params.passes = static_cast<std::int32_t>(rows / (static_cast<std::int64_t>(shape.lanes) * shape.rows_per_lane));
  return params;
}

}  // namespace

struct ResidentSubjects::State {
  const SequenceSet& subjects;
  Scoring scoring;
  std::vector<std::vector<std::size_t>> pairs;  // subject indices, longest pairs first
  int multiprocessors = 0;
  std::size_t budget_bytes = 0;
  Pipeline pipeline;
  EntryLayout entries;
  std::int64_t longest = 0;
  std::vector<std::unique_ptr<QuerySlot>> slots;  // one, or kQueriesInFlight where resident
  std::vector<std::uint32_t> rescoring_host_profile;
  DeviceArray<std::uint32_t> rescoring_profile;

  State(const SequenceSet& subjects_in, const Scoring& scoring_in, std::vector<std::vector<std::size_t>> pairs_in,
        const DeviceInfo& device, std::size_t requested_budget)
      : subjects(subjects_in),
        scoring(scoring_in),
        pairs(std::move(pairs_in)),
        multiprocessors(device.multiprocessors),
        budget_bytes(requested_budget != 0
                         ? requested_budget
                         : static_cast<std::size_t>(kAutomaticBudgetShare * static_cast<double>(device.free_memory))),
        entries(subjects, pairs, 2, ScoreOrder::subject, budget_bytes, HostColumns::pinned, pipeline) {
    if (!pairs.empty()) longest = subjects.length(pairs.front().front());
    // Queries in flight at once: a streamed layout's chunk buffers serve one;
    // a resident one takes as many as half the memory left holds (each may
    // need its scores, the gathered subjects and a boundary row).
    std::size_t in_flight = 1;
    if (!entries.streamed()) {
      const std::size_t per_slot = subjects.size() * (sizeof(std::int32_t) + sizeof(detail::ScoredSlot)) +
                                   entries.boundary_columns() * kBoundaryBytes;
      const std::size_t room = current_device().free_memory / 2;
      in_flight = std::clamp<std::size_t>(per_slot == 0 ? kQueriesInFlight : room / per_slot, 1, kQueriesInFlight);
    }
    for (std::size_t i = 0; i < in_flight; ++i) slots.push_back(std::make_unique<QuerySlot>());
  }

  void score_pairs(QuerySlot& slot, std::span<const Residue> query, std::optional<KernelShape> requested);
  void select_best(QuerySlot& slot, std::size_t keep);
  std::vector<ScoredSubject> take_best(QuerySlot& slot, std::span<const Residue> query, std::size_t keep);
  std::vector<std::int32_t> rescore(std::span<const Residue> query, const std::vector<std::size_t>& overflowed);

  std::size_t rescoring_budget() const noexcept {
    const std::size_t held = entries.device_bytes();
    return std::max(budget_bytes > held ? budget_bytes - held : 0, budget_bytes / kRescoringBudgetDivisor);
  }
};

ResidentSubjects::ResidentSubjects(const SequenceSet& subjects, const Scoring& scoring,
                                   std::size_t device_memory_bytes) {
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
  // Entries and subjects are indexed in 32 bits on the device.
  if (subjects.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw UsageError(fmt::format("{} subjects are more than the cuda engine indexes", subjects.size()));
  }
  state_ = std::make_unique<State>(subjects, scoring, std::move(pairs), current_device(), device_memory_bytes);
}

ResidentSubjects::~ResidentSubjects() = default;

bool ResidentSubjects::streamed() const noexcept { return state_->entries.streamed(); }

std::size_t ResidentSubjects::chunks() const noexcept { return state_->entries.chunks(); }

namespace {

void check_shape(const std::optional<KernelShape>& requested) {
  const std::span<const KernelShape> shapes = kernel_shapes();
  if (requested && std::find(shapes.begin(), shapes.end(), *requested) == shapes.end()) {
    throw UsageError(fmt::format("the cuda kernel is not compiled for {} lanes x {} rows in the {} form",
                                 requested->lanes, requested->rows_per_lane,
                                 requested->form == KernelForm::wide ? "wide" : "compact"));
  }
}

}  // namespace

// The 16-bit pass over every pair on the slot's stream; the scores stay in
// slot.scores, kOverflow where the lanes could not certify one.
void ResidentSubjects::State::score_pairs(QuerySlot& slot, std::span<const Residue> query,
                                          std::optional<KernelShape> requested) {
  const Stream stream = slot.stream.get();
  const auto m = static_cast<std::int64_t>(query.size());
  // Penalties beyond 16383 are clamped so that E - extend cannot wrap; a
  // clamped gap could only open from an H above 16383, so the overflow
  // threshold drops to 16383 and such subjects are rescored.
  const KernelShape shape = requested.value_or(
      choose_shape(m, static_cast<std::int64_t>(pairs.size()), entries.columns(), longest, multiprocessors));
  KernelParams params =
      upload_profile(query, scoring.matrix, padded_rows(m, shape), shape, slot.host_profile, slot.profile, stream);
  constexpr std::int32_t kClamp = 16383;
  const std::int32_t open_extend = scoring.gaps.open + scoring.gaps.extend;
  params.open_extend = std::min(open_extend, kClamp);
  params.extend = std::min(scoring.gaps.extend, kClamp);
  params.overflow_threshold = std::numeric_limits<std::int16_t>::max() - std::max(0, scoring.matrix.max_score());
  if (open_extend > kClamp) params.overflow_threshold = std::min(params.overflow_threshold, kClamp);
  if (slot.scores.size() != subjects.size()) slot.scores = DeviceArray<std::int32_t>(subjects.size());
  if (params.passes > 1 && slot.boundary.size() < entries.boundary_columns()) {
    slot.boundary = DeviceArray<std::uint64_t>(entries.boundary_columns());
  }
  entries.run(params, shape,
              [&](const KernelParams& p, unsigned blocks, Stream s) { detail::launch_packed(shape, p, blocks, s); },
              {stream, slot.scores.data(), slot.boundary.data()});
}

// After score_pairs(), on the slot's stream: the subjects that can rank among
// the best `keep` (keep >= 1) gathered into slot.gathered.
void ResidentSubjects::State::select_best(QuerySlot& slot, std::size_t keep) {
  const Stream stream = slot.stream.get();
  const auto count = static_cast<std::int32_t>(subjects.size());
  if (slot.gathered.size() < subjects.size()) slot.gathered = DeviceArray<detail::ScoredSlot>(subjects.size());
  slot.bins.fill_zero(stream);
  detail::count_scores(slot.scores.data(), count, slot.bins.data(), stream);
  const auto most = static_cast<std::uint32_t>(std::min<std::size_t>(keep, subjects.size()));
  detail::select_bins(slot.bins.data(), most, slot.selected.data(), stream);
  detail::gather_scores(slot.scores.data(), count, slot.selected.data(), slot.gathered.data(), stream);
}

// Waits for the slot's query and ranks what select_best() gathered,
// rescoring exactly the subjects the 16-bit lanes could not certify.
std::vector<ScoredSubject> ResidentSubjects::State::take_best(QuerySlot& slot, std::span<const Residue> query,
                                                              std::size_t keep) {
  const Stream stream = slot.stream.get();
  detail::Selected selected{};
  device::copy_to_host(&selected, slot.selected.data(), sizeof(selected), stream);
  device::synchronize(stream);
  std::vector<detail::ScoredSlot> gathered(selected.count);
  if (!gathered.empty()) {
    device::copy_to_host(gathered.data(), slot.gathered.data(), gathered.size() * sizeof(detail::ScoredSlot), stream);
    device::synchronize(stream);
  }
  std::vector<ScoredSubject> candidates;
  candidates.reserve(gathered.size());
  std::vector<std::size_t> overflowed;
  for (const detail::ScoredSlot& g : gathered) {
    candidates.push_back({static_cast<std::size_t>(g.subject), g.score});
    if (g.score == detail::kOverflow) overflowed.push_back(candidates.back().subject);
  }
  if (!overflowed.empty()) {
    const std::vector<std::int32_t> exact = rescore(query, overflowed);
    std::size_t next = 0;
    for (ScoredSubject& candidate : candidates) {
      if (candidate.score == detail::kOverflow) candidate.score = exact[next++];
    }
  }
  return best_subjects(std::move(candidates), keep);
}

// The exact 32-bit scores of `overflowed`, subjects the 16-bit lanes could
// not certify. They are few and change with every query, so a streamed
// rescoring copies from pageable memory rather than pay for locking it.
std::vector<std::int32_t> ResidentSubjects::State::rescore(std::span<const Residue> query,
                                                           const std::vector<std::size_t>& overflowed) {
  std::vector<std::int32_t> exact_scores(overflowed.size());
  if (overflowed.empty()) return exact_scores;
  std::vector<std::vector<std::size_t>> singles;
  singles.reserve(overflowed.size());
  for (const std::size_t subject : overflowed) singles.push_back({subject});
  EntryLayout exact(subjects, singles, 1, ScoreOrder::entry, rescoring_budget(), HostColumns::pageable, pipeline);
  const auto m = static_cast<std::int64_t>(query.size());
  KernelParams params = upload_profile(query, scoring.matrix, padded_rows(m, detail::kExactShape), detail::kExactShape,
                                       rescoring_host_profile, rescoring_profile, pipeline.compute.get());
  params.open_extend = scoring.gaps.open + scoring.gaps.extend;
  params.extend = scoring.gaps.extend;
  params.overflow_threshold = std::numeric_limits<std::int32_t>::max();
  exact.score(
      params, detail::kExactShape,
      [](const KernelParams& p, unsigned blocks, Stream stream) { detail::launch_exact(p, blocks, stream); },
      exact_scores);
  return exact_scores;
}

void ResidentSubjects::scores(std::span<const Residue> query, std::span<std::int32_t> scores,
                              std::optional<KernelShape> requested) {
  State& state = *state_;
  if (scores.size() != state.subjects.size()) {
    throw UsageError(fmt::format("{} scores for {} subjects", scores.size(), state.subjects.size()));
  }
  check_shape(requested);
  std::fill(scores.begin(), scores.end(), 0);
  if (query.empty() || state.pairs.empty()) return;
  check_score_range(static_cast<std::int64_t>(query.size()), state.longest, state.scoring.matrix);
  if (state.longest == 0) return;

  QuerySlot& slot = *state.slots.front();
  state.score_pairs(slot, query, requested);
  slot.scores.copy_to_host(scores, slot.stream.get());
  device::synchronize(slot.stream.get());

  std::vector<std::size_t> overflowed;
  for (std::size_t subject = 0; subject < scores.size(); ++subject) {
    if (scores[subject] == detail::kOverflow) overflowed.push_back(subject);
  }
  const std::vector<std::int32_t> exact = state.rescore(query, overflowed);
  for (std::size_t i = 0; i < overflowed.size(); ++i) scores[overflowed[i]] = exact[i];
}

std::vector<ScoredSubject> ResidentSubjects::best(std::span<const Residue> query, std::size_t keep,
                                                  std::optional<KernelShape> requested) {
  const std::span<const Residue> queries[] = {query};
  return std::move(best(queries, keep, requested).front());
}

std::vector<std::vector<ScoredSubject>> ResidentSubjects::best(std::span<const std::span<const Residue>> queries,
                                                               std::size_t keep, std::optional<KernelShape> requested) {
  State& state = *state_;
  check_shape(requested);
  for (const std::span<const Residue> query : queries) {
    if (!query.empty()) check_score_range(static_cast<std::int64_t>(query.size()), state.longest, state.scoring.matrix);
  }
  std::vector<std::vector<ScoredSubject>> best(queries.size());
  if (keep == 0 || state.pairs.empty() || state.longest == 0) return best;

  // The queries to score, each on a slot's stream as soon as one is free:
  // while the host takes one query's best subjects, the next ones run.
  std::vector<std::size_t> pending;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (!queries[q].empty()) pending.push_back(q);
  }
  const std::size_t in_flight = state.slots.size();
  const auto start = [&](std::size_t i) {
    QuerySlot& slot = *state.slots[i % in_flight];
    state.score_pairs(slot, queries[pending[i]], requested);
    state.select_best(slot, keep);
  };
  for (std::size_t i = 0; i < std::min(in_flight, pending.size()); ++i) start(i);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    best[pending[i]] = state.take_best(*state.slots[i % in_flight], queries[pending[i]], keep);
    if (i + in_flight < pending.size()) start(i + in_flight);
  }
  return best;
}

}  // namespace trellis::align::cuda
