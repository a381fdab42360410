// The public entry points and the order the board's parts are read in.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "../bare_power_layers.hpp"
#include "../dsn/tokenizer.hpp"
#include "reader.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {
namespace kicad_detail {

void Reader::read_version(const Node& root) {
  if (root.text != "kicad_pcb") {
    fail(root.line, fmt::format("expected (kicad_pcb ...), found ({} ...): this reader takes KiCad board files",
                                dsn_detail::quoted(root.text)));
  }
  const Node* version_list = root.find("version");
  if (version_list == nullptr) {
    fail(root.line,
         "the board has no (version ...): files older than KiCad 5.1 are not read; open and save it in "
         "KiCad 5.1 or later");
  }
  const double value = number(*version_list, 0, "the format version (a date such as 20211014)");
  if (value != std::floor(value) || value < kOldestVersion) {
    fail(version_list->line,
         fmt::format("format version {} is older than KiCad 5.1 ({}), which this reader needs; open "
                     "and save the board in KiCad 5.1 or later",
                     version_list->items[0].text, kOldestVersion));
  }
  if (value > kNewestVersion) {
    fail(version_list->line, fmt::format("format version {} is newer than KiCad 9 ({}), the newest this reader knows",
                                         version_list->items[0].text, kNewestVersion));
  }
  version = static_cast<long>(value);
}

std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "cannot open the file");
  std::ostringstream whole;
  whole << in.rdbuf();
  if (in.bad()) throw InputError(path.string(), 0, "reading the file failed");
  return std::move(whole).str();
}

}  // namespace kicad_detail

Board read_kicad_pcb(std::string_view text, const std::string& name, const std::optional<KicadProject>& project) {
  const kicad_detail::Node root = kicad_detail::parse_tree(text, name);
  kicad_detail::Reader reader(name);
  reader.read_version(root);
  reader.read_layers(root);
  reader.read_nets(root);
  reader.read_footprints(root);
  reader.read_outline(root);
  reader.read_tracks(root);
  reader.read_copper_graphics(root);
  reader.make_net_ties();
  reader.read_zones(root);
  // A power layer with a zone stays a plane layer; one without is routed on.
  route_on_bare_power_layers(reader.board);
  reader.read_rules(root, project);
  reader.check_pins_on_board();
  reader.board.name = std::filesystem::path(name).stem().string();
  // Lengths are whole nanometres; a session written back uses um with
  // three decimals, which holds them exactly.
  reader.board.resolution_unit = "um";
  reader.board.resolution_per_unit = 1000;
  return std::move(reader.board);
}

Board read_kicad_pcb(const std::filesystem::path& path) {
  const std::string text = kicad_detail::read_file_text(path);
  std::filesystem::path project_path = path;
  project_path.replace_extension(".kicad_pro");
  std::error_code error;
  if (!std::filesystem::is_regular_file(project_path, error)) return read_kicad_pcb(text, path.string());
  const std::string project_text = kicad_detail::read_file_text(project_path);
  return read_kicad_pcb(text, path.string(), KicadProject{project_text, project_path.string()});
}

}  // namespace trellis::route
