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
#include <span>
#include <vector>

#include "banded_lu.hpp"
#include "kronecker_levels.hpp"
#include "multigrid_smoother.hpp"
#include "multigrid_transfer.hpp"
#include "packed_upload.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device.hpp"
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

// A Kronecker operator's bands and face flags on the device (kronecker_levels.hpp).
template <typename T>
class DeviceKronecker {
 public:
  explicit DeviceKronecker(const KroneckerOperator& op)
      : nodes_(op.nodes()), reach_(op.reach()), uniform_(uniform_stencil<T>(op)) {
    view_.terms = static_cast<std::int32_t>(op.terms.size());
    PackedUpload packed;
    std::array<std::size_t, 3> flags_at{};
    std::array<std::array<std::size_t, 3>, kMaxKroneckerTerms> bands_at{};
    for (std::size_t a = 0; a < 3; ++a) {
      view_.extents[a] = op.extents[a];
      flags_at[a] = packed.add<std::uint8_t>(op.constrained[a]);
    }
    for (std::size_t t = 0; t < op.terms.size(); ++t) {
      for (std::size_t a = 0; a < 3; ++a) {
        const Band& band = op.terms[t][a];
        const std::vector<T> values(band.values.begin(), band.values.end());
        bands_at[t][a] = packed.add<T>(values);
        view_.reach[t][a] = band.reach;
      }
    }
    storage_ = packed.upload();
    for (std::size_t a = 0; a < 3; ++a) view_.constrained[a] = storage_.data() + flags_at[a];
    for (std::size_t t = 0; t < op.terms.size(); ++t) {
      for (std::size_t a = 0; a < 3; ++a)
        view_.band[t][a] = reinterpret_cast<const T*>(storage_.data() + bands_at[t][a]);
    }
  }
  const KroneckerView<T>& view() const { return view_; }
  std::int32_t nodes() const { return nodes_; }
  std::int32_t reach() const { return reach_; }
  // One stencil for every free row, where the operator has one.
  const std::optional<UniformStencil<T>>& uniform() const { return uniform_; }

 private:
  std::int32_t nodes_;
  std::int32_t reach_;
  std::optional<UniformStencil<T>> uniform_;
  KroneckerView<T> view_;
  DeviceArray<unsigned char> storage_;  // the bands and face flags, packed
};

// One axis of a transfer as the device reads it: fine index i's coarse indices and weights.
struct AxisRow {
  std::int32_t coarse[2];
  double weight[2];
  std::int32_t count;
};

// One axis of R = P^T as the device reads it: the fine indices first,
// first + 1, ... (count of them, at most 3) that may interpolate from
// coarse index I, and the weight of I in each one's AxisRow (found false
// where that row holds other coarse indices only).
struct CoarseAxisRow {
  std::int32_t first;
  std::int32_t count;
  double weight[3];
  bool found[3];
};

// A transfer's extents, axes and constraint flags (device pointers).
struct TransferView {
  std::int32_t fine[3];
  std::int32_t coarse[3];
  const AxisRow* axis[3];               // per fine index
  const CoarseAxisRow* coarse_axis[3];  // per coarse index
  const std::uint8_t* fine_constrained;
  const std::uint8_t* coarse_constrained;
};

// P and R = P^T between a level and the next coarser one, applied without
// their matrices: each row's entries formed as cuda::interpolation builds
// them and summed as the device SpMV sums a row, so the results are the
// SpMV's with those matrices, bit for bit (cuda/multigrid_setup.cu).
class DeviceTransfer {
 public:
  // The flags in transfer must outlive this. Throws BackendUnavailable without CUDA.
  explicit DeviceTransfer(const DeviceTransferInput& transfer);
  const TransferView& view() const { return view_; }
  std::int32_t fine_nodes() const;
  std::int32_t coarse_nodes() const;
  // fine += P coarse, on stream.
  template <typename T>
  void prolong_add(const T* coarse, T* fine, Stream stream) const;
  // coarse = R fine, on stream.
  template <typename T>
  void restrict_to(const T* fine, T* coarse, Stream stream) const;

