// y = alpha * A * x + beta * y on a CSR matrix, one invocation per row, the
// row's products summed in storage order as the reference does. REAL is
// float or double (the build compiles both); beta == 0 leaves y unread.
#version 450
#ifdef REAL_IS_DOUBLE
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x = 256) in;

// Row offsets narrowed to 32 bits on upload (the backend refuses larger
// matrices): 64-bit integers are an optional feature.
layout(std430, binding = 0) readonly buffer RowOffsets { uint row_offsets[]; };
layout(std430, binding = 1) readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) readonly buffer Values { REAL values[]; };
layout(std430, binding = 3) readonly buffer X { REAL x[]; };
layout(std430, binding = 4) buffer Y { REAL y[]; };

layout(push_constant) uniform Arguments {
  REAL alpha;
  REAL beta;
  uint rows;
} args;

void main() {
  const uint row = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (row >= args.rows) return;
  // precise: each product and sum rounded on its own, never fused.
  precise REAL sum = REAL(0);
  for (uint k = row_offsets[row]; k < row_offsets[row + 1]; ++k) sum += values[k] * x[columns[k]];
  precise REAL result = args.alpha * sum;
  if (args.beta != REAL(0)) result += args.beta * y[row];
  y[row] = result;
}
