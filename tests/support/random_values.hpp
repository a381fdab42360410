// Small helpers the numeric tests share: seeded random vectors, the bits of
// a float or double (for bitwise comparisons), and the largest magnitude and
// difference of vectors (for tolerances).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace trellis::testing {

// n values uniform in [-1, 1], the same for the same seed.
template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& e : v) e = static_cast<T>(value(rng));
  return v;
}

template <typename T>
auto bits(T value) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<std::uint64_t>(value);
  else
    return std::bit_cast<std::uint32_t>(value);
}

// max |v_i| in double.
template <typename T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (T e : v) m = std::max(m, std::abs(static_cast<double>(e)));
  return m;
}

// max |a_i - b_i| in double over a's length (b at least as long).
template <typename T>
double max_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

}  // namespace trellis::testing
