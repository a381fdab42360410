// The multigrid cycle on the device (cuda/multigrid.cu). The host builds the
// hierarchy (multigrid.cpp: transfers, Galerkin operators, smoother data,
// coarse factors) and hands every level over once; A, P and R become device
// CSR and a cycle runs on device vectors.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "banded_lu.hpp"
#include "multigrid_smoother.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/multigrid.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid::detail {

// One level of the host hierarchy, read during the upload only.
template <typename T>
struct HostLevelView {
  const CsrMatrix<T>* a = nullptr;
  const CsrMatrix<T>* p = nullptr;  // from the next coarser level; unread on the coarsest
  const CsrMatrix<T>* r = nullptr;
  const std::vector<std::int32_t>* constrained_nodes = nullptr;
  const std::vector<T>* inverse_diagonal = nullptr;  // empty on the coarsest
  std::vector<SmoothingStep> steps;                  // empty on the coarsest
};

}  // namespace trellis::grid::detail

namespace trellis::grid::cuda {

template <typename T>
class MultigridCycle {
 public:
  // levels[0] is the finest. lu: the coarsest matrix's host factors (they
  // must outlive this), or null for a Jacobi CG (BiCGStab when the coarsest
  // matrix is not symmetric) on the device to a relative residual of 1e-12.
  // Throws BackendUnavailable without CUDA.
  MultigridCycle(const std::vector<detail::HostLevelView<T>>& levels, Cycle kind, const detail::BandedLu* lu,
                 bool coarse_symmetric);
  ~MultigridCycle();
  MultigridCycle(const MultigridCycle&) = delete;
  MultigridCycle& operator=(const MultigridCycle&) = delete;

  // x <- x + B (b - A x) on device vectors, enqueued on stream; a direct
  // coarse solve waits for the stream once per visit of the coarsest level.
  // Not reentrant (the levels' work vectors are shared).
  void cycle(const T* b, T* x, Stream stream) const;
  // The finest matrix as a device operator, without a diagonal.
  const DeviceLinearOperator<T>& finest_operator() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trellis::grid::cuda
