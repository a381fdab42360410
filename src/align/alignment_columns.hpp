// The last step of every traceback: the columns a walk back collected, last
// column first, made into an Alignment's aligned rows, CIGAR and counts.
#pragma once

#include <string>

#include "trellis/align/alignment.hpp"

namespace trellis::align::detail {

// query_row and subject_row hold a letter or '-' per column and ops one of
// M, I, D per column, all in walk-back order (reversed). Sets length,
// gap_opens, gaps, cigar, query_aligned and subject_aligned; the score,
// coordinates, identities and mismatches are the caller's.
void set_alignment_columns(Alignment& result, std::string query_row, std::string subject_row, std::string ops);

}  // namespace trellis::align::detail
