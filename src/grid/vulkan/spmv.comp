// y = alpha * A * x + beta * y on a CSR matrix, one invocation per row, the
// row's products summed in storage order as the reference does. A row's
// first 8 products are all loaded before the first sum waits on them (the
// loop unrolled and guarded), so short rows keep many loads in flight; the
// buffers are restrict, which lets the driver read them through its
// read-only cache. REAL is float or double (the build compiles both);
// beta == 0 leaves y unread.
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef REAL_IS_DOUBLE
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x = 256) in;

// Row offsets narrowed to 32 bits on upload (the backend refuses larger
// matrices): 64-bit integers are an optional feature.
layout(std430, binding = 0) restrict readonly buffer RowOffsets { uint row_offsets[]; };
layout(std430, binding = 1) restrict readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) restrict readonly buffer Values { REAL values[]; };
layout(std430, binding = 3) restrict readonly buffer X { REAL x[]; };
layout(std430, binding = 4) restrict buffer Y { REAL y[]; };

layout(push_constant) uniform Arguments {
  REAL alpha;
  REAL beta;
  uint rows;
} args;

const uint kLoadsAhead = 8;

void main() {
  const uint row = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (row >= args.rows) return;
  const uint begin = row_offsets[row];
  const uint end = row_offsets[row + 1];
  // precise: each product and sum rounded on its own, never fused.
  REAL products[kLoadsAhead];
  [[unroll]] for (uint j = 0; j < kLoadsAhead; ++j) {
    precise REAL product = REAL(0);
    if (begin + j < end) product = values[begin + j] * x[columns[begin + j]];
    products[j] = product;
  }
  precise REAL sum = REAL(0);
  [[unroll]] for (uint j = 0; j < kLoadsAhead; ++j) {
    if (begin + j < end) sum += products[j];
  }
  for (uint k = begin + kLoadsAhead; k < end; ++k) sum += values[k] * x[columns[k]];
  precise REAL result = args.alpha * sum;
  if (args.beta != REAL(0)) result += args.beta * y[row];
  y[row] = result;
}
