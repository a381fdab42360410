// What the three text readers share: a line reader over one large buffer,
// whitespace field splitting, and strict number parsing that turns every
// problem into an InputError naming the file and line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "readers.hpp"
#include "trellis/graph/graph.hpp"

namespace trellis::graph::io_detail {

// Reads a stream in large chunks and hands out its lines without copying.
// A line ends at "\n"; a "\r" before it is dropped, so CRLF files read like
// LF files. The last line may lack its "\n".
class LineReader {
 public:
  LineReader(std::istream& in, std::string name);

  // The next line without its ending, valid until the next call; false at
  // the end of the input. Throws InputError if the stream reports an error.
  bool next_line(std::string_view& line);

  // 1-based number of the line next_line() returned last (0 before the first).
  std::size_t line_number() const noexcept { return line_number_; }
  const std::string& name() const noexcept { return name_; }

  // Bytes the stream held when the reader was made, or -1 when it cannot
  // tell (a pipe): an upper bound on what a header's counts can reserve.
  std::int64_t input_bytes() const noexcept { return input_bytes_; }

  // InputError at the current line. When that line is the last one and has
  // no line ending, the message adds that the file may be truncated.
  [[noreturn]] void fail(std::string_view problem) const;
  // InputError at a given line (0: not tied to a line).
  [[noreturn]] void fail_at(std::size_t line, std::string_view problem) const;

 private:
  void refill();

  std::istream& in_;
  std::string name_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // unread data is buffer_[begin_, end_)
  std::size_t end_ = 0;
  bool input_exhausted_ = false;
  bool last_line_unterminated_ = false;
  std::size_t line_number_ = 0;
  std::int64_t input_bytes_ = -1;
};

// Space, tab, CR, vertical tab and form feed separate fields.
constexpr bool is_field_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The line without leading field space (empty for a blank line).
std::string_view trim_leading_space(std::string_view line) noexcept;

// Splits a line into whitespace-separated fields, stores the first
// fields.size() of them and returns how many there are in all (so a caller
// can report "found 5 fields" while storing only the 4 it wants).
std::size_t split_fields(std::string_view line, std::span<std::string_view> fields) noexcept;

// A token for a message: quoted, at most a few dozen characters, with
// unprintable bytes escaped (fuzzed or binary input stays readable).
std::string quoted(std::string_view token);

// The whole token as a base-10 integer; fails naming `what` ("node id",
// "arc count") when it is not one or does not fit 64 bits.
std::int64_t parse_integer(const LineReader& reader, std::string_view token, std::string_view what);

// The whole token as a non-negative, finite number that fits a float32:
// parsed to double (std::from_chars), checked, then rounded to float.
// Values below the smallest float become 0; values above the largest float
// that still round to it are kept. Fails naming `what` ("weight", "value").
Weight parse_weight(const LineReader& reader, std::string_view token, std::string_view what);

// Rounds a parsed non-negative finite double below the float overflow
// threshold to float32; the one conversion the readers and the writer's
// round-trip check share.
Weight round_to_weight(double value) noexcept;

// How many entries to reserve for `declared` items of at least
// `min_bytes_per_item` bytes each: the declared count, capped by what the
// input could possibly hold, so a lying header cannot exhaust memory.
std::size_t reservation_for(std::int64_t declared, const LineReader& reader, std::int64_t min_bytes_per_item);

// The limit on node counts in words, for messages: "32-bit node ids allow
// at most 2147483647 nodes".
std::string node_limit(const ReadLimits& limits);

// Edges gathered in file order before they become a CSR graph.
struct EdgeBuffer {
  std::vector<NodeId> tails;
  std::vector<NodeId> heads;
  std::vector<Weight> weights;

  void reserve(std::size_t edges);
  void add(NodeId tail, NodeId head, Weight weight) {
    tails.push_back(tail);
    heads.push_back(head);
    weights.push_back(weight);
  }
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(tails.size()); }
  // Moves the edges into a graph of `nodes` nodes; the buffer is left empty.
  Graph to_graph(NodeId nodes);
};

}  // namespace trellis::graph::io_detail
