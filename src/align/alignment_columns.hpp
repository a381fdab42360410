// The walk back of every traceback collects an alignment's columns, last
// column first; this makes them into the Alignment's aligned rows, CIGAR
// and counts.
#pragma once

#include <cstdint>
#include <string>

#include "trellis/align/alignment.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align::detail {

class WalkedColumns {
 public:
  void pair(Residue query, Residue subject);  // an aligned pair of residues
  void query_residue(Residue query);          // a query residue against a gap
  void subject_residue(Residue subject);      // a subject residue against a gap

  // Sets identities, mismatches, length, gap_opens, gaps, cigar,
  // query_aligned and subject_aligned; the score and coordinates are the
  // caller's.
  void finish(Alignment& result) &&;

 private:
  std::string query_row_;    // letters or '-', reversed
  std::string subject_row_;  // letters or '-', reversed
  std::string ops_;          // one of M, I, D per column, reversed
  std::int64_t identities_ = 0;
  std::int64_t mismatches_ = 0;
};

}  // namespace trellis::align::detail
