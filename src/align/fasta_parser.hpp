// The FASTA state machine behind read_fasta_file and parse_fasta. It takes
// the input in chunks of any size (a gzread buffer, a whole string), so the
// file reader never holds more than one buffer of text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trellis/align/sequence.hpp"

namespace trellis::align::fasta_detail {

class FastaParser {
 public:
  FastaParser(std::string name, SequenceSet& out);

  // Parses the next bytes; throws InputError at the first problem.
  void consume(std::string_view chunk);
  // Ends the input: flushes the last record, reports an empty input or one
  // without records.
  void finish();

  // 1-based line the parser is on (for errors found outside it).
  std::size_t line() const noexcept { return line_; }
  const std::string& name() const noexcept { return name_; }

 private:
  enum class State { line_start, header, sequence_line };

  void start_header();
  void end_header();
  void flush_residues();

  std::string name_;
  SequenceSet& out_;
  State state_ = State::line_start;
  bool in_record_ = false;
  std::string header_;
  std::vector<Residue> pending_;  // residues not yet appended to out_
  std::size_t line_ = 1;
  std::uint64_t position_ = 0;    // bytes consumed so far
  std::uint64_t line_begin_ = 0;  // position of the current line's first byte
};

}  // namespace trellis::align::fasta_detail
