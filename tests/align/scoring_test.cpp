#include <gtest/gtest.h>
#include <parasail.h>
#include <parasail/matrices/blosum45.h>
#include <parasail/matrices/blosum50.h>
#include <parasail/matrices/blosum62.h>
#include <parasail/matrices/blosum80.h>
#include <parasail/matrices/pam250.h>
#include <parasail/matrices/pam30.h>
#include <parasail/matrices/pam70.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trellis/align/scoring.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

struct ParasailMatrix {
  std::string_view name;
  const parasail_matrix_t* matrix;
};

int parasail_score(const parasail_matrix_t& matrix, char a, char b) {
  return matrix.matrix[matrix.mapper[static_cast<unsigned char>(a)] * matrix.size +
                       matrix.mapper[static_cast<unsigned char>(b)]];
}

// parasail's BLOSUM80 is the older third-bit matrix (blosum80_3.iij), not
// the half-bit one BLAST uses and publishes statistics for; it is checked
// separately below.
const std::vector<ParasailMatrix>& parasail_builtins() {
  static const std::vector<ParasailMatrix> matrices = {
      {"BLOSUM45", &parasail_blosum45}, {"BLOSUM50", &parasail_blosum50}, {"BLOSUM62", &parasail_blosum62},
      {"PAM30", &parasail_pam30},       {"PAM70", &parasail_pam70},       {"PAM250", &parasail_pam250}};
  return matrices;
}

// NCBI's BLOSUM80 (ftp.ncbi.nih.gov/blast/matrices/BLOSUM80, BLAST+'s
// sm_blosum80.c), typed a second time here in the file's own layout so a
// typo in either copy shows.
constexpr std::string_view kNcbiBlosum80 = R"(
   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  Z  X  *
A  5 -2 -2 -2 -1 -1 -1  0 -2 -2 -2 -1 -1 -3 -1  1  0 -3 -2  0 -2 -1 -1 -6
R -2  6 -1 -2 -4  1 -1 -3  0 -3 -3  2 -2 -4 -2 -1 -1 -4 -3 -3 -2  0 -1 -6
N -2 -1  6  1 -3  0 -1 -1  0 -4 -4  0 -3 -4 -3  0  0 -4 -3 -4  4  0 -1 -6
D -2 -2  1  6 -4 -1  1 -2 -2 -4 -5 -1 -4 -4 -2 -1 -1 -6 -4 -4  4  1 -2 -6
C -1 -4 -3 -4  9 -4 -5 -4 -4 -2 -2 -4 -2 -3 -4 -2 -1 -3 -3 -1 -4 -4 -3 -6
Q -1  1  0 -1 -4  6  2 -2  1 -3 -3  1  0 -4 -2  0 -1 -3 -2 -3  0  3 -1 -6
E -1 -1 -1  1 -5  2  6 -3  0 -4 -4  1 -2 -4 -2  0 -1 -4 -3 -3  1  4 -1 -6
G  0 -3 -1 -2 -4 -2 -3  6 -3 -5 -4 -2 -4 -4 -3 -1 -2 -4 -4 -4 -1 -3 -2 -6
H -2  0  0 -2 -4  1  0 -3  8 -4 -3 -1 -2 -2 -3 -1 -2 -3  2 -4 -1  0 -2 -6
I -2 -3 -4 -4 -2 -3 -4 -5 -4  5  1 -3  1 -1 -4 -3 -1 -3 -2  3 -4 -4 -2 -6
L -2 -3 -4 -5 -2 -3 -4 -4 -3  1  4 -3  2  0 -3 -3 -2 -2 -2  1 -4 -3 -2 -6
K -1  2  0 -1 -4  1  1 -2 -1 -3 -3  5 -2 -4 -1 -1 -1 -4 -3 -3 -1  1 -1 -6
M -1 -2 -3 -4 -2  0 -2 -4 -2  1  2 -2  6  0 -3 -2 -1 -2 -2  1 -3 -2 -1 -6
F -3 -4 -4 -4 -3 -4 -4 -4 -2 -1  0 -4  0  6 -4 -3 -2  0  3 -1 -4 -4 -2 -6
P -1 -2 -3 -2 -4 -2 -2 -3 -3 -4 -3 -1 -3 -4  8 -1 -2 -5 -4 -3 -2 -2 -2 -6
S  1 -1  0 -1 -2  0  0 -1 -1 -3 -3 -1 -2 -3 -1  5  1 -4 -2 -2  0  0 -1 -6
T  0 -1  0 -1 -1 -1 -1 -2 -2 -1 -2 -1 -1 -2 -2  1  5 -4 -2  0 -1 -1 -1 -6
W -3 -4 -4 -6 -3 -3 -4 -4 -3 -3 -2 -4 -2  0 -5 -4 -4 11  2 -3 -5 -4 -3 -6
Y -2 -3 -3 -4 -3 -2 -3 -4  2 -2 -2 -3 -2  3 -4 -2 -2  2  7 -2 -3 -3 -2 -6
V  0 -3 -4 -4 -1 -3 -3 -4 -4  3  1 -3  1 -1 -3 -2  0 -3 -2  4 -4 -3 -1 -6
B -2 -2  4  4 -4  0  1 -1 -1 -4 -4 -1 -3 -4 -2  0 -1 -5 -3 -4  4  0 -2 -6
Z -1  0  0  1 -4  3  4 -3  0 -4 -3  1 -2 -4 -2  0 -1 -4 -3 -3  0  4 -1 -6
X -1 -1 -1 -2 -3 -1 -1 -2 -2 -2 -2 -1 -1 -2 -2 -1 -1 -3 -2 -1 -2 -1 -1 -6
* -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6 -6  1
)";

