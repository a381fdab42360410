// Delta-stepping on all cores, after the GAP benchmark suite's sssp.cc: a
// shared frontier holds the current bucket, each thread files improved nodes
// into its own buckets, and the next frontier is the lowest non-empty bucket
// gathered from all threads. Distances are relaxed with an atomic min on the
// float's bits (non-negative floats order like their bit patterns), so the
// result is the Bellman fixpoint, bitwise equal to Dijkstra's.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>

#include "../kernels.hpp"

namespace trellis::graph::cpu {
namespace {

// Buckets further ahead than this share one overflow list per thread, so a
// tiny delta on huge distances cannot ask for billions of buckets.
constexpr std::size_t kBucketWindow = 1 << 16;
constexpr std::size_t kNoBucket = std::numeric_limits<std::size_t>::max();

std::uint32_t bits_of(Weight w) { return std::bit_cast<std::uint32_t>(w); }
Weight weight_of(std::uint32_t b) { return std::bit_cast<Weight>(b); }

// Lowers d to candidate if smaller; true when this call lowered it.
bool atomic_min(std::atomic_ref<std::uint32_t> d, Weight candidate) {
  std::uint32_t current = d.load(std::memory_order_relaxed);
  const std::uint32_t wanted = bits_of(candidate);
  while (wanted < current) {
    if (d.compare_exchange_weak(current, wanted, std::memory_order_relaxed)) return true;
  }
  return false;
}

std::size_t bucket_of(Weight d, Weight delta) {
  const double b = std::floor(static_cast<double>(d) / static_cast<double>(delta));
  return b >= 1e18 ? kNoBucket - 1 : static_cast<std::size_t>(b);
}

}  // namespace

std::int64_t delta_stepping(const CsrView<Weight>& g, const SearchSpec& search, Weight delta,
                            std::span<Weight> distance) {
  std::vector<std::uint32_t> dist(static_cast<std::size_t>(g.rows), bits_of(kUnreachable));
  std::vector<NodeId> frontier;
  for (NodeId s : search.sources) {
    dist[s] = bits_of(0.0f);
    frontier.push_back(s);
  }
  std::sort(frontier.begin(), frontier.end());
  frontier.erase(std::unique(frontier.begin(), frontier.end()), frontier.end());

  const int threads = omp_get_max_threads();
  // Per thread: buckets [base, base + window) and one overflow list beyond.
  std::vector<std::vector<std::vector<NodeId>>> buckets(threads);
  std::vector<std::vector<NodeId>> overflow(threads);
  std::size_t base = 0;        // bucket index of buckets[t][0]
  std::size_t current = 0;     // the bucket being processed
  std::int64_t relaxed = 0;
  std::vector<std::size_t> next_offsets(static_cast<std::size_t>(threads) + 1);
  std::size_t next_bucket = 0;

#pragma omp parallel reduction(+ : relaxed)
  {
    const int t = omp_get_thread_num();
    auto& my_buckets = buckets[t];
    auto& my_overflow = overflow[t];
    auto file = [&](NodeId v, Weight d) {
      const std::size_t b = bucket_of(d, delta);
      if (b - base >= kBucketWindow) {
        my_overflow.push_back(v);
        return;
      }
      if (my_buckets.size() <= b - base) my_buckets.resize(b - base + 1);
      my_buckets[b - base].push_back(v);
    };

    while (true) {
      const Weight target_bound =
          search.target >= 0 ? weight_of(std::atomic_ref<std::uint32_t>(dist[search.target]).load()) : kUnreachable;
#pragma omp for nowait schedule(dynamic, 64)
      for (std::size_t i = 0; i < frontier.size(); ++i) {
        const NodeId u = frontier[i];
        const Weight du = weight_of(std::atomic_ref<std::uint32_t>(dist[u]).load(std::memory_order_relaxed));
        if (bucket_of(du, delta) < current) continue;  // settled in an earlier bucket; stale entry
        if (du > target_bound) continue;              // cannot lead to the target
        for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
          const NodeId v = g.col_indices[k];
          const Weight candidate = du + effective_weight(g.values[k], search.node_cost, v);
          ++relaxed;
          if (candidate > target_bound) continue;
          if (atomic_min(std::atomic_ref<std::uint32_t>(dist[v]), candidate)) file(v, candidate);
        }
      }
#pragma omp barrier
      // Pick the lowest non-empty bucket over all threads (current may refill).
#pragma omp single
      next_bucket = kNoBucket;
#pragma omp critical
      {
        for (std::size_t b = current - base; b < my_buckets.size(); ++b) {
          if (!my_buckets[b].empty()) {
            next_bucket = std::min(next_bucket, b + base);
            break;
          }
        }
      }
#pragma omp barrier
      // Every thread reads the shared choice before any thread may change it.
      const bool window_exhausted = next_bucket == kNoBucket;
#pragma omp barrier
      if (window_exhausted) {
        // Window exhausted: re-file the overflow relative to its smallest bucket.
#pragma omp single
        {
          std::size_t lowest = kNoBucket;
          for (auto& list : overflow) {
            for (NodeId v : list) lowest = std::min(lowest, bucket_of(weight_of(dist[v]), delta));
          }
          if (lowest != kNoBucket) {
            base = lowest;
            current = lowest;
          }
          next_bucket = lowest;
        }
        if (next_bucket == kNoBucket) break;  // every list is empty: done
        std::vector<NodeId> pending;
        pending.swap(my_overflow);
        for (auto& bucket : my_buckets) bucket.clear();
        for (NodeId v : pending) file(v, weight_of(std::atomic_ref<std::uint32_t>(dist[v]).load()));
#pragma omp barrier
#pragma omp single
        frontier.clear();
        // Fall through to gather bucket `next_bucket` (== current).
      }
      // Gather every thread's bucket next_bucket into the shared frontier.
      std::vector<NodeId> empty;
      auto& mine = next_bucket - base < my_buckets.size() ? my_buckets[next_bucket - base] : empty;
      next_offsets[t + 1] = mine.size();
#pragma omp barrier
#pragma omp single
      {
        current = next_bucket;
        next_offsets[0] = 0;
        for (int i = 0; i < threads; ++i) next_offsets[i + 1] += next_offsets[i];
        frontier.resize(next_offsets[threads]);
      }
      std::copy(mine.begin(), mine.end(), frontier.begin() + static_cast<std::ptrdiff_t>(next_offsets[t]));
      mine.clear();
#pragma omp barrier
    }
  }
  for (std::size_t v = 0; v < distance.size(); ++v) distance[v] = weight_of(dist[v]);
  return relaxed;
}

}  // namespace trellis::graph::cpu
