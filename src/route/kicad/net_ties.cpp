// Net ties: footprints whose pads join their nets on purpose. KiCad 7 and
// later name the pads a tie joins, (net_tie_pad_groups "1, 2" ...); KiCad 6
// and older mark a whole footprint by keywords that start with "net tie"
// (KiCad 7 reads such a footprint as one group of all its pads). A copper
// drawing of the footprint belongs to the groups whose pads it touches, as
// KiCad's DRC decides which nets may touch it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "../geometry/geometry.hpp"
#include "reader.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route::kicad_detail {
namespace {

// The first format version with (net_tie_pad_groups ...): KiCad 7's.
constexpr long kFirstNetTiePadGroups = 20221018;

// The pad numbers of one group string: separated by commas, spaces around
// them dropped, a backslash taking the next character as it is.
std::vector<std::string> group_numbers(const std::string& group) {
  std::vector<std::string> numbers(1);
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (group[i] == '\\' && i + 1 < group.size()) {
      numbers.back() += group[++i];
    } else if (group[i] == ',') {
      numbers.emplace_back();
    } else {
      numbers.back() += group[i];
    }
  }
  for (std::string& number : numbers) {
    const auto first = number.find_first_not_of(" \t");
    number = first == std::string::npos ? "" : number.substr(first, number.find_last_not_of(" \t") - first + 1);
  }
  std::erase(numbers, "");
  return numbers;
}

}  // namespace

std::vector<std::vector<int>> Reader::net_tie_groups(const Node& footprint,
                                                     const std::vector<std::pair<std::string, int>>& pads) const {
  std::vector<std::vector<int>> groups;
  if (const Node* listed = footprint.find("net_tie_pad_groups")) {
    for (const Node& group : listed->items) {
      if (group.is_list) continue;
      const std::vector<std::string> numbers = group_numbers(group.text);
      std::vector<int> pins;
      for (const auto& [number, pin] : pads) {
        if (std::find(numbers.begin(), numbers.end(), number) != numbers.end()) pins.push_back(pin);
      }
      if (!pins.empty()) groups.push_back(std::move(pins));
    }
    return groups;
  }
  const Node* tags = footprint.find("tags");
  if (version < kFirstNetTiePadGroups && tags != nullptr && !tags->items.empty() && !tags->items[0].is_list &&
      tags->items[0].text.starts_with("net tie") && !pads.empty()) {
    std::vector<int> pins;
    for (const auto& pad : pads) pins.push_back(pad.second);
    groups.push_back(std::move(pins));
  }
  return groups;
}

void Reader::make_net_ties() {
  if (pending_ties.empty()) return;
  const std::vector<PinCopper> copper = pin_copper(board);
  for (const PendingTie& pending : pending_ties) {
    const std::size_t count = pending.groups.size();
    // Groups one drawing touches become one tie.
    std::vector<std::size_t> joined(count);
    std::iota(joined.begin(), joined.end(), std::size_t{0});
    const auto root = [&](std::size_t g) {
      while (joined[g] != g) g = joined[g] = joined[joined[g]];
      return g;
    };
    // The tie's pads in its groups, as primitives, once.
    struct GroupPad {
      std::size_t group;
      int layer;
      std::vector<geometry::Primitive> parts;
    };
    std::vector<GroupPad> pads;
    for (const PinCopper& pad : copper) {
      if (pad.pin.component != pending.component) continue;
      for (std::size_t g = 0; g < count; ++g) {
        const std::vector<int>& pins = pending.groups[g];
        if (std::find(pins.begin(), pins.end(), pad.pin.pin) == pins.end()) continue;
        pads.push_back({g, pad.layer, geometry::primitives_of(pad.shape)});
        break;
      }
    }
    std::vector<std::size_t> touched_by(pending.end_graphic - pending.first_graphic, count);
    for (std::size_t d = pending.first_graphic; d < pending.end_graphic; ++d) {
      const CopperGraphic& drawing = board.copper_graphics[d];
      std::vector<geometry::Primitive> parts;
      for (const Shape& shape : drawing.shapes) {
        for (geometry::Primitive& part : geometry::primitives_of(shape)) parts.push_back(std::move(part));
      }
      for (const GroupPad& pad : pads) {
        if (pad.layer != drawing.layer) continue;
        const bool touches = std::any_of(parts.begin(), parts.end(), [&](const geometry::Primitive& part) {
          return std::any_of(pad.parts.begin(), pad.parts.end(), [&](const geometry::Primitive& pad_part) {
            return geometry::separation(part, pad_part).distance <= kDistanceTolerance;
          });
        });
        if (!touches) continue;
        std::size_t& first = touched_by[d - pending.first_graphic];
        if (first == count) {
          first = pad.group;
        } else {
          joined[root(pad.group)] = root(first);
        }
      }
    }
    // One tie a set of joined groups, its pins' nets listed once.
    std::vector<int> tie_of_root(count, -1);
    for (std::size_t g = 0; g < count; ++g) {
      int& tie = tie_of_root[root(g)];
      if (tie < 0) {
        tie = static_cast<int>(board.net_ties.size());
        board.net_ties.push_back({board.components[static_cast<std::size_t>(pending.component)].reference, {}, {}});
      }
      NetTie& net_tie = board.net_ties[static_cast<std::size_t>(tie)];
      for (const int pin : pending.groups[g]) net_tie.pins.push_back({pending.component, pin});
    }
    for (std::size_t d = pending.first_graphic; d < pending.end_graphic; ++d) {
      const std::size_t g = touched_by[d - pending.first_graphic];
      if (g != count) board.copper_graphics[d].tie = tie_of_root[root(g)];
    }
  }
  for (std::size_t n = 0; n < board.nets.size(); ++n) {
    for (NetTie& tie : board.net_ties) {
      const bool holds = std::any_of(board.nets[n].pins.begin(), board.nets[n].pins.end(), [&](const PinRef& pin) {
        return std::find(tie.pins.begin(), tie.pins.end(), pin) != tie.pins.end();
      });
      if (holds) tie.nets.push_back(static_cast<int>(n));
    }
  }
  // Reports name the nets a tie's copper joins.
  for (CopperGraphic& drawing : board.copper_graphics) {
    if (drawing.tie < 0) continue;
    std::vector<std::string> names;
    for (const int net : board.net_ties[static_cast<std::size_t>(drawing.tie)].nets) {
      names.push_back(board.nets[static_cast<std::size_t>(net)].name);
    }
    drawing.description += fmt::format(", a net tie of {}", fmt::join(names, ", "));
  }
}

}  // namespace trellis::route::kicad_detail
