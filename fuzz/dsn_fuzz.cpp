// libFuzzer harness for the Specctra DSN reader: it returns a board whose
// every index is in range (and whose pin copper can be computed) or throws
// an InputError naming the input and a line that exists. Anything else (another
// exception, a crash, a sanitizer report) is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "board_checks.hpp"
#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/dsn.hpp"

using trellis::fuzz::bug;

namespace {

void check_board(const trellis::route::Board& board) {
  using namespace trellis::route;
  trellis::fuzz::check_board_indices(board);
  for (const Net& net : board.nets) {
    for (const PinRef& pin : net.pins) {
      if (!inside_boundary(board, pin_position(board, pin)))
        bug("a connected pin off the board was accepted", net.name);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_board(trellis::route::read_dsn(text, "fuzz.dsn"));
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, "fuzz.dsn", text);
  }
  return 0;
}
