// OpenMP DIA SpMV. Each thread takes blocks of kRowBlock rows and adds one
// diagonal at a time into a block of running sums, so the inner loop runs
// with unit stride over values and x and vectorises. Each row still adds its
// diagonals in ascending offset order, skipping those outside the matrix, as
// the reference does, so results match it bitwise.
#include <algorithm>

#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

constexpr std::int64_t kRowBlock = 512;

template <typename T>
void dia_spmv_rows(T alpha, const DiaView<T>& a, const T* x, T beta, T* y) {
  const std::int64_t rows = a.rows;
  const std::int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
#pragma omp parallel for schedule(static)
  for (std::int64_t block = 0; block < blocks; ++block) {
    const std::int64_t first = block * kRowBlock;
    const std::int64_t last = std::min(rows, first + kRowBlock);
    T sums[kRowBlock] = {};
    for (std::int32_t d = 0; d < a.diagonals; ++d) {
      const std::int64_t offset = a.offsets[d];
      // Rows of this block whose column row + offset lies inside the matrix.
      const std::int64_t lo = std::max(first, -offset);
      const std::int64_t hi = std::min(last, static_cast<std::int64_t>(a.cols) - offset);
      const T* diagonal = a.values + d * rows;
      for (std::int64_t row = lo; row < hi; ++row) sums[row - first] += diagonal[row] * x[row + offset];
    }
    for (std::int64_t row = first; row < last; ++row) {
      const T sum = sums[row - first];
      y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
  }
}

}  // namespace

void dia_spmv(float alpha, const DiaView<float>& a, const float* x, float beta, float* y, Stream) {
  dia_spmv_rows(alpha, a, x, beta, y);
}
void dia_spmv(double alpha, const DiaView<double>& a, const double* x, double beta, double* y, Stream) {
  dia_spmv_rows(alpha, a, x, beta, y);
}

}  // namespace trellis::grid::cpu
