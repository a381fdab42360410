// A KiCad file as a tree of lists, built with the Specctra tokenizer in its
// KiCad dialect. KiCad's lists are looked up by keyword in any order, which
// a tree makes simple; boards are a few megabytes, so the tree is cheap.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trellis::route::kicad_detail {

// An atom, or a list whose first atom is its keyword. A list that starts
// with a list or is empty has an empty keyword.
struct Node {
  bool is_list = false;
  std::string text;          // the atom, or the list's keyword
  std::size_t line = 0;      // where the atom or the list's '(' is
  std::size_t end_line = 0;  // a list's ')'
  std::vector<Node> items;   // a list's items after the keyword

  // The first item that is a list with this keyword, or nullptr.
  const Node* find(std::string_view keyword) const;
  // Every item that is a list with this keyword.
  std::vector<const Node*> find_all(std::string_view keyword) const;
  // Whether an atom item equals `flag` ("locked" in "(segment locked ...)").
  bool has_atom(std::string_view flag) const;
};

// Lists nest at most this deep; KiCad's own files stay under ten.
inline constexpr std::size_t kMaxNesting = 64;

// Parses the one top-level list of `text`; throws InputError naming `name`
// for unbalanced parentheses, unclosed strings, text after the list or
// lists nested too deeply.
Node parse_tree(std::string_view text, const std::string& name);

}  // namespace trellis::route::kicad_detail
