// Seeded random CSR matrices with the awkward shapes kernels get wrong.
#pragma once

#include <cstdint>

#include "trellis/core/csr.hpp"

namespace trellis::testing {

struct RandomCsrShape {
  std::int32_t rows = 100;
  std::int32_t cols = 100;
  double mean_entries_per_row = 5;    // row lengths drawn uniformly in [0, 2*mean]
  double empty_row_fraction = 0.1;    // these rows get no entries at all
  std::int64_t long_row_entries = 0;  // > 0: one random row gets this many entries
  bool duplicate_columns = true;      // repeated columns within a row are allowed
};

// Values uniform in [-1, 1], never all zero; columns random (sorted within a
// row unless duplicates are asked for, then in random order).
template <typename T>
CsrMatrix<T> random_csr(const RandomCsrShape& shape, std::uint64_t seed);

}  // namespace trellis::testing
