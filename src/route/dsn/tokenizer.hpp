// Splits Specctra DSN text into parentheses and atoms, one token ahead,
// tracking line numbers for messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace trellis::route::dsn_detail {

enum class TokenKind { open, close, atom, end };

// Specctra and KiCad write the same s-expressions but quote differently:
// KiCad's quote is always '"', with backslash escapes inside (\" \\ \n \t
// \r; any other escaped character stands for itself), and it has neither
// '#' comments nor (string_quote) nor names with glued parentheses.
enum class Dialect { specctra, kicad };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;      // the atom, quotes removed; empty for other kinds
  std::size_t line = 0;  // 1-based line where the token starts
  bool quoted = false;   // the atom had a quoted part ("" is an empty atom)
};

// Rules, as Specctra writers use them:
// - Whitespace separates tokens; '(' and ')' are tokens of their own.
// - The quote character starts as '"'; (string_quote C) makes C the quote
//   character from there on (the character after string_quote is taken
//   literally, so (string_quote ") works). Quoted text may span spaces,
//   parentheses and lines; text glued to a quoted part ("A B"-1) belongs to
//   the same atom. A quote closes quoted text only before whitespace, a
//   parenthesis, '-' or the end; elsewhere it is part of the text, as in
//   KiCad's unescaped export of the net /G/"B" as "/G/"B"".
// - Inside an unquoted atom, a '(' whose matching ')' comes before any
//   whitespace is part of the name (Net-(C2-Pad1)); otherwise it ends the
//   atom and opens a list.
// - A line whose first non-blank character is '#' is a comment.
class Tokenizer {
 public:
  Tokenizer(std::string_view text, std::string name, Dialect dialect = Dialect::specctra);

  const Token& peek();
  Token next();

  const std::string& name() const noexcept { return name_; }
  // The line of the last token next() returned (1 before any).
  std::size_t line() const noexcept { return last_line_; }
  // The last line that holds text: where a truncated file is reported.
  std::size_t last_line() const noexcept;

  [[noreturn]] void fail(std::size_t line, std::string_view problem) const;

 private:
  void scan(Token& token);
  void skip_space_and_comments();
  void scan_quoted(Token& token);
  void scan_escaped_quoted(Token& token);  // Dialect::kicad
  // Length of a balanced "(...)" starting at pos_, or 0 when it is not one.
  std::size_t balanced_group_length() const;

  std::string_view text_;
  std::string name_;
  Dialect dialect_ = Dialect::specctra;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  bool at_line_start_ = true;
  char quote_ = '"';
  bool previous_was_open_ = false;
  bool next_is_quote_char_ = false;
  Token lookahead_;
  bool has_lookahead_ = false;
  std::size_t last_line_ = 1;
};

// A token for a message: quoted, shortened, unprintable bytes escaped.
std::string describe(const Token& token);
std::string quoted(std::string_view text);

}  // namespace trellis::route::dsn_detail
