// Prepared databases read in parts (database_parts.hpp): the header checked
// once, each part's sections checked as it is copied out.
#include "trellis/align/database_parts.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "database_layout.hpp"

namespace trellis::align {

namespace layout = database_layout;

struct DatabaseParts::State {
  explicit State(std::string name_in) : name(std::move(name_in)), file(name), decoder(name, file.data(), file.size()) {}
  std::string name;
  layout::MappedFile file;
  layout::DatabaseDecoder decoder;
};

DatabaseParts::DatabaseParts(const std::filesystem::path& path) : state_(std::make_unique<State>(path.string())) {
  state_->decoder.check_header();
  state_->decoder.check_sizes();
}

DatabaseParts::~DatabaseParts() = default;

std::size_t DatabaseParts::size() const noexcept { return static_cast<std::size_t>(state_->decoder.count()); }

std::int64_t DatabaseParts::total_residues() const noexcept {
  return static_cast<std::int64_t>(state_->decoder.total_residues());
}

std::vector<std::int64_t> DatabaseParts::stored_offsets() const {
  const layout::DatabaseDecoder& decoder = state_->decoder;
  std::vector<std::int64_t> offsets(size() + 1);
  for (std::size_t s = 0; s <= size(); ++s) {
    const std::uint64_t offset = decoder.residue_offset(s);
    if (offset > decoder.total_residues() || (s > 0 && offset < static_cast<std::uint64_t>(offsets[s - 1]))) {
      decoder.fail(fmt::format("corrupt residue offsets: sequence {} starts at {}, outside [{}, {}]", s, offset,
                               s > 0 ? offsets[s - 1] : 0, decoder.total_residues()));
    }
    offsets[s] = static_cast<std::int64_t>(offset);
  }
  if (offsets.front() != 0 || static_cast<std::uint64_t>(offsets.back()) != decoder.total_residues()) {
    decoder.fail("corrupt residue offsets: they do not run from 0 to the total residues");
  }
  return offsets;
}

namespace {

// Bytes [begin, end) of a text section for stored sequence s, checked.
std::string checked_text(const layout::DatabaseDecoder& decoder, layout::Section offsets, layout::Section bytes,
                         std::size_t s) {
  const auto begin = layout::load_le<std::uint64_t>(decoder.section(offsets) + 8 * s);
  const auto end = layout::load_le<std::uint64_t>(decoder.section(offsets) + 8 * (s + 1));
  if (end < begin || end > decoder.section_size(bytes)) {
    decoder.fail(fmt::format("corrupt {}: sequence {} ends at {}, outside [{}, {}]", layout::kSectionNames[offsets], s,
                             end, begin, decoder.section_size(bytes)));
  }
  return std::string(reinterpret_cast<const char*>(decoder.section(bytes) + begin), end - begin);
}

std::uint32_t checked_original(const layout::DatabaseDecoder& decoder, std::size_t s) {
  const auto index = layout::load_le<std::uint32_t>(decoder.section(layout::original_indices_section) + 4 * s);
  if (index >= decoder.count()) {
    decoder.fail(fmt::format("corrupt original indices: {} at stored sequence {} is out of range", index, s));
  }
  return index;
}

// Appends stored sequence s to `set`, its residues checked.
void append_stored(const layout::DatabaseDecoder& decoder, std::size_t s, SequenceSet& set) {
  const std::uint64_t begin = decoder.residue_offset(s);
  const std::uint64_t end = decoder.residue_offset(s + 1);
  if (end < begin || end > decoder.total_residues()) {
    decoder.fail(fmt::format("corrupt residue offsets: sequence {} ends at {}, outside [{}, {}]", s, end, begin,
                             decoder.total_residues()));
  }
  const auto* residues = reinterpret_cast<const Residue*>(decoder.section(layout::residues_section)) + begin;
  const std::span<const Residue> sequence(residues, end - begin);
  const auto bad = std::find_if(sequence.begin(), sequence.end(), [](Residue r) { return r >= kAlphabetSize; });
  if (bad != sequence.end()) {
    decoder.fail(fmt::format("invalid residue code {} at residue {}", static_cast<int>(*bad),
                             begin + static_cast<std::uint64_t>(bad - sequence.begin())));
  }
  set.add(checked_text(decoder, layout::id_offsets_section, layout::id_bytes_section, s),
          checked_text(decoder, layout::description_offsets_section, layout::description_bytes_section, s), sequence);
}

}  // namespace

DatabaseShard DatabaseParts::read_stored(std::size_t begin, std::size_t end) const {
  const layout::DatabaseDecoder& decoder = state_->decoder;
  if (begin > end || end > size()) {
    throw UsageError(fmt::format("part [{}, {}) outside a database of {} sequences", begin, end, size()));
  }
  std::vector<std::pair<std::uint32_t, std::size_t>> by_index;  // (database index, stored position)
  by_index.reserve(end - begin);
  for (std::size_t s = begin; s < end; ++s) {
    if (s > begin && decoder.length(s) < decoder.length(s - 1)) {
      decoder.fail(fmt::format("sequences not in length order: stored sequence {} is shorter than the one before", s));
    }
    by_index.emplace_back(checked_original(decoder, s), s);
  }
  std::sort(by_index.begin(), by_index.end());
  if (std::adjacent_find(by_index.begin(), by_index.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }) != by_index.end()) {
    decoder.fail("corrupt original indices: an index is repeated");
  }
  DatabaseShard shard;
  shard.database_index.reserve(by_index.size());
  for (const auto& [index, s] : by_index) {
    append_stored(decoder, s, shard.sequences);
    shard.database_index.push_back(index);
  }
  return shard;
}

SequenceSet DatabaseParts::read_indices(std::span<const std::size_t> indices) const {
  const layout::DatabaseDecoder& decoder = state_->decoder;
  // One pass over the original indices finds the stored position of each
  // wanted sequence; no table of the whole database is kept.
  std::vector<std::size_t> wanted(indices.begin(), indices.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<std::size_t> stored_at(wanted.size(), size());
  for (std::size_t s = 0; s < size(); ++s) {
    const std::uint32_t index = checked_original(decoder, s);
    const auto at = std::lower_bound(wanted.begin(), wanted.end(), index);
    if (at != wanted.end() && *at == index) stored_at[static_cast<std::size_t>(at - wanted.begin())] = s;
  }
  SequenceSet set;
  for (const std::size_t index : indices) {
    const auto at = std::lower_bound(wanted.begin(), wanted.end(), index);
    const std::size_t s = stored_at[static_cast<std::size_t>(at - wanted.begin())];
    if (s == size()) decoder.fail(fmt::format("no sequence {} in a database of {}", index, size()));
    append_stored(decoder, s, set);
  }
  return set;
}

ShardSource DatabaseParts::source() const {
  ShardSource source;
  source.offsets = stored_offsets();
  source.read = [this](std::size_t begin, std::size_t end) { return read_stored(begin, end); };
  source.totals = {total_residues(), static_cast<std::int64_t>(size())};
  return source;
}

}  // namespace trellis::align
