// The multigrid hierarchy on the device (cuda/multigrid_setup.cu) and its
// cycle (cuda/multigrid.cu). multigrid.cpp drives the setup level by level:
// the transfers and the Galerkin operators are built on the device from the
// finest matrix there, bit for bit as the cpu backend builds them on the
// host; the host keeps the meshes, the constraint flags, the eigenvalue
// estimates' tridiagonal matrices and the coarsest level's factors.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "banded_lu.hpp"
#include "multigrid_smoother.hpp"
#include "multigrid_transfer.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/multigrid.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid::detail {

// Node extents of a level's mesh, 1 on the axes it lacks.
using LevelExtents = std::array<std::int32_t, 3>;

// The transfer between a level and the next coarser one, as the device
// builds it: both extents, the 1-D interpolation of every fine index per
// axis (the identity on axes the mesh lacks), and both levels' constraint
// flags on the device.
struct DeviceTransferInput {
  LevelExtents fine{1, 1, 1};
  LevelExtents coarse{1, 1, 1};
  std::array<std::vector<AxisWeights>, 3> axes;
  const std::uint8_t* fine_constrained = nullptr;    // device, one per fine node
  const std::uint8_t* coarse_constrained = nullptr;  // device, one per coarse node
};

// One level as the device cycle holds it.
template <typename T>
struct DeviceLevelParts {
  DeviceCsr<T> a;
  DeviceCsr<T> p;  // from the next coarser level; empty on the coarsest
  DeviceCsr<T> r;
  DeviceArray<std::int32_t> constrained_nodes;
  DeviceArray<T> constrained_diagonal;  // the finest level's a_ii at its constrained nodes; empty below
  DeviceArray<T> inverse_diagonal;      // empty on the coarsest
  std::vector<SmoothingStep> steps;     // empty on the coarsest
};

}  // namespace trellis::grid::detail

namespace trellis::grid::cuda {

// P (transposed = false) or R = P^T (true) of multigrid_transfer.hpp's
// prolongation, built on the device: the same entries in the same order, the
// weights multiplied in the same order (so bitwise equal to the host's P and
// transposed(P)).
template <typename T>
DeviceCsr<T> interpolation(const detail::DeviceTransferInput& transfer, bool transposed);

// C = R A P with an identity row on each constrained coarse row (coarse
// extents and flags on the device): each coarse row sums its products in the
// order the cpu Galerkin product visits them, without fused multiply-adds,
// so C equals the cpu backend's product bitwise. Empty when a row's columns
// reach further than two coarse nodes along an axis from the row's own node
// (the caller then forms it on the host).
template <typename T>
std::optional<DeviceCsr<T>> galerkin_product(const CsrView<T>& r, const CsrView<T>& a, const CsrView<T>& p,
                                             const detail::LevelExtents& coarse,
                                             const std::uint8_t* coarse_constrained);

// 1 / a_ii on free rows (duplicates summed first), 0 on constrained ones,
// into inverse_diagonal (device, a.rows). Returns the first free row whose
// diagonal is zero or not finite, or -1.
template <typename T>
std::int32_t inverse_diagonal(const CsrView<T>& a, const std::uint8_t* constrained, T* inverse_diagonal);

// a_ii (duplicates summed) at each of the nodes.
template <typename T>
DeviceArray<T> diagonal_at(const CsrView<T>& a, const DeviceArray<std::int32_t>& nodes);

// The Lanczos tridiagonal matrix of D^-1/2 A D^-1/2 (multigrid.cpp's
// estimate_lambda_max, the same start vector and steps) on the device:
// alpha its diagonal, beta beside it. Dot products are the device's fixed
// tree reductions, so alpha and beta equal the host's to rounding.
template <typename T>
void lanczos_tridiagonal(const CsrView<T>& a, const T* inverse_diagonal, std::int32_t steps, std::vector<double>& alpha,
                         std::vector<double>& beta);

// The setup functions' explicit instantiations (cuda/multigrid_setup.cu, or
// the stand-ins of a build without CUDA).
#define TRELLIS_GRID_MULTIGRID_SETUP(T)                                                                             \
  template DeviceCsr<T> interpolation<T>(const detail::DeviceTransferInput&, bool);                                 \
  template std::optional<DeviceCsr<T>> galerkin_product<T>(const CsrView<T>&, const CsrView<T>&, const CsrView<T>&, \
                                                           const detail::LevelExtents&, const std::uint8_t*);       \
  template std::int32_t inverse_diagonal<T>(const CsrView<T>&, const std::uint8_t*, T*);                            \
  template DeviceArray<T> diagonal_at<T>(const CsrView<T>&, const DeviceArray<std::int32_t>&);                      \
  template void lanczos_tridiagonal<T>(const CsrView<T>&, const T*, std::int32_t, std::vector<double>&,             \
                                       std::vector<double>&);

template <typename T>
class MultigridCycle {
 public:
  // levels[0] is the finest. The coarsest level is solved by a Jacobi CG
  // (BiCGStab when its matrix is not symmetric) on the device to a relative
  // residual of 1e-12 until set_coarse_solve gives host LU factors. Throws
  // BackendUnavailable without CUDA.
  MultigridCycle(std::vector<detail::DeviceLevelParts<T>> levels, Cycle kind);
  ~MultigridCycle();
  MultigridCycle(const MultigridCycle&) = delete;
  MultigridCycle& operator=(const MultigridCycle&) = delete;

  // lu: the coarsest matrix's host factors (they must outlive this), or null
  // for the Krylov solve; coarse_symmetric picks CG or BiCGStab there.
  void set_coarse_solve(const detail::BandedLu* lu, bool coarse_symmetric);

  // x <- x + B (b - A x) on device vectors, enqueued on stream; a direct
  // coarse solve waits for the stream once per visit of the coarsest level.
  // Not reentrant (the levels' work vectors are shared).
  void cycle(const T* b, T* x, Stream stream) const;
  // The finest matrix as a device operator, without a diagonal.
  const DeviceLinearOperator<T>& finest_operator() const;
  // Level l's matrix on the device.
  const DeviceCsr<T>& level_matrix(std::size_t l) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trellis::grid::cuda
