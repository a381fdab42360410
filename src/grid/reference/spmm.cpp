// Scalar CSR SpMM: one column of X at a time, each an SpMV with the
// reference's per-row order (entries in storage order). The oracle.
#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
void spmm_columns(T alpha, const CsrView<T>& a, const T* x, std::int32_t right_hand_sides, T beta, T* y) {
  for (std::int32_t j = 0; j < right_hand_sides; ++j) {
    const T* x_column = x + static_cast<std::size_t>(j) * static_cast<std::size_t>(a.cols);
    T* y_column = y + static_cast<std::size_t>(j) * static_cast<std::size_t>(a.rows);
    for (std::int32_t row = 0; row < a.rows; ++row) {
      T sum = 0;
      for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
        sum += a.values[k] * x_column[a.col_indices[k]];
      }
      y_column[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y_column[row];
    }
  }
}

}  // namespace

void spmm(float alpha, const CsrView<float>& a, const float* x, std::int32_t right_hand_sides, float beta, float* y,
          Stream) {
  spmm_columns(alpha, a, x, right_hand_sides, beta, y);
}
void spmm(double alpha, const CsrView<double>& a, const double* x, std::int32_t right_hand_sides, double beta,
          double* y, Stream) {
  spmm_columns(alpha, a, x, right_hand_sides, beta, y);
}

}  // namespace trellis::grid::reference
