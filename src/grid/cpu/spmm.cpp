// OpenMP CSR SpMM. Each row reads its entries once per tile of up to
// kColumnTile right-hand sides and keeps one running sum per column of the
// tile. Every sum adds the row's products in storage order, as the reference
// does column by column, so results match it bitwise. Rows are handed out in
// small dynamic chunks: a long row delays only its own chunk.
#include <algorithm>

#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

constexpr std::int32_t kColumnTile = 32;
constexpr int kRowsPerChunk = 256;

template <typename T>
void spmm_rows(T alpha, const CsrView<T>& a, const T* x, std::int32_t right_hand_sides, T beta, T* y) {
  const auto cols = static_cast<std::size_t>(a.cols);
  const auto rows = static_cast<std::size_t>(a.rows);
#pragma omp parallel for schedule(dynamic, kRowsPerChunk)
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (std::int32_t first = 0; first < right_hand_sides; first += kColumnTile) {
      const std::int32_t width = std::min(kColumnTile, right_hand_sides - first);
      const T* x_tile = x + static_cast<std::size_t>(first) * cols;
      T sums[kColumnTile] = {};
      for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
        const T value = a.values[k];
        const T* x_entry = x_tile + a.col_indices[k];
        for (std::int32_t j = 0; j < width; ++j) sums[j] += value * x_entry[static_cast<std::size_t>(j) * cols];
      }
      T* y_tile = y + static_cast<std::size_t>(first) * rows + static_cast<std::size_t>(row);
      for (std::int32_t j = 0; j < width; ++j) {
        T& out = y_tile[static_cast<std::size_t>(j) * rows];
        out = beta == T(0) ? alpha * sums[j] : alpha * sums[j] + beta * out;
      }
    }
  }
}

}  // namespace

void spmm(float alpha, const CsrView<float>& a, const float* x, std::int32_t right_hand_sides, float beta, float* y,
          Stream) {
  spmm_rows(alpha, a, x, right_hand_sides, beta, y);
}
void spmm(double alpha, const CsrView<double>& a, const double* x, std::int32_t right_hand_sides, double beta,
          double* y, Stream) {
  spmm_rows(alpha, a, x, right_hand_sides, beta, y);
}

}  // namespace trellis::grid::cpu
