// The DSN tokenizer on the inputs real exporters produce and on awkward ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "route/dsn/tokenizer.hpp"
#include "trellis/core/error.hpp"

namespace trellis::route::dsn_detail {
namespace {

// Tokens as short strings: "(" ")" and atoms in brackets with their line.
std::vector<std::string> tokens_of(const std::string& text) {
  Tokenizer tokenizer(text, "test.dsn");
  std::vector<std::string> shown;
  for (;;) {
    const Token token = tokenizer.next();
    switch (token.kind) {
      case TokenKind::open:
        shown.push_back("(");
        break;
      case TokenKind::close:
        shown.push_back(")");
        break;
      case TokenKind::atom:
        shown.push_back("[" + token.text + "]" + std::to_string(token.line));
        break;
      case TokenKind::end:
        return shown;
    }
  }
}

using Tokens = std::vector<std::string>;

TEST(DsnTokenizer, SplitsListsAndAtomsWithLines) {
  EXPECT_EQ(tokens_of("(pcb board\n  (unit um))"),
            (Tokens{"(", "[pcb]1", "[board]1", "(", "[unit]2", "[um]2", ")", ")"}));
  EXPECT_EQ(tokens_of(""), Tokens{});
  EXPECT_EQ(tokens_of("  \r\n\t "), Tokens{});
  EXPECT_EQ(tokens_of("(a)\r\n(b)"), (Tokens{"(", "[a]1", ")", "(", "[b]2", ")"}));
}

TEST(DsnTokenizer, QuotedStringsKeepSpacesAndParentheses) {
  EXPECT_EQ(tokens_of("(net \"Net-(C2 Pad1)\" x)"), (Tokens{"(", "[net]1", "[Net-(C2 Pad1)]1", "[x]1", ")"}));
  EXPECT_EQ(tokens_of("(keepout \"\" y)"), (Tokens{"(", "[keepout]1", "[]1", "[y]1", ")"}));
  // A quoted string spanning lines: the next token's line counts them.
  EXPECT_EQ(tokens_of("\"a\nb\" c"), (Tokens{"[a\nb]1", "[c]2"}));
}

TEST(DsnTokenizer, StringQuoteDirectiveTakesTheNextCharacterLiterally) {
  // KiCad's header: (string_quote ") must not open a quoted string.
  EXPECT_EQ(tokens_of("(parser (string_quote \")\n (host_cad \"KiCad's Pcbnew\"))"),
            (Tokens{"(", "[parser]1", "(", "[string_quote]1", "[\"]1", ")", "(", "[host_cad]2", "[KiCad's Pcbnew]2",
                    ")", ")"}));
  // Another quote character: from then on '"' is an ordinary character.
  EXPECT_EQ(tokens_of("(string_quote ') 'a \"b' \"c"),
            (Tokens{"(", "[string_quote]1", "[']1", ")", "[a \"b]1", "[\"c]1"}));
  // Only right after '(' is string_quote a directive.
  EXPECT_EQ(tokens_of("(x string_quote \"y z\")"), (Tokens{"(", "[x]1", "[string_quote]1", "[y z]1", ")"}));
}

TEST(DsnTokenizer, TextGluedToAQuotedPartIsOneAtom) {
  EXPECT_EQ(tokens_of("(pins \"Big Part\"-16 U1-\"A 1\")"),
            (Tokens{"(", "[pins]1", "[Big Part-16]1", "[U1-A 1]1", ")"}));
}

TEST(DsnTokenizer, AQuoteInsideQuotedTextIsTextUnlessTheAtomCanEndThere) {
  // KiCad exports the net /Gate Array/"B" without escaping its quotes.
  EXPECT_EQ(tokens_of("(net \"/Gate Array/\"B\"\" (pins U1-1))"),
            (Tokens{"(", "[net]1", "[/Gate Array/\"B\"]1", "(", "[pins]1", "[U1-1]1", ")", ")"}));
  EXPECT_EQ(tokens_of("(class c \"\" \"a\"\"b\")"), (Tokens{"(", "[class]1", "[c]1", "[]1", "[a\"\"b]1", ")"}));
  EXPECT_EQ(tokens_of("\"x\"y\"\n"), (Tokens{"[x\"y]1"}));
  EXPECT_EQ(tokens_of("(pins \"U \"1\"-2)"), (Tokens{"(", "[pins]1", "[U \"1-2]1", ")"}));
}

TEST(DsnTokenizer, BalancedParenthesesInsideAnUnquotedName) {
  EXPECT_EQ(tokens_of("(net Net-(C2-Pad1) (pins C2-1))"),
            (Tokens{"(", "[net]1", "[Net-(C2-Pad1)]1", "(", "[pins]1", "[C2-1]1", ")", ")"}));
  EXPECT_EQ(tokens_of("(a x(y)z(w))"), (Tokens{"(", "[a]1", "[x(y)z(w)]1", ")"}));
  EXPECT_EQ(tokens_of("(a b(c(d)))"), (Tokens{"(", "[a]1", "[b(c(d))]1", ")"}));
  // Not balanced before a space: the '(' opens a list after all.
  EXPECT_EQ(tokens_of("(a b(c d))"), (Tokens{"(", "[a]1", "[b]1", "(", "[c]1", "[d]1", ")", ")"}));
  // A name ending the list.
  EXPECT_EQ(tokens_of("(pins A-1 B-2)"), (Tokens{"(", "[pins]1", "[A-1]1", "[B-2]1", ")"}));
}

TEST(DsnTokenizer, HashStartsACommentOnlyAtTheStartOfALine) {
  EXPECT_EQ(tokens_of("# exported (by hand\n  # another ) one\n(a #PWR01)"), (Tokens{"(", "[a]3", "[#PWR01]3", ")"}));
}

TEST(DsnTokenizer, SkipsAByteOrderMark) { EXPECT_EQ(tokens_of("\xEF\xBB\xBF(a)"), (Tokens{"(", "[a]1", ")"})); }

TEST(DsnTokenizer, UnterminatedQuoteNamesTheLineItOpened) {
  try {
    tokens_of("(a\n (b \"never closed\n c d)\n");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "test.dsn");
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(error.problem().find("never closed"), std::string::npos) << error.what();
  }
}

TEST(DsnTokenizer, PeekDoesNotConsume) {
  Tokenizer tokenizer("(a b)", "t");
  EXPECT_EQ(tokenizer.peek().kind, TokenKind::open);
  EXPECT_EQ(tokenizer.next().kind, TokenKind::open);
  EXPECT_EQ(tokenizer.peek().text, "a");
  EXPECT_EQ(tokenizer.next().text, "a");
  EXPECT_EQ(tokenizer.next().text, "b");
  EXPECT_EQ(tokenizer.next().kind, TokenKind::close);
  EXPECT_EQ(tokenizer.next().kind, TokenKind::end);
  EXPECT_EQ(tokenizer.next().kind, TokenKind::end);
}

TEST(DsnTokenizer, LastLineIgnoresTheFinalLineEnding) {
  EXPECT_EQ(Tokenizer("a\nb\n", "t").last_line(), 2u);
  EXPECT_EQ(Tokenizer("a\nb", "t").last_line(), 2u);
  EXPECT_EQ(Tokenizer("", "t").last_line(), 0u);
}

}  // namespace
}  // namespace trellis::route::dsn_detail
