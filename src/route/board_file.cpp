#include "trellis/route/board_file.hpp"

#include "trellis/route/dsn.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {

bool is_kicad_board(const std::filesystem::path& path) { return path.extension() == ".kicad_pcb"; }

Board read_board_file(const std::filesystem::path& path) {
  return is_kicad_board(path) ? read_kicad_pcb(path) : read_dsn_file(path);
}

}  // namespace trellis::route
