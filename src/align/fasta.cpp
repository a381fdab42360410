// FASTA and FASTA.gz: a byte-level state machine fed from gzread buffers
// (zlib reads plain files transparently), so large databases parse at
// memory speed without per-character stream calls.
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "fasta_parser.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace fasta_detail {
namespace {

// Classes of bytes on a sequence line: residue codes 0..23, or one of these.
constexpr std::uint8_t kBlank = 0xF0;  // space, tab, CR, VT, FF: ignored
constexpr std::uint8_t kNewline = 0xF1;
constexpr std::uint8_t kInvalid = 0xFF;

std::array<std::uint8_t, 256> make_byte_classes() {
  std::array<std::uint8_t, 256> classes{};
  for (int byte = 0; byte < 256; ++byte) {
    const Residue code = encode_residue(static_cast<char>(byte));
    classes[static_cast<std::size_t>(byte)] = code == kNotAResidue ? kInvalid : code;
  }
  for (const char blank : {' ', '\t', '\r', '\v', '\f'}) classes[static_cast<unsigned char>(blank)] = kBlank;
  classes['\n'] = kNewline;
  return classes;
}

const std::array<std::uint8_t, 256> kByteClasses = make_byte_classes();

constexpr bool is_header_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string describe_byte(char byte) {
  const auto value = static_cast<unsigned char>(byte);
  if (value >= 0x20 && value < 0x7f) return fmt::format("'{}'", byte);
  return fmt::format("byte 0x{:02x}", value);
}

}  // namespace

FastaParser::FastaParser(std::string name, SequenceSet& out) : name_(std::move(name)), out_(out) {}

void FastaParser::start_header() {
  flush_residues();
  header_.clear();
  in_record_ = true;
}

void FastaParser::end_header() {
  std::string_view text = header_;
  while (!text.empty() && is_header_blank(text.back())) text.remove_suffix(1);
  std::size_t id_begin = 0;
  while (id_begin < text.size() && is_header_blank(text[id_begin])) ++id_begin;
  std::size_t id_end = id_begin;
  while (id_end < text.size() && !is_header_blank(text[id_end])) ++id_end;
  if (id_begin == id_end) throw InputError(name_, line_, "the header line has no sequence id after '>'");
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto value = static_cast<unsigned char>(text[i]);
    if ((value < 0x20 && text[i] != '\t') || value == 0x7f) {
      throw InputError(name_, line_,
                       fmt::format("control character {} at column {} in the header", describe_byte(text[i]), i + 2));
    }
  }
  std::size_t description_begin = id_end;
  while (description_begin < text.size() && is_header_blank(text[description_begin])) ++description_begin;
  out_.begin_sequence(std::string(text.substr(id_begin, id_end - id_begin)),
                      std::string(text.substr(description_begin)));
}

void FastaParser::flush_residues() {
  if (!pending_.empty()) {
    out_.append_residues(pending_);
    pending_.clear();
  }
}

void FastaParser::consume(std::string_view chunk) {
  const std::uint64_t base = position_;
  const std::size_t size = chunk.size();
  std::size_t i = 0;
  const auto column_of = [&](std::size_t index) { return base + index - line_begin_ + 1; };
  const auto new_line_after = [&](std::size_t index) {
    ++line_;
    line_begin_ = base + index + 1;
  };
  while (i < size) {
    switch (state_) {
      case State::line_start: {
        const char c = chunk[i];
        if (c == '>') {
          start_header();
          state_ = State::header;
          ++i;
          break;
        }
        if (!in_record_) {
          const std::uint8_t cls = kByteClasses[static_cast<unsigned char>(c)];
          if (cls == kNewline) {
            new_line_after(i);
          } else if (cls != kBlank) {
            throw InputError(name_, line_,
                             fmt::format("not a FASTA file: expected '>' to start the first record, found {} at "
                                         "column {}",
                                         describe_byte(c), column_of(i)));
          }
          ++i;
          break;
        }
        state_ = State::sequence_line;
        break;
      }
      case State::header: {
        const char* rest = chunk.data() + i;
        const auto* newline = static_cast<const char*>(std::memchr(rest, '\n', size - i));
        if (newline == nullptr) {
          header_.append(rest, size - i);
          i = size;
          break;
        }
        const auto length = static_cast<std::size_t>(newline - rest);
        header_.append(rest, length);
        end_header();
        i += length;
        new_line_after(i);
        ++i;
        state_ = State::line_start;
        break;
      }
      case State::sequence_line: {
        // The hot loop: one table lookup per byte.
        for (; i < size; ++i) {
          const std::uint8_t cls = kByteClasses[static_cast<unsigned char>(chunk[i])];
          if (cls < kAlphabetSize) {
            pending_.push_back(cls);
          } else if (cls == kNewline) {
            new_line_after(i);
            ++i;
            state_ = State::line_start;
            break;
          } else if (cls != kBlank) {
            const char c = chunk[i];
            const char* hint = c == '-'   ? " (gaps are not accepted: remove '-' from aligned FASTA)"
                               : c == '>' ? " ('>' starts a record only at the start of a line)"
                                          : "";
            throw InputError(
                name_, line_,
                fmt::format("{} at column {} is not a protein residue letter{}", describe_byte(c), column_of(i), hint));
          }
        }
        break;
      }
    }
  }
  position_ += size;
  flush_residues();
}

