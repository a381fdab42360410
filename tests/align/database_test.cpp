// Prepared databases: round trips, the stored length order read straight
// from the documented layout, searches equal to the FASTA's, and every kind
// of damaged or foreign file refused with an InputError naming the problem.
#include "trellis/align/database.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "trellis/align/hit_output.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("trellis_database_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

using Bytes = std::vector<unsigned char>;

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::uint64_t u64_at(const Bytes& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (std::size_t i = 8; i-- > 0;) value = (value << 8) | bytes.at(at + i);
  return value;
}

std::uint32_t u32_at(const Bytes& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 4; i-- > 0;) value = (value << 8) | bytes.at(at + i);
  return value;
}

void put_u32(Bytes& bytes, std::size_t at, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i) bytes.at(at + i) = static_cast<unsigned char>(value >> (8 * i));
}

void put_u64(Bytes& bytes, std::size_t at, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) bytes.at(at + i) = static_cast<unsigned char>(value >> (8 * i));
}

// Where each section starts and how long it is, per database.hpp.
struct Layout {
  std::uint64_t count = 0;
  std::vector<std::uint64_t> starts;
  std::vector<std::uint64_t> sizes;
};

Layout layout_of(const Bytes& bytes) {
  Layout layout;
  layout.count = u64_at(bytes, 24);
  std::uint64_t at = kDatabaseHeaderBytes;
  for (std::size_t k = 0; k < 7; ++k) {
    const std::uint64_t size = u64_at(bytes, 40 + 8 * k);
    layout.starts.push_back(at);
    layout.sizes.push_back(size);
    at += (size + 7) / 8 * 8;
  }
  return layout;
}

// Re-signs a deliberately altered file so that the checks behind the CRC run.
void recompute_checksum(Bytes& bytes) {
  const uLong crc = crc32(crc32(0, nullptr, 0), bytes.data() + kDatabaseHeaderBytes,
                          static_cast<uInt>(bytes.size() - kDatabaseHeaderBytes));
  put_u32(bytes, 20, static_cast<std::uint32_t>(crc));
}

InputError database_error(const fs::path& path) {
  try {
    read_database(path);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError for " << path;
  return InputError("", 0, "none");
}

void expect_same(const SequenceSet& expected, const SequenceSet& actual) {
  ASSERT_EQ(actual.size(), expected.size());
  EXPECT_EQ(actual.total_residues(), expected.total_residues());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual.id(i), expected.id(i)) << i;
    EXPECT_EQ(actual.description(i), expected.description(i)) << i;
    EXPECT_EQ(decode_protein(actual.residues(i)), decode_protein(expected.residues(i))) << i;
  }
}

std::vector<Residue> random_residues(std::mt19937_64& random, std::size_t length) {
  std::uniform_int_distribution<int> code(0, kAlphabetSize - 1);
  std::vector<Residue> residues(length);
  for (Residue& r : residues) r = static_cast<Residue>(code(random));
  return residues;
}

SequenceSet awkward_set() {
  std::mt19937_64 random(20261129);
  SequenceSet set;
  set.add("long", "a long one with a description", random_residues(random, 5000));
  set.add("empty", "", {});
  set.add("single", "one residue", encode_protein("W"));
  set.add("x", "", encode_protein("MKTAYIAKQRQISFVKSHFSRQ*BZX"));
  set.add("empty2", "no residues either", {});
  set.add("seven", "odd length text \t tab", encode_protein("ACDEFGH"));
  return set;
}

fs::path database_of(const TempDir& dir, const SequenceSet& set, const std::string& name = "db.tdb") {
  const fs::path path = dir / name;
  write_database(set, path);
  return path;
}

TEST(Database, RoundTripKeepsTheInputOrder) {
  TempDir dir;
  const SequenceSet set = awkward_set();
  const fs::path path = database_of(dir, set);
  expect_same(set, read_database(path));
  expect_same(set, read_sequences(path));
  // Nothing beside the database (the temporary was renamed into place).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(Database, RoundTripOfManyEqualLengths) {
  TempDir dir;
  std::mt19937_64 random(7);
  std::uniform_int_distribution<std::size_t> length(0, 4);
  SequenceSet set;
  for (int i = 0; i < 1000; ++i) {
    const std::string number = std::to_string(i);
    set.add(std::string("seq").append(number), i % 3 == 0 ? std::string() : std::string("d").append(number),
            random_residues(random, length(random)));
  }
  expect_same(set, read_database(database_of(dir, set)));
}

