// Correctly rounded products and sums the compiler may not fuse into a
// multiply-add: device kernels that must round as the host reference does
// (and so match it bitwise) spell their arithmetic with these.
#pragma once

namespace trellis::grid::cuda {

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

}  // namespace trellis::grid::cuda
