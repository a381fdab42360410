// Structured-matrix kernels against the CSR baseline on the device: our CSR
// SpMV, cuSPARSE's CSR SpMV, DIA SpMV and CSR SpMM with a few right-hand
// sides, timed on one matrix side by side and checked against the cpu
// backend (bitwise equal to reference).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device_timing.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/table.hpp"

namespace trellis::bench {

struct StructuredBenchmarkOptions {
  int repeats = 50;                               // timed runs per kernel, after warm-up
  std::vector<std::int32_t> spmm_widths{4, 8};    // right-hand sides per SpMM row
  std::int32_t max_diagonals = 32;                // more: the DIA row reports why it is missing
  double copy_bandwidth_gbs = kCopyBandwidthGBs;  // what "% of copy BW" divides by
  bool quiet = false;
};

// One row per kernel: median time over the repeats (CUDA events), time per
// right-hand side, bandwidth from the bytes each kernel must move (declared
// per kernel, not measured), its share of the measured copy bandwidth, the
// speed-up over cuSPARSE per right-hand side, and the largest error relative
// to what rounding in a row sum can reach. matrix_name labels the rows.
// Throws BackendUnavailable without a usable CUDA device, UsageError on
// options out of range.
template <typename T>
Table run_structured_benchmark(const CsrMatrix<T>& a, const std::string& matrix_name,
                               const StructuredBenchmarkOptions& options);

extern template Table run_structured_benchmark<float>(const CsrMatrix<float>&, const std::string&,
                                                      const StructuredBenchmarkOptions&);
extern template Table run_structured_benchmark<double>(const CsrMatrix<double>&, const std::string&,
                                                       const StructuredBenchmarkOptions&);

}  // namespace trellis::bench
