// SPFA with one asynchronous worklist shared by a persistent grid: no
// barriers at all. A node whose key drops is appended (once while queued) to
// the worklist; any thread takes the next entry, relaxes its edges and
// appends what improves. Work ends when every appended entry has been
// processed (done == tail), which no entry in flight can change.
//
// The worklist never wraps: every push gets a slot of its own, written once,
// so a consumer that claimed an index ahead of the producers just waits for
// that slot. (A wrapping ring is unsafe here: consumers finish out of order,
// so a slow one can be lapped.) When the pushes outgrow the buffer, the
// dropped entries count as done so the grid still stops, and the host runs
// the search again with a larger buffer.
#include "launchers.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::graph::cuda {
namespace {

constexpr NodeId kEmptySlot = -1;

struct Worklist {
  NodeId* slots;
  unsigned long long capacity;
  unsigned* queued;              // per node: 1 while in the worklist
  unsigned long long* head;      // entries claimed by consumers
  unsigned long long* tail;      // entries claimed by producers
  unsigned long long* done;      // entries processed (or dropped)
  unsigned long long* overflow;  // nonzero when an entry was dropped
};

__device__ inline unsigned long long read64(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

__device__ inline void push(const Worklist& r, NodeId v) {
  __threadfence();  // v's new key is visible before v can be taken
  const unsigned long long index = atomicAdd(r.tail, 1ULL);
  if (index < r.capacity) {
    *reinterpret_cast<volatile NodeId*>(&r.slots[index]) = v;
  } else {
    atomicExch(r.overflow, 1ULL);
    atomicAdd(r.done, 1ULL);  // dropped: the search is redone with more room
  }
}

__global__ void __launch_bounds__(kThreads) spfa_kernel(DeviceSearch s, Worklist r, unsigned long long* relaxed_total) {
  unsigned long long relaxed = 0;
  while (true) {
    // done is read before tail: equal values then mean nothing was in flight.
    const unsigned long long done = read64(r.done);
    const unsigned long long tail = read64(r.tail);
    if (done == tail) break;
    if (read64(r.head) >= tail) continue;  // nothing to claim yet
    const unsigned long long index = atomicAdd(r.head, 1ULL);
    NodeId u = kEmptySlot;
    while (true) {  // wait for this index's producer, or for the end of the search
      if (index < r.capacity) u = *reinterpret_cast<volatile const NodeId*>(&r.slots[index]);
      if (u != kEmptySlot) break;
      const unsigned long long done_now = read64(r.done);
      const unsigned long long tail_now = read64(r.tail);
      if (done_now == tail_now && index >= tail_now) break;
      if (index >= r.capacity && done_now == tail_now) break;
    }
    if (u == kEmptySlot) break;    // claimed past the last entry: the search is over
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

bool run_spfa(const DeviceSearch& search, const Workspace& work, unsigned source_count, Stream stream) {
  static const int blocks = co_resident_blocks(reinterpret_cast<const void*>(spfa_kernel), 0);
  auto* counters = reinterpret_cast<unsigned long long*>(work.counters);
  Worklist list{work.worklist, work.worklist_capacity, work.stamp, counters, counters + 1, counters + 2, counters + 3};
  const unsigned long long initial[4] = {0, source_count, 0, 0};
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(work.counters, initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  // Sources are already in the first slots (queue 0 is the worklist's start).
  TRELLIS_CUDA_CHECK(cudaMemsetAsync(work.worklist + source_count, 0xff,
                                     (work.worklist_capacity - source_count) * sizeof(NodeId), stream));
  DeviceSearch s = search;
  unsigned long long* relaxed = work.relaxed;
  void* args[] = {&s, &list, &relaxed};
  // Cooperative only for the guarantee that every block is resident: a
  // spinning block must never wait for one that has not started.
  TRELLIS_CUDA_CHECK(
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(spfa_kernel), blocks, kThreads, args, 0, stream));
  unsigned long long overflow = 0;
  TRELLIS_CUDA_CHECK(cudaMemcpyAsync(&overflow, counters + 3, sizeof overflow, cudaMemcpyDeviceToHost, stream));
  TRELLIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return overflow == 0;
}

}  // namespace trellis::graph::cuda
