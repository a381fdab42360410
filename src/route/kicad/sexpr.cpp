#include "sexpr.hpp"

#include <fmt/format.h>

#include <utility>

#include "../dsn/tokenizer.hpp"
#include "trellis/core/error.hpp"

namespace trellis::route::kicad_detail {

using dsn_detail::Token;
using dsn_detail::TokenKind;

const Node* Node::find(std::string_view keyword) const {
  for (const Node& item : items) {
    if (item.is_list && item.text == keyword) return &item;
  }
  return nullptr;
}

std::vector<const Node*> Node::find_all(std::string_view keyword) const {
  std::vector<const Node*> found;
  for (const Node& item : items) {
    if (item.is_list && item.text == keyword) found.push_back(&item);
  }
  return found;
}

bool Node::has_atom(std::string_view flag) const {
  for (const Node& item : items) {
    if (!item.is_list && item.text == flag) return true;
  }
  return false;
}

Node parse_tree(std::string_view text, const std::string& name) {
  dsn_detail::Tokenizer tokens(text, name, dsn_detail::Dialect::kicad);
  const auto truncated = [&](std::size_t opened_at) {
    tokens.fail(tokens.last_line(),
                fmt::format("the file ends inside the list opened at line {} (was it cut short?)", opened_at));
  };

  const Token& first = tokens.peek();
  if (first.kind == TokenKind::end) tokens.fail(tokens.last_line(), "the file is empty: expected (kicad_pcb ...)");
  if (first.kind != TokenKind::open) {
    tokens.fail(first.line,
                fmt::format("expected '(kicad_pcb' at the start of the file, found {}", dsn_detail::describe(first)));
  }

  // An explicit stack of open lists: nesting depth is bounded and never
  // recurses on the machine stack.
  std::vector<Node> open;
  Node root;
  for (;;) {
    Token token = tokens.next();
    switch (token.kind) {
      case TokenKind::open: {
        if (open.size() == kMaxNesting) {
          tokens.fail(token.line, fmt::format("lists are nested more than {} deep", kMaxNesting));
        }
        Node list;
        list.is_list = true;
        list.line = token.line;
        if (tokens.peek().kind == TokenKind::atom) list.text = tokens.next().text;
        open.push_back(std::move(list));
        break;
      }
      case TokenKind::close: {
        if (open.empty()) tokens.fail(token.line, "a ')' closes no list");
        Node done = std::move(open.back());
        open.pop_back();
        done.end_line = token.line;
        if (open.empty()) {
          root = std::move(done);
          const Token& after = tokens.peek();
          if (after.kind != TokenKind::end) {
            tokens.fail(after.line, fmt::format("expected the end of the file after the ({} ...) list, found {}",
                                                root.text, dsn_detail::describe(after)));
          }
          return root;
        }
        open.back().items.push_back(std::move(done));
        break;
      }
      case TokenKind::atom: {
        if (open.empty()) tokens.fail(token.line, "text outside any list");
        Node atom;
        atom.text = std::move(token.text);
        atom.line = token.line;
        open.back().items.push_back(std::move(atom));
        break;
      }
      case TokenKind::end:
        truncated(open.empty() ? 1 : open.back().line);
    }
  }
}

}  // namespace trellis::route::kicad_detail