void FastaParser::finish() {
  if (state_ == State::header) {
    end_header();
    state_ = State::line_start;
  }
  flush_residues();
  if (position_ == 0) throw InputError(name_, 0, "the file is empty: expected FASTA records ('>id' lines)");
  if (out_.empty()) throw InputError(name_, 0, "the file holds no FASTA records, only blank lines");
}

}  // namespace fasta_detail

namespace {

// Closes a gzFile on every path; finish() reports what gzclose_r says.
class GzipReader {
 public:
  explicit GzipReader(const std::string& name) : name_(name) {
    std::error_code ignored;
    if (std::filesystem::is_directory(name, ignored)) throw InputError(name, 0, "cannot read: it is a directory");
    errno = 0;
    file_ = gzopen(name.c_str(), "rb");
    if (file_ == nullptr) {
      throw InputError(name, 0, fmt::format("cannot open: {}", errno != 0 ? std::strerror(errno) : "out of memory"));
    }
    gzbuffer(file_, 1u << 18);
  }
  ~GzipReader() {
    if (file_ != nullptr) gzclose_r(file_);
  }
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Bytes read into buffer; 0 at the end. Throws for corrupt or truncated data.
  std::size_t read(std::span<char> buffer, std::size_t line) {
    const int got = gzread(file_, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got < 0) fail(line);
    if (got == 0) {
      // zlib reports a stream cut short as a plain end with Z_BUF_ERROR set.
      int code = Z_OK;
      gzerror(file_, &code);
      if (code != Z_OK) fail(line);
    }
    return static_cast<std::size_t>(got);
  }

  void close(std::size_t line) {
    gzFile file = file_;
    file_ = nullptr;
    const int code = gzclose_r(file);
    if (code == Z_BUF_ERROR) truncated(line);
    if (code != Z_OK) throw InputError(name_, line, fmt::format("reading the file failed (zlib error {})", code));
  }

 private:
  [[noreturn]] void fail(std::size_t line) {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_BUF_ERROR) truncated(line);
    if (code == Z_ERRNO)
      throw InputError(name_, line, fmt::format("reading the file failed: {}", std::strerror(errno)));
    throw InputError(name_, line, fmt::format("corrupt gzip data ({})", message != nullptr ? message : "zlib error"));
  }
  [[noreturn]] void truncated(std::size_t line) {
    throw InputError(name_, line, "the gzip data ends early: the .gz file is truncated");
  }

  std::string name_;
  gzFile file_ = nullptr;
};

constexpr std::size_t kReadChunk = std::size_t{1} << 20;

}  // namespace

SequenceSet read_fasta_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  SequenceSet sequences;
  fasta_detail::FastaParser parser(name, sequences);
  GzipReader file(name);
  const auto buffer = std::make_unique_for_overwrite<char[]>(kReadChunk);
  for (;;) {
    const std::size_t got = file.read(std::span<char>(buffer.get(), kReadChunk), parser.line());
    if (got == 0) break;
    parser.consume(std::string_view(buffer.get(), got));
  }
  file.close(parser.line());
  parser.finish();
  return sequences;
}

SequenceSet parse_fasta(std::string_view text, const std::string& name) {
  SequenceSet sequences;
  fasta_detail::FastaParser parser(name, sequences);
  parser.consume(text);
  parser.finish();
  return sequences;
}

}  // namespace trellis::align
