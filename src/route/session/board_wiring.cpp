// The copper a session puts on its board: the board's wiring plus the
// session's routes, each piece once.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_set>

#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

bool same_copper(const Wire& a, const Wire& b) {
  return a.layer == b.layer && a.net == b.net && a.shape.kind == b.shape.kind && a.shape.width == b.shape.width &&
         a.shape.points == b.shape.points;
}

bool same_copper(const Via& a, const Via& b) {
  return a.padstack == b.padstack && a.position == b.position && a.net == b.net;
}

std::size_t mix(std::size_t seed, std::int64_t value) {
  return seed ^ (std::hash<std::int64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

struct CopperHash {
  std::size_t operator()(const Wire* wire) const {
    std::size_t seed = mix(mix(mix(0, wire->layer), wire->net), wire->shape.width);
    for (const Point& p : wire->shape.points) seed = mix(mix(seed, p.x), p.y);
    return seed;
  }
  std::size_t operator()(const Via* via) const {
    return mix(mix(mix(mix(0, via->padstack), via->position.x), via->position.y), via->net);
  }
};

struct CopperEqual {
  template <typename Item>
  bool operator()(const Item* a, const Item* b) const {
    return same_copper(*a, *b);
  }
};

template <typename Item>
void append_new(const std::vector<Item>& existing, const std::vector<Item>& added, std::vector<Item>& out) {
  std::unordered_set<const Item*, CopperHash, CopperEqual> seen;
  seen.reserve(existing.size());
  for (const Item& item : existing) seen.insert(&item);
  out = existing;
  for (const Item& item : added) {
    if (!seen.contains(&item)) out.push_back(item);
  }
}

}  // namespace

RoutedCopper with_board_wiring(const Board& board, const RoutedCopper& session) {
  RoutedCopper copper;
  append_new(board.wires, session.wires, copper.wires);
  append_new(board.vias, session.vias, copper.vias);
  return copper;
}

}  // namespace trellis::route
