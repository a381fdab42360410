// Kronecker levels on the GPU (multigrid_device.hpp): a thread a row, the
// row's sum from the bands (kronecker_levels.hpp's kronecker_row), the
// reach a template parameter so the loops unroll.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../kernels.hpp"
#include "../multigrid_device.hpp"
#include "grid_stride.cuh"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

unsigned blocks_for(std::int64_t n) { return launch_blocks(n, kThreads, kMaxBlocks); }

struct RowIndex {
  std::int32_t i0, i1, i2;
};

template <typename T>
__device__ __forceinline__ RowIndex row_index(const detail::KroneckerView<T>& op, std::int64_t row) {
  const std::int32_t e0 = op.extents[0], e1 = op.extents[1];
  const auto line = static_cast<std::int32_t>(row / e0);
  return {static_cast<std::int32_t>(row - static_cast<std::int64_t>(line) * e0), line % e1, line / e1};
}

// y = A x (b null) or y = b - A x; constrained rows: x, or b - x.
template <typename T, int Reach>
__global__ void __launch_bounds__(kThreads)
    apply_rows(detail::KroneckerView<T> op, std::int64_t n, const T* __restrict__ b, const T* __restrict__ x,
               T* __restrict__ y) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    const T ax = detail::kronecker_constrained(op, r.i0, r.i1, r.i2)
                     ? x[row]
                     : detail::kronecker_row<T, Reach>(op, r.i0, r.i1, r.i2, x);
    y[row] = b == nullptr ? ax : b[row] - ax;
  }
}

template <typename T>
void launch_rows(const detail::DeviceKronecker<T>& a, const T* b, const T* x, T* y, Stream stream) {
  const std::int64_t n = a.nodes();
  switch (a.reach()) {
    case 0:
      TRELLIS_LAUNCH((apply_rows<T, 0>), blocks_for(n), kThreads, 0, stream, a.view(), n, b, x, y);
      break;
    case 1:
      TRELLIS_LAUNCH((apply_rows<T, 1>), blocks_for(n), kThreads, 0, stream, a.view(), n, b, x, y);
      break;
    default:
      TRELLIS_LAUNCH((apply_rows<T, 2>), blocks_for(n), kThreads, 0, stream, a.view(), n, b, x, y);
      break;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    inverse_diagonal_rows(detail::KroneckerView<T> op, std::int64_t n, T* __restrict__ inverse, int* __restrict__ bad) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    if (detail::kronecker_constrained(op, r.i0, r.i1, r.i2)) {
      inverse[row] = T(0);
      continue;
    }
    const T diagonal = detail::kronecker_diagonal(op, r.i0, r.i1, r.i2);
    if (diagonal == T(0) || !isfinite(diagonal)) {
      atomicMin(bad, static_cast<int>(row));
      inverse[row] = T(0);
    } else {
      inverse[row] = T(1) / diagonal;
    }
  }
}

// The probe on free nodes, zero on constrained ones.
template <typename T>
__global__ void __launch_bounds__(kThreads) fill_probe(detail::KroneckerView<T> op, std::int64_t n, T* __restrict__ x) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    x[row] = detail::kronecker_constrained(op, r.i0, r.i1, r.i2) ? T(0) : static_cast<T>(detail::probe(row));
  }
}

// Over the free rows: the largest |from_a| and |from_a - from_op|, as the
// bits of non-negative doubles (ordered like the values).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    compare_rows(detail::KroneckerView<T> op, std::int64_t n, const T* __restrict__ from_a,
                 const T* __restrict__ from_op, unsigned long long* __restrict__ largest) {
  for (std::int64_t row = first_index(); row < n; row += grid_stride()) {
    const RowIndex r = row_index(op, row);
    if (detail::kronecker_constrained(op, r.i0, r.i1, r.i2)) continue;
    const double value = fabs(static_cast<double>(from_a[row]));
    const double difference = fabs(static_cast<double>(from_a[row]) - static_cast<double>(from_op[row]));
    atomicMax(&largest[0], static_cast<unsigned long long>(__double_as_longlong(value)));
    atomicMax(&largest[1], static_cast<unsigned long long>(__double_as_longlong(difference)));
  }
}

}  // namespace

template <typename T>
void kronecker_apply(const detail::DeviceKronecker<T>& a, const T* x, T* y, Stream stream) {
  launch_rows<T>(a, nullptr, x, y, stream);
}

template <typename T>
void kronecker_residual(const detail::DeviceKronecker<T>& a, const T* b, const T* x, T* r, Stream stream) {
  launch_rows<T>(a, b, x, r, stream);
}

template <typename T>
std::int32_t kronecker_inverse_diagonal(const detail::DeviceKronecker<T>& a, T* inverse_diagonal) {
  DeviceArray<int> bad(1);
  const int none = a.nodes();
  device::copy_to_device(bad.data(), &none, sizeof(int), nullptr);
  TRELLIS_LAUNCH(inverse_diagonal_rows<T>, blocks_for(a.nodes()), kThreads, 0, nullptr, a.view(),
                 static_cast<std::int64_t>(a.nodes()), inverse_diagonal, bad.data());
  int first = none;
  device::copy_to_host(&first, bad.data(), sizeof(int), nullptr);
  device::synchronize(nullptr);
  return first == none ? -1 : first;
}

template <typename T>
bool kronecker_describes(const detail::DeviceKronecker<T>& op, const CsrView<T>& a) {
  if (a.rows != op.nodes() || a.cols != op.nodes()) return false;
  const auto n = static_cast<std::size_t>(op.nodes());
  DeviceArray<T> x(n), from_a(n), from_op(n);
  DeviceArray<unsigned long long> largest(2);
  largest.fill_zero();
  TRELLIS_LAUNCH(fill_probe<T>, blocks_for(op.nodes()), kThreads, 0, nullptr, op.view(),
                 static_cast<std::int64_t>(op.nodes()), x.data());
  spmv(T(1), a, x.data(), T(0), from_a.data(), nullptr);
  kronecker_apply<T>(op, x.data(), from_op.data(), nullptr);
  TRELLIS_LAUNCH(compare_rows<T>, blocks_for(op.nodes()), kThreads, 0, nullptr, op.view(),
                 static_cast<std::int64_t>(op.nodes()), static_cast<const T*>(from_a.data()),
                 static_cast<const T*>(from_op.data()), largest.data());
  unsigned long long bits[2] = {0, 0};
  device::copy_to_host(bits, largest.data(), sizeof(bits), nullptr);
  device::synchronize(nullptr);
  double values[2];
  std::memcpy(values, bits, sizeof(values));
  return values[1] <= detail::kDescribesTolerance<T> * values[0];
}

TRELLIS_GRID_KRONECKER(float)
TRELLIS_GRID_KRONECKER(double)

}  // namespace trellis::grid::cuda