 private:
  TransferView view_{};
  DeviceArray<unsigned char> storage_;  // every axis's rows, packed
};

// multigrid_lines.hpp's factors of one axis on the device.
template <typename T>
struct DeviceLineFactors {
  std::int32_t stride = 1;
  std::int32_t length = 1;
  std::int32_t lines = 0;
  DeviceArray<T> lower, upper, inverse_pivot;
};

// One level as the device cycle holds it: its matrix in CSR, or (levels
// between the finest and the coarsest of a separable form) as Kronecker
// products applied without a matrix; the finest level may have both (its
// residuals from the bands, its matrix for the Krylov solver outside).
template <typename T>
struct DeviceLevelParts {
  DeviceCsr<T> a;
  std::optional<DeviceKronecker<T>> kronecker;
  std::optional<DeviceTransfer> transfer;  // to and from the next coarser level; empty on the coarsest
  DeviceArray<std::int32_t> constrained_nodes;
  DeviceArray<T> constrained_diagonal;  // the finest level's a_ii at its constrained nodes; empty below
  DeviceArray<T> inverse_diagonal;      // empty on the coarsest
  // Where every row off the mesh box's faces has the same inverse diagonal
  // (interior_value's test), that value, and the box.
  std::optional<T> interior_inverse_diagonal;
  std::int32_t dim = 1;
  LevelExtents extents{1, 1, 1};
  std::vector<SmoothingStep> steps;         // empty on the coarsest
  std::vector<DeviceLineFactors<T>> lines;  // per axis of two nodes or more (Smoother::line)
  // Smoother::gauss_seidel: 2^d colours (multigrid_colors.hpp) on a mesh of
  // extent_x x extent_y x ... nodes; 0 colours for the other smoothers.
  std::int32_t colours = 0;
  std::int32_t extent_x = 1, extent_y = 1;
};

}  // namespace trellis::grid::detail

namespace trellis::grid::cuda {

// P (transposed = false) or R = P^T (true) of multigrid_transfer.hpp's
// prolongation, built on the device: the same entries in the same order, the
// weights multiplied in the same order (so bitwise equal to the host's P and
// transposed(P)).
template <typename T>
DeviceCsr<T> interpolation(const detail::DeviceTransfer& transfer, bool transposed);

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
// into inverse_diagonal (device, a.rows), queued on the default stream with
// no wait; the least free row whose diagonal is zero or not finite lowers
// *bad_row (device) to it, which keeps its value where there is none.
template <typename T>
void inverse_diagonal(const CsrView<T>& a, const std::uint8_t* constrained, T* inverse_diagonal, int* bad_row);

// The value every row off the faces of the dim-dimensional box of extents
// nodes holds in values (device, one a node, x fastest), bit for bit, or
// nothing where two differ or the box has no such row. Waits for the device.
template <typename T>
std::optional<T> interior_value(const T* values, std::int32_t dim, const detail::LevelExtents& extents);

// multigrid_lines.hpp's factor_lines on the device, one thread a line, the
// same operations in the same order without fused multiply-adds (so the
// host's factors of the same matrix, bitwise). Returns the first free row
// whose pivot is zero or not finite, or -1.
template <typename T>
detail::DeviceLineFactors<T> line_factors(const CsrView<T>& a, const std::uint8_t* constrained, std::int32_t stride,
                                          std::int32_t length, std::int32_t& bad_row);

// a_ii (duplicates summed) at each of the nodes.
template <typename T>
DeviceArray<T> diagonal_at(const CsrView<T>& a, const DeviceArray<std::int32_t>& nodes);

// n constraint flags on the device: 1 at the nodes listed, 0 elsewhere. A
// mesh's flags go up as the list of its constrained nodes, a small part of
// the flags where they are its boundary.
DeviceArray<std::uint8_t> flags_at(std::int32_t n, std::span<const std::int32_t> nodes);

// The Lanczos tridiagonal matrix of D^-1/2 A D^-1/2 (multigrid.cpp's
// estimate_lambda_max: the same start vector, steps and stopping rule):
// alpha its diagonal, beta beside it.
struct LanczosTridiagonal {
  std::vector<double> alpha, beta;
};

// The Lanczos steps of several levels on the device with one wait, in two
// lanes that run side by side: the first level added (the finest, most of
// the work) on its own stream and work vectors, each later level queued
// behind the last on a second stream of high priority and vectors of
// other_rows (the largest of the rest). Each lane starts from what the default stream has done when
// the level is added (its matrix, its inverse diagonal). Coefficients stay
// on the device until tridiagonals() reads them all. Dot products are the
// device's fixed tree reductions, so alpha and beta equal the host's to
// rounding, and a level's are the same bits in either lane.
template <typename T>
class LanczosQueue {
 public:
  LanczosQueue(std::int32_t largest_rows, std::int32_t other_rows, std::int32_t steps, std::size_t levels);
  ~LanczosQueue();
  LanczosQueue(const LanczosQueue&) = delete;
  LanczosQueue& operator=(const LanczosQueue&) = delete;
  void add(const CsrView<T>& a, const T* inverse_diagonal);
  void add(const detail::DeviceKronecker<T>& a, const T* inverse_diagonal);  // a Kronecker level
  // One per add, in order; alpha empty where a level has no free row.
  std::vector<LanczosTridiagonal> tridiagonals() const;

