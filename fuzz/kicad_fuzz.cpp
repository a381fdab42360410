// libFuzzer harness for the KiCad board reader: it returns a board whose
// every index is in range (and whose pin copper can be computed) or throws
// an InputError naming the input and a line that exists. Anything else (another
// exception, a crash, a sanitizer report) is a bug. An input that starts
// with '{' is read as the project file of a small fixed board instead.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/kicad.hpp"

using trellis::fuzz::bug;

namespace {

constexpr std::string_view kFixedBoard = R"((kicad_pcb (version 20211014) (generator pcbnew)
  (layers (0 "F.Cu" signal) (31 "B.Cu" signal) (44 "Edge.Cuts" user))
  (net 0 "") (net 1 "GND") (net 2 "SIG")
  (gr_rect (start 0 0) (end 50 50) (layer "Edge.Cuts") (width 0.1))
  (footprint "L:R" (layer "F.Cu") (at 10 10 90)
    (fp_text reference "R1" (at 0 0) (layer "F.SilkS"))
    (pad "1" smd rect (at -1 0 90) (size 1 1) (layers "F.Cu") (net 1 "GND"))
    (pad "2" smd rect (at 1 0 90) (size 1 1) (layers "F.Cu") (net 2 "SIG"))))
)";

bool in_range(int index, std::size_t size) { return index >= 0 && static_cast<std::size_t>(index) < size; }

void check_board(const trellis::route::Board& board) {
  using namespace trellis::route;
  const std::size_t layers = board.layers.size();
  if (layers == 0) bug("a board without copper layers was accepted", board.name);
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
  for (const NetClass& net_class : board.classes) {
    for (const int net : net_class.nets) {
      if (!in_range(net, board.nets.size())) bug("class net out of range", net_class.name);
    }
    for (const int via : net_class.vias) {
      if (!in_range(via, board.padstacks.size())) bug("class via out of range", net_class.name);
    }
  }
  for (const int via : board.via_padstacks) {
    if (!in_range(via, board.padstacks.size())) bug("via padstack out of range", "");
  }
  for (const Wire& wire : board.wires) {
    if (!in_range(wire.layer, layers)) bug("wire layer out of range", "");
    if (wire.net != -1 && !in_range(wire.net, board.nets.size())) bug("wire net out of range", "");
    if (wire.shape.points.empty()) bug("a wire without points", "");
  }
  for (const Via& via : board.vias) {
    if (!in_range(via.padstack, board.padstacks.size())) bug("via padstack out of range", "");
    if (via.net != -1 && !in_range(via.net, board.nets.size())) bug("via net out of range", "");
  }
  for (const Keepout& keepout : board.keepouts) {
    if (keepout.layer != kAllLayers && !in_range(keepout.layer, layers)) bug("keepout layer out of range", "");
  }
  for (const Plane& plane : board.planes) {
    if (!in_range(plane.layer, layers)) bug("plane layer out of range", "");
    if (plane.net != -1 && !in_range(plane.net, board.nets.size())) bug("plane net out of range", "");
  }
  if (!board.boundary.empty() && board.boundary.front().points.size() < 3) bug("an outline of fewer than 3 points", "");
  for (const PinCopper& copper : pin_copper(board)) {
    if (!in_range(copper.layer, layers)) bug("pin copper layer out of range", "");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.starts_with('{')) {
    try {
      check_board(trellis::route::read_kicad_pcb(kFixedBoard, "fixed.kicad_pcb",
                                                 trellis::route::KicadProject{text, "fuzz.kicad_pro"}));
    } catch (const trellis::InputError& error) {
      trellis::fuzz::check_input_error(error, "fuzz.kicad_pro", text);
    }
    return 0;
  }
  try {
    check_board(trellis::route::read_kicad_pcb(text, "fuzz.kicad_pcb"));
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, "fuzz.kicad_pcb", text);
  }
  return 0;
}