TEST(BuiltinMatrices, Blosum80IsBlastsHalfBitMatrix) {
  const ScoringMatrix ours = builtin_matrix("BLOSUM80");
  EXPECT_EQ(ours.scores(), parse_matrix(kNcbiBlosum80, "BLOSUM80").scores());
  EXPECT_EQ(ours.max_score(), 11);
  EXPECT_EQ(ours.min_score(), -6);
  // parasail's third-bit BLOSUM80 differs, as expected (W-W 16 there).
  EXPECT_EQ(parasail_score(parasail_blosum80, 'W', 'W'), 16);
}

TEST(BuiltinMatrices, EveryEntryEqualsParasail) {
  ASSERT_EQ(builtin_matrix_names().size(), parasail_builtins().size() + 1);  // + BLOSUM80
  for (const auto& [name, reference] : parasail_builtins()) {
    const ScoringMatrix ours = builtin_matrix(name);
    EXPECT_TRUE(ours.is_builtin());
    EXPECT_EQ(ours.name(), name);
    // parasail's copies carry the same 24 letters; look each one up by letter.
    ASSERT_EQ(std::string_view(reference->alphabet).size(), 24u) << name;
    int compared = 0;
    for (Residue a = 0; a < kAlphabetSize; ++a) {
      ASSERT_NE(std::string_view(reference->alphabet).find(kAlphabetLetters[a]), std::string_view::npos);
      for (Residue b = 0; b < kAlphabetSize; ++b) {
        EXPECT_EQ(ours.score(a, b), parasail_score(*reference, kAlphabetLetters[a], kAlphabetLetters[b]))
            << name << " " << kAlphabetLetters[a] << kAlphabetLetters[b];
        ++compared;
      }
    }
    EXPECT_EQ(compared, 576);
    EXPECT_EQ(ours.max_score(), reference->max) << name;
    EXPECT_EQ(ours.min_score(), reference->min) << name;
  }
}

TEST(BuiltinMatrices, LookupIgnoresCaseAndRejectsUnknownNamesListingTheKnownOnes) {
  EXPECT_EQ(builtin_matrix("blosum62").scores(), builtin_matrix("BLOSUM62").scores());
  EXPECT_EQ(builtin_matrix("Pam30").name(), "PAM30");
  try {
    builtin_matrix("BLOSUM63");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("BLOSUM63"), std::string::npos);
    for (const std::string_view name : builtin_matrix_names()) EXPECT_NE(message.find(name), std::string::npos);
  }
}

TEST(GapPenalties, NegativeAndHugePenaltiesAreUsageErrors) {
  EXPECT_NO_THROW(validate({11, 1}));
  EXPECT_NO_THROW(validate({0, 0}));
  EXPECT_THROW(validate({-1, 1}), UsageError);
  EXPECT_THROW(validate({11, -1}), UsageError);
  EXPECT_THROW(validate({kMaxGapPenalty + 1, 1}), UsageError);
  EXPECT_THROW(Scoring(builtin_matrix("BLOSUM62"), GapPenalties{5, -2}), UsageError);
  EXPECT_EQ(default_gap_penalties("BLOSUM62"), (GapPenalties{11, 1}));
  EXPECT_EQ(default_gap_penalties("blosum45"), (GapPenalties{14, 2}));
  EXPECT_EQ(default_gap_penalties("PAM30"), (GapPenalties{9, 1}));
}

// BLOSUM62 written in NCBI's file format with rows in a shuffled order and
// extra J/U/O columns and rows (which the reader ignores).
std::string blosum62_file(unsigned seed) {
  const ScoringMatrix blosum62 = builtin_matrix("BLOSUM62");
  const std::string columns = std::string(kAlphabetLetters) + "JUO";
  std::string text = "#  Matrix made by matblas from blosum62.iij\n#  * column uses minimum score\n\n   ";
  for (const char letter : columns) text += fmt::format("  {}", letter);
  text += "\n";
  std::vector<char> rows(columns.begin(), columns.end());
  std::shuffle(rows.begin(), rows.end(), std::mt19937(seed));
  for (const char row : rows) {
    text += row;
    for (const char column : columns) {
      const Residue r = encode_residue(row == 'J' || row == 'U' || row == 'O' ? 'X' : row);
      const Residue c = encode_residue(column == 'J' || column == 'U' || column == 'O' ? 'X' : column);
      text += fmt::format(" {:2}", row == 'J' || column == 'J' ? 99 : blosum62.score(r, c));
    }
    text += "  # trailing comment\r\n";
  }
  return text;
}

