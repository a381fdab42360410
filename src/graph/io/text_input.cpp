#include "text_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <system_error>

#include "trellis/core/error.hpp"

namespace trellis::graph::io_detail {
namespace {

// Large reads keep a 40 M-edge file to a few hundred system calls.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
// Small inputs (tests, fuzzing) get a buffer their own size instead.
constexpr std::size_t kSmallestBuffer = 64;
// Reservations when the input's size is unknown (a pipe).
constexpr std::int64_t kUnknownSizeReservation = std::int64_t{1} << 20;

// Doubles above the largest float but below this midpoint round to the
// largest float; from here on they round to infinity.
constexpr double kFloatOverflowsFrom = 0x1.ffffffp+127;

constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// For a decimal number from_chars found out of double's range: whether it
// is tiny (underflow) rather than huge. The power of ten of its leading
// non-zero digit settles it; the range is exceeded only hundreds of powers
// away from zero, so saturating the written exponent loses nothing.
bool is_underflow(std::string_view token) noexcept {
  std::size_t i = 0;
  if (i < token.size() && token[i] == '-') ++i;
  std::int64_t leading_power = 0;
  bool seen_nonzero = false;
  for (; i < token.size() && is_digit(token[i]); ++i) {
    if (seen_nonzero) {
      ++leading_power;
    } else if (token[i] != '0') {
      seen_nonzero = true;
    }
  }
  if (i < token.size() && token[i] == '.') {
    for (++i; i < token.size() && is_digit(token[i]); ++i) {
      if (!seen_nonzero) {
        --leading_power;
        seen_nonzero = token[i] != '0';
      }
    }
  }
  std::int64_t written_power = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < token.size() && (token[i] == '-' || token[i] == '+')) negative = token[i++] == '-';
    for (; i < token.size() && is_digit(token[i]); ++i) {
      written_power = std::min<std::int64_t>(written_power * 10 + (token[i] - '0'), 1'000'000'000'000);
    }
    if (negative) written_power = -written_power;
  }
  return leading_power + written_power < 0;
}

}  // namespace

LineReader::LineReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
  // Probe the remaining size when the stream can seek; a pipe cannot, and
  // then its state is restored so reading starts where it stood.
  const std::ios::iostate state = in_.rdstate();
  const std::streampos start = in_.tellg();
  if (start != std::streampos(-1)) {
    in_.seekg(0, std::ios::end);
    const std::streampos end = in_.tellg();
    if (end != std::streampos(-1) && end >= start) input_bytes_ = static_cast<std::int64_t>(end - start);
    in_.clear(state);
    in_.seekg(start);
  }
  capacity_ = kChunkBytes;
  if (input_bytes_ >= 0) {
    capacity_ = std::clamp<std::size_t>(static_cast<std::size_t>(input_bytes_) + 1, kSmallestBuffer, kChunkBytes);
  }
  buffer_ = std::make_unique_for_overwrite<char[]>(capacity_);
}

bool LineReader::next_line(std::string_view& line) {
  for (;;) {
    const char* unread = buffer_.get() + begin_;
    const std::size_t unread_bytes = end_ - begin_;
    const auto* newline = static_cast<const char*>(std::memchr(unread, '\n', unread_bytes));
    std::size_t length = 0;
    if (newline != nullptr) {
      length = static_cast<std::size_t>(newline - unread);
      begin_ += length + 1;
    } else if (input_exhausted_) {
      if (unread_bytes == 0) return false;
      length = unread_bytes;
      begin_ = end_;
      last_line_unterminated_ = true;
    } else {
      refill();
      continue;
    }
    if (length > 0 && unread[length - 1] == '\r') --length;
    line = std::string_view(unread, length);
    // Editors on Windows may start a UTF-8 file with a byte order mark.
    if (line_number_ == 0 && line.starts_with(kUtf8ByteOrderMark)) line.remove_prefix(kUtf8ByteOrderMark.size());
    ++line_number_;
    return true;
  }
}

void LineReader::refill() {
  const std::size_t pending = end_ - begin_;
  if (pending == capacity_) {
    // One line fills the whole buffer: make room for the rest of it.
    const std::size_t grown = std::max(capacity_ * 2, kChunkBytes);
    auto larger = std::make_unique_for_overwrite<char[]>(grown);
    std::memcpy(larger.get(), buffer_.get() + begin_, pending);
    buffer_ = std::move(larger);
    capacity_ = grown;
  } else if (begin_ > 0 && pending > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, pending);
  }
  begin_ = 0;
  end_ = pending;
  in_.read(buffer_.get() + end_, static_cast<std::streamsize>(capacity_ - end_));
  const std::streamsize got = in_.gcount();
  if (in_.bad()) fail_at(line_number_ + 1, "reading the input failed");
  end_ += static_cast<std::size_t>(got);
  if (got == 0 || in_.eof()) input_exhausted_ = true;
}

