// The public entry points: a file, a stream or text in memory.
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "parser.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/dsn.hpp"

namespace trellis::route {

Board read_dsn(std::string_view text, const std::string& name) { return dsn_detail::Parser(text, name).read(); }

Board read_dsn(std::istream& in, const std::string& name) {
  // Boards are a few megabytes at most: read whole, then parse in one pass.
  std::ostringstream whole;
  whole << in.rdbuf();
  if (in.bad()) throw InputError(name, 0, "reading the input failed");
  const std::string text = std::move(whole).str();
  return read_dsn(std::string_view(text), name);
}

Board read_dsn_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "cannot open the file");
  return read_dsn(in, path.string());
}

}  // namespace trellis::route
