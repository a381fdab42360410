// Graph files users already have: DIMACS shortest-path .gr, Matrix Market
// coordinate .mtx, and gapbs-style edge lists .el (unweighted) / .wel.
// Every reader throws InputError naming the file, the line and the problem
// (negative, NaN or infinite weights, ids out of range, a header that
// disagrees with the body, truncation, an empty graph).
//
// All readers accept LF and CRLF line endings, blank lines, a UTF-8 byte
// order mark and a last line without its line ending. Weights may be
// integers or reals; they are parsed as double, must be finite, non-negative
// and within float range, and are then rounded to float. Duplicate edges and
// self-loops are kept, and each node's edges keep their order in the file.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "trellis/graph/graph.hpp"

namespace trellis::graph {

// Graph file formats: DIMACS .gr, Matrix Market .mtx, edge list .el and weighted edge list .wel.
enum class GraphFormat {
  dimacs,             // DIMACS shortest-path .gr
  matrix_market,      // Matrix Market coordinate .mtx
  edge_list,          // gapbs edge list .el (weight 1)
  weighted_edge_list  // gapbs weighted edge list .wel
};

// .gr, .mtx, .el, .wel in any letter case; throws UsageError for anything else.
GraphFormat format_from_path(const std::filesystem::path& path);

// Node ids as the format writes them: 1 for .gr and .mtx, 0 for .el/.wel.
int id_base(GraphFormat format) noexcept;

// A graph read from a file, and the format it was read as.
struct GraphFile {
  Graph graph;         // ids 0-based inside
  GraphFormat format;  // the format it was read as
};

// Reads by extension; messages name the file by the path as given. Throws
// UsageError for an unknown extension and InputError when the file cannot be
// opened or is malformed.
GraphFile read_graph_file(const std::filesystem::path& path);

// Readers on a stream; name is what messages call the input.
// DIMACS: "c" comment lines anywhere, one "p sp N M" line (N >= 1) before
// any arc, then exactly M lines "a U V W" (1-based). A count that differs
// from M is reported at the problem line.
Graph read_dimacs(std::istream& in, const std::string& name);
// Matrix Market coordinate real/integer/pattern, general/symmetric (banner
// keywords in any case): entry (i, j, v) is the edge i -> j of weight v
// (pattern: weight 1); symmetric adds j -> i right after it (once for the
// diagonal). Square matrices only; array, complex, hermitian and
// skew-symmetric files are reported as unsupported.
Graph read_matrix_market(std::istream& in, const std::string& name);
// gapbs edge lists: "U V" (.el, weight 1) or "U V W" (.wel) per line,
// 0-based, '#' or '%' comment lines; the node count is the largest id plus
// one. A file without edges is an error.
Graph read_edge_list(std::istream& in, const std::string& name, bool weighted);

// DIMACS .gr in CSR order, each weight in the shortest decimal form that
// read_dimacs turns back into the same float, so a round trip is bitwise.
// Throws Error (writing nothing) for a graph that fails Graph::validate().
void write_dimacs(const Graph& graph, std::ostream& out);
// Written whole or not at all.
void write_dimacs_file(const Graph& graph, const std::filesystem::path& path);

}  // namespace trellis::graph