TEST(MatrixFile, NcbiFormatReadsBackTheBuiltin) {
  for (unsigned seed = 0; seed < 3; ++seed) {
    const ScoringMatrix read = parse_matrix(blosum62_file(seed), "BLOSUM62");
    EXPECT_FALSE(read.is_builtin());
    EXPECT_EQ(read.scores(), builtin_matrix("BLOSUM62").scores());
  }
}

InputError matrix_error(const std::string& text) {
  try {
    parse_matrix(text, "bad.mat");
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", 0, "none");
}

// A valid file as lines, so each case can break one of them.
std::vector<std::string> valid_lines() {
  std::vector<std::string> lines;
  std::string text = blosum62_file(1);
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;  // lines[3] is the header (line 4), rows follow
}

// The row with its first score replaced by `token`.
std::string with_first_score(const std::string& row, const std::string& token) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  const std::string body = row.substr(0, row.find('#'));
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ' ' || body[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < body.size() && body[i] != ' ' && body[i] != '\r') ++i;
    if (i > start) fields.push_back(body.substr(start, i - start));
  }
  fields[1] = token;
  std::string text;
  for (const std::string& field : fields) text += field + " ";
  return text;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

TEST(MatrixFile, ErrorsNameTheLine) {
  {
    auto lines = valid_lines();
    lines[6] = lines[6].substr(0, lines[6].find('#')) + " 3";  // ragged row on line 7
    const InputError error = matrix_error(joined(lines));
    EXPECT_EQ(error.file(), "bad.mat");
    EXPECT_EQ(error.line(), 7u);
    EXPECT_NE(error.problem().find("28 scores"), std::string::npos) << error.what();
  }
  {
    auto lines = valid_lines();
    lines[8] = lines[8].substr(0, lines[8].find('#') - 4);  // a short row on line 9
    EXPECT_EQ(matrix_error(joined(lines)).line(), 9u);
  }
  {
    auto lines = valid_lines();
    lines[10] = with_first_score(lines[10], "x1");  // not an integer on line 11
    const InputError error = matrix_error(joined(lines));
    EXPECT_EQ(error.line(), 11u);
    EXPECT_NE(error.problem().find("integer"), std::string::npos) << error.what();
  }
  {
    auto lines = valid_lines();
    lines[10] = with_first_score(lines[10], "2.5");
    EXPECT_EQ(matrix_error(joined(lines)).line(), 11u);
  }
  {
    auto lines = valid_lines();
    lines[10] = with_first_score(lines[10], "5000");
    EXPECT_NE(matrix_error(joined(lines)).problem().find("outside"), std::string::npos);
  }
  {
    auto lines = valid_lines();
    const std::string header = lines[3];
    lines[3].replace(lines[3].find('W'), 1, "A");  // duplicate letter, W missing
    const InputError error = matrix_error(joined(lines));
    EXPECT_EQ(error.line(), 4u);
    EXPECT_NE(error.problem().find("two columns"), std::string::npos) << error.what();
  }
  {
    auto lines = valid_lines();
    lines[3].replace(lines[3].find('W'), 1, "7");  // not a letter
    EXPECT_EQ(matrix_error(joined(lines)).line(), 4u);
  }
  {
    auto lines = valid_lines();
    lines[5] = lines[12];  // a row twice (line 6), another row missing
    const InputError error = matrix_error(joined(lines));
    EXPECT_EQ(error.line(), 13u);
    EXPECT_NE(error.problem().find("second row"), std::string::npos) << error.what();
  }
  {
    auto lines = valid_lines();
    const std::string removed = lines[20];
    lines.erase(lines.begin() + 20);  // a missing row: reported at the end
    const InputError error = matrix_error(joined(lines));
    EXPECT_EQ(error.line(), lines.size());
    EXPECT_NE(error.problem().find(std::string("rows for ") + removed[0]), std::string::npos) << error.what();
  }
  {
    // A header without '*' (and so every row one score short of it).
    const InputError error = matrix_error("   A  R\nA  4 -1\nR -1  5\n");
    EXPECT_EQ(error.line(), 1u);
    EXPECT_NE(error.problem().find("lacks the letters NDCQEGHILKMFPSTWYVBZX*"), std::string::npos) << error.what();
  }
  EXPECT_EQ(matrix_error("").line(), 0u);
  EXPECT_EQ(matrix_error("# only a comment\n\n").line(), 0u);
}

TEST(MatrixFile, MissingFileIsAnInputError) {
  EXPECT_THROW(read_matrix_file("/nonexistent/trellis/BLOSUM62"), InputError);
}

}  // namespace
}  // namespace trellis::align
