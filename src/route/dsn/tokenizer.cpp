#include "tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "trellis/core/error.hpp"

namespace trellis::route::dsn_detail {
namespace {

constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

Tokenizer::Tokenizer(std::string_view text, std::string name, Dialect dialect)
    : text_(text), name_(std::move(name)), dialect_(dialect) {
  // Editors on Windows may start a UTF-8 file with a byte order mark.
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

const Token& Tokenizer::peek() {
  if (!has_lookahead_) {
    scan(lookahead_);
    has_lookahead_ = true;
  }
  return lookahead_;
}

Token Tokenizer::next() {
  peek();
  has_lookahead_ = false;
  last_line_ = lookahead_.line;
  return std::move(lookahead_);
}

std::size_t Tokenizer::last_line() const noexcept {
  if (text_.empty()) return 0;
  const auto newlines = static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n'));
  return newlines + (text_.back() != '\n' ? 1 : 0);
}

void Tokenizer::fail(std::size_t line, std::string_view problem) const {
  throw InputError(name_, line, std::string(problem));
}

void Tokenizer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      at_line_start_ = true;
      ++pos_;
    } else if (is_space(c)) {
      ++pos_;
    } else if (c == '#' && at_line_start_ && dialect_ == Dialect::specctra) {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

void Tokenizer::scan_quoted(Token& token) {
  const std::size_t opened_at = line_;
  ++pos_;  // the opening quote
  // Specctra has no escapes, and KiCad's exporter writes a name holding the
  // quote character between quotes as it is ("/Gate Array/"B"" for the net
  // /Gate Array/"B"). So a quote closes the text only where the atom could
  // end: before a space, a parenthesis, the end of the file, or the '-' of
  // a pin reference ("U 1"-2); any other quote is part of the text.
  std::size_t close = pos_;
  for (;; ++close) {
    close = text_.find(quote_, close);
    if (close == std::string_view::npos) {
      fail(opened_at,
           fmt::format("the quoted text opened here with {} is never closed", quoted(std::string(1, quote_))));
    }
    const std::size_t after = close + 1;
    if (after == text_.size()) break;
    const char next = text_[after];
    if (is_space(next) || next == '(' || next == ')' || next == '-') break;
  }
  const std::string_view inside = text_.substr(pos_, close - pos_);
  line_ += static_cast<std::size_t>(std::count(inside.begin(), inside.end(), '\n'));
  token.text += inside;
  token.quoted = true;
  pos_ = close + 1;
}

void Tokenizer::scan_escaped_quoted(Token& token) {
  const std::size_t opened_at = line_;
  ++pos_;  // the opening quote
  for (;;) {
    if (pos_ >= text_.size()) fail(opened_at, "the quoted text opened here with '\"' is never closed");
    const char c = text_[pos_++];
    if (c == '"') break;
    if (c == '\n') ++line_;
    if (c != '\\' || pos_ >= text_.size()) {
      token.text += c;
      continue;
    }
    const char escaped = text_[pos_++];
    if (escaped == '\n') ++line_;
    token.text += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped == 'r' ? '\r' : escaped;
  }
  token.quoted = true;
}

std::size_t Tokenizer::balanced_group_length() const {
  int depth = 0;
  for (std::size_t i = pos_; i < text_.size(); ++i) {
    const char c = text_[i];
    if (is_space(c) || c == quote_) return 0;
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return i + 1 - pos_;
    }
  }
  return 0;
}

void Tokenizer::scan(Token& token) {
  token.text.clear();
  token.quoted = false;
  skip_space_and_comments();
  token.line = line_;
  if (pos_ >= text_.size()) {
    token.kind = TokenKind::end;
    // The end of a file whose last line ends with a newline is on that
    // line, not on an empty one after it.
    if (!text_.empty() && text_.back() == '\n' && token.line > 1) --token.line;
    return;
  }
  at_line_start_ = false;

  if (next_is_quote_char_ && dialect_ == Dialect::specctra) {
    // (string_quote C): C is taken as it is, whatever character it is.
    next_is_quote_char_ = false;
    previous_was_open_ = false;
    if (text_[pos_] != ')') {
      token.kind = TokenKind::atom;
      token.text.assign(1, text_[pos_]);
      quote_ = text_[pos_];
      ++pos_;
      return;
    }
  }

  const char first = text_[pos_];
  if (first == '(' || first == ')') {
    token.kind = first == '(' ? TokenKind::open : TokenKind::close;
    ++pos_;
    previous_was_open_ = first == '(';
    return;
  }

  token.kind = TokenKind::atom;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (is_space(c) || c == ')') break;
    if (c == quote_) {
      if (dialect_ == Dialect::kicad) {
        scan_escaped_quoted(token);
      } else {
        scan_quoted(token);
      }
    } else if (c == '(') {
      const bool may_glue = dialect_ == Dialect::specctra && (!token.text.empty() || token.quoted);
      const std::size_t group = may_glue ? balanced_group_length() : 0;
      if (group == 0) break;
      token.text += text_.substr(pos_, group);
      pos_ += group;
    } else {
      token.text += c;
      ++pos_;
    }
  }
  next_is_quote_char_ = previous_was_open_ && !token.quoted && token.text == "string_quote";
  previous_was_open_ = false;
}

std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string shown = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      shown += fmt::format("\\x{:02x}", c);
    } else {
      shown += static_cast<char>(c);
    }
  }
  if (text.size() > kShown) shown += "...";
  shown += "'";
  return shown;
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::open:
      return "'('";
    case TokenKind::close:
      return "')'";
    case TokenKind::end:
      return "the end of the file";
    case TokenKind::atom:
      break;
  }
  return quoted(token.text);
}

}  // namespace trellis::route::dsn_detail
