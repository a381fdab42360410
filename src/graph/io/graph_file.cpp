// Graph files by extension: picks the format, opens the file, reads it.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "trellis/core/error.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::graph {
namespace {

std::string lowercase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

}  // namespace

GraphFormat format_from_path(const std::filesystem::path& path) {
  const std::string extension = lowercase(path.extension().string());
  if (extension == ".gr") return GraphFormat::dimacs;
  if (extension == ".mtx") return GraphFormat::matrix_market;
  if (extension == ".el") return GraphFormat::edge_list;
  if (extension == ".wel") return GraphFormat::weighted_edge_list;
  throw UsageError("cannot tell the format of '" + path.string() +
                   "' from its extension; expected .gr (DIMACS), .mtx (Matrix Market), .el or .wel (edge list)");
}

int id_base(GraphFormat format) noexcept {
  switch (format) {
    case GraphFormat::dimacs:
    case GraphFormat::matrix_market:
      return 1;
    case GraphFormat::edge_list:
    case GraphFormat::weighted_edge_list:
      return 0;
  }
  return 0;
}

GraphFile read_graph_file(const std::filesystem::path& path) {
  const GraphFormat format = format_from_path(path);
  const std::string name = path.string();
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw InputError(name, 0, "is a directory, not a graph file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name, 0, std::string("cannot open the file: ") + std::strerror(errno));
  GraphFile file{Graph{}, format};
  switch (format) {
    case GraphFormat::dimacs:
      file.graph = read_dimacs(in, name);
      break;
    case GraphFormat::matrix_market:
      file.graph = read_matrix_market(in, name);
      break;
    case GraphFormat::edge_list:
      file.graph = read_edge_list(in, name, false);
      break;
    case GraphFormat::weighted_edge_list:
      file.graph = read_edge_list(in, name, true);
      break;
  }
  return file;
}

}  // namespace trellis::graph
