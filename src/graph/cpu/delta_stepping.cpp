// Delta-stepping on all cores, after the GAP benchmark suite's sssp.cc: a
// shared frontier holds the current bucket, each thread files improved nodes
// into its own buckets, and the next frontier is the lowest non-empty bucket
// gathered from all threads. Distances are relaxed with an atomic min on the
// float's bits (non-negative floats order like their bit patterns), so the
// result is the Bellman fixpoint, bitwise equal to Dijkstra's.
//
// Two barriers a round: after relaxing, every thread publishes its lowest
// non-empty bucket and that bucket's size; after the barrier each thread
// works out the same next bucket and the same prefix offsets by itself, copies
// its part of the bucket into the frontier, and meets the others again.
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

  // Inside a parallel region (a batch runs its searches side by side) a
  // search keeps to its own thread.
  const int threads = omp_in_parallel() || g.nnz < kEdgesForAllCores ? 1 : omp_get_max_threads();
  // What each thread publishes at the end of a round.
  std::vector<std::size_t> lowest(threads, kNoBucket);
  std::vector<std::size_t> lowest_size(threads, 0);
  std::size_t overflow_bucket = kNoBucket;  // written by one thread when the window is exhausted
  std::int64_t relaxed = 0;

#pragma omp parallel num_threads(threads) reduction(+ : relaxed) if (threads > 1)
  {
    const int t = omp_get_thread_num();
    // Buckets [base, base + window) of this thread, and one overflow list beyond.
    std::vector<std::vector<NodeId>> buckets;
    std::vector<NodeId> overflow;
    // Every thread keeps the same values of these, so none is shared.
    std::size_t base = 0;
    std::size_t current = 0;
    std::size_t frontier_size = frontier.size();
    std::size_t capacity = frontier.size();

    auto file = [&](NodeId v, Weight d) {
      const std::size_t b = bucket_of(d, delta);
      if (b - base >= kBucketWindow) {
        overflow.push_back(v);
        return;
      }
      if (buckets.size() <= b - base) buckets.resize(b - base + 1);
      buckets[b - base].push_back(v);
    };
    auto publish = [&] {
      lowest[t] = kNoBucket;
      lowest_size[t] = 0;
      for (std::size_t b = current - base; b < buckets.size(); ++b) {
        if (!buckets[b].empty()) {
          lowest[t] = b + base;
          lowest_size[t] = buckets[b].size();
          break;
        }
      }
    };
    auto smallest_published = [&] { return *std::min_element(lowest.begin(), lowest.end()); };

    while (true) {
      const Weight target_bound =
          search.target >= 0 ? weight_of(std::atomic_ref<std::uint32_t>(dist[search.target]).load()) : kUnreachable;
#pragma omp for nowait schedule(dynamic, 64)
      for (std::size_t i = 0; i < frontier_size; ++i) {
        const NodeId u = frontier[i];
        const Weight du = weight_of(std::atomic_ref<std::uint32_t>(dist[u]).load(std::memory_order_relaxed));
        if (bucket_of(du, delta) < current) continue;  // settled in an earlier bucket; stale entry
        if (du > target_bound) continue;               // cannot lead to the target
        for (RowOffset k = g.row_offsets[u]; k < g.row_offsets[u + 1]; ++k) {
          const NodeId v = g.col_indices[k];
          const Weight candidate = du + effective_weight(g.values[k], search.node_cost, v);
          ++relaxed;
          if (candidate > target_bound) continue;
          if (atomic_min(std::atomic_ref<std::uint32_t>(dist[v]), candidate)) file(v, candidate);
        }
      }
      publish();
#pragma omp barrier
      std::size_t next = smallest_published();
      if (next == kNoBucket) {
        // The window is exhausted: re-file the overflow lists relative to
        // their smallest bucket, or stop when they are empty too.
#pragma omp barrier
#pragma omp single
        overflow_bucket = kNoBucket;
#pragma omp critical
        for (NodeId v : overflow) overflow_bucket = std::min(overflow_bucket, bucket_of(weight_of(dist[v]), delta));
#pragma omp barrier
        if (overflow_bucket == kNoBucket) break;  // every list is empty: done
        base = current = overflow_bucket;
        std::vector<NodeId> pending;
        pending.swap(overflow);
        buckets.clear();
        for (NodeId v : pending) file(v, weight_of(std::atomic_ref<std::uint32_t>(dist[v]).load()));
        publish();
#pragma omp barrier
        next = smallest_published();
      }
      // Gather bucket `next` from every thread, in thread order.
      std::size_t offset = 0;
      std::size_t total = 0;
      for (int s = 0; s < threads; ++s) {
        if (lowest[s] != next) continue;
        if (s < t) offset += lowest_size[s];
        total += lowest_size[s];
      }
      if (total > capacity) {  // the same decision in every thread (capacity is a private copy)
        capacity = std::max(total, 2 * capacity);
#pragma omp single
        frontier.resize(capacity);
      }
      if (lowest[t] == next) {
        auto& mine = buckets[next - base];
        std::copy(mine.begin(), mine.end(), frontier.begin() + static_cast<std::ptrdiff_t>(offset));
        mine.clear();
      }
      current = next;
      frontier_size = total;
#pragma omp barrier
    }
  }
  for (std::size_t v = 0; v < distance.size(); ++v) distance[v] = weight_of(dist[v]);
  return relaxed;
}

}  // namespace trellis::graph::cpu
