// `trellis bench sssp`: corner-to-corner searches on the seed's routing
// lattices for every backend and algorithm, batched throughput, and the
// large boards; every result is checked bitwise against reference Dijkstra.
#pragma once

#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/table.hpp"

namespace trellis::bench {

struct SsspBenchmarkOptions {
  std::vector<std::string> presets{"seed-2k", "seed-8k", "seed-30k", "seed-60k", "seed-180k", "seed-401k"};
  std::vector<int> batch_sizes{1, 4, 16, 64, 256, 1024};
  std::vector<std::string> large_presets{"backplane", "board-1.2m"};
  int repeats = 20;               // timed device runs per row; host backends run ceil(repeats / 10) times
  std::vector<Backend> backends;  // empty: every available backend
  bool quiet = false;
};

struct SsspBenchmarkTables {
  Table corner_to_corner;  // one row per preset x backend/algorithm
  Table batched;           // queries per second for each K
  Table large;             // the large boards, corner to corner
};

SsspBenchmarkTables run_sssp_benchmark(const SsspBenchmarkOptions& options);

}  // namespace trellis::bench
