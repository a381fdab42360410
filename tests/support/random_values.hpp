// Small helpers the numeric tests share: seeded random vectors and the bits
// of a float or double (for bitwise comparisons).
#pragma once

#include <bit>
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
  if constexpr (sizeof(T) == 8) return std::bit_cast<std::uint64_t>(value);
  else return std::bit_cast<std::uint32_t>(value);
}

}  // namespace trellis::testing
