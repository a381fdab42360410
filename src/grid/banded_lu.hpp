// LU factorisation of a banded matrix without pivoting, for the coarsest
// multigrid level: a tensor mesh numbered axis 0 fastest gives a band as
// wide as the last axis' stride, so a coarse 3-D level of a few thousand
// nodes factors in well under a second. The matrices it takes are SPD or
// diagonally dominant; a zero or non-finite pivot makes factor() fail.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trellis/core/csr.hpp"

namespace trellis::grid::detail {

class BandedLu {
 public:
  // n * lower * upper bandwidth: the multiplications of the factorisation.
  template <typename T>
  static double factor_flops(const CsrMatrix<T>& a);
  // False (and nothing kept) when a pivot is zero or not finite.
  template <typename T>
  bool factor(const CsrMatrix<T>& a);
  // x = A^-1 b, in double whatever T is; b and x may alias.
  template <typename T>
  void solve(std::span<const T> b, std::span<T> x) const;

  // The factors as solve() reads them, for a device copy of the solve:
  // row i of band() holds columns i - lower() .. i + upper(), L's unit
  // diagonal left out.
  std::int32_t size() const { return n_; }
  std::int32_t lower() const { return lower_; }
  std::int32_t upper() const { return upper_; }
  std::span<const double> band() const { return band_; }

 private:
  std::int32_t n_ = 0;
  std::int32_t lower_ = 0;
  std::int32_t upper_ = 0;
  std::vector<double> band_;  // row i holds columns i - lower .. i + upper
  mutable std::vector<double> work_;
  double& at(std::int32_t i, std::int32_t j) {
    return band_[static_cast<std::size_t>(i) * static_cast<std::size_t>(lower_ + upper_ + 1) +
                 static_cast<std::size_t>(j - i + lower_)];
  }
  double at(std::int32_t i, std::int32_t j) const {
    return band_[static_cast<std::size_t>(i) * static_cast<std::size_t>(lower_ + upper_ + 1) +
                 static_cast<std::size_t>(j - i + lower_)];
  }
};

}  // namespace trellis::grid::detail
