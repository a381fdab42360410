// The diagonal (DIA) format for matrices from stencils on structured grids:
// a few diagonals, each stored densely, so a product reads every value with
// unit stride and needs no column indices. A 7-point Laplacian moves about
// 72 bytes per row in fp64 against about 108 for CSR.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::grid {

// Non-owning view for kernels; pointers live in one memory space.
template <typename T>
struct DiaView {
  std::int32_t rows = 0;                  // number of rows
  std::int32_t cols = 0;                  // number of columns
  std::int32_t diagonals = 0;             // number of stored diagonals
  const std::int32_t* offsets = nullptr;  // diagonals entries, strictly ascending
  const T* values = nullptr;              // diagonals * rows entries, diagonal-major
};

// Entry (row, row + offsets[d]) is values[d * rows + row]. Slots where the
// diagonal leaves the matrix, or where the entry is absent, hold zero.
template <typename T>
struct DiaMatrix {
  std::int32_t rows = 0;              // number of rows
  std::int32_t cols = 0;              // number of columns
  std::vector<std::int32_t> offsets;  // column minus row of each diagonal, strictly ascending
  std::vector<T> values;              // diagonals * rows entries, diagonal-major

  // Number of stored diagonals.
  std::int32_t diagonals() const noexcept { return static_cast<std::int32_t>(offsets.size()); }

  // A view of the arrays.
  DiaView<T> view() const noexcept { return {rows, cols, diagonals(), offsets.data(), values.data()}; }

  // Throws UsageError on negative dimensions, offsets that are not strictly
  // ascending, or a values array that is not offsets.size() * rows long.
  void validate() const;
};

// Converts a CSR matrix, keeping every value exactly; duplicate (row, col)
// entries are added in CSR order. Throws UsageError naming the count when A
// has more than max_diagonals distinct diagonals (or max_diagonals < 0).
template <typename T>
DiaMatrix<T> dia_from_csr(const CsrMatrix<T>& a, std::int32_t max_diagonals = 32);

// The matrix resident on the device, uploaded once and reused; refill()
// replaces the values of the same diagonals.
template <typename T>
class DeviceDia {
 public:
  DeviceDia() = default;  // an empty 0 x 0 matrix
  // Uploads host, enqueued on stream.
  explicit DeviceDia(const DiaMatrix<T>& host, Stream stream = nullptr);

  // Number of rows.
  std::int32_t rows() const noexcept { return rows_; }
  // Number of columns.
  std::int32_t cols() const noexcept { return cols_; }
  // Number of stored diagonals.
  std::int32_t diagonals() const noexcept { return static_cast<std::int32_t>(host_offsets_.size()); }
  // The diagonals' offsets (column minus row), ascending, on the host.
  const std::vector<std::int32_t>& offsets() const noexcept { return host_offsets_; }

  // A device view of the arrays.
  DiaView<T> view() const noexcept { return {rows_, cols_, diagonals(), offsets_.data(), values_.data()}; }

  // Device values in DiaMatrix layout, for refills computed on the device.
  DeviceArray<T>& values() noexcept { return values_; }

  // Uploads new values; host must have the same shape and offsets (else
  // UsageError). Asynchronous: host.values must live until stream is synchronised.
  void refill(const DiaMatrix<T>& host, Stream stream = nullptr);

  // Downloads the matrix; waits for stream.
  DiaMatrix<T> to_host(Stream stream = nullptr) const;

 private:
  std::int32_t rows_ = 0;
  std::int32_t cols_ = 0;
  std::vector<std::int32_t> host_offsets_;
  DeviceArray<std::int32_t> offsets_;
  DeviceArray<T> values_;
};

// y = alpha * A * x + beta * y, y unread when beta == 0. Each row sums its
// diagonals in ascending offset order, so for a CSR matrix with ascending,
// distinct columns per row the result equals spmv on it bit for bit (when x
// is finite: a zero slot times an infinite x gives NaN here, as in any DIA).
// Host data on any backend; cuda uploads, runs and downloads y. Throws
// UsageError when x or y does not match A's shape.
template <typename T>
void dia_spmv(T alpha, const DiaMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y,
              Backend backend = Backend::automatic);

// Data resident on the device; asynchronous on stream.
template <typename T>
void dia_spmv(T alpha, const DeviceDia<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y,
              Stream stream = nullptr);

extern template struct DiaMatrix<float>;
extern template struct DiaMatrix<double>;
extern template class DeviceDia<float>;
extern template class DeviceDia<double>;

}  // namespace trellis::grid
