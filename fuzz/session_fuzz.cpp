// libFuzzer harness for the Specctra session reader, against one fixed
// board: it returns copper whose every index is in range, which the writer
// turns back into a session that reads back the same (a second round trip
// changes nothing once copper sits on the file's grid), or it throws an
// InputError naming the input and a line that exists. Anything else
// (another exception, a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "board_checks.hpp"
#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/dsn.hpp"
#include "trellis/route/session.hpp"

using trellis::fuzz::bug;
using trellis::fuzz::in_range;

namespace {

// Two signal layers and an inner plane, a via padstack, parts on both
// sides and nets whose names need quoting.
constexpr std::string_view kBoard = R"dsn((pcb fuzz
  (resolution um 10) (unit um)
  (structure
    (layer F.Cu (type signal)) (layer "In 1" (type power)) (layer B.Cu (type signal))
    (boundary (rect pcb 0 0 50000 40000))
    (via "Via[0-2]_600:300_um")
    (rule (width 250) (clearance 200)))
  (placement
    (component R (place R1 10000 10000 front 0) (place "R-2" 30000 10000 back 90)))
  (library
    (image R (pin Round 1 -1000 0) (pin Round 2 1000 0))
    (padstack Round (shape (circle F.Cu 1000)) (shape (circle B.Cu 1000)))
    (padstack "Via[0-2]_600:300_um" (shape (circle signal 600)) (shape (circle "In 1" 600))))
  (network
    (net GND (pins R1-1 R-2-1))
    (net "Net-(R1-Pad2)" (pins R1-2 R-2-2))))
)dsn";

const trellis::route::Board& board() {
  static const trellis::route::Board fixed = trellis::route::read_dsn(kBoard, "board.dsn");
  return fixed;
}

void check_indices(const trellis::route::RoutedCopper& routed) {
  const trellis::route::Board& b = board();
  for (const trellis::route::Wire& wire : routed.wires) {
    if (!in_range(wire.layer, b.layers.size())) bug("wire layer out of range", "");
    if (wire.net != -1 && !in_range(wire.net, b.nets.size())) bug("wire net out of range", "");
    if (wire.shape.points.empty()) bug("a wire without points", "");
  }
  for (const trellis::route::Via& via : routed.vias) {
    if (!in_range(via.padstack, b.padstacks.size())) bug("via padstack out of range", "");
    if (via.net != -1 && !in_range(via.net, b.nets.size())) bug("via net out of range", "");
  }
}

bool same(const trellis::route::RoutedCopper& a, const trellis::route::RoutedCopper& b) {
  if (a.wires.size() != b.wires.size() || a.vias.size() != b.vias.size()) return false;
  for (std::size_t i = 0; i < a.wires.size(); ++i) {
    const auto& x = a.wires[i];
    const auto& y = b.wires[i];
    if (x.layer != y.layer || x.net != y.net || x.type != y.type || x.shape.kind != y.shape.kind ||
        x.shape.width != y.shape.width || x.shape.points != y.shape.points) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.vias.size(); ++i) {
    const auto& x = a.vias[i];
    const auto& y = b.vias[i];
    if (x.padstack != y.padstack || x.net != y.net || x.type != y.type || x.position != y.position) return false;
  }
  return true;
}

trellis::route::RoutedCopper rewritten(const trellis::route::RoutedCopper& routed) {
  std::ostringstream out;
  trellis::route::write_session(board(), routed, out);
  try {
    return trellis::route::read_session(out.str(), "rewritten.ses", board());
  } catch (const trellis::InputError& error) {
    bug("the writer's own session does not read back", error.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trellis::route::RoutedCopper routed;
  try {
    routed = trellis::route::read_session(text, "fuzz.ses", board());
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, "fuzz.ses", text);
    return 0;
  }
  check_indices(routed);
  const trellis::route::RoutedCopper once = rewritten(routed);
  check_indices(once);
  if (!same(once, rewritten(once))) bug("a second round trip changed the copper", "");
  return 0;
}
