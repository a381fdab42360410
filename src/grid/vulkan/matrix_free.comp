// y = A x for a separable form without storing A, one invocation per node:
// separable_row of src/grid/form_kernels.hpp (the cpu and cuda fast path)
// with its pointers turned into offsets into one table buffer. REAL is float
// or double (the build compiles both).
#version 450
#ifdef REAL_IS_DOUBLE
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x = 256) in;

// program[0]: dimension; [1..3]: extents; [4..6]: strides; [7]: reach (the
// largest over the axes, at least 1); then per axis a, from 8 + 16 a: the
// offset of its half spacings in tables, of its 5-point constant table (-1:
// none), the number of coefficient terms, and per term its table's offset,
// coefficient slot and shift.
layout(std430, binding = 0) readonly buffer Program { int program[]; };
layout(std430, binding = 1) readonly buffer Tables { REAL tables[]; };
layout(std430, binding = 2) readonly buffer Coefficients { REAL coefficients[]; };
// Per node: kConstrainedNode and kNearConstrainedNode (form_kernels.hpp).
// Neighbours past the mesh's edge are checked for every row.
layout(std430, binding = 3) readonly buffer NodeFlags { uint node_flags[]; };
layout(std430, binding = 4) readonly buffer X { REAL x[]; };
layout(std430, binding = 5) writeonly buffer Y { REAL y[]; };

layout(push_constant) uniform Arguments {
  uint nodes;
  uint symmetrized;
} args;

const uint kConstrainedNode = 1;
const uint kNearConstrainedNode = 2;

// x at offset o along the axis from the five loaded (form_kernels.hpp's pick).
REAL pick(const REAL xs[5], int o) { return o >= -2 && o <= 2 ? xs[o + 2] : xs[0]; }

void main() {
  const uint row = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (row >= args.nodes) return;
  const uint flags = node_flags[row];
  if ((flags & kConstrainedNode) != 0) {
    y[row] = x[row];
    return;
  }
  const bool check_columns = args.symmetrized != 0 && (flags & kNearConstrainedNode) != 0;
  const int dim = program[0];
  const ivec3 extent = ivec3(program[1], program[2], program[3]);
  const ivec3 stride = ivec3(program[4], program[5], program[6]);
  const int reach = program[7];
  const int node = int(row);
  const int r[3] = int[3](node % extent.x, (node / extent.x) % extent.y, node / (extent.x * extent.y));
  REAL hhalf[3];
  for (int a = 0; a < 3; ++a) hhalf[a] = a < dim ? tables[program[8 + 16 * a] + r[a]] : REAL(1);
  const REAL x_row = x[row];
  // precise: each product and sum rounded on its own, as on the host.
  precise REAL sum = REAL(0);
  for (int a = 0; a < dim; ++a) {
    const int axis = 8 + 16 * a;
    const int n = extent[a];
    REAL xs[5] = REAL[5](REAL(0), REAL(0), x_row, REAL(0), REAL(0));
    for (int o = -reach; o <= reach; ++o) {
      const int j = r[a] + o;
      if (o == 0 || j < 0 || j >= n) continue;
      const int neighbour = node + o * stride[a];
      xs[o + 2] = check_columns && (node_flags[neighbour] & kConstrainedNode) != 0 ? REAL(0) : x[neighbour];
    }
    precise REAL acc = REAL(0);
    const int constant_table = program[axis + 1];
    if (constant_table >= 0) {
      for (int o = 2 - reach; o <= 2 + reach; ++o) acc += tables[constant_table + o * n + r[a]] * xs[o];
    }
    const int terms = program[axis + 2];
    for (int v = 0; v < terms; ++v) {
      const int table = program[axis + 3 + 3 * v] + r[a];
      const int slot = program[axis + 4 + 3 * v];
      const int shift = program[axis + 5 + 3 * v];
      const int coefficient = 1 + slot * int(args.nodes);
      precise REAL here = tables[table] * xs[1] + tables[table + n] * xs[2] + tables[table + 2 * n] * xs[3];
      acc += coefficients[coefficient + node] * here;
      const int p = r[a] + shift;
      if (shift != 0 && p >= 0 && p < n) {
        precise REAL there = tables[table + 3 * n] * pick(xs, shift - 1) + tables[table + 4 * n] * pick(xs, shift) +
                             tables[table + 5 * n] * pick(xs, shift + 1);
        acc += coefficients[coefficient + node + shift * stride[a]] * there;
      }
    }
    precise REAL others = REAL(1);
    for (int b = 0; b < 3; ++b) others *= b == a ? REAL(1) : hhalf[b];
    sum += others * acc;
  }
  y[row] = sum;
}
