// Scalar CSR SpMV: one row at a time, entries in storage order. The oracle.
#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
void spmv_rows(T alpha, const CsrView<T>& a, const T* x, T beta, T* y) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    T sum = 0;
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) sum += a.values[k] * x[a.col_indices[k]];
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
  }
}

}  // namespace

void spmv(float alpha, const CsrView<float>& a, const float* x, float beta, float* y, Stream) {
  spmv_rows(alpha, a, x, beta, y);
}
void spmv(double alpha, const CsrView<double>& a, const double* x, double beta, double* y, Stream) {
  spmv_rows(alpha, a, x, beta, y);
}

}  // namespace trellis::grid::reference
