// One round of frontier Bellman-Ford: every node in the frontier relaxes its
// out-edges; a head whose distance drops joins the next frontier. Distances
// are the float bits as uint: non-negative floats order as their bits, so
// atomicMin on the bits is the float minimum, and the least fixpoint of
// d[v] = min fl(d[u] + w'(u,v)) comes out bit for bit as Dijkstra's
// (include/trellis/graph/sssp.hpp). A distance read while another invocation
// lowers it is only stale: the lowering puts the node back in the frontier.
#version 450

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer RowOffsets { uint row_offsets[]; };
layout(std430, binding = 1) readonly buffer Heads { int heads[]; };
layout(std430, binding = 2) readonly buffer Weights { float weights[]; };
layout(std430, binding = 3) readonly buffer NodeCost { float node_cost[]; };
layout(std430, binding = 4) buffer Distance { uint distance[]; };
layout(std430, binding = 5) buffer Frontier { uint frontier[]; };
layout(std430, binding = 6) buffer NextFrontier { uint next_frontier[]; };
// counters[2 * slot]: heads lowered this round; counters[2 * slot + 1]:
// edges relaxed this round.
layout(std430, binding = 7) buffer Counters { uint counters[]; };

layout(push_constant) uniform Arguments {
  uint nodes;
  uint has_cost;
  uint slot;
} args;

void main() {
  const uint u = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (u >= args.nodes || frontier[u] == 0) return;
  frontier[u] = 0;  // this buffer is the round after next's output
  const float from = uintBitsToFloat(distance[u]);
  const uint begin = row_offsets[u];
  const uint end = row_offsets[u + 1];
  atomicAdd(counters[2 * args.slot + 1], end - begin);
  uint lowered = 0;
  for (uint k = begin; k < end; ++k) {
    const int v = heads[k];
    // precise: w' = fl(w + cost[v]) and fl(d[u] + w'), each rounded on its own.
    precise float w = weights[k];
    if (args.has_cost != 0) w = w + node_cost[v];
    precise float candidate = from + w;
    const uint bits = floatBitsToUint(candidate);
    if (bits < distance[v] && atomicMin(distance[v], bits) > bits) {
      next_frontier[v] = 1;
      ++lowered;
    }
  }
  if (lowered != 0) atomicAdd(counters[2 * args.slot], lowered);
}
