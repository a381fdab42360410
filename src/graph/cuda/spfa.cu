// SPFA with one asynchronous worklist shared by a persistent grid: no
// barriers at all. A node whose key drops is appended (once while queued) to
// a ring buffer; any thread takes the next entry, relaxes its edges and
// appends what improves. Work ends when every appended entry has been
// processed (done == tail), which no entry in flight can change.
//
// Ring safety. Consumers may claim indices ahead of the producers (many
// threads wait at once), so each slot carries the index it was written for,
// and a consumer takes a slot only when the tag is its own index. A node is
// in the ring at most once between its push and the moment its slot is read,
// so at most n slots are occupied and a ring of capacity >= n + 1 never
// overwrites an entry nobody has taken.
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

struct Ring {
  unsigned long long* slots;    // (index tag << 32) | node
  unsigned capacity_mask;       // capacity - 1, capacity a power of two
  unsigned* queued;             // per node: 1 while in the ring
  unsigned long long* head;     // entries claimed by consumers
  unsigned long long* tail;     // entries claimed by producers
  unsigned long long* done;     // entries processed
};

__device__ inline unsigned long long read64(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

__device__ inline unsigned long long tagged(unsigned long long index, NodeId v) {
  return (index << 32) | static_cast<std::uint32_t>(v);
}

__device__ inline void push(const Ring& r, NodeId v) {
  __threadfence();  // v's new key is visible before v can be taken
  const unsigned long long index = atomicAdd(r.tail, 1ULL);
  *reinterpret_cast<volatile unsigned long long*>(&r.slots[index & r.capacity_mask]) = tagged(index, v);
}

__global__ void init_ring(unsigned long long* slots, unsigned capacity, const NodeId* sources,
                          unsigned source_count) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < capacity; i += gridDim.x * blockDim.x) {
    slots[i] = i < source_count ? tagged(i, sources[i]) : ~0ULL;
  }
}

__global__ void __launch_bounds__(kThreads) spfa_kernel(DeviceSearch s, Ring r, unsigned long long* relaxed_total) {
  unsigned long long relaxed = 0;
  while (true) {
    // done is read before tail: equal values then mean nothing was in flight.
    const unsigned long long done = read64(r.done);
    const unsigned long long tail = read64(r.tail);
    if (done == tail) break;
    if (read64(r.head) >= tail) continue;  // nothing to claim yet
    const unsigned long long index = atomicAdd(r.head, 1ULL);
    const volatile unsigned long long* slot = &r.slots[index & r.capacity_mask];
    bool taken = false;
    NodeId u = 0;
    while (true) {  // wait for this index's producer, or for the end of the search
      const unsigned long long entry = *slot;
      if ((entry >> 32) == (index & 0xffffffffULL)) {
        u = static_cast<NodeId>(entry & 0xffffffffULL);
        taken = true;
        break;
      }
      const unsigned long long done_now = read64(r.done);
      const unsigned long long tail_now = read64(r.tail);
      if (index >= tail_now && done_now == tail_now) break;
    }
    if (!taken) break;  // claimed past the last entry: the search is over
    atomicExch(&r.queued[u], 0u);  // from here on a new improvement re-queues u
    const Key from = load_key(&s.keys[u]);
    const Weight bound = target_bound(s);
    for (RowOffset k = s.row_offsets[u]; k < s.row_offsets[u + 1]; ++k) {
      NodeId v = 0;
      ++relaxed;
      if (relax(s, from, k, bound, v) && atomicExch(&r.queued[v], 1u) == 0) push(r, v);
    }
    __threadfence();  // pushes are visible before they count as done
    atomicAdd(r.done, 1ULL);
  }
  atomicAdd(relaxed_total, relaxed);
}

}  // namespace

void run_spfa(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream) {
  static const int blocks = co_resident_blocks(reinterpret_cast<const void*>(spfa_kernel), 0);
  Ring ring{work.ring, work.ring_capacity - 1, work.stamp,
            reinterpret_cast<unsigned long long*>(work.counters),
            reinterpret_cast<unsigned long long*>(work.counters) + 1,
            reinterpret_cast<unsigned long long*>(work.counters) + 2};
  const unsigned long long initial[3] = {0, source_count, 0};
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(work.counters, initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  TRELLIS_LAUNCH(init_ring, (work.ring_capacity + kThreads - 1) / kThreads, kThreads, 0, stream, work.ring,
                 work.ring_capacity, work.queue[0], source_count);
  DeviceSearch s = search;
  unsigned long long* relaxed = work.relaxed;
  void* args[] = {&s, &ring, &relaxed};
  // Cooperative only for the guarantee that every block is resident: a
  // spinning block must never wait for one that has not started.
  TRELLIS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(spfa_kernel), blocks, kThreads, args,
                                                 0, stream));
}

}  // namespace trellis::graph::cuda
