#include "bare_power_layers.hpp"

#include <algorithm>

namespace trellis::route {

std::vector<int> route_on_bare_power_layers(Board& board) {
  std::vector<int> changed;
  for (Layer& layer : board.layers) {
    const auto on_layer = [&](const Plane& plane) { return plane.layer == layer.index; };
    if (layer.type != LayerType::power || std::any_of(board.planes.begin(), board.planes.end(), on_layer)) continue;
    layer.type = LayerType::mixed;
    changed.push_back(layer.index);
  }
  return changed;
}

}  // namespace trellis::route
