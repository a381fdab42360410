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

// Smith-Waterman-Gotoh protein search: sequences, scoring, alignment, database search, statistics and output.
namespace trellis::align {

// An encoded residue: an index into kAlphabetLetters.
using Residue = std::uint8_t;

// Number of residue codes (the NCBI matrices' 24 letters).
inline constexpr int kAlphabetSize = 24;
// The letters of codes 0..23, in the NCBI matrix files' order.
inline constexpr std::string_view kAlphabetLetters = "ARNDCQEGHILKMFPSTWYVBZX*";
inline constexpr Residue kResidueX = 22;     // the unknown residue
inline constexpr Residue kResidueStop = 23;  // '*'
// What encode_residue() returns for a character that is not a residue.
inline constexpr Residue kNotAResidue = 0xFF;

// The code of a letter (either case), or kNotAResidue.
Residue encode_residue(char letter) noexcept;
// The alphabet letter of a code (kAlphabetLetters[code]); '?' when out of range.
char residue_letter(Residue code) noexcept;

// Encodes letters; throws UsageError naming the first character that is not
// a residue and its 1-based position.
std::vector<Residue> encode_protein(std::string_view letters);
// The letters of encoded residues (residue_letter() of each).
std::string decode_protein(std::span<const Residue> residues);

// Many sequences packed end to end: one residue array and offsets into it,
// the layout engines and a prepared database share. Sequence i occupies
// residues [offsets[i], offsets[i+1]).
class SequenceSet {
 public:
  SequenceSet() : offsets_{0} {}  // an empty set

  // Appends a whole sequence with its FASTA id and description.
  void add(std::string id, std::string description, std::span<const Residue> residues);
  // Appends residues to the last sequence added (the FASTA reader's path).
  void begin_sequence(std::string id, std::string description);
  // Appends residues to the last sequence begun.
  void append_residues(std::span<const Residue> residues);

  // Number of sequences.
  std::size_t size() const noexcept { return ids_.size(); }
  // True when there are no sequences.
  bool empty() const noexcept { return ids_.empty(); }
  // The residues of sequence index.
  std::span<const Residue> residues(std::size_t index) const noexcept;
  // Number of residues of sequence index.
  std::int64_t length(std::size_t index) const noexcept { return offsets_[index + 1] - offsets_[index]; }
  // FASTA id of sequence index (the header's first word).
  const std::string& id(std::size_t index) const noexcept { return ids_[index]; }
  // FASTA description of sequence index (the header after the id).
  const std::string& description(std::size_t index) const noexcept { return descriptions_[index]; }

  // Residues of all sequences together.
  std::int64_t total_residues() const noexcept { return offsets_.back(); }
  // All residues, sequence after sequence.
  std::span<const Residue> all_residues() const noexcept { return residues_; }
  // size() + 1 ascending offsets into all_residues(), starting at 0.
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
