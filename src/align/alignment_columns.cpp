#include "alignment_columns.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace trellis::align::detail {
namespace {

void append_run(std::string& cigar, char op, std::int64_t count) {
  if (count > 0) cigar += fmt::format("{}{}", count, op);
}

}  // namespace

void WalkedColumns::pair(Residue query, Residue subject) {
  query_row_ += residue_letter(query);
  subject_row_ += residue_letter(subject);
  ops_ += 'M';
  if (query == subject) {
    ++identities_;
  } else {
    ++mismatches_;
  }
}

void WalkedColumns::query_residue(Residue query) {
  query_row_ += residue_letter(query);
  subject_row_ += '-';
  ops_ += 'I';
}

void WalkedColumns::subject_residue(Residue subject) {
  query_row_ += '-';
  subject_row_ += residue_letter(subject);
  ops_ += 'D';
}

void WalkedColumns::finish(Alignment& result) && {
  std::reverse(query_row_.begin(), query_row_.end());
  std::reverse(subject_row_.begin(), subject_row_.end());
  std::reverse(ops_.begin(), ops_.end());
  result.identities = identities_;
  result.mismatches = mismatches_;
  result.length = static_cast<std::int64_t>(ops_.size());
  char previous = 0;
  std::int64_t run = 0;
  for (const char op : ops_) {
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
  result.query_aligned = std::move(query_row_);
  result.subject_aligned = std::move(subject_row_);
}

}  // namespace trellis::align::detail
