// A board file with its tracks taken out: the starting point for routing a
// board again from scratch, written so that the routed copy holds the new
// routes alone.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sexpr.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {

std::string kicad_pcb_without_tracks(std::string_view text, const std::string& name) {
  const kicad_detail::Node root = kicad_detail::parse_tree(text, name);
  const auto first_line = [](const kicad_detail::Node& n) { return n.line; };
  const auto last_line = [](const kicad_detail::Node& n) { return n.is_list ? n.end_line : n.line; };
  // Lines (1-based) that a track list covers; each must be its own.
  std::vector<bool> dropped;
  for (std::size_t i = 0; i < root.items.size(); ++i) {
    const kicad_detail::Node& item = root.items[i];
    if (!item.is_list || (item.text != "segment" && item.text != "arc" && item.text != "via")) continue;
    const bool shares_first =
        first_line(item) == root.line || (i > 0 && last_line(root.items[i - 1]) >= first_line(item));
    const bool shares_last = last_line(item) == root.end_line ||
                             (i + 1 < root.items.size() && first_line(root.items[i + 1]) <= last_line(item));
    if (shares_first || shares_last) {
      throw UsageError(
          fmt::format("{}:{}: the ({} ...) there shares a line with other items, so its tracks cannot "
                      "be taken out line by line",
                      name, item.line, item.text));
    }
    if (dropped.size() <= last_line(item)) dropped.resize(last_line(item) + 1, false);
    std::fill(dropped.begin() + static_cast<std::ptrdiff_t>(first_line(item)),
              dropped.begin() + static_cast<std::ptrdiff_t>(last_line(item)) + 1, true);
  }
  std::string kept;
  kept.reserve(text.size());
  std::size_t line = 1;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    if (line >= dropped.size() || !dropped[line]) kept.append(text.substr(start, end - start));
    start = end;
    ++line;
  }
  return kept;
}

}  // namespace trellis::route
