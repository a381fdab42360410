#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "trellis/align/sequence.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

namespace fs = std::filesystem;

std::string residues_of(const SequenceSet& set, std::size_t i) { return decode_protein(set.residues(i)); }

// The InputError a parse throws (fails the test when none is thrown).
InputError parse_error(const std::string& text) {
  try {
    parse_fasta(text, "test.fasta");
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError for: " << text;
  return InputError("", 0, "none");
}

InputError file_error(const fs::path& path) {
  try {
    read_fasta_file(path);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError for " << path;
  return InputError("", 0, "none");
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("trellis_align_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

void write_gzip(const fs::path& path, const std::string& text) {
  gzFile file = gzopen(path.string().c_str(), "wb");
  ASSERT_NE(file, nullptr);
  if (!text.empty()) {
    ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  }
  ASSERT_EQ(gzclose(file), Z_OK);
}

void write_plain(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(Alphabet, EncodesTheMatrixOrderAndFoldsRareLettersOntoX) {
  EXPECT_EQ(
      encode_protein("ARNDCQEGHILKMFPSTWYVBZX*"),
      (std::vector<Residue>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  EXPECT_EQ(encode_protein("arndcqeghilkmfpstwyvbzx"), encode_protein("ARNDCQEGHILKMFPSTWYVBZX"));
  // U and O as BLAST+ scores them (X); J scored as X too (see alphabet.cpp).
  EXPECT_EQ(encode_protein("JUOjuo"), (std::vector<Residue>(6, kResidueX)));
  EXPECT_EQ(encode_residue('-'), kNotAResidue);
  EXPECT_EQ(encode_residue('1'), kNotAResidue);
  EXPECT_EQ(encode_residue('\0'), kNotAResidue);
  EXPECT_THROW(encode_protein("AC-D"), UsageError);
  EXPECT_EQ(decode_protein(encode_protein("MKVbzjuo*")), "MKVBZXXX*");
}

TEST(Fasta, ReadsHeadersMultiLineSequencesAndEveryLayoutDetail) {
  const std::string text =
      "\n"                                // blank line before the first record
      ">sp|P1|ONE  first protein \t\r\n"  // id, description with blanks around, CRLF
      "ACDE\r\n"
      "fghi\n"       // lowercase
      "\n"           // blank line inside a record
      "  KL M \t\n"  // blanks inside a line
      ">two\n"       // id only
      "W*Y*\n"       // stops are residues
      ">empty record\n"
      ">last  BZJUO X\n"
      "bzjuox";  // no final newline
  const SequenceSet set = parse_fasta(text, "test.fasta");
  ASSERT_EQ(set.size(), 4u);
  EXPECT_EQ(set.id(0), "sp|P1|ONE");
  EXPECT_EQ(set.description(0), "first protein");
  EXPECT_EQ(std::vector<Residue>(set.residues(0).begin(), set.residues(0).end()),
            (std::vector<Residue>{0, 4, 3, 6, 13, 7, 8, 9, 11, 10, 12}));
  EXPECT_EQ(set.id(1), "two");
  EXPECT_EQ(set.description(1), "");
  EXPECT_EQ(std::vector<Residue>(set.residues(1).begin(), set.residues(1).end()),
            (std::vector<Residue>{17, 23, 18, 23}));
  EXPECT_EQ(set.id(2), "empty");
  EXPECT_EQ(set.description(2), "record");
  EXPECT_EQ(set.length(2), 0);
  EXPECT_EQ(set.id(3), "last");
  EXPECT_EQ(set.description(3), "BZJUO X");
  EXPECT_EQ(residues_of(set, 3), "BZXXXX");
  EXPECT_EQ(set.total_residues(), 11 + 4 + 0 + 6);
  EXPECT_EQ(std::vector<std::int64_t>(set.offsets().begin(), set.offsets().end()),
            (std::vector<std::int64_t>{0, 11, 15, 15, 21}));
}

TEST(Fasta, HeaderOnTheLastLineWithoutNewlineIsAnEmptyRecord) {
  const SequenceSet set = parse_fasta(">a\nMK\n>b desc", "t");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.id(1), "b");
  EXPECT_EQ(set.description(1), "desc");
  EXPECT_EQ(set.length(1), 0);
}

TEST(Fasta, ErrorsNameTheFileLineAndColumn) {
  {
    const InputError error = parse_error("hello\n>x\nAC\n");
    EXPECT_EQ(error.file(), "test.fasta");
    EXPECT_EQ(error.line(), 1u);
    EXPECT_NE(error.problem().find("not a FASTA file"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error("\n  \nMKV\n");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_NE(error.problem().find("'M' at column 1"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(">a\r\nACD\r\nAC1D\r\n");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_NE(error.problem().find("'1' at column 3"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(">a\nAC\n>b\nMK-V\n");
    EXPECT_EQ(error.line(), 4u);
    EXPECT_NE(error.problem().find("'-' at column 3"), std::string::npos) << error.what();
    EXPECT_NE(error.problem().find("gaps"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(">a\nAC>b\n");
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(error.problem().find("'>' at column 3"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(std::string(">a\nAC\nA\0C\n", 10));
    EXPECT_EQ(error.line(), 3u);
    EXPECT_NE(error.problem().find("byte 0x00 at column 2"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(">a\nAC\n>\nMK\n");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_NE(error.problem().find("no sequence id"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error(">a\nAC\n>   \t\r\nMK\n");
    EXPECT_EQ(error.line(), 3u);
  }
  {
    const InputError error =
        parse_error(std::string(">a b\x01"
                                "c\nAC\n"));
    EXPECT_EQ(error.line(), 1u);
    EXPECT_NE(error.problem().find("control character byte 0x01 at column 5"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error("");
    EXPECT_EQ(error.line(), 0u);
    EXPECT_NE(error.problem().find("empty"), std::string::npos) << error.what();
  }
  {
    const InputError error = parse_error("\n\r\n  \t\n");
    EXPECT_EQ(error.line(), 0u);
    EXPECT_NE(error.problem().find("no FASTA records"), std::string::npos) << error.what();
  }
}

TEST(Fasta, ErrorsAcrossChunkBoundariesKeepTheirLine) {
  // Long enough to span several reader buffers when read from a file.
  std::string text;
  for (int record = 0; record < 30000; ++record)
    text += ">r" + std::to_string(record) + "\n" + std::string(60, 'A') + "\n";
  text += ">bad\nAAAA#\n";
  TempDir dir;
  write_plain(dir / "big.fasta", text);
  const InputError error = file_error(dir / "big.fasta");
  EXPECT_EQ(error.line(), 60002u);
  EXPECT_NE(error.problem().find("'#' at column 5"), std::string::npos) << error.what();
}

TEST(FastaFile, PlainAndGzipReadTheSame) {
  std::mt19937 random(7);
  std::string text;
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYacdefBZXJUO*";
  for (int record = 0; record < 3000; ++record) {
    text += ">seq" + std::to_string(record) + " some description " + std::to_string(record * 7) + "\n";
    const int length = static_cast<int>(random() % 700);
    for (int i = 0; i < length; ++i) {
      text += letters[random() % letters.size()];
      if (i % 60 == 59) text += record % 2 == 0 ? "\n" : "\r\n";
    }
    text += "\n";
  }
  TempDir dir;
  write_plain(dir / "db.fasta", text);
  write_gzip(dir / "db.fasta.gz", text);
  const SequenceSet expected = parse_fasta(text, "memory");
  for (const std::string name : {"db.fasta", "db.fasta.gz"}) {
    const SequenceSet read = read_fasta_file(dir / name);
    ASSERT_EQ(read.size(), expected.size()) << name;
    EXPECT_EQ(std::vector<Residue>(read.all_residues().begin(), read.all_residues().end()),
              std::vector<Residue>(expected.all_residues().begin(), expected.all_residues().end()));
    EXPECT_EQ(std::vector<std::int64_t>(read.offsets().begin(), read.offsets().end()),
              std::vector<std::int64_t>(expected.offsets().begin(), expected.offsets().end()));
    EXPECT_EQ(read.id(2999), "seq2999");
    EXPECT_EQ(read.description(2999), "some description 20993");
  }
}

TEST(FastaFile, TruncatedGzipIsReportedWithTheLineReached) {
  std::string text;
  for (int record = 0; record < 4000; ++record) {
    text += ">s" + std::to_string(record) + "\nMKVLAAGICWLLPQRSTVWYMKVLAAGICWLLPQRSTVWY\n";
  }
  TempDir dir;
  write_gzip(dir / "whole.gz", text);
  const auto size = fs::file_size(dir / "whole.gz");
  for (const std::uintmax_t cut : {size / 2, size - 4, std::uintmax_t{12}}) {
    fs::copy_file(dir / "whole.gz", dir / "cut.gz", fs::copy_options::overwrite_existing);
    fs::resize_file(dir / "cut.gz", cut);
    const InputError error = file_error(dir / "cut.gz");
    EXPECT_EQ(error.file(), (dir / "cut.gz").string());
    EXPECT_NE(error.problem().find("truncated"), std::string::npos) << "cut at " << cut << ": " << error.what();
    EXPECT_GE(error.line(), 1u);
    EXPECT_LE(error.line(), 8001u);
  }
}

TEST(FastaFile, EmptyFilesMissingFilesAndDirectories) {
  TempDir dir;
  write_gzip(dir / "empty.gz", "");
  write_plain(dir / "empty.fasta", "");
  for (const std::string name : {"empty.gz", "empty.fasta"}) {
    const InputError error = file_error(dir / name);
    EXPECT_EQ(error.line(), 0u);
    EXPECT_NE(error.problem().find("empty"), std::string::npos) << error.what();
  }
  EXPECT_EQ(file_error(dir / "missing.fasta").line(), 0u);
  fs::create_directories(dir / "folder");
  EXPECT_NE(file_error(dir / "folder").problem().find("directory"), std::string::npos);
  write_gzip(dir / "notfasta.gz", "id\tvalue\n1\t2\n");
  EXPECT_EQ(file_error(dir / "notfasta.gz").line(), 1u);
}

}  // namespace
}  // namespace trellis::align
