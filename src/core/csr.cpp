#include "trellis/core/csr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "trellis/core/error.hpp"

namespace trellis {

template <typename Value>
void CsrMatrix<Value>::validate() const {
  if (rows < 0 || cols < 0) throw Error(fmt::format("CSR has negative dimensions {}x{}", rows, cols));
  if (row_offsets.size() != static_cast<std::size_t>(rows) + 1) {
    throw Error(fmt::format("CSR has {} row offsets for {} rows", row_offsets.size(), rows));
  }
  if (row_offsets.front() != 0) throw Error("CSR row offsets do not start at 0");
  if (values.size() != col_indices.size()) {
    throw Error(fmt::format("CSR has {} values for {} column indices", values.size(), col_indices.size()));
  }
  for (std::int32_t r = 0; r < rows; ++r) {
    if (row_offsets[r + 1] < row_offsets[r]) throw Error(fmt::format("CSR row offsets decrease at row {}", r));
  }
  if (row_offsets.back() != nnz()) {
    throw Error(fmt::format("CSR last row offset {} differs from {} entries", row_offsets.back(), nnz()));
  }
  for (std::size_t k = 0; k < col_indices.size(); ++k) {
    if (col_indices[k] < 0 || col_indices[k] >= cols) {
      throw Error(fmt::format("CSR column index {} at entry {} is outside 0..{}", col_indices[k], k, cols - 1));
    }
  }
}

template <typename Value>
CsrMatrix<Value> csr_from_triplets(std::int32_t rows, std::int32_t cols, std::span<const std::int32_t> row_of,
                                   std::span<const ColumnIndex> col_of, std::span<const Value> value_of) {
  if (row_of.size() != col_of.size() || row_of.size() != value_of.size()) {
    throw Error("triplet arrays differ in length");
  }
  CsrMatrix<Value> m;
  m.rows = rows;
  m.cols = cols;
  m.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int32_t r : row_of) {
    if (r < 0 || r >= rows) throw Error(fmt::format("triplet row {} is outside 0..{}", r, rows - 1));
    ++m.row_offsets[static_cast<std::size_t>(r) + 1];
  }
  for (std::int32_t r = 0; r < rows; ++r) m.row_offsets[r + 1] += m.row_offsets[r];
  m.col_indices.resize(row_of.size());
  m.values.resize(row_of.size());
  std::vector<RowOffset> next(m.row_offsets.begin(), m.row_offsets.end() - 1);
  for (std::size_t k = 0; k < row_of.size(); ++k) {  // stable: input order within a row
    RowOffset at = next[row_of[k]]++;
    m.col_indices[at] = col_of[k];
    m.values[at] = value_of[k];
  }
  m.validate();
  return m;
}

template <typename Value>
DeviceCsr<Value>::DeviceCsr(const CsrMatrix<Value>& host, Stream stream)
    : rows_(host.rows),
      cols_(host.cols),
      row_offsets_(DeviceArray<RowOffset>::from_host(host.row_offsets, stream)),
      col_indices_(DeviceArray<ColumnIndex>::from_host(host.col_indices, stream)),
      values_(DeviceArray<Value>::from_host(host.values, stream)) {
  std::vector<std::int32_t> heavy;
  for (std::int32_t r = 0; r < host.rows; ++r) {
    if (host.row_offsets[r + 1] - host.row_offsets[r] > kHeavyRowEntries) heavy.push_back(r);
  }
  heavy_rows_ = DeviceArray<std::int32_t>::from_host(heavy, stream);
  // The host vector dies here; the upload must have finished reading it.
  device::synchronize(stream);
}

template <typename Value>
DeviceCsr<Value>::DeviceCsr(std::int32_t rows, std::int32_t cols, DeviceArray<RowOffset> row_offsets,
                            DeviceArray<ColumnIndex> col_indices, DeviceArray<Value> values,
                            DeviceArray<std::int32_t> heavy_rows)
    : rows_(rows),
      cols_(cols),
      row_offsets_(std::move(row_offsets)),
      col_indices_(std::move(col_indices)),
      values_(std::move(values)),
      heavy_rows_(std::move(heavy_rows)) {
  if (row_offsets_.size() != static_cast<std::size_t>(rows) + 1 || values_.size() != col_indices_.size()) {
    throw Error(fmt::format("device CSR of {} rows needs {} row offsets and as many values as columns, got {}, {}, {}",
                            rows, rows + 1, row_offsets_.size(), values_.size(), col_indices_.size()));
  }
}

template <typename Value>
DeviceCsr<Value> DeviceCsr<Value>::copy(Stream stream) const {
  DeviceArray<RowOffset> row_offsets(row_offsets_.size());
  DeviceArray<ColumnIndex> col_indices(col_indices_.size());
  DeviceArray<Value> values(values_.size());
  DeviceArray<std::int32_t> heavy_rows(heavy_rows_.size());
  row_offsets.copy_from(row_offsets_, stream);
  col_indices.copy_from(col_indices_, stream);
  values.copy_from(values_, stream);
  heavy_rows.copy_from(heavy_rows_, stream);
  return DeviceCsr(rows_, cols_, std::move(row_offsets), std::move(col_indices), std::move(values),
                   std::move(heavy_rows));
}

template <typename Value>
CsrMatrix<Value> DeviceCsr<Value>::to_host(Stream stream) const {
  CsrMatrix<Value> host;
  host.rows = rows_;
  host.cols = cols_;
  host.row_offsets = row_offsets_.to_host(stream);
  host.col_indices = col_indices_.to_host(stream);
  host.values = values_.to_host(stream);
  return host;
}

template struct CsrMatrix<float>;
template struct CsrMatrix<double>;
template class DeviceCsr<float>;
template class DeviceCsr<double>;

template CsrMatrix<float> csr_from_triplets<float>(std::int32_t, std::int32_t, std::span<const std::int32_t>,
                                                   std::span<const ColumnIndex>, std::span<const float>);
template CsrMatrix<double> csr_from_triplets<double>(std::int32_t, std::int32_t, std::span<const std::int32_t>,
                                                     std::span<const ColumnIndex>, std::span<const double>);

}  // namespace trellis
