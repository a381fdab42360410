// Prepared databases (layout in include/trellis/align/database.hpp): written
// as a stream with the CRC accumulated on the way and the header filled in
// last; read by mapping the file and checking every field before use.
#include "trellis/align/database.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "database_layout.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

using namespace database_layout;

// Everything after the header: buffered writes that keep the running CRC and
// the byte count.
class PayloadWriter {
 public:
  explicit PayloadWriter(std::ostream& out) : out_(out) { buffer_.reserve(kBufferBytes); }

  void bytes(const void* data, std::size_t size) {
    const auto* at = static_cast<const unsigned char*>(data);
    while (size > 0) {
      const std::size_t piece = std::min(size, kBufferBytes - buffer_.size());
      buffer_.insert(buffer_.end(), at, at + piece);
      at += piece;
      size -= piece;
      if (buffer_.size() == kBufferBytes) flush();
    }
  }

  template <typename UInt>
  void value(UInt v) {
    std::array<unsigned char, sizeof(UInt)> encoded;
    store_le(encoded.data(), v);
    bytes(encoded.data(), encoded.size());
  }

  void pad() {
    static constexpr std::array<unsigned char, kSectionAlignment> kZeros{};
    bytes(kZeros.data(), static_cast<std::size_t>(round_up(written()) - written()));
  }

  void flush() {
    crc_ = update_crc(crc_, buffer_.data(), buffer_.size());
    out_.write(reinterpret_cast<const char*>(buffer_.data()), static_cast<std::streamsize>(buffer_.size()));
    flushed_ += buffer_.size();
    buffer_.clear();
  }

  std::uint64_t written() const noexcept { return flushed_ + buffer_.size(); }
  std::uint32_t crc() const noexcept { return crc_; }

 private:
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
  std::ostream& out_;
  std::vector<unsigned char> buffer_;
  std::uint64_t flushed_ = 0;
  std::uint32_t crc_ = static_cast<std::uint32_t>(crc32(0, nullptr, 0));
};

}  // namespace

void write_database(const SequenceSet& sequences, const std::filesystem::path& output) {
  const std::size_t count = sequences.size();
  if (count > std::numeric_limits<std::uint32_t>::max()) {
    throw UsageError(fmt::format("{} sequences are more than a database holds ({})", count,
                                 std::numeric_limits<std::uint32_t>::max()));
  }
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return sequences.length(a) < sequences.length(b); });

  AtomicOutputFile file(output, /*binary=*/true);
  std::ostream& out = file.stream();
  std::array<unsigned char, kDatabaseHeaderBytes> header{};
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));

  PayloadWriter payload(out);
  std::array<std::uint64_t, section_count> sizes{};
  const auto section = [&](Section k, auto&& write_contents) {
    const std::uint64_t begin = payload.written();
    write_contents();
    sizes[k] = payload.written() - begin;
    payload.pad();
  };
  // Offsets of one field of the stored sequences, starting at 0.
  const auto offsets_of = [&](auto&& size_of) {
    std::uint64_t at = 0;
    payload.value(at);
    for (const std::uint32_t i : order) {
      at += size_of(i);
      payload.value(at);
    }
  };

  section(residues_section, [&] {
    for (const std::uint32_t i : order) {
      const auto residues = sequences.residues(i);
      payload.bytes(residues.data(), residues.size());
    }
  });
  section(residue_offsets_section,
          [&] { offsets_of([&](std::uint32_t i) { return static_cast<std::uint64_t>(sequences.length(i)); }); });
  section(original_indices_section, [&] {
    for (const std::uint32_t i : order) payload.value(i);
  });
  section(id_offsets_section, [&] { offsets_of([&](std::uint32_t i) { return sequences.id(i).size(); }); });
  section(id_bytes_section, [&] {
    for (const std::uint32_t i : order) payload.bytes(sequences.id(i).data(), sequences.id(i).size());
  });
  section(description_offsets_section,
          [&] { offsets_of([&](std::uint32_t i) { return sequences.description(i).size(); }); });
  section(description_bytes_section, [&] {
    for (const std::uint32_t i : order) {
      payload.bytes(sequences.description(i).data(), sequences.description(i).size());
    }
  });
  payload.flush();

  const auto magic = magic_bytes();
  std::memcpy(header.data(), magic.data(), magic.size());
  store_le(header.data() + kVersionAt, kDatabaseFormatVersion);
  store_le(header.data() + kChecksumAt, payload.crc());
  store_le(header.data() + kCountAt, static_cast<std::uint64_t>(count));
  store_le(header.data() + kTotalResiduesAt, static_cast<std::uint64_t>(sequences.total_residues()));
  for (std::size_t k = 0; k < section_count; ++k) store_le(header.data() + kSectionSizesAt + 8 * k, sizes[k]);
  store_le(header.data() + kFileSizeAt, static_cast<std::uint64_t>(kDatabaseHeaderBytes + payload.written()));
  out.seekp(0);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  file.commit();
}

SequenceSet read_database(const std::filesystem::path& path) {
  const std::string name = path.string();
  const MappedFile file(name);
  return DatabaseDecoder(name, file.data(), file.size()).decode();
}

SequenceSet read_sequences(const std::filesystem::path& path) {
  std::array<char, kDatabaseMagic.size()> start{};
  {
    std::ifstream in(path, std::ios::binary);
    in.read(start.data(), static_cast<std::streamsize>(start.size()));
    if (!in || std::string_view(start.data(), start.size()) != kDatabaseMagic) return read_fasta_file(path);
  }
  return read_database(path);
}

}  // namespace trellis::align
