#include "alignment_columns.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace trellis::align::detail {
namespace {

void append_run(std::string& cigar, char op, std::int64_t count) {
  if (count > 0) cigar += fmt::format("{}{}", count, op);
}

}  // namespace

void set_alignment_columns(Alignment& result, std::string query_row, std::string subject_row, std::string ops) {
  std::reverse(query_row.begin(), query_row.end());
  std::reverse(subject_row.begin(), subject_row.end());
  std::reverse(ops.begin(), ops.end());
  result.length = static_cast<std::int64_t>(ops.size());
  char previous = 0;
  std::int64_t run = 0;
  for (const char op : ops) {
    if (op != previous) {
      append_run(result.cigar, previous, run);
      if (op != 'M') ++result.gap_opens;
      previous = op;
      run = 0;
    }
    ++run;
    if (op != 'M') ++result.gaps;
  }
  append_run(result.cigar, previous, run);
  result.query_aligned = std::move(query_row);
  result.subject_aligned = std::move(subject_row);
}

}  // namespace trellis::align::detail
