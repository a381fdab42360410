// One round of frontier Bellman-Ford: each node of this round's frontier
// list relaxes its out-edges; a head whose distance drops is appended to the
// next round's list, once. Distances are the float bits as uint:
// non-negative floats order as their bits, so atomicMin on the bits is the
// float minimum, and the least fixpoint of d[v] = min fl(d[u] + w'(u,v))
// comes out bit for bit as Dijkstra's (include/trellis/graph/sssp.hpp). A
// distance read while another invocation lowers it is only stale: the
// lowering puts the node in a list.
//
// Within a round a workgroup follows the heads it lowered for up to
// `local_hops` more hops through two lists in shared memory, so a round
// advances the search many edges where one dispatch's fixed cost would
// otherwise buy one. A local entry carries the distance its node was
// lowered to, and relaxes with it (never with a cached read of `distance`);
// it is dropped only where that distance has since been lowered again, by
// a relaxation that listed the node itself. Heads lowered at the last hop,
// or beyond a local list's room, go to the next round's list.
//
// Three lists rotate: round r reads list r % 3, appends to the next, and
// empties the one after (read by the previous round), so consecutive rounds
// need no step between them. The dispatch is indirect: appending grows the
// next list's workgroup count, which starts at 1, so every round runs at
// least one workgroup (the one that empties a list) and rounds past the
// fixpoint cost one workgroup each.
#version 450

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer RowOffsets { uint row_offsets[]; };
layout(std430, binding = 1) readonly buffer Heads { int heads[]; };
layout(std430, binding = 2) readonly buffer Weights { float weights[]; };
layout(std430, binding = 3) readonly buffer NodeCost { float node_cost[]; };
layout(std430, binding = 4) buffer Distance { uint distance[]; };
// queued[v]: the last round v was appended for (0: none this search).
layout(std430, binding = 5) buffer Queued { uint queued[]; };
// Three lists of up to `nodes` entries: list l at l * nodes.
layout(std430, binding = 6) buffer Frontiers { uint frontiers[]; };
// bellman_ford.cpp's state words: [4 l, 4 l + 3) list l's workgroup counts
// (the indirect dispatch's), [12 + l] list l's length, [16 + 2 slot] the
// nodes appended in round slot of this submission, [17 + 2 slot] the edges
// it relaxed.
layout(std430, binding = 7) buffer State { uint state[]; };

layout(push_constant) uniform Arguments {
  uint nodes;
  uint has_cost;
  uint round;  // of the search, from 1: round 1's list holds the sources
  uint slot;   // of the round in this submission
  uint max_groups_x;
  uint local_hops;
} args;

#define LOCAL_CAPACITY 1024

shared uint relaxed_here;
shared uint appended_here;
// Two local lists of (node, the distance bits it was lowered to).
shared uvec2 local_nodes[2][LOCAL_CAPACITY];
shared uint local_count[2];

// v's distance dropped to bits in this round: into the next round's list,
// unless it is there already.
void append(uint v) {
  const uint next = (args.round % 3);
  if (atomicExchange(queued[v], args.round + 1) == args.round + 1) return;
  const uint at = atomicAdd(state[12 + next], 1);
  frontiers[next * args.nodes + at] = v;
  // Entry `at` opens a new block of 256: one more workgroup next round.
  if (at % 256 == 0 && at != 0 && at / 256 < args.max_groups_x) atomicAdd(state[4 * next], 1);
  atomicAdd(appended_here, 1);
}

// Relaxes u's out-edges from distance `from`; a lowered head goes to local
// list `into`, or to the next round's list when `last` or that list is full.
void relax(uint u, float from, uint into, bool last) {
  const uint begin = row_offsets[u];
  const uint end = row_offsets[u + 1];
  atomicAdd(relaxed_here, end - begin);
  for (uint k = begin; k < end; ++k) {
    const uint v = uint(heads[k]);
    // precise: w' = fl(w + cost[v]) and fl(d[u] + w'), each rounded on its own.
    precise float w = weights[k];
    if (args.has_cost != 0) w = w + node_cost[v];
    precise float candidate = from + w;
    const uint bits = floatBitsToUint(candidate);
    if (bits < distance[v] && atomicMin(distance[v], bits) > bits) {
      const uint at = last ? LOCAL_CAPACITY : atomicAdd(local_count[into], 1);
      if (at < LOCAL_CAPACITY) {
        local_nodes[into][at] = uvec2(v, bits);
      } else {
        append(v);
      }
    }
  }
}

void main() {
  const uint list = (args.round - 1) % 3;
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint local = gl_LocalInvocationID.x;
  if (local == 0) {
    relaxed_here = 0;
    appended_here = 0;
    local_count[0] = 0;
    local_count[1] = 0;
    if (group == 0) {
      const uint emptied = (list + 2) % 3;
      state[12 + emptied] = 0;
      state[4 * emptied] = 1;
    }
  }
  barrier();
  const uint count = state[12 + list];
  const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * 256;
  for (uint i = group * 256 + local; i < count; i += stride) {
    const uint u = frontiers[list * args.nodes + i];
    // The sources start at 0 (the distances start unreachable).
    if (args.round == 1) atomicMin(distance[u], 0u);
    relax(u, args.round == 1 ? 0.0 : uintBitsToFloat(distance[u]), 0, args.local_hops == 0);
  }
  uint current = 0;
  for (uint hop = 1; hop <= args.local_hops; ++hop) {
    barrier();  // the current list is complete
    const uint listed = min(local_count[current], LOCAL_CAPACITY);
    if (listed == 0) break;  // uniform: every invocation read the same count
    const uint into = current ^ 1;
    for (uint i = local; i < listed; i += 256) {
      const uvec2 entry = local_nodes[current][i];
      if (distance[entry.x] >= entry.y) relax(entry.x, uintBitsToFloat(entry.y), into, hop == args.local_hops);
    }
    barrier();  // the current list is read
    if (local == 0) local_count[current] = 0;
    current = into;
  }
  barrier();
  if (local == 0) {
    if (appended_here != 0) atomicAdd(state[16 + 2 * args.slot], appended_here);
    if (relaxed_here != 0) atomicAdd(state[17 + 2 * args.slot], relaxed_here);
  }
}
