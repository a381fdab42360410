// Compressed sparse row storage shared by graph and grid: 32-bit column
// indices, 64-bit row offsets (so more than 2^31 entries work), in a host
// form (CsrMatrix) and a resident device form (DeviceCsr). Kernels take a
// non-owning CsrView whose pointers live in one memory space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis {

// Index into a CSR matrix's entries (64-bit: more than 2^31 entries work).
using RowOffset = std::int64_t;
// Column index of a CSR entry (32-bit).
using ColumnIndex = std::int32_t;

// Rows with more entries than this are "heavy": row-parallel device kernels
// give each of them a whole block instead of a few lanes.
inline constexpr RowOffset kHeavyRowEntries = 4096;

// A non-owning CSR matrix whose arrays all live in one memory space (host or device).
template <typename Value>
struct CsrView {
  std::int32_t rows = 0;                     // number of rows
  std::int32_t cols = 0;                     // number of columns
  RowOffset nnz = 0;                         // number of stored entries
  const RowOffset* row_offsets = nullptr;    // rows + 1 entries
  const ColumnIndex* col_indices = nullptr;  // nnz entries
  const Value* values = nullptr;             // nnz entries
  // Rows longer than kHeavyRowEntries, ascending; filled for device views only.
  const std::int32_t* heavy_rows = nullptr;
  std::int32_t heavy_row_count = 0;  // entries in heavy_rows
};

// A CSR matrix in host memory, owning its arrays.
template <typename Value>
struct CsrMatrix {
  std::int32_t rows = 0;                  // number of rows
  std::int32_t cols = 0;                  // number of columns
  std::vector<RowOffset> row_offsets{0};  // rows + 1 ascending offsets, starting at 0
  std::vector<ColumnIndex> col_indices;   // column of each entry
  std::vector<Value> values;              // value of each entry

  // Number of stored entries.
  RowOffset nnz() const noexcept { return static_cast<RowOffset>(col_indices.size()); }

  // A view of the arrays (no heavy rows: those are for device views).
  CsrView<Value> view() const noexcept {
    return {rows, cols, nnz(), row_offsets.data(), col_indices.data(), values.data(), nullptr, 0};
  }

  // Throws Error describing the first inconsistency (offsets not starting at
  // 0 or decreasing, a column out of range, mismatched array sizes).
  void validate() const;
};

// Builds a CSR matrix from (row, col, value) triplets; duplicates are kept as
// separate entries in input order, rows come out in ascending order.
template <typename Value>
CsrMatrix<Value> csr_from_triplets(std::int32_t rows, std::int32_t cols, std::span<const std::int32_t> row_of,
                                   std::span<const ColumnIndex> col_of, std::span<const Value> value_of);

// The matrix resident on the device, uploaded once and reused.
template <typename Value>
class DeviceCsr {
 public:
  DeviceCsr() = default;  // an empty 0 x 0 matrix
  // Uploads host, enqueued on stream.
  explicit DeviceCsr(const CsrMatrix<Value>& host, Stream stream = nullptr);
  // From arrays already on the device: row offsets (rows + 1), columns
  // ascending within each row, values, and the heavy rows (kHeavyRowEntries).
  DeviceCsr(std::int32_t rows, std::int32_t cols, DeviceArray<RowOffset> row_offsets,
            DeviceArray<ColumnIndex> col_indices, DeviceArray<Value> values, DeviceArray<std::int32_t> heavy_rows);

  // A copy on the device, enqueued on stream.
  DeviceCsr copy(Stream stream = nullptr) const;

  // Number of rows.
  std::int32_t rows() const noexcept { return rows_; }
  // Number of columns.
  std::int32_t cols() const noexcept { return cols_; }
  // Number of stored entries.
  RowOffset nnz() const noexcept { return static_cast<RowOffset>(col_indices_.size()); }

  // A device view of the arrays, heavy rows included.
  CsrView<Value> view() const noexcept {
    return {rows_,
            cols_,
            nnz(),
            row_offsets_.data(),
            col_indices_.data(),
            values_.data(),
            heavy_rows_.data(),
            static_cast<std::int32_t>(heavy_rows_.size())};
  }

  // New values for the same sparsity pattern (a refill).
  DeviceArray<Value>& values() noexcept { return values_; }

  // Downloads the matrix; waits for stream.
  CsrMatrix<Value> to_host(Stream stream = nullptr) const;

 private:
  std::int32_t rows_ = 0;
  std::int32_t cols_ = 0;
  DeviceArray<RowOffset> row_offsets_;
  DeviceArray<ColumnIndex> col_indices_;
  DeviceArray<Value> values_;
  DeviceArray<std::int32_t> heavy_rows_;
};

extern template struct CsrMatrix<float>;
extern template struct CsrMatrix<double>;
extern template class DeviceCsr<float>;
extern template class DeviceCsr<double>;

}  // namespace trellis
