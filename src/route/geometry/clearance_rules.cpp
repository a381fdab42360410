// Clearance lookup: per net, the largest of the applicable rule levels, each
// level's typed clearance replacing its default for that pair of types.
#include "clearance_rules.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace trellis::route::geometry {
namespace {

const char* type_name(ClearanceType type) {
  switch (type) {
    case ClearanceType::smd:
      return "smd";
    case ClearanceType::pin:
      return "pin";
    case ClearanceType::wire:
      return "wire";
    case ClearanceType::via:
      return "via";
    case ClearanceType::area:
      return "area";
    case ClearanceType::edge:
      return "edge";
  }
  return "";
}

// One level's clearance for a pair of types: "a_b" or "b_a" when typed, else
// the level's default; nothing when the level gives neither.
std::optional<Coord> level_clearance(const Rules& rules, ClearanceType a, ClearanceType b) {
  if (a != ClearanceType::edge && b != ClearanceType::edge) {
    const std::string forward = std::string(type_name(a)) + "_" + type_name(b);
    const std::string backward = std::string(type_name(b)) + "_" + type_name(a);
    for (const TypedClearance& typed : rules.typed_clearances) {
      if (typed.type == forward || typed.type == backward) return typed.value;
    }
  }
  return rules.clearance;
}

}  // namespace

ClearanceRules::ClearanceRules(const Board& board) {
  std::vector<std::vector<const Rules*>> levels(board.nets.size() + 1, std::vector<const Rules*>{&board.rules});
  for (const NetClass& net_class : board.classes) {
    for (const int net : net_class.nets) levels[static_cast<std::size_t>(net) + 1].push_back(&net_class.rules);
  }
  for (std::size_t net = 0; net < board.nets.size(); ++net) levels[net + 1].push_back(&board.nets[net].rules);

  by_net_.resize(levels.size());
  for (std::size_t row = 0; row < levels.size(); ++row) {
    for (std::size_t a = 0; a < kClearanceTypes; ++a) {
      for (std::size_t b = 0; b < kClearanceTypes; ++b) {
        Coord value = 0;
        for (const Rules* rules : levels[row]) {
          if (const auto level = level_clearance(*rules, ClearanceType(a), ClearanceType(b))) {
            value = std::max(value, *level);
          }
        }
        by_net_[row][a * kClearanceTypes + b] = value;
        largest_ = std::max(largest_, value);
      }
    }
  }
  // Pads' own clearances replace these where they apply; the reach of a
  // search must cover them too.
  for (const Component& component : board.components) largest_ = std::max(largest_, component.clearance.value_or(0));
  for (const Image& image : board.images) {
    for (const ImagePin& pin : image.pins) largest_ = std::max(largest_, pin.clearance.value_or(0));
  }
}

Coord ClearanceRules::required(int net_a, ClearanceType type_a, int net_b, ClearanceType type_b) const {
  const std::size_t pair = static_cast<std::size_t>(type_a) * kClearanceTypes + static_cast<std::size_t>(type_b);
  // Row 0 is "no net" (-1).
  const auto row = [](int net) { return static_cast<std::size_t>(std::int64_t{net} + 1); };
  return std::max(by_net_[row(net_a)][pair], by_net_[row(net_b)][pair]);
}

}  // namespace trellis::route::geometry
