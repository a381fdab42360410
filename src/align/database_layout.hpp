// The prepared database's layout (include/trellis/align/database.hpp) as
// the reader sees it: the mapped file, the header's fields and the checks of
// each section, shared by the whole-file reader and the reader of parts.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "trellis/align/database.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::database_layout {

inline constexpr std::size_t kMagicBytes = 16;
inline constexpr std::size_t kSectionAlignment = 8;
// No real section comes near this (64 PiB); capping the header's sizes here
// keeps every sum of them far from overflowing 64 bits.
inline constexpr std::uint64_t kLargestSection = std::uint64_t{1} << 56;

enum Section : std::size_t {
  residues_section,
  residue_offsets_section,
  original_indices_section,
  id_offsets_section,
  id_bytes_section,
  description_offsets_section,
  description_bytes_section,
  section_count
};

inline constexpr std::array<const char*, section_count> kSectionNames = {
    "residues", "residue offsets",     "original indices", "id offsets",
    "id bytes", "description offsets", "description bytes"};

// Header field offsets (database.hpp).
inline constexpr std::size_t kVersionAt = 16;
inline constexpr std::size_t kChecksumAt = 20;
inline constexpr std::size_t kCountAt = 24;
inline constexpr std::size_t kTotalResiduesAt = 32;
inline constexpr std::size_t kSectionSizesAt = 40;
inline constexpr std::size_t kFileSizeAt = 96;
static_assert(kFileSizeAt + 8 == kDatabaseHeaderBytes);
static_assert(kSectionSizesAt + 8 * section_count == kFileSizeAt);
static_assert(kDatabaseHeaderBytes % kSectionAlignment == 0);

