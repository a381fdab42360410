// libFuzzer harness for the KiCad board reader: it returns a board whose
// every index is in range (and whose pin copper can be computed) or throws
// an InputError naming the input and a line that exists. Anything else (another
// exception, a crash, a sanitizer report) is a bug. An input that starts
// with '{' is read as the project file of a small fixed board instead.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "board_checks.hpp"
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

void check_board(const trellis::route::Board& board) {
  using namespace trellis::route;
  using trellis::fuzz::in_range;
  if (board.layers.empty()) bug("a board without copper layers was accepted", board.name);
  trellis::fuzz::check_board_indices(board);
  const std::size_t layers = board.layers.size();
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
    if (wire.shape.points.empty()) bug("a wire without points", "");
  }
  for (const Via& via : board.vias) {
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