TEST(Database, OneEmptySequence) {
  TempDir dir;
  SequenceSet set;
  set.add("nothing", "", {});
  expect_same(set, read_database(database_of(dir, set)));
}

TEST(Database, StoresTheSequencesInLengthOrderTiesInInputOrder) {
  TempDir dir;
  SequenceSet set;
  const std::vector<std::string> texts = {"AAAA", "C", "", "GG", "WWWW", "H", "KK", ""};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    set.add(std::string("s").append(std::to_string(i)), "", encode_protein(texts[i]));
  }
  const Bytes bytes = read_bytes(database_of(dir, set));

  ASSERT_GE(bytes.size(), kDatabaseHeaderBytes);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), 16), std::string("TRELLISDB\0\0\0\0\0\0\0", 16));
  EXPECT_EQ(u32_at(bytes, 16), kDatabaseFormatVersion);
  EXPECT_EQ(u64_at(bytes, 32), 14u);  // total residues
  EXPECT_EQ(u64_at(bytes, 96), bytes.size());
  const Layout layout = layout_of(bytes);
  ASSERT_EQ(layout.count, texts.size());
  for (const std::uint64_t start : layout.starts) EXPECT_EQ(start % 8, 0u);

  const std::vector<std::uint32_t> expected_original = {2, 7, 1, 5, 3, 6, 0, 4};
  const std::vector<std::uint64_t> expected_offsets = {0, 0, 0, 1, 2, 4, 6, 10, 14};
  for (std::size_t s = 0; s <= layout.count; ++s) {
    EXPECT_EQ(u64_at(bytes, layout.starts[1] + 8 * s), expected_offsets[s]) << s;
  }
  for (std::size_t s = 0; s < layout.count; ++s) {
    EXPECT_EQ(u32_at(bytes, layout.starts[2] + 4 * s), expected_original[s]) << s;
  }
  std::string residues;
  for (std::size_t i = 0; i < layout.sizes[0]; ++i) residues += residue_letter(bytes[layout.starts[0] + i]);
  EXPECT_EQ(residues, "CHGGKKAAAAWWWW");
  // The ids follow the stored order too.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&bytes[layout.starts[4]]), layout.sizes[4]), "s2s7s1s5s3s6s0s4");
}

std::string tabular(const SequenceSet& queries, const SequenceSet& database) {
  SearchOptions options;
  options.top = 50;
  options.max_evalue = 1e6;
  options.backend = Backend::cpu;
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::ostringstream out;
  write_tabular(out, search(queries, database, scoring, options), queries, database,
                parse_columns("std score slen stitle qseq sseq"));
  return out.str();
}

TEST(Database, SearchFindsTheSameHitsAsOnTheFasta) {
  TempDir dir;
  std::mt19937_64 random(99);
  std::uniform_int_distribution<std::size_t> length(0, 120);
  std::string fasta;
  const std::vector<Residue> motif = encode_protein("MKTAYIAKQRQISFVKSHFSRQ");
  for (int i = 0; i < 60; ++i) {
    std::vector<Residue> residues = random_residues(random, length(random));
    if (i % 4 == 0)
      residues.insert(residues.begin() + static_cast<std::ptrdiff_t>(residues.size() / 2), motif.begin(), motif.end());
    fasta += ">s" + std::to_string(i) + " subject number " + std::to_string(i) + "\n" + decode_protein(residues) + "\n";
  }
  std::ofstream(dir / "db.fasta") << fasta;
  std::ofstream(dir / "q.fasta") << ">q1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEV\n>q2\n"
                                 << decode_protein(random_residues(random, 50)) << "\n";
  const SequenceSet from_fasta = read_sequences(dir / "db.fasta");
  write_database(from_fasta, dir / "db.tdb");
  const SequenceSet from_database = read_sequences(dir / "db.tdb");
  expect_same(from_fasta, from_database);

  const SequenceSet queries = read_sequences(dir / "q.fasta");
  const std::string expected = tabular(queries, from_fasta);
  EXPECT_NE(expected.find("\ts0\t"), std::string::npos);  // the motif is found
  EXPECT_EQ(tabular(queries, from_database), expected);
  // A prepared query file reads the same.
  write_database(queries, dir / "q.tdb");
  EXPECT_EQ(tabular(read_sequences(dir / "q.tdb"), from_database), expected);
}

