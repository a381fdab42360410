// A prepared database read in parts (sharded_search.hpp): the file stays
// mapped and each part is copied out by its offsets when it is searched, so
// processes searching parts of one database read only their own residues,
// and a database larger than host memory is searched a part at a time.
//
// Opening checks the header and the section sizes against the file's size;
// each part's offsets, lengths, residue codes and indices are checked when it
// is read (an InputError naming the file and the problem). The CRC-32 covers
// the whole file, so only read_database checks it: a reader of parts would
// have to read every part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "trellis/align/sequence.hpp"
#include "trellis/align/sharded_search.hpp"

namespace trellis::align {

// A prepared database kept mapped and read a part at a time.
class DatabaseParts {
 public:
  // Maps the database at path and checks its header and section sizes (InputError otherwise).
  explicit DatabaseParts(const std::filesystem::path& path);
  ~DatabaseParts();                                         // unmaps the file
  DatabaseParts(const DatabaseParts&) = delete;             // not copyable
  DatabaseParts& operator=(const DatabaseParts&) = delete;  // not copy-assignable

  // Number of sequences in the database.
  std::size_t size() const noexcept;
  // Number of residues in the database.
  std::int64_t total_residues() const noexcept;
  // The cumulative residues in stored order (by length): size() + 1 values.
  std::vector<std::int64_t> stored_offsets() const;
  // Stored sequences [begin, end), ordered by their index in the database
  // (the input order), with those indices.
  DatabaseShard read_stored(std::size_t begin, std::size_t end) const;
  // Sequences by their index in the database, in the order given.
  SequenceSet read_indices(std::span<const std::size_t> indices) const;
  // The database as a ShardSource in stored order; the source refers to this
  // object, which must outlive it.
  ShardSource source() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::align
