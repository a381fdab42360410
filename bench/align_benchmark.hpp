// `trellis bench align` (host part): one query against a database of random
// proteins, scored by the reference and the cpu engine, reported as GCUPS
// (query length x database residues / time). Every engine's scores are
// checked against the reference's.
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/table.hpp"

namespace trellis::bench {

struct AlignBenchmarkOptions {
  std::int64_t query_length = 350;
  std::int64_t subject_count = 5000;  // lengths log-normal around 300, like UniProt
  std::uint32_t seed = 1;
  int repeats = 5;                     // timed runs per row after one warm-up; reference runs once
  std::vector<int> thread_counts{1, 0};  // 0: all OpenMP threads
  bool quiet = false;
};

// Columns: engine, threads, seconds (median), GCUPS, matches reference.
Table run_align_benchmark(const AlignBenchmarkOptions& options);

}  // namespace trellis::bench
