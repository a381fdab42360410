// Scalar DIA SpMV: each row sums its diagonals in ascending offset order,
// skipping those that leave the matrix. The oracle.
#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
void dia_spmv_rows(T alpha, const DiaView<T>& a, const T* x, T beta, T* y) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    T sum = 0;
    for (std::int32_t d = 0; d < a.diagonals; ++d) {
      const std::int64_t col = static_cast<std::int64_t>(row) + a.offsets[d];
      if (col < 0 || col >= a.cols) continue;
      sum += a.values[static_cast<std::size_t>(d) * static_cast<std::size_t>(a.rows) + static_cast<std::size_t>(row)] *
             x[col];
    }
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
  }
}

}  // namespace

void dia_spmv(float alpha, const DiaView<float>& a, const float* x, float beta, float* y, Stream) {
  dia_spmv_rows(alpha, a, x, beta, y);
}
void dia_spmv(double alpha, const DiaView<double>& a, const double* x, double beta, double* y, Stream) {
  dia_spmv_rows(alpha, a, x, beta, y);
}

}  // namespace trellis::grid::reference
