// Device-side pieces every shortest-path kernel shares.
//
// A node's label is its float distance's bits: non-negative floats order
// like their bit patterns, so an unsigned atomicMin keeps the least
// distance. Parents come from a breadth-first search over the final tight
// edges (tight_parents.cu), not from the search. Unreached nodes hold
// kNoKey, which is above every distance's bits (+inf included).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "trellis/core/csr.hpp"
#include "trellis/graph/graph.hpp"

namespace trellis::graph::cuda {

using Key = std::uint32_t;
inline constexpr Key kNoKey = 0xffffffffu;
inline constexpr int kWarp = 32;

__device__ inline Key make_key(Weight distance) { return __float_as_uint(distance); }
__device__ inline Weight key_distance(Key key) { return __uint_as_float(key); }

// A global word other blocks change: read from L2, never from a stale L1 line.
__device__ inline unsigned relaxed_load(const unsigned* p) {
  unsigned value;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(p) : "memory");
  return value;
}
__device__ inline int relaxed_load(const int* p) {
  int value;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(p) : "memory");
  return value;
}

// The global timer, for the persistent kernels' time limits.
__device__ inline unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Shared words that threads of a block read while other threads of it
// change them (labels lowered within a sweep, flags that warps poll) are
// relaxed atomics at block scope, so that the CUDA memory model defines
// those races. A read is cuda::atomic_ref<T, cuda::thread_scope_block>
// ::load(memory_order_relaxed) with the shared state space named: CCCL
// 13.0's atomic_ref emits a generic ld.relaxed.cta, a generic
// LD.E.STRONG.SM on 64-bit addresses in SASS, where this is the LDS of a
// plain load.
template <typename T>
__device__ inline T shared_load(const T& x) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(&x));
  if constexpr (sizeof(T) == 4) {
    unsigned bits;
    asm volatile("ld.relaxed.cta.shared.b32 %0, [%1];" : "=r"(bits) : "r"(address) : "memory");
    return __builtin_bit_cast(T, bits);
  } else {
    unsigned long long bits;
    asm volatile("ld.relaxed.cta.shared.b64 %0, [%1];" : "=l"(bits) : "r"(address) : "memory");
    return __builtin_bit_cast(T, bits);
  }
}
// A flag or slot that one thread sets and others poll: a block-scope atomic
// exchange. compute-sanitizer's racecheck (2025.3.1, H200) reports two
// racing accesses unless one is a read-modify-write: relaxed loads against
// relaxed stores are reported, against atomicMin or atomicExch not.
template <typename T>
__device__ inline void shared_set(T& x, T value) {
  (void)atomicExch_block(&x, value);
}
// A label the sweeps lower, stored where `when` holds: a relaxed store, the
// predicated STS of a plain store. Not an atomic exchange, which would
// silence racecheck: the compiler branches around each atomic, and the
// barrier ending a sweep waits for it (the cost is in bench/results/NOTES.md,
// "Racing shared-memory labels and flags as relaxed atomics"). Builds for
// racecheck runs (-DTRELLIS_CUDA_RACECHECK=ON) take the exchange.
__device__ inline void shared_store_if(bool when, Weight& label, Weight value) {
#if defined(TRELLIS_RACECHECK_STORES)
  if (when) (void)atomicExch_block(reinterpret_cast<unsigned*>(&label), __float_as_uint(value));
#else
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(&label));
  asm volatile("{\n .reg .pred p;\n setp.ne.u32 p, %2, 0;\n @p st.relaxed.cta.shared.b32 [%0], %1;\n}" ::"r"(address),
               "r"(__float_as_uint(value)), "r"(when ? 1u : 0u)
               : "memory");
#endif
}

// What one search needs on the device.
struct DeviceSearch {
  const RowOffset* row_offsets;
  const ColumnIndex* heads;
  const Weight* weights;
  const Weight* node_cost;  // nullptr: none
  NodeId nodes;
  NodeId target;  // -1: none
  Key* keys;      // one per node
};

// Keys change under other blocks' atomics: read them from L2, never from a
// possibly stale L1 line.
__device__ inline Key load_key(const Key* key) { return __ldcg(key); }

__device__ inline Weight edge_weight(const DeviceSearch& s, RowOffset k, NodeId head) {
  const Weight w = __ldg(&s.weights[k]);
  return s.node_cost == nullptr ? w : w + __ldg(&s.node_cost[head]);
}

// Distances beyond the target's current one cannot lead to it: prune them.
__device__ inline Weight target_bound(const DeviceSearch& s) {
  if (s.target < 0) return __int_as_float(0x7f800000);  // +inf
  return key_distance(load_key(&s.keys[s.target]));
}

// Relaxes edge k of u (label `from`) into its head; true when the head's key
// was lowered by this call.
__device__ inline bool relax(const DeviceSearch& s, Key from, RowOffset k, Weight bound, NodeId& head) {
  head = __ldg(&s.heads[k]);
  const Weight candidate = key_distance(from) + edge_weight(s, k, head);
  if (candidate > bound) return false;
  const Key key = make_key(candidate);
  if (key >= load_key(&s.keys[head])) return false;
  return atomicMin(&s.keys[head], key) > key;
}

// Appends item to queue[*size] with one atomic per warp for all lanes that
// push (the seed's lesson: per-thread queue atomics serialise).
__device__ inline void warp_push(bool push, NodeId item, NodeId* queue, unsigned* size) {
  const unsigned active = __activemask();
  const unsigned pushing = __ballot_sync(active, push);
  if (pushing == 0) return;
  const int lane = threadIdx.x % kWarp;
  const int leader = __ffs(pushing) - 1;
  unsigned base = 0;
  if (lane == leader) base = atomicAdd(size, static_cast<unsigned>(__popc(pushing)));
  base = __shfl_sync(active, base, leader);
  if (push) queue[base + __popc(pushing & ((1u << lane) - 1))] = item;
}

}  // namespace trellis::graph::cuda
