// The vector steps of preconditioned CG (the reference's vector_ops.cpp, one
// per op): each workgroup writes its partial sums, in a fixed tree order, to
// partials[group * 3 + k]; the host adds the partials in double. z = D^-1 r
// is recomputed where it is read (D the diagonal, or 1 without one).
#version 450
#ifdef REAL_IS_DOUBLE
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer B { REAL b[]; };
layout(std430, binding = 1) readonly buffer Diagonal { REAL diagonal[]; };
layout(std430, binding = 2) buffer R { REAL r[]; };
layout(std430, binding = 3) buffer P { REAL p[]; };
layout(std430, binding = 4) readonly buffer Q { REAL q[]; };
layout(std430, binding = 5) buffer X { REAL x[]; };
layout(std430, binding = 6) writeonly buffer Partials { REAL partials[]; };

const uint kInitialResidual = 0;  // r = b - r, p = z; sums r.r, r.z, b.b
const uint kDot = 1;              // sums p.q
const uint kUpdateResidual = 2;   // r -= alpha q; sums r.r, r.z
const uint kStep = 3;             // x += alpha p, then p = z + beta p
const uint kAxpy = 4;             // x += alpha p

layout(push_constant) uniform Arguments {
  REAL alpha;
  REAL beta;
  uint n;
  uint op;
  uint has_diagonal;
} args;

shared REAL sums[3][256];

REAL precondition(REAL value, uint i) { return args.has_diagonal != 0 ? value / diagonal[i] : value; }

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint local = gl_LocalInvocationID.x;
  const uint i = group * 256 + local;
  precise REAL s0 = REAL(0);
  precise REAL s1 = REAL(0);
  precise REAL s2 = REAL(0);
  if (i < args.n) {
    if (args.op == kInitialResidual) {
      precise REAL residual = b[i] - r[i];
      r[i] = residual;
      const REAL z = precondition(residual, i);
      p[i] = z;
      s0 = residual * residual;
      s1 = residual * z;
      s2 = b[i] * b[i];
    } else if (args.op == kDot) {
      s0 = p[i] * q[i];
    } else if (args.op == kUpdateResidual) {
      precise REAL residual = r[i] - args.alpha * q[i];
      r[i] = residual;
      s0 = residual * residual;
      s1 = residual * precondition(residual, i);
    } else if (args.op == kStep) {
      precise REAL xi = x[i] + args.alpha * p[i];
      x[i] = xi;
      precise REAL pi = precondition(r[i], i) + args.beta * p[i];
      p[i] = pi;
    } else if (args.op == kAxpy) {
      precise REAL xi = x[i] + args.alpha * p[i];
      x[i] = xi;
    }
  }
  if (args.op == kStep || args.op == kAxpy) return;  // uniform: the whole workgroup leaves
  sums[0][local] = s0;
  sums[1][local] = s1;
  sums[2][local] = s2;
  barrier();
  for (uint half_width = 128; half_width > 0; half_width >>= 1) {
    if (local < half_width) {
      sums[0][local] += sums[0][local + half_width];
      sums[1][local] += sums[1][local + half_width];
      sums[2][local] += sums[2][local + half_width];
    }
    barrier();
  }
  if (local == 0) {
    partials[group * 3 + 0] = sums[0][0];
    partials[group * 3 + 1] = sums[1][0];
    partials[group * 3 + 2] = sums[2][0];
  }
}
