#include "trellis/align/sequence.hpp"

namespace trellis::align {

void SequenceSet::add(std::string id, std::string description, std::span<const Residue> residues) {
  begin_sequence(std::move(id), std::move(description));
  append_residues(residues);
}

void SequenceSet::begin_sequence(std::string id, std::string description) {
  ids_.push_back(std::move(id));
  descriptions_.push_back(std::move(description));
  offsets_.push_back(offsets_.back());
}

void SequenceSet::append_residues(std::span<const Residue> residues) {
  residues_.insert(residues_.end(), residues.begin(), residues.end());
  offsets_.back() = static_cast<std::int64_t>(residues_.size());
}

std::span<const Residue> SequenceSet::residues(std::size_t index) const noexcept {
  const auto begin = static_cast<std::size_t>(offsets_[index]);
  const auto end = static_cast<std::size_t>(offsets_[index + 1]);
  return std::span<const Residue>(residues_).subspan(begin, end - begin);
}

}  // namespace trellis::align
