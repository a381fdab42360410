// Grid kernels, declared once; each backend folder defines them in its own
// namespace with these exact signatures. Pointers live in the backend's memory
// space (host for reference and cpu, device for cuda); host backends ignore
// the stream.
#pragma once

#include "trellis/core/csr.hpp"
#include "trellis/core/stream.hpp"

#define TRELLIS_GRID_DECLARE_SPMV(T) \
  void spmv(T alpha, const ::trellis::CsrView<T>& a, const T* x, T beta, T* y, ::trellis::Stream stream)

#define TRELLIS_GRID_DECLARE_ALL_KERNELS \
  TRELLIS_GRID_DECLARE_SPMV(float);      \
  TRELLIS_GRID_DECLARE_SPMV(double)

namespace trellis::grid::reference {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
}
namespace trellis::grid::cpu {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
}
namespace trellis::grid::cuda {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
}
