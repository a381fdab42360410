// Host-side entry points of the shortest-path kernels, one per algorithm
// file, and the scratch they share. All run asynchronously on `stream`.
#pragma once

#include <cstdint>

#include "sssp_device.cuh"
#include "trellis/core/stream.hpp"

namespace trellis::graph::cuda {

// Scratch for one search at a time, sized for the graph once.
struct Workspace {
  NodeId* queue[2];           // frontiers, n entries each
  NodeId* far[2];             // delta-stepping's far piles, n entries each
  unsigned* stamp;            // per node: the iteration it was last queued for
  unsigned* in_far;           // per node: 1 while in a far pile
  unsigned* counters;         // small counters the kernels share (kCounterCount)
  unsigned long long* relaxed;  // relaxations performed, summed over threads
  unsigned long long* ring;     // SPFA's worklist
  unsigned ring_capacity;       // a power of two >= n + 1
};

inline constexpr int kThreads = 256;
inline constexpr int kCounterCount = 16;

// Each algorithm starts from keys already holding the sources (key 0) and
// every other node kNoKey, and from workspace.queue[0] holding the
// `source_count` distinct sources; all other scratch is zero.
void run_bellman_ford(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream);
void run_delta_stepping(const DeviceSearch& search, const Workspace& work, unsigned source_count, Weight delta,
                        Stream stream);
void run_spfa(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream);

// Co-resident blocks of kThreads for kernel on this device (for cooperative
// launches: a persistent grid larger than this would deadlock).
int co_resident_blocks(const void* kernel, std::size_t dynamic_shared_bytes);

}  // namespace trellis::graph::cuda
