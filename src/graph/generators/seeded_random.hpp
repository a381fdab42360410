// Random numbers for the generators, defined on top of std::mt19937_64 alone
// (whose output the standard fixes) rather than std::*_distribution (whose
// algorithms it leaves to each library), so a seed gives the same graph with
// every compiler and standard library.
#pragma once

#include <cstdint>
#include <random>

namespace trellis::graph::detail {

using SeededEngine = std::mt19937_64;

// Uniform in [0, 1) with 53 random bits.
inline double uniform_unit(SeededEngine& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

// Uniform in [0, bound), bound > 0, without modulo bias: draws below
// 2^64 mod bound are rejected so every residue is equally likely.
inline std::uint64_t uniform_below(SeededEngine& engine, std::uint64_t bound) {
  const std::uint64_t rejected_below = (0 - bound) % bound;
  for (;;) {
    std::uint64_t draw = engine();
    if (draw >= rejected_below) return draw % bound;
  }
}

}  // namespace trellis::graph::detail
