// The (net N "name") declarations at the top of the board.
#include <fmt/format.h>

#include <cmath>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {

void Reader::read_nets(const Node& root) {
  std::unordered_map<std::string, std::size_t> line_by_name;
  for (const Node* declaration : root.find_all("net")) {
    const double value = number(*declaration, 0, "a net number");
    if (value != std::floor(value) || value < 0 || value > 1e9) {
      fail(declaration->line, fmt::format("the net number {} is not a whole number", declaration->items[0].text));
    }
    const auto number_of = static_cast<long>(value);
    const std::string name = declaration->items.size() > 1 ? atom(*declaration, 1, "the net's name").text : "";
    if (net_by_number.contains(number_of)) {
      fail(declaration->line, fmt::format("net {} is declared twice", number_of));
    }
    if (number_of == 0) {
      net_by_number.emplace(0, -1);  // "no net"
      continue;
    }
    if (name.empty()) fail(declaration->line, fmt::format("net {} has an empty name", number_of));
    const auto [known, inserted] = line_by_name.emplace(name, declaration->line);
    if (!inserted) {
      fail(declaration->line,
           fmt::format("two nets are called {} (the other at line {})", dsn_detail::quoted(name), known->second));
    }
    net_by_number.emplace(number_of, static_cast<int>(board.nets.size()));
    board.nets.push_back(Net{name, {}, {}});
  }
  // Files always declare net 0; a board without it still means "no net" by 0.
  net_by_number.emplace(0, -1);
}

}  // namespace trellis::route::kicad_detail
