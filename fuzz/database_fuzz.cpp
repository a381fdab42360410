// libFuzzer harness for the prepared-database reader: it returns a
// consistent sequence set or throws an InputError naming the file, line 0.
// Anything else is a bug. Each input is read twice: as it is, and with its
// CRC recomputed, so that mutations also reach the checks behind the
// checksum (offsets, the permutation, residue codes).
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "input_error_checks.hpp"
#include "trellis/align/database.hpp"
#include "trellis/core/error.hpp"

using trellis::fuzz::bug;

namespace {

// One file per fuzzing process, rewritten for every input and removed when
// the process exits.
struct ScratchFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("trellis_database_fuzz." + std::to_string(::getpid()) + ".tdb");
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

const std::filesystem::path& scratch_file() {
  static const ScratchFile file;
  return file.path;
}

void check_read(const std::vector<unsigned char>& bytes) {
  const std::filesystem::path& path = scratch_file();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) bug("cannot write the scratch file", path.string());
  }
  trellis::align::SequenceSet set;
  try {
    set = trellis::align::read_database(path);
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, path.string(), std::string_view());
    return;
  }
  std::int64_t residues = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    for (const trellis::align::Residue r : set.residues(i)) {
      if (r >= trellis::align::kAlphabetSize) bug("residue code out of range", std::to_string(r));
    }
    residues += set.length(i);
  }
  if (residues != set.total_residues() || static_cast<std::size_t>(residues) > bytes.size()) {
    bug("residue count", std::to_string(residues));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  check_read(bytes);
  constexpr std::size_t kHeader = trellis::align::kDatabaseHeaderBytes;
  constexpr std::size_t kChecksumAt = 20;  // database.hpp's header layout
  if (bytes.size() >= kHeader) {
    auto crc = static_cast<std::uint32_t>(
        crc32(crc32(0, nullptr, 0), bytes.data() + kHeader, static_cast<uInt>(bytes.size() - kHeader)));
    for (std::size_t i = 0; i < 4; ++i, crc >>= 8) bytes[kChecksumAt + i] = static_cast<unsigned char>(crc);
    check_read(bytes);
  }
  return 0;
}
