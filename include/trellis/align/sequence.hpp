// Protein sequences: the residue alphabet, encoded sequence sets and the
// FASTA reader.
//
// Residues are encoded as indices 0..23 into the alphabet of the NCBI matrix
// files, "ARNDCQEGHILKMFPSTWYVBZX*", so one encoded residue indexes a row or
// column of every ScoringMatrix directly. Letters outside those 24 are
// mapped as NCBI BLAST+ maps them (src/align/alphabet.cpp cites the source):
// U (selenocysteine) and O (pyrrolysine) are scored as X; J (leucine or
// isoleucine), which the 24-letter matrices have no column for, is scored as
// X as well. Lowercase letters read as uppercase.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trellis::align {

using Residue = std::uint8_t;

inline constexpr int kAlphabetSize = 24;
inline constexpr std::string_view kAlphabetLetters = "ARNDCQEGHILKMFPSTWYVBZX*";
inline constexpr Residue kResidueX = 22;     // the unknown residue
inline constexpr Residue kResidueStop = 23;  // '*'
inline constexpr Residue kNotAResidue = 0xFF;

// The code of a letter (either case), or kNotAResidue.
Residue encode_residue(char letter) noexcept;
// The alphabet letter of a code (kAlphabetLetters[code]); '?' when out of range.
char residue_letter(Residue code) noexcept;

// Encodes letters; throws UsageError naming the first character that is not
// a residue and its 1-based position.
std::vector<Residue> encode_protein(std::string_view letters);
std::string decode_protein(std::span<const Residue> residues);

// Many sequences packed end to end: one residue array and offsets into it,
// the layout engines and a prepared database share. Sequence i occupies
// residues [offsets[i], offsets[i+1]).
class SequenceSet {
 public:
  SequenceSet() : offsets_{0} {}

  void add(std::string id, std::string description, std::span<const Residue> residues);
  // Appends residues to the last sequence added (the FASTA reader's path).
  void begin_sequence(std::string id, std::string description);
  void append_residues(std::span<const Residue> residues);

  std::size_t size() const noexcept { return ids_.size(); }
  bool empty() const noexcept { return ids_.empty(); }
  std::span<const Residue> residues(std::size_t index) const noexcept;
  std::int64_t length(std::size_t index) const noexcept { return offsets_[index + 1] - offsets_[index]; }
  const std::string& id(std::size_t index) const noexcept { return ids_[index]; }
  const std::string& description(std::size_t index) const noexcept { return descriptions_[index]; }

  std::int64_t total_residues() const noexcept { return offsets_.back(); }
  std::span<const Residue> all_residues() const noexcept { return residues_; }
  std::span<const std::int64_t> offsets() const noexcept { return offsets_; }

 private:
  std::vector<Residue> residues_;
  std::vector<std::int64_t> offsets_;  // size() + 1 entries
  std::vector<std::string> ids_;
  std::vector<std::string> descriptions_;
};

// FASTA, plain or gzip-compressed (detected from the content, not the name).
//
// A record is a header line ">id description" followed by sequence lines.
// The id is the header's first word, the description the rest with its
// surrounding blanks removed. Sequence lines may be split anywhere, hold
// either letter case, spaces, tabs and CR (CRLF files read like LF files);
// blank lines are skipped anywhere. '*' is kept as the stop residue. A record
// with no residues is kept as an empty sequence.
//
// Throws InputError naming the file and line for: a file that does not
// start with '>' (not FASTA), a character that is not a residue (named with
// its line and column), a header without an id, an empty file or one with no
// records (line 0: the whole file), a truncated or corrupt .gz, and a file
// that cannot be opened.
SequenceSet read_fasta_file(const std::filesystem::path& path);

// The same reader on text in memory; `name` is what messages call it.
SequenceSet parse_fasta(std::string_view text, const std::string& name);

}  // namespace trellis::align