 private:
  struct Lane;  // a stream, an event and work vectors (cuda/multigrid_setup.cu)
  // The lane of the next level added.
  Lane& next_lane();
  // apply: y = A x; product: a step's product in the apply's pass
  // (kronecker_lanczos_product's contract), 0 where it does not.
  template <typename Apply, typename Product>
  void queue(std::int32_t n, const Apply& apply, const Product& product, const T* inverse_diagonal);
  // The start vector's norm, then alpha and beta a step.
  std::size_t coefficients_a_level() const { return 1 + 2 * static_cast<std::size_t>(steps_); }

  std::int32_t steps_;
  std::unique_ptr<Lane> first_, rest_;
  DeviceArray<double> coefficients_;
  std::size_t added_ = 0;
};

// How far a matrix's rows are a Kronecker operator's (kronecker_describes).
enum class KroneckerMatch {
  none,        // they differ
  free_block,  // free rows on free columns: the coarse levels may be formed from op
  free_rows,   // and no free row reaches a constrained node: op applies as a's free rows
};

// Kronecker levels (cuda/kronecker.cu): y = A x with identity rows on the
// constrained nodes; r = b - A x; 1 / a_ii on free rows and 0 on
// constrained ones (returns the first free row whose diagonal is zero or
// not finite, or -1); and how far a (on the device) applied to the probe
// vector equals op within detail::kDescribesTolerance (detail::describes on
// the device, then again with the probe on the constrained nodes too).
template <typename T>
void kronecker_apply(const detail::DeviceKronecker<T>& a, const T* x, T* y, Stream stream);
// r = b - A x. zero_on_constrained: x is zero on the constrained nodes (a
// coarse level's correction), so a level with one stencil for its free rows
// may apply it a thread a row (as the Lanczos product below).
template <typename T>
void kronecker_residual(const detail::DeviceKronecker<T>& a, const T* b, const T* x, bool zero_on_constrained, T* r,
                        Stream stream);
template <typename T>
void kronecker_inverse_diagonal(const detail::DeviceKronecker<T>& a, T* inverse_diagonal, int* bad_row);
// A Lanczos step's product in the apply's pass: w = scale (A scaled) -
// beta q_previous (beta = *beta_at in T, 0 where null; the bits of the
// apply and LanczosQueue's update apart), with the partial sums of w . q
// (one a block) in partials. Returns how many partials, or 0 with nothing
// queued where they would pass capacity. scaled must be zero on the
// constrained nodes: a level with one stencil for its free rows
// (DeviceKronecker::uniform) applies it a thread a row.
template <typename T>
std::int64_t kronecker_lanczos_product(const detail::DeviceKronecker<T>& a, const T* scaled, const T* scale,
                                       const double* beta_at, const T* q_previous, const T* q, T* w, double* partials,
                                       std::int64_t capacity, Stream stream);
// One smoothing step from the residual r = b - A x, in one pass:
// d = alpha d + beta D^-1 r and x_next = x + d (x_next not x: x's
// neighbours are read while it is written); zero_on_constrained as above.
template <typename T>
void kronecker_smoothing_step(const detail::DeviceKronecker<T>& a, const T* b, const T* x, bool zero_on_constrained,
                              T alpha, T beta, const T* inverse_diagonal, T* d, T* x_next, Stream stream);
template <typename T>
KroneckerMatch kronecker_describes(const detail::DeviceKronecker<T>& op, const CsrView<T>& a);

// The setup functions' explicit instantiations (cuda/multigrid_setup.cu, or
// the stand-ins of a build without CUDA).
#define TRELLIS_GRID_MULTIGRID_SETUP(T)                                                                             \
  template DeviceCsr<T> interpolation<T>(const detail::DeviceTransfer&, bool);                                      \
  template std::optional<DeviceCsr<T>> galerkin_product<T>(const CsrView<T>&, const CsrView<T>&, const CsrView<T>&, \
                                                           const detail::LevelExtents&, const std::uint8_t*);       \
  template void inverse_diagonal<T>(const CsrView<T>&, const std::uint8_t*, T*, int*);                              \
  template std::optional<T> interior_value<T>(const T*, std::int32_t, const detail::LevelExtents&);                 \
  template DeviceArray<T> diagonal_at<T>(const CsrView<T>&, const DeviceArray<std::int32_t>&);                      \
  template detail::DeviceLineFactors<T> line_factors<T>(const CsrView<T>&, const std::uint8_t*, std::int32_t,       \
                                                        std::int32_t, std::int32_t&);                               \
  template class LanczosQueue<T>;

#define TRELLIS_GRID_KRONECKER(T)                                                                                  \
  template void kronecker_apply<T>(const detail::DeviceKronecker<T>&, const T*, T*, Stream);                       \
  template void kronecker_residual<T>(const detail::DeviceKronecker<T>&, const T*, const T*, bool, T*, Stream);    \
  template void kronecker_inverse_diagonal<T>(const detail::DeviceKronecker<T>&, T*, int*);                        \
  template std::int64_t kronecker_lanczos_product<T>(const detail::DeviceKronecker<T>&, const T*, const T*,        \
                                                     const double*, const T*, const T*, T*, double*, std::int64_t, \
                                                     Stream);                                                      \
  template void kronecker_smoothing_step<T>(const detail::DeviceKronecker<T>&, const T*, const T*, bool, T, T,     \
                                            const T*, T*, T*, Stream);                                             \
  template KroneckerMatch kronecker_describes<T>(const detail::DeviceKronecker<T>&, const CsrView<T>&);

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
  // Small factors are copied to the device and solved with there by one
  // thread, bit for bit as the host solves.
  void set_coarse_solve(const detail::BandedLu* lu, bool coarse_symmetric);

  // x <- x + B (b - A x) on device vectors, enqueued on stream; a direct
  // coarse solve with factors left on the host waits for the stream once
  // per visit of the coarsest level.
  // Not reentrant (the levels' work vectors are shared).
  // finest, when not null, replaces the finest matrix in its residuals
  // (unless that level has Kronecker bands, which describe it).
  void cycle(const T* b, T* x, Stream stream, const DeviceLinearOperator<T>* finest = nullptr) const;
  // The finest matrix as a device operator, without a diagonal.
  const DeviceLinearOperator<T>& finest_operator() const;
  // Level l's matrix on the device.
  const DeviceCsr<T>& level_matrix(std::size_t l) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trellis::grid::cuda
