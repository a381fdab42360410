// DIMACS shortest-path files (.gr), as the 9th DIMACS Implementation
// Challenge defines them: "c" comments, one "p sp N M" problem line, then M
// arcs "a U V W" with 1-based node ids.
#include <fmt/format.h>

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>

#include "readers.hpp"
#include "text_input.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::graph {
namespace io_detail {
namespace {

// The shortest arc line, "a 1 2 3\n": bounds what a header can reserve.
constexpr std::int64_t kShortestArcLine = 8;

struct ProblemLine {
  std::int64_t nodes = 0;
  std::int64_t arcs = 0;
  std::size_t line = 0;
};

ProblemLine parse_problem_line(const LineReader& reader, std::span<const std::string_view> fields,
                               std::size_t field_count, const ReadLimits& limits) {
  if (field_count != 4) {
    reader.fail(fmt::format("expected the problem line 'p sp N M' (4 fields), found {} fields", field_count));
  }
  if (fields[1] != "sp") {
    reader.fail(
        fmt::format("expected the problem line 'p sp N M'; this reader takes shortest-path files, "
                    "not problem type {}",
                    quoted(fields[1])));
  }
  ProblemLine problem;
  problem.line = reader.line_number();
  problem.nodes = parse_integer(reader, fields[2], "the node count N");
  problem.arcs = parse_integer(reader, fields[3], "the arc count M");
  if (problem.nodes <= 0) {
    reader.fail(fmt::format("the node count N is {}; a graph needs at least one node", problem.nodes));
  }
  if (problem.nodes > limits.max_nodes) {
    reader.fail(fmt::format("{} nodes are too many: {}", problem.nodes, node_limit(limits)));
  }
  if (problem.arcs < 0) reader.fail(fmt::format("the arc count M is {}; it cannot be negative", problem.arcs));
  return problem;
}

NodeId parse_node(const LineReader& reader, std::string_view token, std::int64_t nodes, std::string_view what) {
  const std::int64_t id = parse_integer(reader, token, what);
  if (id < 1 || id > nodes) reader.fail(fmt::format("{} {} is outside 1..{}", what, id, nodes));
  return static_cast<NodeId>(id - 1);
}

// Appends the shortest decimal that read_dimacs turns back into the same
// float. That is usually the float's own shortest form, but the reader goes
// decimal -> double -> float, and for one finite float (7.038531e-26; all
// were checked) that double rounding lands on a neighbour. Such a weight gets
// the double's shortest form instead, which is exact for every reader.
void append_weight(std::string& text, Weight weight) {
  std::array<char, 64> digits;
  char* end = std::to_chars(digits.data(), digits.data() + digits.size(), weight).ptr;
  double read_back = 0;
  std::from_chars(digits.data(), end, read_back);
  if (std::bit_cast<std::uint32_t>(round_to_weight(read_back)) != std::bit_cast<std::uint32_t>(weight)) {
    end = std::to_chars(digits.data(), digits.data() + digits.size(), static_cast<double>(weight)).ptr;
  }
  text.append(digits.data(), end);
}

}  // namespace

Graph read_dimacs(std::istream& in, const std::string& name, const ReadLimits& limits) {
  LineReader reader(in, name);
  std::optional<ProblemLine> problem;
  EdgeBuffer edges;
  std::array<std::string_view, 4> fields;
  std::string_view line;
  while (reader.next_line(line)) {
    const std::string_view content = trim_leading_space(line);
    if (content.empty() || content.front() == 'c') continue;
    const std::size_t field_count = split_fields(content, fields);
    if (fields[0] == "a") {
      if (!problem) reader.fail("arc before the problem line 'p sp N M'");
      if (field_count != 4) {
        reader.fail(fmt::format("expected an arc 'a U V W' (4 fields), found {} fields", field_count));
      }
      const NodeId tail = parse_node(reader, fields[1], problem->nodes, "tail node U");
      const NodeId head = parse_node(reader, fields[2], problem->nodes, "head node V");
      edges.add(tail, head, parse_weight(reader, fields[3], "weight W"));
    } else if (fields[0] == "p") {
      if (problem) reader.fail(fmt::format("a second problem line; the first is on line {}", problem->line));
      problem = parse_problem_line(reader, fields, field_count, limits);
      edges.reserve(reservation_for(problem->arcs, reader, kShortestArcLine));
    } else {
      reader.fail(
          fmt::format("expected a comment 'c ...', the problem line 'p sp N M' or an arc 'a U V W', "
                      "found {}",
                      quoted(content)));
    }
  }
  if (!problem) {
    if (reader.line_number() == 0) reader.fail_at(0, "the file is empty; expected the problem line 'p sp N M'");
    reader.fail_at(reader.line_number(), "the file ended without a problem line 'p sp N M'");
  }
  if (edges.size() != problem->arcs) {
    reader.fail_at(problem->line,
                   fmt::format("the problem line declares {} arcs but the file has {}", problem->arcs, edges.size()));
  }
  return edges.to_graph(static_cast<NodeId>(problem->nodes));
}

}  // namespace io_detail

Graph read_dimacs(std::istream& in, const std::string& name) {
  return io_detail::read_dimacs(in, name, io_detail::ReadLimits{});
}

void write_dimacs(const Graph& graph, std::ostream& out) {
  // A file this reader (or any) would reject is not worth writing.
  graph.validate();
  const CsrMatrix<Weight>& csr = graph.csr;
  std::string text = fmt::format("p sp {} {}\n", csr.rows, csr.nnz());
  // Lines are gathered into large blocks: one stream write per block.
  constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
  text.reserve(kBlockBytes + 64);
  std::array<char, 24> number;  // any int64
  const auto append_id = [&](std::int64_t id) {
    text.append(number.data(), std::to_chars(number.data(), number.data() + number.size(), id).ptr);
  };
  for (std::int32_t tail = 0; tail < csr.rows; ++tail) {
    for (RowOffset k = csr.row_offsets[tail]; k < csr.row_offsets[tail + 1]; ++k) {
      text += "a ";
      append_id(std::int64_t{tail} + 1);
      text += ' ';
      append_id(std::int64_t{csr.col_indices[k]} + 1);
      text += ' ';
      io_detail::append_weight(text, csr.values[k]);
      text += '\n';
      if (text.size() >= kBlockBytes) {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw Error("writing the DIMACS graph failed");
}

void write_dimacs_file(const Graph& graph, const std::filesystem::path& path) {
  AtomicOutputFile file(path);
  write_dimacs(graph, file.stream());
  file.commit();
}

}  // namespace trellis::graph
