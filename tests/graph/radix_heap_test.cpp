// The cpu search's radix heap against a sorted list: Dijkstra-like runs of
// pops and pushes (every key pushed at least the last popped), with ties,
// zeros, +inf and keys of every magnitude.
#include "graph/cpu/radix_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace trellis::graph::cpu {
namespace {

TEST(RadixHeap, PopsKeysInOrderUnderMonotonePushes) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> step(0.0f, seed % 2 == 0 ? 4.0f : 1e6f);
    std::uniform_int_distribution<int> coin(0, 9);
    RadixHeap heap;
    std::vector<std::pair<Weight, NodeId>> expected;  // what is in the heap, unordered
    Weight last = 0.0f;
    NodeId next_id = 0;
    const auto push = [&](Weight key) {
      heap.push(key, next_id);
      expected.emplace_back(key, next_id++);
    };
    push(0.0f);
    for (int round = 0; round < 3000; ++round) {
      const int pushes = coin(rng) % 4;
      for (int p = 0; p < pushes; ++p) {
        const int kind = coin(rng);
        const Weight key = kind == 0   ? last                                     // a tie with the last pop
                           : kind == 1 ? std::numeric_limits<Weight>::infinity()  // never popped before the rest
                                       : last + step(rng);
        push(key);
      }
      if (heap.empty()) {
        ASSERT_TRUE(expected.empty());
        push(last);
        continue;
      }
      const auto [key, node] = heap.pop();
      // The least key: equal to the least expected one, and that very entry exists.
      const Weight least = std::min_element(expected.begin(), expected.end())->first;
      ASSERT_EQ(key, least) << "seed " << seed << " round " << round;
      const auto at = std::find(expected.begin(), expected.end(), std::make_pair(key, node));
      ASSERT_NE(at, expected.end()) << "popped an entry never pushed, or twice";
      expected.erase(at);
      ASSERT_GE(key, last);
      last = key;
    }
    while (!heap.empty()) {
      const auto [key, node] = heap.pop();
      ASSERT_GE(key, last);
      last = key;
      const auto at = std::find(expected.begin(), expected.end(), std::make_pair(key, node));
      ASSERT_NE(at, expected.end());
      expected.erase(at);
    }
    EXPECT_TRUE(expected.empty());
    heap.clear();
    EXPECT_TRUE(heap.empty());
  }
}

TEST(RadixHeap, StartsOverAfterClear) {
  RadixHeap heap;
  heap.push(5.0f, 1);
  heap.push(7.0f, 2);
  EXPECT_EQ(heap.pop().second, 1);
  heap.clear();
  // Keys below the last popped one are fine after a clear.
  heap.push(1.0f, 3);
  heap.push(0.5f, 4);
  EXPECT_EQ(heap.pop(), std::make_pair(0.5f, NodeId{4}));
  EXPECT_EQ(heap.pop(), std::make_pair(1.0f, NodeId{3}));
  EXPECT_TRUE(heap.empty());
}

}  // namespace
}  // namespace trellis::graph::cpu
