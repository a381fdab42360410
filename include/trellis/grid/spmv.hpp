// Sparse matrix-vector product y = alpha * A * x + beta * y on CSR matrices.
// As in BLAS, beta == 0 means y is written without being read (NaN or
// garbage in y does not leak into the result).
#pragma once

#include <span>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::grid {

// Host data on any backend; cuda uploads A, x and y, runs, and downloads y.
// Throws UsageError when x or y does not match A's shape.
template <typename T>
void spmv(T alpha, const CsrMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y,
          Backend backend = Backend::automatic);

// Data resident on the device; asynchronous on stream.
template <typename T>
void spmv(T alpha, const DeviceCsr<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y, Stream stream = nullptr);

// The same on device memory the caller owns: x holds a.cols() and y a.rows()
// entries (not checkable here). Throws UsageError for a null pointer with a
// non-empty matrix.
template <typename T>
void spmv(T alpha, const DeviceCsr<T>& a, const T* x, T beta, T* y, Stream stream = nullptr);

// The same on a matrix whose arrays are device memory the caller owns (a
// CSR matrix of another library, say): columns in [0, a.cols), offsets
// ascending from 0, neither checked here. Without a.heavy_rows every row
// takes the row-parallel path (correct, slower for rows over
// kHeavyRowEntries).
template <typename T>
void spmv(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream = nullptr);

}  // namespace trellis::grid
