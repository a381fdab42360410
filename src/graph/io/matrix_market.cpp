// Matrix Market coordinate files (.mtx) read as graphs: entry (i, j, v) is
// the edge i -> j of weight v. The banner's keywords are case-insensitive,
// as the format's definition says.
#include <fmt/format.h>

#include <array>
#include <istream>
#include <optional>
#include <string>

#include "readers.hpp"
#include "text_input.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::graph {
namespace io_detail {
namespace {

constexpr std::string_view kBannerForm = "'%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric'";

// The shortest entry line, "1 1\n" (pattern): bounds what a header can reserve.
constexpr std::int64_t kShortestEntryLine = 4;

enum class ValueField { real, integer, pattern };

struct Banner {
  ValueField field = ValueField::real;
  bool symmetric = false;
};

struct SizeLine {
  std::int64_t nodes = 0;
  std::int64_t entries = 0;
  std::size_t line = 0;
};

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

Banner parse_banner(const LineReader& reader, std::string_view line) {
  std::array<std::string_view, 5> fields;
  const std::size_t field_count = split_fields(line, fields);
  if (field_count == 0 || !equals_ignoring_case(fields[0], "%%MatrixMarket")) {
    reader.fail(
        fmt::format("expected the Matrix Market banner {} on the first line, found {}", kBannerForm, quoted(line)));
  }
  if (field_count != 5) {
    reader.fail(fmt::format("expected the banner {} (5 fields), found {} fields", kBannerForm, field_count));
  }
  const std::string_view object = fields[1], format = fields[2], field = fields[3], symmetry = fields[4];
  if (!equals_ignoring_case(object, "matrix")) {
    reader.fail(
        fmt::format("unsupported Matrix Market object {}; only 'matrix' can be read as a graph", quoted(object)));
  }
  if (equals_ignoring_case(format, "array")) {
    reader.fail("unsupported Matrix Market format 'array' (dense); a graph needs the sparse 'coordinate' format");
  }
  if (!equals_ignoring_case(format, "coordinate")) {
    reader.fail(fmt::format("unsupported Matrix Market format {}; expected 'coordinate'", quoted(format)));
  }
  Banner banner;
  if (equals_ignoring_case(field, "real")) {
    banner.field = ValueField::real;
  } else if (equals_ignoring_case(field, "integer")) {
    banner.field = ValueField::integer;
  } else if (equals_ignoring_case(field, "pattern")) {
    banner.field = ValueField::pattern;
  } else {
    reader.fail(
        fmt::format("unsupported Matrix Market field {}; graph weights need 'real', 'integer' or "
                    "'pattern'",
                    quoted(field)));
  }
  if (equals_ignoring_case(symmetry, "general")) {
    banner.symmetric = false;
  } else if (equals_ignoring_case(symmetry, "symmetric")) {
    banner.symmetric = true;
  } else {
    reader.fail(
        fmt::format("unsupported Matrix Market symmetry {}; expected 'general' or 'symmetric'", quoted(symmetry)));
  }
  return banner;
}

SizeLine parse_size_line(const LineReader& reader, std::string_view line, const ReadLimits& limits) {
  std::array<std::string_view, 3> fields;
  const std::size_t field_count = split_fields(line, fields);
  if (field_count != 3) {
    reader.fail(fmt::format("expected the size line 'rows columns entries' (3 fields), found {} fields", field_count));
  }
  const std::int64_t rows = parse_integer(reader, fields[0], "the row count");
  const std::int64_t columns = parse_integer(reader, fields[1], "the column count");
  SizeLine size;
  size.line = reader.line_number();
  size.entries = parse_integer(reader, fields[2], "the entry count");
  if (rows <= 0 || columns <= 0) {
    reader.fail(fmt::format("the matrix is {}x{}; a graph needs at least one node", rows, columns));
  }
  if (rows != columns) {
    reader.fail(fmt::format("unsupported {}x{} matrix; a graph needs a square matrix", rows, columns));
  }
  if (rows > limits.max_nodes) {
    reader.fail(fmt::format("{} nodes are too many: {}", rows, node_limit(limits)));
  }
  if (size.entries < 0) reader.fail(fmt::format("the entry count is {}; it cannot be negative", size.entries));
  size.nodes = rows;
  return size;
}

NodeId parse_index(const LineReader& reader, std::string_view token, std::int64_t nodes, std::string_view what) {
  const std::int64_t index = parse_integer(reader, token, what);
  if (index < 1 || index > nodes) reader.fail(fmt::format("{} {} is outside 1..{}", what, index, nodes));
  return static_cast<NodeId>(index - 1);
}

Weight parse_value(const LineReader& reader, std::string_view token, ValueField field) {
  if (field == ValueField::real) return parse_weight(reader, token, "value");
  // An 'integer' matrix holds integers only; a 64-bit one rounds to float.
  const std::int64_t value = parse_integer(reader, token, "an 'integer' matrix's value");
  if (value < 0) {
    reader.fail(fmt::format("value {} is negative; shortest-path weights must be non-negative", value));
  }
  return static_cast<Weight>(value);
}

}  // namespace

Graph read_matrix_market(std::istream& in, const std::string& name, const ReadLimits& limits) {
  LineReader reader(in, name);
  std::string_view line;
  if (!reader.next_line(line)) reader.fail_at(0, fmt::format("the file is empty; expected the banner {}", kBannerForm));
  const Banner banner = parse_banner(reader, line);
  const std::size_t fields_per_entry = banner.field == ValueField::pattern ? 2 : 3;
  const std::string_view entry_form = banner.field == ValueField::pattern ? "'i j'" : "'i j value'";

  std::optional<SizeLine> size;
  EdgeBuffer edges;
  std::int64_t entries = 0;
  std::array<std::string_view, 3> fields;
  while (reader.next_line(line)) {
    const std::string_view content = trim_leading_space(line);
    if (content.empty() || content.front() == '%') continue;
    if (!size) {
      size = parse_size_line(reader, content, limits);
      const std::size_t reserved = reservation_for(size->entries, reader, kShortestEntryLine);
      edges.reserve(banner.symmetric ? 2 * reserved : reserved);
      continue;
    }
    const std::size_t field_count = split_fields(content, fields);
    if (field_count != fields_per_entry) {
      reader.fail(
          fmt::format("expected an entry {} ({} fields), found {} fields", entry_form, fields_per_entry, field_count));
    }
    const NodeId row = parse_index(reader, fields[0], size->nodes, "row index");
    const NodeId column = parse_index(reader, fields[1], size->nodes, "column index");
    const Weight weight =
        banner.field == ValueField::pattern ? Weight{1} : parse_value(reader, fields[2], banner.field);
    edges.add(row, column, weight);
    // A symmetric file stores one triangle; the other is implied.
    if (banner.symmetric && row != column) edges.add(column, row, weight);
    ++entries;
  }
  if (!size) reader.fail_at(reader.line_number(), "the file ended before the size line 'rows columns entries'");
  if (entries != size->entries) {
    reader.fail_at(size->line,
                   fmt::format("the size line declares {} entries but the file has {}", size->entries, entries));
  }
  return edges.to_graph(static_cast<NodeId>(size->nodes));
}

}  // namespace io_detail

Graph read_matrix_market(std::istream& in, const std::string& name) {
  return io_detail::read_matrix_market(in, name, io_detail::ReadLimits{});
}

}  // namespace trellis::graph
