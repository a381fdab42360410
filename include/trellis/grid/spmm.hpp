// Sparse matrix times a block of vectors, Y = alpha * A * X + beta * Y, for a
// CSR matrix A and k right-hand sides. X (cols x k) and Y (rows x k) are dense
// and column-major with leading dimension cols and rows: column j of X starts
// at x[j * cols]. As in BLAS, beta == 0 means Y is written without being read.
// Each column of Y is rounded as spmv would round it for that column of X on
// the reference and cpu backends; cuda agrees within rounding.
#pragma once

#include <cstdint>
#include <span>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::grid {

// Host data on any backend; cuda uploads A, X and Y, runs, and downloads Y.
// Throws UsageError when right_hand_sides is negative or X or Y does not hold
// cols * right_hand_sides and rows * right_hand_sides values.
template <typename T>
void spmm(T alpha, const CsrMatrix<T>& a, std::span<const T> x, T beta, std::span<T> y, std::int32_t right_hand_sides,
          Backend backend = Backend::automatic);

// Data resident on the device; asynchronous on stream.
template <typename T>
void spmm(T alpha, const DeviceCsr<T>& a, const DeviceArray<T>& x, T beta, DeviceArray<T>& y,
          std::int32_t right_hand_sides, Stream stream = nullptr);

}  // namespace trellis::grid