TEST(Database, ReadSequencesFallsBackToFasta) {
  TempDir dir;
  std::ofstream(dir / "plain.fasta") << ">a first\nACDE\n>b\nW\n";
  const SequenceSet set = read_sequences(dir / "plain.fasta");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.id(0), "a");
  EXPECT_EQ(decode_protein(set.residues(1)), "W");
  // read_database itself refuses FASTA.
  EXPECT_NE(database_error(dir / "plain.fasta").problem().find("bad magic"), std::string::npos);
  // A missing file is FASTA's "cannot open".
  try {
    read_sequences(dir / "missing.tdb");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const InputError& error) {
    EXPECT_NE(error.problem().find("cannot open"), std::string::npos) << error.what();
  }
}

TEST(Database, RefusesAnEmptyFile) {
  TempDir dir;
  write_bytes(dir / "empty.tdb", {});
  const InputError error = database_error(dir / "empty.tdb");
  EXPECT_NE(error.problem().find("empty"), std::string::npos) << error.what();
  EXPECT_EQ(error.file(), (dir / "empty.tdb").string());
  EXPECT_EQ(error.line(), 0u);
}

TEST(Database, RefusesMissingFilesAndFolders) {
  TempDir dir;
  EXPECT_NE(database_error(dir / "missing.tdb").problem().find("cannot open"), std::string::npos);
  EXPECT_NE(database_error(dir.path()).problem().find("directory"), std::string::npos);
}

TEST(Database, RefusesTruncatedFiles) {
  TempDir dir;
  const Bytes whole = read_bytes(database_of(dir, awkward_set()));
  for (const std::size_t keep : {std::size_t{5}, std::size_t{16}, std::size_t{60}, kDatabaseHeaderBytes,
                                 kDatabaseHeaderBytes + 1, whole.size() / 2, whole.size() - 8, whole.size() - 1}) {
    write_bytes(dir / "cut.tdb", Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(keep)));
    const InputError error = database_error(dir / "cut.tdb");
    EXPECT_NE(error.problem().find("truncated"), std::string::npos) << keep << ": " << error.what();
    if (keep >= kDatabaseHeaderBytes) {
      EXPECT_NE(error.problem().find("header says " + std::to_string(whole.size()) + " bytes, file has " +
                                     std::to_string(keep)),
                std::string::npos)
          << error.what();
    }
  }
  Bytes longer = whole;
  longer.push_back(0);
  write_bytes(dir / "long.tdb", longer);
  EXPECT_NE(database_error(dir / "long.tdb").problem().find("trailing data"), std::string::npos);
}

TEST(Database, AFlippedByteInAnySectionFailsTheChecksum) {
  TempDir dir;
  const Bytes whole = read_bytes(database_of(dir, awkward_set()));
  const Layout layout = layout_of(whole);
  for (std::size_t k = 0; k < 7; ++k) {
    ASSERT_GT(layout.sizes[k], 0u) << k;
    for (const std::uint64_t within : {std::uint64_t{0}, layout.sizes[k] / 2, layout.sizes[k] - 1}) {
      Bytes damaged = whole;
      damaged[layout.starts[k] + within] ^= 0x10;
      write_bytes(dir / "damaged.tdb", damaged);
      const InputError error = database_error(dir / "damaged.tdb");
      EXPECT_NE(error.problem().find("checksum mismatch"), std::string::npos)
          << "section " << k << " byte " << within << ": " << error.what();
    }
  }
  // The padding is covered as well.
  Bytes padded = whole;
  ASSERT_NE(layout.sizes[4] % 8, 0u);
  padded[layout.starts[4] + layout.sizes[4]] = 1;
  write_bytes(dir / "padding.tdb", padded);
  EXPECT_NE(database_error(dir / "padding.tdb").problem().find("checksum mismatch"), std::string::npos);
}

