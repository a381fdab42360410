// An opaque CUDA stream handle usable in headers that must not include the
// CUDA runtime. It is the same type as cudaStream_t; nullptr is the default
// stream. Host backends ignore it.
#pragma once

struct CUstream_st;

namespace trellis {
// A CUDA stream (cudaStream_t); nullptr is the default stream.
using Stream = CUstream_st*;
}  // namespace trellis
