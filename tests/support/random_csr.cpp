#include "support/random_csr.hpp"

#include <algorithm>
#include <random>

namespace trellis::testing {

template <typename T>
CsrMatrix<T> random_csr(const RandomCsrShape& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<std::int32_t> column(0, std::max(0, shape.cols - 1));
  const auto max_length = static_cast<std::int64_t>(2 * shape.mean_entries_per_row);
  std::uniform_int_distribution<std::int64_t> length(0, std::max<std::int64_t>(0, max_length));
  std::int32_t long_row = -1;
  if (shape.long_row_entries > 0 && shape.rows > 0) {
    long_row = std::uniform_int_distribution<std::int32_t>(0, shape.rows - 1)(rng);
  }

  CsrMatrix<T> a;
  a.rows = shape.rows;
  a.cols = shape.cols;
  a.row_offsets.assign(1, 0);
  std::vector<ColumnIndex> row_columns;
  for (std::int32_t row = 0; row < shape.rows; ++row) {
    std::int64_t entries = row == long_row ? shape.long_row_entries : length(rng);
    if (row != long_row && unit(rng) < shape.empty_row_fraction) entries = 0;
    if (shape.cols == 0) entries = 0;
    row_columns.clear();
    for (std::int64_t e = 0; e < entries; ++e) row_columns.push_back(column(rng));
    if (!shape.duplicate_columns) {
      std::sort(row_columns.begin(), row_columns.end());
      row_columns.erase(std::unique(row_columns.begin(), row_columns.end()), row_columns.end());
    }
    for (ColumnIndex c : row_columns) {
      a.col_indices.push_back(c);
      a.values.push_back(static_cast<T>(value(rng)));
    }
    a.row_offsets.push_back(a.nnz());
  }
  a.validate();
  return a;
}

template CsrMatrix<float> random_csr<float>(const RandomCsrShape&, std::uint64_t);
template CsrMatrix<double> random_csr<double>(const RandomCsrShape&, std::uint64_t);

}  // namespace trellis::testing