void LineReader::fail(std::string_view problem) const {
  if (last_line_unterminated_) {
    throw InputError(name_, line_number_,
                     fmt::format("{} (this last line has no line ending: was the file cut short?)", problem));
  }
  fail_at(line_number_, problem);
}

void LineReader::fail_at(std::size_t line, std::string_view problem) const {
  throw InputError(name_, line, std::string(problem));
}

std::string_view trim_leading_space(std::string_view line) noexcept {
  std::size_t i = 0;
  while (i < line.size() && is_field_space(line[i])) ++i;
  return line.substr(i);
}

std::size_t split_fields(std::string_view line, std::span<std::string_view> fields) noexcept {
  std::size_t count = 0;
  std::size_t i = 0;
  const std::size_t n = line.size();
  for (;;) {
    while (i < n && is_field_space(line[i])) ++i;
    if (i == n) return count;
    const std::size_t start = i;
    while (i < n && !is_field_space(line[i])) ++i;
    if (count < fields.size()) fields[count] = line.substr(start, i - start);
    ++count;
  }
}

std::string quoted(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string text = "'";
  for (std::size_t i = 0; i < token.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c < 0x20 || c >= 0x7f) {
      text += fmt::format("\\x{:02x}", c);
    } else {
      text += static_cast<char>(c);
    }
  }
  if (token.size() > kShown) text += "...";
  text += "'";
  return text;
}

std::int64_t parse_integer(const LineReader& reader, std::string_view token, std::string_view what) {
  std::int64_t value = 0;
  const char* last = token.data() + token.size();
  const auto [stop, error] = std::from_chars(token.data(), last, value);
  if (stop == last && error == std::errc::result_out_of_range) {
    reader.fail(fmt::format("{} {} does not fit in 64 bits", what, quoted(token)));
  }
  if (stop != last || error != std::errc()) {
    reader.fail(fmt::format("expected {} to be an integer, found {}", what, quoted(token)));
  }
  return value;
}

Weight parse_weight(const LineReader& reader, std::string_view token, std::string_view what) {
  double value = 0;
  const char* last = token.data() + token.size();
  const auto [stop, error] = std::from_chars(token.data(), last, value, std::chars_format::general);
  if (stop != last || (error != std::errc() && error != std::errc::result_out_of_range)) {
    reader.fail(fmt::format("expected {} to be a number, found {}", what, quoted(token)));
  }
  const bool written_negative = !token.empty() && token.front() == '-';
  if (error == std::errc::result_out_of_range) {
    if (!is_underflow(token)) {
      reader.fail(fmt::format("{} {} is too large for a 32-bit float (at most {})", what, quoted(token),
                              std::numeric_limits<float>::max()));
    }
    if (written_negative) {
      reader.fail(fmt::format("{} {} is negative; shortest-path weights must be non-negative", what, quoted(token)));
    }
    return 0.0f;
  }
  if (!std::isfinite(value)) {
    reader.fail(fmt::format("{} {} is not a finite number", what, quoted(token)));
  }
  if (value < 0) {
    reader.fail(fmt::format("{} {} is negative; shortest-path weights must be non-negative", what, quoted(token)));
  }
  if (value >= kFloatOverflowsFrom) {
    reader.fail(fmt::format("{} {} is too large for a 32-bit float (at most {})", what, quoted(token),
                            std::numeric_limits<float>::max()));
  }
  return round_to_weight(value);
}

Weight round_to_weight(double value) noexcept {
  // Doubles just above the largest float round down to it; the explicit
  // clamp keeps the conversion within float's range.
  if (value > static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::max();
  return static_cast<Weight>(value);
}

std::size_t reservation_for(std::int64_t declared, const LineReader& reader, std::int64_t min_bytes_per_item) {
  if (declared <= 0) return 0;
  const std::int64_t possible =
      reader.input_bytes() >= 0 ? reader.input_bytes() / min_bytes_per_item + 1 : kUnknownSizeReservation;
  return static_cast<std::size_t>(std::min(declared, possible));
}

std::string node_limit(const ReadLimits& limits) {
  if (limits.max_nodes == std::numeric_limits<NodeId>::max()) {
    return fmt::format("32-bit node ids allow at most {} nodes", limits.max_nodes);
  }
  return fmt::format("this reader allows at most {} nodes", limits.max_nodes);
}

void EdgeBuffer::reserve(std::size_t edges) {
  tails.reserve(edges);
  heads.reserve(edges);
  weights.reserve(edges);
}

Graph EdgeBuffer::to_graph(NodeId nodes) {
  Graph graph = graph_from_edges(nodes, tails, heads, weights);
  *this = EdgeBuffer{};  // the CSR holds the edges now; free the copies early
  return graph;
}

}  // namespace trellis::graph::io_detail
