// NCBI-format substitution matrix files (the format of
// ftp.ncbi.nih.gov/blast/matrices/): '#' starts a comment, the first other
// line lists the column letters, each following line is a letter and one
// integer per column.
#include <array>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trellis/align/scoring.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Letters a file may carry that our alphabet folds onto X: accepted, ignored.
constexpr bool is_folded_letter(char upper) noexcept { return upper == 'J' || upper == 'U' || upper == 'O'; }

constexpr int kIgnoredColumn = -1;

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string shown(std::string_view token) {
  std::string text = "'";
  for (std::size_t i = 0; i < token.size() && i < 24; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    text += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  }
  if (token.size() > 24) text += "...";
  return text + "'";
}

// The column of a one-letter token: alphabet index, kIgnoredColumn for J/U/O;
// fails for anything else.
int letter_index(std::string_view token, const std::string& name, std::size_t line, std::string_view role) {
  if (token.size() != 1) {
    throw InputError(name, line, fmt::format("expected a single residue letter as {}, found {}", role, shown(token)));
  }
  char upper = token[0];
  if (upper >= 'a' && upper <= 'z') upper = static_cast<char>(upper - 'a' + 'A');
  if (is_folded_letter(upper)) return kIgnoredColumn;
  const std::size_t index = kAlphabetLetters.find(upper);
  if (index == std::string_view::npos) {
    throw InputError(
        name, line,
        fmt::format("{} is not a residue letter (expected letters of {} as {})", shown(token), kAlphabetLetters, role));
  }
  return static_cast<int>(index);
}

}  // namespace

ScoringMatrix parse_matrix(std::string_view text, const std::string& name) {
  std::vector<int> columns;  // alphabet index of each column, or kIgnoredColumn
  std::size_t header_line = 0;
  std::array<bool, kAlphabetSize> has_row{};
  std::array<bool, kAlphabetSize> has_column{};
  std::array<bool, 26> folded_row_seen{};
  ScoringMatrix::Scores scores{};

  std::size_t line_number = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.empty()) continue;

    if (header_line == 0) {
      header_line = line_number;
      for (const std::string_view field : fields) {
        const int index = letter_index(field, name, line_number, "a column heading");
        if (index != kIgnoredColumn) {
          if (has_column[static_cast<std::size_t>(index)]) {
            throw InputError(name, line_number, fmt::format("letter {} heads two columns", shown(field)));
          }
          has_column[static_cast<std::size_t>(index)] = true;
        } else {
          // J, U or O twice is as much a mistake as any other letter twice.
          const auto letter = static_cast<std::size_t>((field[0] & ~0x20) - 'A');
          if (folded_row_seen[letter]) {
            throw InputError(name, line_number, fmt::format("letter {} heads two columns", shown(field)));
          }
          folded_row_seen[letter] = true;
        }
        columns.push_back(index);
      }
      folded_row_seen = {};
      continue;
    }

    const int row = letter_index(fields[0], name, line_number, "the row letter");
    if (fields.size() - 1 != columns.size()) {
      throw InputError(name, line_number,
                       fmt::format("row {} has {} scores, but the header (line {}) has {} letters", shown(fields[0]),
                                   fields.size() - 1, header_line, columns.size()));
    }
    if (row == kIgnoredColumn) {
      const auto letter = static_cast<std::size_t>((fields[0][0] & ~0x20) - 'A');
      if (folded_row_seen[letter])
        throw InputError(name, line_number, fmt::format("a second row {}", shown(fields[0])));
      folded_row_seen[letter] = true;
    } else if (has_row[static_cast<std::size_t>(row)]) {
      throw InputError(name, line_number, fmt::format("a second row {}", shown(fields[0])));
    }
    for (std::size_t column = 0; column < columns.size(); ++column) {
      const std::string_view token = fields[column + 1];
      std::int32_t value = 0;
      const char* last = token.data() + token.size();
      const auto [stop, error] = std::from_chars(token.data(), last, value);
      if (stop != last || error != std::errc()) {
        if (stop == last && error == std::errc::result_out_of_range) {
          throw InputError(name, line_number, fmt::format("score {} is out of range", shown(token)));
        }
        throw InputError(name, line_number,
                         fmt::format("expected an integer score in column {}, found {}", column + 2, shown(token)));
      }
      if (value > kMaxMatrixMagnitude || value < -kMaxMatrixMagnitude) {
        throw InputError(name, line_number,
                         fmt::format("score {} is outside -{}..{}", value, kMaxMatrixMagnitude, kMaxMatrixMagnitude));
      }
      if (row != kIgnoredColumn && columns[column] != kIgnoredColumn) {
        scores[static_cast<std::size_t>(row) * kAlphabetSize + static_cast<std::size_t>(columns[column])] = value;
      }
    }
    if (row != kIgnoredColumn) has_row[static_cast<std::size_t>(row)] = true;
  }

  if (header_line == 0) throw InputError(name, 0, "no header row of residue letters: not a scoring matrix file");
  std::string missing_columns;
  std::string missing_rows;
  for (std::size_t i = 0; i < kAlphabetSize; ++i) {
    if (!has_column[i]) missing_columns += kAlphabetLetters[i];
    if (!has_row[i]) missing_rows += kAlphabetLetters[i];
  }
  if (!missing_columns.empty()) {
    throw InputError(name, header_line,
                     fmt::format("the header lacks the letters {} (every one of {} needs a column)", missing_columns,
                                 kAlphabetLetters));
  }
  if (!missing_rows.empty()) {
    throw InputError(
        name, line_number,
        fmt::format("the file ends without rows for {} (every one of {} needs a row)", missing_rows, kAlphabetLetters));
  }
  return ScoringMatrix(name, scores, false);
}

ScoringMatrix read_matrix_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw InputError(name, 0, "cannot read: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name, 0, "cannot open the matrix file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(name, 0, "reading the matrix file failed");
  ScoringMatrix matrix = parse_matrix(text.str(), name);
  return ScoringMatrix(path.filename().string(), matrix.scores(), false);
}

}  // namespace trellis::align
