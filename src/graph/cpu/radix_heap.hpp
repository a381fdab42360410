// A monotone priority queue over non-negative float keys (a radix heap):
// every key pushed is at least the last key popped, which Dijkstra's keys
// are (d + w >= d for w >= 0). Non-negative floats order like their bit
// patterns, so the buckets go by the highest bit in which a key's bits
// differ from the last popped key's. A push costs O(1); an entry moves to a
// lower bucket at most 32 times over its life, and usually far fewer, so
// searches that push many entries they never pop (nodes beyond the target)
// pay little for them, unlike a binary heap's O(log n) a push.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "trellis/graph/graph.hpp"

namespace trellis::graph::cpu {

class RadixHeap {
 public:
  bool empty() const noexcept { return size_ == 0; }

  void clear() noexcept {
    for (auto& bucket : buckets_) bucket.clear();
    last_ = 0;
    size_ = 0;
  }

  // key >= the last key popped (or any key before the first pop).
  void push(Weight key, NodeId node) {
    const auto bits = std::bit_cast<std::uint32_t>(key);
    buckets_[bucket_of(bits)].emplace_back(bits, node);
    ++size_;
  }

  // An entry with the least key (ties in no particular order). Not empty.
  std::pair<Weight, NodeId> pop() {
    if (buckets_[0].empty()) refill();
    const auto [bits, node] = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    return {std::bit_cast<Weight>(bits), node};
  }

 private:
  using Entry = std::pair<std::uint32_t, NodeId>;

  // Bucket 0 holds keys equal to last_; bucket b > 0 keys whose highest bit
  // differing from last_ is bit b - 1.
  std::size_t bucket_of(std::uint32_t bits) const noexcept {
    return static_cast<std::size_t>(32 - std::countl_zero(bits ^ last_));
  }

  // The first non-empty bucket's least key becomes last_, and the bucket's
  // entries move to lower buckets (all of them, as they now share more
  // leading bits with last_); the least ones land in bucket 0.
  void refill() {
    std::size_t b = 1;
    while (buckets_[b].empty()) ++b;
    std::vector<Entry>& from = buckets_[b];
    std::uint32_t least = from.front().first;
    for (const Entry& e : from) least = std::min(least, e.first);
    last_ = least;
    for (const Entry& e : from) buckets_[bucket_of(e.first)].push_back(e);
    from.clear();
  }

  std::array<std::vector<Entry>, 33> buckets_;
  std::uint32_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace trellis::graph::cpu
