// What the board reader harnesses check on a board a reader returned: every
// index it holds is in range, and its pins' copper can be computed.
#pragma once

#include <cstddef>

#include "input_error_checks.hpp"
#include "trellis/route/board.hpp"

namespace trellis::fuzz {

inline bool in_range(int index, std::size_t size) { return index >= 0 && static_cast<std::size_t>(index) < size; }

inline void check_board_indices(const route::Board& board) {
  using namespace route;
  const std::size_t layers = board.layers.size();
  for (const Padstack& padstack : board.padstacks) {
    for (const LayerShape& shape : padstack.shapes) {
      if (!in_range(shape.layer, layers)) bug("padstack layer out of range", padstack.name);
    }
  }
  for (const Image& image : board.images) {
    for (const ImagePin& pin : image.pins) {
      if (!in_range(pin.padstack, board.padstacks.size())) bug("pin padstack out of range", image.name);
    }
  }
  for (const Component& component : board.components) {
    if (!in_range(component.image, board.images.size())) bug("component image out of range", component.reference);
  }
  for (const Net& net : board.nets) {
    for (const PinRef& pin : net.pins) {
      if (!in_range(pin.component, board.components.size())) bug("net pin component out of range", net.name);
      const Component& component = board.components[static_cast<std::size_t>(pin.component)];
      if (!in_range(pin.pin, board.images[static_cast<std::size_t>(component.image)].pins.size())) {
        bug("net pin out of range", net.name);
      }
    }
  }
  for (const Wire& wire : board.wires) {
    if (!in_range(wire.layer, layers)) bug("wire layer out of range", "");
    if (wire.net != -1 && !in_range(wire.net, board.nets.size())) bug("wire net out of range", "");
  }
  for (const Via& via : board.vias) {
    if (!in_range(via.padstack, board.padstacks.size())) bug("via padstack out of range", "");
  }
  for (const CopperGraphic& graphic : board.copper_graphics) {
    if (!in_range(graphic.layer, layers)) bug("copper graphic layer out of range", graphic.description);
    for (const Shape& shape : graphic.shapes) {
      if (shape.points.empty()) bug("copper graphic shape without points", graphic.description);
    }
  }
  for (const PinCopper& copper : pin_copper(board)) {
    if (!in_range(copper.layer, layers)) bug("pin copper layer out of range", "");
  }
}

}  // namespace trellis::fuzz
