// What every reader harness checks on one input: the reader returns a valid
// graph or throws an InputError naming the input and a line that exists;
// a graph it returns survives write_dimacs -> read_dimacs bit for bit.
// Anything else (another exception, a crash, a sanitizer report) is a bug.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "graph/io/readers.hpp"
#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::fuzz {

// Small enough that a header declaring millions of nodes is rejected
// instead of allocating more than libFuzzer's memory limit.
inline constexpr graph::io_detail::ReadLimits kLimits{.max_nodes = std::int64_t{1} << 16};

inline void check_round_trip(const graph::Graph& read) {
  read.validate();  // throws Error, which escapes as a finding, when inconsistent
  std::stringstream file;
  graph::write_dimacs(read, file);
  graph::Graph again;
  try {
    again = graph::io_detail::read_dimacs(file, "round trip", kLimits);
  } catch (const InputError& error) {
    bug("write_dimacs wrote a file read_dimacs rejects", error.what());
  }
  const auto& a = read.csr;
  const auto& b = again.csr;
  if (a.rows != b.rows || a.cols != b.cols || a.row_offsets != b.row_offsets || a.col_indices != b.col_indices ||
      a.values.size() != b.values.size() ||
      (!a.values.empty() &&
       std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(graph::Weight)) != 0)) {
    bug("round trip", "the graph read back differs from the graph written");
  }
}

// Runs read(stream, name) on the input and checks the outcome.
template <typename Read>
void check_reader(const std::uint8_t* data, std::size_t size, const std::string& name, Read read) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  graph::Graph result;
  try {
    result = read(in, name);
  } catch (const InputError& error) {
    check_input_error(error, name, text);
    return;
  }
  check_round_trip(result);
}

}  // namespace trellis::fuzz
