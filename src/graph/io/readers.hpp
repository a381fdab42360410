// The graph readers with an adjustable size limit. The public readers in
// trellis/graph/io.hpp use the limit 32-bit node ids impose; the fuzz
// harnesses pass a small one so that a header declaring two billion nodes
// is reported instead of allocating gigabytes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>

#include "trellis/graph/graph.hpp"

namespace trellis::graph::io_detail {

struct ReadLimits {
  // Largest node count a file may declare or imply.
  std::int64_t max_nodes = std::numeric_limits<NodeId>::max();
};

Graph read_dimacs(std::istream& in, const std::string& name, const ReadLimits& limits);
Graph read_matrix_market(std::istream& in, const std::string& name, const ReadLimits& limits);
Graph read_edge_list(std::istream& in, const std::string& name, bool weighted, const ReadLimits& limits);

}  // namespace trellis::graph::io_detail
