// Reading a board whichever format it is in, told apart by the extension.
#pragma once

#include <filesystem>

#include "trellis/route/board.hpp"

namespace trellis::route {

// Whether a path names a KiCad board (.kicad_pcb).
bool is_kicad_board(const std::filesystem::path& path);

// A .kicad_pcb through read_kicad_pcb (with its .kicad_pro beside it), any
// other file as Specctra DSN through read_dsn_file.
Board read_board_file(const std::filesystem::path& path);

}  // namespace trellis::route
