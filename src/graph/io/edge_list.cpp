// gapbs-style edge lists: "U V" (.el) or "U V W" (.wel) per line, 0-based
// ids, no header; the node count is the largest id plus one. Lines starting
// with '#' (SNAP) or '%' (KONECT) are comments.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <istream>
#include <string>

#include "readers.hpp"
#include "text_input.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::graph {
namespace io_detail {
namespace {

NodeId parse_node(const LineReader& reader, std::string_view token, const ReadLimits& limits, std::string_view what) {
  const std::int64_t id = parse_integer(reader, token, what);
  if (id < 0) reader.fail(fmt::format("{} {} is negative; edge list ids start at 0", what, id));
  // The node count is the largest id plus one and must itself fit.
  if (id >= limits.max_nodes) {
    reader.fail(
        fmt::format("{} {} is too large: the node count would be {} + 1, and {}", what, id, id, node_limit(limits)));
  }
  return static_cast<NodeId>(id);
}

}  // namespace

Graph read_edge_list(std::istream& in, const std::string& name, bool weighted, const ReadLimits& limits) {
  LineReader reader(in, name);
  const std::size_t fields_per_edge = weighted ? 3 : 2;
  const std::string_view edge_form = weighted ? "'U V W'" : "'U V'";
  EdgeBuffer edges;
  NodeId largest_id = -1;
  std::array<std::string_view, 3> fields;
  std::string_view line;
  while (reader.next_line(line)) {
    const std::string_view content = trim_leading_space(line);
    if (content.empty() || content.front() == '#' || content.front() == '%') continue;
    const std::size_t field_count = split_fields(content, fields);
    if (field_count != fields_per_edge) {
      std::string problem =
          fmt::format("expected an edge {} ({} fields), found {} fields", edge_form, fields_per_edge, field_count);
      if (!weighted && field_count == 3) problem += "; weighted edge lists are read from .wel files";
      reader.fail(problem);
    }
    const NodeId tail = parse_node(reader, fields[0], limits, "node id U");
    const NodeId head = parse_node(reader, fields[1], limits, "node id V");
    const Weight weight = weighted ? parse_weight(reader, fields[2], "weight W") : Weight{1};
    edges.add(tail, head, weight);
    largest_id = std::max({largest_id, tail, head});
  }
  if (edges.size() == 0) {
    reader.fail_at(reader.line_number(),
                   fmt::format("the file holds no edges, so the graph would be empty; expected lines {}", edge_form));
  }
  return edges.to_graph(largest_id + 1);
}

}  // namespace io_detail

Graph read_edge_list(std::istream& in, const std::string& name, bool weighted) {
  return io_detail::read_edge_list(in, name, weighted, io_detail::ReadLimits{});
}

}  // namespace trellis::graph
