// The align module's vulkan engine (src/align/vulkan/): subjects uploaded
// once and scored against one query at a time by sw_scores.comp, 16-bit
// lanes packed in 32-bit words first, then the exact 32-bit recurrence for
// the subjects whose score reached 16 bits. Scores equal
// reference::sw_scores bit for bit. In a build without Vulkan, or where no
// device can run, construction throws BackendUnavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align::vulkan {

class SubjectsOnDevice {
 public:
  // Keeps a reference to `subjects`, which must outlive it. scratch_bytes
  // bounds the scratch of one dispatch (0: the device's storage-buffer
  // range, at most 1 GiB); more subjects than it holds take several
  // dispatches in turn, and a query too long for one workgroup's worth gets
  // that much all the same.
  explicit SubjectsOnDevice(const SequenceSet& subjects, const Scoring& scoring, std::size_t scratch_bytes = 0);
  ~SubjectsOnDevice();
  SubjectsOnDevice(const SubjectsOnDevice&) = delete;
  SubjectsOnDevice& operator=(const SubjectsOnDevice&) = delete;

  // scores.size() == subjects.size(). Throws UsageError as
  // check_score_range does, before any work starts.
  void scores(std::span<const Residue> query, std::span<std::int32_t> scores);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::align::vulkan
