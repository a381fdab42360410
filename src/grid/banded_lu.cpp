// Doolittle LU inside the band (no pivoting keeps the fill inside it).
#include "banded_lu.hpp"

#include <algorithm>
#include <cmath>

namespace trellis::grid::detail {
namespace {

template <typename T>
void bandwidths(const CsrMatrix<T>& a, std::int32_t& lower, std::int32_t& upper) {
  lower = upper = 0;
  for (std::int32_t i = 0; i < a.rows; ++i) {
    for (RowOffset k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k) {
      lower = std::max(lower, i - a.col_indices[k]);
      upper = std::max(upper, a.col_indices[k] - i);
    }
  }
}

}  // namespace

template <typename T>
double BandedLu::factor_flops(const CsrMatrix<T>& a) {
  std::int32_t lower = 0, upper = 0;
  bandwidths(a, lower, upper);
  return static_cast<double>(a.rows) * std::max(lower, 1) * std::max(upper, 1);
}

template <typename T>
bool BandedLu::factor(const CsrMatrix<T>& a) {
  n_ = a.rows;
  bandwidths(a, lower_, upper_);
  band_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(lower_ + upper_ + 1), 0.0);
  for (std::int32_t i = 0; i < n_; ++i) {
    for (RowOffset k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k) at(i, a.col_indices[k]) += a.values[k];
  }
  for (std::int32_t k = 0; k < n_; ++k) {
    const double pivot = at(k, k);
    if (pivot == 0 || !std::isfinite(pivot)) {
      band_.clear();
      n_ = 0;
      return false;
    }
    const std::int32_t last_row = std::min(n_ - 1, k + lower_);
    const std::int32_t last_col = std::min(n_ - 1, k + upper_);
    for (std::int32_t i = k + 1; i <= last_row; ++i) {
      const double l = at(i, k) / pivot;
      at(i, k) = l;
      if (l == 0) continue;
      for (std::int32_t j = k + 1; j <= last_col; ++j) at(i, j) -= l * at(k, j);
    }
  }
  work_.assign(static_cast<std::size_t>(n_), 0.0);
  return true;
}

template <typename T>
void BandedLu::solve(std::span<const T> b, std::span<T> x) const {
  for (std::int32_t i = 0; i < n_; ++i) {
    double sum = b[static_cast<std::size_t>(i)];
    for (std::int32_t j = std::max(0, i - lower_); j < i; ++j) sum -= at(i, j) * work_[static_cast<std::size_t>(j)];
    work_[static_cast<std::size_t>(i)] = sum;
  }
  for (std::int32_t i = n_ - 1; i >= 0; --i) {
    double sum = work_[static_cast<std::size_t>(i)];
    const std::int32_t last = std::min(n_ - 1, i + upper_);
    for (std::int32_t j = i + 1; j <= last; ++j) sum -= at(i, j) * work_[static_cast<std::size_t>(j)];
    work_[static_cast<std::size_t>(i)] = sum / at(i, i);
  }
  for (std::size_t i = 0; i < work_.size(); ++i) x[i] = static_cast<T>(work_[i]);
}

template double BandedLu::factor_flops<float>(const CsrMatrix<float>&);
template double BandedLu::factor_flops<double>(const CsrMatrix<double>&);
template bool BandedLu::factor<float>(const CsrMatrix<float>&);
template bool BandedLu::factor<double>(const CsrMatrix<double>&);
template void BandedLu::solve<float>(std::span<const float>, std::span<float>) const;
template void BandedLu::solve<double>(std::span<const double>, std::span<double>) const;

}  // namespace trellis::grid::detail
