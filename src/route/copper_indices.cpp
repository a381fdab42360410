// The index check every writer of routed copper makes first.
#include <fmt/format.h>

#include "trellis/core/error.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route {

void check_copper_indices(const Board& board, const RoutedCopper& routed) {
  const auto in_range = [](int index, std::size_t size) {
    return index >= 0 && static_cast<std::size_t>(index) < size;
  };
  for (std::size_t i = 0; i < routed.wires.size(); ++i) {
    const Wire& wire = routed.wires[i];
    if (!in_range(wire.layer, board.layers.size())) {
      throw UsageError(fmt::format("wire {} is on layer {}, which the board does not have", i, wire.layer));
    }
    if (wire.net != -1 && !in_range(wire.net, board.nets.size())) {
      throw UsageError(fmt::format("wire {} belongs to net {}, which the board does not have", i, wire.net));
    }
    if (wire.shape.points.empty()) throw UsageError(fmt::format("wire {} has no points", i));
  }
  for (std::size_t i = 0; i < routed.vias.size(); ++i) {
    const Via& via = routed.vias[i];
    if (!in_range(via.padstack, board.padstacks.size())) {
      throw UsageError(fmt::format("via {} uses padstack {}, which the board does not have", i, via.padstack));
    }
    if (via.net != -1 && !in_range(via.net, board.nets.size())) {
      throw UsageError(fmt::format("via {} belongs to net {}, which the board does not have", i, via.net));
    }
  }
}

}  // namespace trellis::route