TEST(Database, RefusesBadMagicAndOtherVersions) {
  TempDir dir;
  const Bytes whole = read_bytes(database_of(dir, awkward_set()));
  Bytes bad_magic = whole;
  bad_magic[3] = 'x';
  write_bytes(dir / "magic.tdb", bad_magic);
  EXPECT_NE(database_error(dir / "magic.tdb").problem().find("not a trellis database (bad magic)"), std::string::npos);
  // The padding of the magic is part of it.
  bad_magic = whole;
  bad_magic[12] = 'x';
  write_bytes(dir / "magic.tdb", bad_magic);
  EXPECT_NE(database_error(dir / "magic.tdb").problem().find("bad magic"), std::string::npos);

  Bytes version = whole;
  put_u32(version, 16, 7);
  write_bytes(dir / "version.tdb", version);
  EXPECT_NE(database_error(dir / "version.tdb").problem().find("unsupported format version 7"), std::string::npos);
}

// Damage behind a valid checksum: the structural checks catch it.
TEST(Database, RefusesInconsistentContentsBehindAValidChecksum) {
  TempDir dir;
  const Bytes whole = read_bytes(database_of(dir, awkward_set()));
  const Layout layout = layout_of(whole);
  const auto refused = [&](Bytes bytes, const std::string& expected) {
    recompute_checksum(bytes);
    write_bytes(dir / "altered.tdb", bytes);
    const InputError error = database_error(dir / "altered.tdb");
    EXPECT_NE(error.problem().find(expected), std::string::npos) << error.what();
  };
  Bytes bytes = whole;
  bytes[layout.starts[0]] = 24;
  refused(bytes, "invalid residue code 24");

  bytes = whole;
  put_u64(bytes, layout.starts[1] + 8 * 3, 1u << 20);
  refused(bytes, "corrupt residue offsets");

  bytes = whole;
  put_u64(bytes, layout.starts[1], 1);
  refused(bytes, "corrupt residue offsets");

  bytes = whole;  // stored sequence 2 grows to 8 residues, 3 shrinks to none
  put_u64(bytes, layout.starts[1] + 8 * 3, 8);
  refused(bytes, "length order");

  bytes = whole;
  put_u32(bytes, layout.starts[2], 1);
  put_u32(bytes, layout.starts[2] + 4, 1);
  refused(bytes, "corrupt original indices");

  bytes = whole;  // the two empty sequences, stored first, swapped
  put_u32(bytes, layout.starts[2], 4);
  put_u32(bytes, layout.starts[2] + 4, 1);
  refused(bytes, "equal lengths but not their input order");

  bytes = whole;
  put_u32(bytes, layout.starts[2], 6);
  refused(bytes, "out of range");

  bytes = whole;
  put_u64(bytes, layout.starts[3] + 8 * 2, 1000);
  refused(bytes, "corrupt id offsets");

  bytes = whole;
  put_u64(bytes, layout.starts[5] + 8 * layout.count, 1);
  refused(bytes, "corrupt description offsets");

  bytes = whole;
  put_u64(bytes, 40, u64_at(bytes, 40) + 8);  // the residues section's size against the total residues
  refused(bytes, "corrupt header");

  bytes = whole;
  put_u64(bytes, 96, whole.size() + 8);
  refused(bytes, "corrupt header");

  bytes = whole;
  put_u64(bytes, 24, std::uint64_t{1} << 40);
  refused(bytes, "corrupt header");
}

TEST(Database, WritingIntoAMissingFolderLeavesNothing) {
  TempDir dir;
  EXPECT_THROW(write_database(awkward_set(), dir / "no" / "such" / "db.tdb"), Error);
  EXPECT_FALSE(fs::exists(dir / "no"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 0);
}

}  // namespace
}  // namespace trellis::align
