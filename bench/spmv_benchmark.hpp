// `trellis bench spmv`: reference, cpu, cuda and cuSPARSE side by side on a
// 3-D 7-point Laplacian, each checked against the reference result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/table.hpp"

namespace trellis::bench {

struct SpmvBenchmarkOptions {
  std::int32_t size = 256;  // grid points per dimension
  std::vector<std::string> precisions{"double", "float"};
  int repeats = 50;               // timed device runs; host backends run ceil(repeats/10)
  std::vector<Backend> backends;  // empty: every available backend
  bool quiet = false;
};

// Runs the benchmark and returns the table (one row per backend and precision).
Table run_spmv_benchmark(const SpmvBenchmarkOptions& options);

}  // namespace trellis::bench