inline constexpr std::uint64_t round_up(std::uint64_t bytes) {
  return (bytes + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

inline std::array<unsigned char, kMagicBytes> magic_bytes() {
  std::array<unsigned char, kMagicBytes> magic{};
  std::memcpy(magic.data(), kDatabaseMagic.data(), kDatabaseMagic.size());
  return magic;
}

template <typename UInt>
void store_le(unsigned char* at, UInt value) {
  for (std::size_t i = 0; i < sizeof(UInt); ++i) at[i] = static_cast<unsigned char>(value >> (8 * i));
}

template <typename UInt>
UInt load_le(const unsigned char* at) {
  UInt value = 0;
  for (std::size_t i = sizeof(UInt); i-- > 0;) value = static_cast<UInt>((value << 8) | at[i]);
  return value;
}

// zlib's crc32 takes 32-bit lengths; larger buffers go in pieces.
inline std::uint32_t update_crc(std::uint32_t crc, const unsigned char* data, std::size_t size) {
  uLong value = crc;
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  while (size > 0) {
    const std::size_t piece = std::min(size, kPiece);
    value = crc32(value, data, static_cast<uInt>(piece));
    data += piece;
    size -= piece;
  }
  return static_cast<std::uint32_t>(value);
}

// The open file mapped read-only; unmapped and closed on every path.
class MappedFile {
 public:
  explicit MappedFile(const std::string& name) {
    descriptor_ = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor_ < 0) throw InputError(name, 0, fmt::format("cannot open: {}", std::strerror(errno)));
    struct stat info {};
    if (::fstat(descriptor_, &info) != 0) {
      const int error = errno;
      ::close(descriptor_);
      throw InputError(name, 0, fmt::format("cannot read: {}", std::strerror(error)));
    }
    if (S_ISDIR(info.st_mode)) {
      ::close(descriptor_);
      throw InputError(name, 0, "cannot read: it is a directory");
    }
    size_ = static_cast<std::size_t>(info.st_size);
    if (size_ == 0) return;  // nothing to map; the caller reports the empty file
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, descriptor_, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(descriptor_);
      throw InputError(name, 0, fmt::format("cannot map the file: {}", std::strerror(error)));
    }
    data_ = static_cast<const unsigned char*>(mapped);
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
    ::close(descriptor_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  int descriptor_ = -1;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

// Checks and decodes a mapped database; every problem is an InputError.
class DatabaseDecoder {
 public:
  DatabaseDecoder(std::string name, const unsigned char* data, std::size_t size)
      : name_(std::move(name)), data_(data), size_(size) {}

  SequenceSet decode() {
    check_header();
    check_sizes();
    check_checksum();
    check_residues();
    check_original_indices();
    check_text_offsets(id_offsets_section, id_bytes_section);
    check_text_offsets(description_offsets_section, description_bytes_section);
    return in_input_order();
  }

  // The checks and accessors below are also what a reader of parts uses.
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(name_, 0, problem); }

  void check_header() {
    if (size_ == 0) fail("the file is empty: not a trellis database");
    const auto magic = magic_bytes();
    const std::size_t compared = std::min(size_, kMagicBytes);
    if (std::memcmp(data_, magic.data(), compared) != 0) fail("not a trellis database (bad magic)");
    if (size_ < kDatabaseHeaderBytes) {
      fail(fmt::format("truncated: the file has {} bytes, less than the {}-byte header", size_, kDatabaseHeaderBytes));
    }
    const auto version = load_le<std::uint32_t>(data_ + kVersionAt);
    if (version != kDatabaseFormatVersion) {
      fail(fmt::format("unsupported format version {} (this build reads version {})", version, kDatabaseFormatVersion));
    }
    count_ = load_le<std::uint64_t>(data_ + kCountAt);
    total_residues_ = load_le<std::uint64_t>(data_ + kTotalResiduesAt);
    for (std::size_t k = 0; k < section_count; ++k) {
      sizes_[k] = load_le<std::uint64_t>(data_ + kSectionSizesAt + 8 * k);
    }
    file_size_ = load_le<std::uint64_t>(data_ + kFileSizeAt);
  }

  void expect_size(Section section, std::uint64_t expected, const char* formula) const {
    if (sizes_[section] != expected) {
      fail(fmt::format("corrupt header: the {} section has {} bytes, expected {} = {}", kSectionNames[section],
                       sizes_[section], formula, expected));
    }
  }

  void check_sizes() {
    if (count_ > std::numeric_limits<std::uint32_t>::max()) {
      fail(fmt::format("corrupt header: {} sequences, more than the format's {}", count_,
                       std::numeric_limits<std::uint32_t>::max()));
    }
    for (std::size_t k = 0; k < section_count; ++k) {
      if (sizes_[k] > kLargestSection) {
        fail(fmt::format("corrupt header: the {} section's size {} is implausibly large", kSectionNames[k], sizes_[k]));
      }
    }
    expect_size(residues_section, total_residues_, "the total residues");
    expect_size(residue_offsets_section, 8 * (count_ + 1), "8 * (sequences + 1)");
    expect_size(original_indices_section, 4 * count_, "4 * sequences");
    expect_size(id_offsets_section, 8 * (count_ + 1), "8 * (sequences + 1)");
    expect_size(description_offsets_section, 8 * (count_ + 1), "8 * (sequences + 1)");
    std::uint64_t at = kDatabaseHeaderBytes;
    for (std::size_t k = 0; k < section_count; ++k) {
      starts_[k] = at;
      at += round_up(sizes_[k]);
    }
    if (at != file_size_) {
      fail(fmt::format("corrupt header: the sections add up to {} bytes but the header says {}", at, file_size_));
    }
    if (size_ < file_size_) fail(fmt::format("truncated: header says {} bytes, file has {}", file_size_, size_));
    if (size_ > file_size_) {
      fail(fmt::format("trailing data: header says {} bytes, file has {}", file_size_, size_));
    }
  }

  void check_checksum() const {
    const auto recorded = load_le<std::uint32_t>(data_ + kChecksumAt);
    const std::uint32_t computed = update_crc(static_cast<std::uint32_t>(crc32(0, nullptr, 0)),
                                              data_ + kDatabaseHeaderBytes, size_ - kDatabaseHeaderBytes);
    if (recorded != computed) {
      fail(
          fmt::format("checksum mismatch: the header records CRC-32 {:08x}, the contents give {:08x} (the file "
                      "is damaged)",
                      recorded, computed));
    }
  }

  const unsigned char* section(Section k) const noexcept { return data_ + starts_[k]; }
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t total_residues() const noexcept { return total_residues_; }
  std::uint64_t section_size(Section k) const noexcept { return sizes_[k]; }
  const std::string& name() const noexcept { return name_; }

  std::uint64_t residue_offset(std::size_t s) const {
    return load_le<std::uint64_t>(section(residue_offsets_section) + 8 * s);
  }

  std::uint64_t length(std::size_t s) const { return residue_offset(s + 1) - residue_offset(s); }

  void check_residues() const {
    if (residue_offset(0) != 0) fail("corrupt residue offsets: the first is not 0");
    std::uint64_t previous_length = 0;
    for (std::size_t s = 0; s < count_; ++s) {
      const std::uint64_t begin = residue_offset(s);
      const std::uint64_t end = residue_offset(s + 1);
      if (end < begin || end > total_residues_) {
        fail(fmt::format("corrupt residue offsets: sequence {} ends at {}, outside [{}, {}]", s, end, begin,
                         total_residues_));
      }
      if (end - begin < previous_length) {
        fail(fmt::format("sequences not in length order: stored sequence {} is shorter than the one before", s));
      }
      previous_length = end - begin;
    }
    if (residue_offset(count_) != total_residues_) {
      fail(fmt::format("corrupt residue offsets: the last is {}, not the {} total residues", residue_offset(count_),
                       total_residues_));
    }
    const unsigned char* residues = section(residues_section);
    for (std::uint64_t i = 0; i < total_residues_; ++i) {
      if (residues[i] >= kAlphabetSize) {
        fail(fmt::format("invalid residue code {} at residue {}", static_cast<int>(residues[i]), i));
      }
    }
  }

  void check_original_indices() {
    original_.resize(count_);
    std::vector<bool> seen(count_, false);
    for (std::size_t s = 0; s < count_; ++s) {
      const auto index = load_le<std::uint32_t>(section(original_indices_section) + 4 * s);
      if (index >= count_ || seen[index]) {
        fail(fmt::format("corrupt original indices: {} at stored sequence {} is {}", index, s,
                         index >= count_ ? "out of range" : "repeated"));
      }
      if (s > 0 && index < original_[s - 1] && length(s) == length(s - 1)) {
        fail(
            fmt::format("corrupt original indices: stored sequences {} and {} have equal lengths but not their "
                        "input order",
                        s - 1, s));
      }
      seen[index] = true;
      original_[s] = index;
    }
  }

  void check_text_offsets(Section offsets, Section bytes) const {
    const unsigned char* at = section(offsets);
    if (load_le<std::uint64_t>(at) != 0) fail(fmt::format("corrupt {}: the first is not 0", kSectionNames[offsets]));
    for (std::size_t s = 0; s < count_; ++s) {
      const auto begin = load_le<std::uint64_t>(at + 8 * s);
      const auto end = load_le<std::uint64_t>(at + 8 * (s + 1));
      if (end < begin || end > sizes_[bytes]) {
        fail(fmt::format("corrupt {}: sequence {} ends at {}, outside [{}, {}]", kSectionNames[offsets], s, end, begin,
                         sizes_[bytes]));
      }
    }
    const auto last = load_le<std::uint64_t>(at + 8 * count_);
    if (last != sizes_[bytes]) {
      fail(fmt::format("corrupt {}: the last is {}, not the section's {} bytes", kSectionNames[offsets], last,
                       sizes_[bytes]));
    }
  }

  std::string text(Section offsets, Section bytes, std::size_t s) const {
    const auto begin = load_le<std::uint64_t>(section(offsets) + 8 * s);
    const auto end = load_le<std::uint64_t>(section(offsets) + 8 * (s + 1));
    return std::string(reinterpret_cast<const char*>(section(bytes) + begin), end - begin);
  }

  SequenceSet in_input_order() const {
    std::vector<std::size_t> stored_at(count_);
    for (std::size_t s = 0; s < count_; ++s) stored_at[original_[s]] = s;
    SequenceSet set;
    const auto* residues = reinterpret_cast<const Residue*>(section(residues_section));
    for (const std::size_t s : stored_at) {
      const std::uint64_t begin = residue_offset(s);
      set.add(text(id_offsets_section, id_bytes_section, s),
              text(description_offsets_section, description_bytes_section, s),
              std::span<const Residue>(residues + begin, residue_offset(s + 1) - begin));
    }
    return set;
  }

 private:
  std::string name_;
  const unsigned char* data_;
  std::size_t size_;
  std::uint64_t count_ = 0;
  std::uint64_t total_residues_ = 0;
  std::uint64_t file_size_ = 0;
  std::array<std::uint64_t, section_count> sizes_{};
  std::array<std::uint64_t, section_count> starts_{};
  std::vector<std::uint32_t> original_;
};

}  // namespace trellis::align::database_layout
