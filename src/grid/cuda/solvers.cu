// CG and BiCGStab on the GPU with every scalar on the device, and the
// multigrid drivers built from the same parts: cycles as the iteration
// (stationary) and CG preconditioned by a cycle (flexible_cg).
//
// The host only enqueues: the operator's apply, fused vector kernels that
// also leave per-block partial sums, and one-block "scalar" kernels that add
// those partials in a fixed order and update rho, alpha, beta, omega, the
// residual norm, the history entry and the status in a SolverState in device
// memory. The host reads that state (pinned copy + stream sync) only every
// check_every iterations; once the device has stopped (converged or broken
// down) every later kernel sees the status and does nothing, so the result
// does not depend on check_every. The residual history is written to a
// device array and downloaded once at the end.
//
// Reductions are deterministic: the grid size depends on n only (at most
// kMaxBlocks blocks, grid-stride loops), each block reduces with
// cub::BlockReduce (fixed tree), and one block adds the block sums in a fixed
// order; there are no floating-point atomics, so a run repeats bit for bit.
//
// Memory traffic per CG iteration with Jacobi (n-vectors of T; z = D^-1 r is
// never stored, the diagonal d is read instead):
//   q = A p                          the apply (SpMV: matrix, p, write q)
//   p.q                              read p, q                     2R
//   r -= alpha q; r.r, r.z           read r, q, d; write r         3R 1W
//   x += alpha p; p = z + beta p     read x, p, r, d; write x, p   4R 2W
// that is 9 reads + 3 writes besides the apply (7 + 3 without Jacobi),
// against 13 + 4 for unfused axpy/dot/scale calls: at 256^3 in fp64 (134 MB
// a vector) the vector traffic is 1.6 GB an iteration, less than the 7-point
// SpMV's (measured in bench/results/grid-2026-11-29.md). A BiCGStab
// iteration with Jacobi does two applies and
// 17 reads + 5 writes (direction 4R 1W, r_hat.v 2R, s 3R 2W, t.s and t.t 2R,
// update of x and r with r_hat.r 6R 2W).
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "../kernels.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;  // about one full wave of 256-thread blocks on an H200
constexpr int kMaxSums = 3;       // sums one fused kernel produces at most
constexpr std::int32_t kRunning = 0;
// History entries allocated up front; beyond this it grows (rarely: only
// for max_iterations above a million).
constexpr std::int32_t kHistoryUpFront = 1 << 20;

// Everything the iteration decides, resident on the device.
struct SolverState {
  double rho;  // cg: r.D^-1 r; bicgstab: r_hat.r
  double alpha;
  double beta;
  double omega;
  double threshold;  // relative_tolerance * ||b||
  double rhs_norm;
  double initial_residual;
  double s_norm;  // bicgstab: ||s|| of the current iteration
  double final_residual;
  std::int32_t iteration;  // completed iterations
  std::int32_t status;     // kRunning or a SolverStop
  std::int32_t bad_diagonal;
};

__host__ __device__ constexpr std::int32_t code(SolverStop stop) { return static_cast<std::int32_t>(stop); }

using BlockReduce = cub::BlockReduce<double, kThreads>;

int blocks_for(std::int32_t n) {
  const std::int64_t wanted = (static_cast<std::int64_t>(n) + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, kMaxBlocks));
}

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ bool is_finite(double value) { return isfinite(value); }

template <typename T>
__device__ __forceinline__ T precondition(T value, const T* diagonal, std::int64_t i) {
  return diagonal == nullptr ? value : value / diagonal[i];
}

// Block sums of K per-thread values into partials[j * kMaxBlocks + block].
template <int K>
__device__ void store_block_sums(const double (&values)[K], double* partials,
                                 typename BlockReduce::TempStorage& storage) {
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const double total = BlockReduce(storage).Sum(values[j]);
    if (threadIdx.x == 0) partials[j * kMaxBlocks + blockIdx.x] = total;
    __syncthreads();  // storage is reused
  }
}

// In a one-block kernel: the K totals of `blocks` block sums, valid in thread 0.
template <int K>
__device__ void sum_partials(const double* partials, int blocks, double (&totals)[K],
                             typename BlockReduce::TempStorage& storage) {
#pragma unroll
  for (int j = 0; j < K; ++j) {
    double sum = 0;
    for (int block = threadIdx.x; block < blocks; block += kThreads) sum += partials[j * kMaxBlocks + block];
    totals[j] = BlockReduce(storage).Sum(sum);
    __syncthreads();
  }
}

// ---- kernels shared by both solvers -------------------------------------

template <typename T>
__global__ void __launch_bounds__(kThreads) check_diagonal(std::int32_t n, const T* diagonal, SolverState* state) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T d = diagonal[i];
    // Every writer stores the same value: no atomics needed.
    if (!(d != T(0)) || !is_finite(static_cast<double>(d))) state->bad_diagonal = 1;
  }
}

// On entry r holds A x: r = b - A x; z = D^-1 r unless z is null;
// partial sums {r.r, r.z, b.b}. Unguarded: it also computes the final residual.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    initial_residual(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* partials) {
  __shared__ typename BlockReduce::TempStorage storage;
  double sums[3] = {0, 0, 0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T residual = b[i] - r[i];
    r[i] = residual;
    sums[0] += static_cast<double>(residual) * residual;
    sums[2] += static_cast<double>(b[i]) * b[i];
    if (z != nullptr) {
      const T preconditioned = precondition(residual, diagonal, i);
      z[i] = preconditioned;
      sums[1] += static_cast<double>(residual) * preconditioned;
    }
  }
  store_block_sums(sums, partials, storage);
}

// The decision before the first iteration, as check_start in solvers.cpp.
__global__ void __launch_bounds__(kThreads)
    start(const double* partials, int blocks, double tolerance, SolverState* state, double* history) {
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[3];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double rr = totals[0];
  const double rz = totals[1];
  const double bb = totals[2];
  const double residual = sqrt(rr);
  state->rhs_norm = sqrt(bb);
  state->initial_residual = residual;
  state->threshold = tolerance * sqrt(bb);
  state->rho = rz;
  state->alpha = 1;
  state->omega = 1;
  state->beta = 0;
  state->iteration = 0;
  history[0] = residual;
  std::int32_t status = kRunning;
  if (!is_finite(bb))
    status = code(SolverStop::non_finite_input);
  else if (state->bad_diagonal != 0)
    status = code(SolverStop::unusable_preconditioner);
  else if (bb == 0)
    status = code(SolverStop::zero_rhs);
  else if (!is_finite(rr) || !is_finite(rz))
    status = code(SolverStop::non_finite_input);
  else if (residual <= state->threshold)
    status = code(SolverStop::converged);
  else if (rz == 0)
    status = code(SolverStop::rho_breakdown);
  state->status = status;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    dot(std::int32_t n, const T* x, const T* y, double* partials, const SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double sums[1] = {0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) sums[0] += static_cast<double>(x[i]) * y[i];
  store_block_sums(sums, partials, storage);
}

// Partial sums {u.v, u.w}: {t.s, t.t} for BiCGStab, {r.z, r.z_previous}
// for flexible CG.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    dot_pair(std::int32_t n, const T* u, const T* v, const T* w, double* partials, const SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double sums[2] = {0, 0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const double ui = u[i];
    sums[0] += ui * v[i];
    sums[1] += ui * w[i];
  }
  store_block_sums(sums, partials, storage);
}

// Explicit ||b - A x|| from initial_residual's partials.
__global__ void __launch_bounds__(kThreads) final_residual(const double* partials, int blocks, SolverState* state) {
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[1];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x == 0) state->final_residual = sqrt(totals[0]);
}

// ---- CG -------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads) cg_alpha(const double* partials, int blocks, SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[1];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double pq = totals[0];
  if (!is_finite(pq)) {
    state->status = code(SolverStop::non_finite_residual);
  } else if (!(pq > 0)) {
    state->status = code(SolverStop::not_positive_definite);
  } else {
    const double alpha = state->rho / pq;
    if (is_finite(alpha))
      state->alpha = alpha;
    else
      state->status = code(SolverStop::non_finite_residual);
  }
}

// r -= alpha q; partial sums {r.r, r.D^-1 r}.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    cg_update_residual(std::int32_t n, const T* __restrict__ q, const T* __restrict__ diagonal, T* __restrict__ r,
                       double* partials, const SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  const auto alpha = static_cast<T>(state->alpha);
  double sums[2] = {0, 0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T residual = r[i] - alpha * q[i];
    r[i] = residual;
    sums[0] += static_cast<double>(residual) * residual;
    sums[1] += static_cast<double>(residual) * precondition(residual, diagonal, i);
  }
  store_block_sums(sums, partials, storage);
}

// Ends iteration k's scalars: history, stop test, beta.
__global__ void __launch_bounds__(kThreads)
    cg_beta(const double* partials, int blocks, SolverState* state, double* history, std::int32_t k) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[2];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double rr = totals[0];
  const double rz = totals[1];
  const double residual = sqrt(rr);
  state->iteration = k;
  history[k] = residual;
  if (!is_finite(rr) || !is_finite(rz)) {
    state->status = code(SolverStop::non_finite_residual);
  } else if (residual <= state->threshold) {
    state->status = code(SolverStop::converged);
  } else if (rz == 0) {
    state->status = code(SolverStop::rho_breakdown);
  } else {
    state->beta = rz / state->rho;
    state->rho = rz;
  }
}

// x += alpha p (iteration k completed), then p = D^-1 r + beta p unless the
// solve stopped at k.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    cg_step(std::int32_t n, const T* __restrict__ diagonal, const T* __restrict__ r, T* __restrict__ p,
            T* __restrict__ x, const SolverState* state, std::int32_t k) {
  if (state->iteration != k) return;
  const auto alpha = static_cast<T>(state->alpha);
  if (state->status != kRunning) {
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] += alpha * p[i];
    return;
  }
  const auto beta = static_cast<T>(state->beta);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T direction = p[i];
    x[i] += alpha * direction;
    p[i] = precondition(r[i], diagonal, i) + beta * direction;
  }
}

// ---- BiCGStab -------------------------------------------------------------

// p_hat = D^-1 (r - beta omega v) + beta p_hat.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    bicgstab_direction(std::int32_t n, const T* __restrict__ r, const T* __restrict__ v, const T* __restrict__ diagonal,
                       T* __restrict__ p_hat, const SolverState* state) {
  if (state->status != kRunning) return;
  const auto beta = static_cast<T>(state->beta);
  const auto beta_omega = static_cast<T>(state->beta * state->omega);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    p_hat[i] = precondition(r[i] - beta_omega * v[i], diagonal, i) + beta * p_hat[i];
  }
}

__global__ void __launch_bounds__(kThreads) bicgstab_alpha(const double* partials, int blocks, SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[1];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double rv = totals[0];
  if (!is_finite(rv)) {
    state->status = code(SolverStop::non_finite_residual);
  } else if (rv == 0) {
    state->status = code(SolverStop::alpha_breakdown);
  } else {
    const double alpha = state->rho / rv;
    if (is_finite(alpha))
      state->alpha = alpha;
    else
      state->status = code(SolverStop::alpha_breakdown);
  }
}

// s = r - alpha v into r; s_hat = D^-1 s when there is a diagonal (s_hat is
// r itself otherwise); partial sum s.s.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    bicgstab_half_step(std::int32_t n, const T* __restrict__ v, const T* __restrict__ diagonal, T* r, T* s_hat,
                       double* partials, const SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  const auto alpha = static_cast<T>(state->alpha);
  double sums[1] = {0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T s = r[i] - alpha * v[i];
    r[i] = s;
    if (diagonal != nullptr) s_hat[i] = s / diagonal[i];
    sums[0] += static_cast<double>(s) * s;
  }
  store_block_sums(sums, partials, storage);
}

// Stops at the half step when ||s|| is small enough.
__global__ void __launch_bounds__(kThreads)
    bicgstab_check_s(const double* partials, int blocks, SolverState* state, double* history, std::int32_t k) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[1];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double ss = totals[0];
  const double s_norm = sqrt(ss);
  state->s_norm = s_norm;
  if (!is_finite(ss)) {
    state->status = code(SolverStop::non_finite_residual);
  } else if (s_norm <= state->threshold) {
    state->status = code(SolverStop::converged);
    state->iteration = k;
    history[k] = s_norm;
  }
}

// omega = t.s / t.t; when it is unusable the half step ends the solve.
__global__ void __launch_bounds__(kThreads)
    bicgstab_omega(const double* partials, int blocks, SolverState* state, double* history, std::int32_t k) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[2];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double ts = totals[0];
  const double tt = totals[1];
  const double omega = ts / tt;
  if (!(tt > 0) || !is_finite(omega) || omega == 0) {
    state->status = code(SolverStop::omega_breakdown);
    state->iteration = k;
    history[k] = state->s_norm;
  } else {
    state->omega = omega;
  }
}

// Running: x += alpha p_hat + omega s_hat; r = s - omega t (s is in r);
// partial sums {r.r, r_hat.r}. Stopped at iteration k's half step: only
// x += alpha p_hat. s_hat may alias r, so neither is __restrict__.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    bicgstab_step(std::int32_t n, const T* __restrict__ p_hat, const T* s_hat, const T* __restrict__ t,
                  const T* __restrict__ r_hat, T* r, T* __restrict__ x, double* partials, const SolverState* state,
                  std::int32_t k) {
  const auto alpha = static_cast<T>(state->alpha);
  if (state->status != kRunning) {
    if (state->iteration != k) return;
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] += alpha * p_hat[i];
    return;
  }
  __shared__ typename BlockReduce::TempStorage storage;
  const auto omega = static_cast<T>(state->omega);
  double sums[2] = {0, 0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T s = r[i];
    x[i] += alpha * p_hat[i] + omega * s_hat[i];
    const T residual = s - omega * t[i];
    r[i] = residual;
    sums[0] += static_cast<double>(residual) * residual;
    sums[1] += static_cast<double>(r_hat[i]) * residual;
  }
  store_block_sums(sums, partials, storage);
}

__global__ void __launch_bounds__(kThreads)
    bicgstab_finish(const double* partials, int blocks, SolverState* state, double* history, std::int32_t k) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[2];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double rr = totals[0];
  const double rhat_r = totals[1];
  const double residual = sqrt(rr);
  state->iteration = k;
  history[k] = residual;
  if (!is_finite(rr) || !is_finite(rhat_r)) {
    state->status = code(SolverStop::non_finite_residual);
  } else if (residual <= state->threshold) {
    state->status = code(SolverStop::converged);
  } else if (rhat_r == 0) {
    state->status = code(SolverStop::rho_breakdown);
  } else {
    state->beta = (rhat_r / state->rho) * (state->alpha / state->omega);
    state->rho = rhat_r;
  }
}

// ---- multigrid: cycles as the iteration, and flexible CG ----------------------

// Iteration k's residual norm from the partial sums of r.r; the stop test.
__global__ void __launch_bounds__(kThreads)
    residual_check(const double* partials, int blocks, SolverState* state, double* history, std::int32_t k) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[1];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  const double residual = sqrt(totals[0]);
  state->iteration = k;
  history[k] = residual;
  if (!is_finite(residual))
    state->status = code(SolverStop::non_finite_residual);
  else if (residual <= state->threshold)
    state->status = code(SolverStop::converged);
}

// x += alpha p; r -= alpha q; partial sum r.r.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    flexible_update(std::int32_t n, const T* __restrict__ p, const T* __restrict__ q, T* __restrict__ x,
                    T* __restrict__ r, double* partials, const SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  const auto alpha = static_cast<T>(state->alpha);
  double sums[1] = {0};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    x[i] += alpha * p[i];
    const T residual = r[i] - alpha * q[i];
    r[i] = residual;
    sums[0] += static_cast<double>(residual) * residual;
  }
  store_block_sums(sums, partials, storage);
}

// beta = (r.z - r.z_previous) / rho, then rho = r.z (beta 0 on the first
// direction, where z_previous is zero).
__global__ void __launch_bounds__(kThreads) flexible_beta(const double* partials, int blocks, SolverState* state) {
  if (state->status != kRunning) return;
  __shared__ typename BlockReduce::TempStorage storage;
  double totals[2];
  sum_partials(partials, blocks, totals, storage);
  if (threadIdx.x != 0) return;
  state->beta = state->iteration == 0 ? 0.0 : (totals[0] - totals[1]) / state->rho;
  state->rho = totals[0];
}

// p = z + beta p.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    flexible_direction(std::int32_t n, const T* __restrict__ z, T* __restrict__ p, const SolverState* state) {
  if (state->status != kRunning) return;
  const auto beta = static_cast<T>(state->beta);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) p[i] = z[i] + beta * p[i];
}

// ---- diagonal extraction ----------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(kThreads) extract_diagonal(CsrView<T> a, T* diagonal) {
  for (std::int64_t row = first_index(); row < a.rows; row += grid_stride()) {
    T sum = 0;
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      if (a.col_indices[k] == row) sum += a.values[k];
    }
    diagonal[row] = sum;
  }
}

// ---- host side ----------------------------------------------------------------

// The host's window on the device state: a pinned copy, refreshed by read().
class PinnedState {
 public:
  PinnedState() { TRELLIS_CUDA_CHECK(cudaMallocHost(&host_, sizeof(SolverState))); }
  ~PinnedState() { (void)cudaFreeHost(host_); }
  PinnedState(const PinnedState&) = delete;
  PinnedState& operator=(const PinnedState&) = delete;

  // The one host round trip: copy and wait.
  const SolverState& read(const SolverState* device_state, Stream stream) {
    TRELLIS_CUDA_CHECK(cudaMemcpyAsync(host_, device_state, sizeof(SolverState), cudaMemcpyDeviceToHost, stream));
    TRELLIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return *host_;
  }

 private:
  SolverState* host_ = nullptr;
};

// What both drivers share: the state, the partial sums, the history, and the
// steps before the first and after the last iteration.
template <typename T>
class DeviceSolve {
 public:
  DeviceSolve(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options, Stream stream)
      : op_(op),
        b_(b),
        x_(x),
        options_(options),
        stream_(stream),
        n_(op.size),
        blocks_(blocks_for(op.size)),
        state_(1),
        partials_(static_cast<std::size_t>(kMaxSums) * kMaxBlocks),
        history_(static_cast<std::size_t>(std::min(options.max_iterations, kHistoryUpFront)) + 1) {}

  std::int32_t n() const { return n_; }
  int blocks() const { return blocks_; }
  SolverState* state() { return state_.data(); }
  double* partials() { return partials_.data(); }

  // r = b - A x, z = D^-1 r (z may be r_hat with no diagonal), and the
  // start decision; returns whether to iterate.
  bool begin(const T* diagonal, T* r, T* z) {
    state_.fill_zero(stream_);
    if (op_.diagonal != nullptr) {
      TRELLIS_LAUNCH(check_diagonal<T>, blocks_, kThreads, 0, stream_, n_, op_.diagonal, state());
    }
    op_.apply(x_, r, stream_);
    TRELLIS_LAUNCH(initial_residual<T>, blocks_, kThreads, 0, stream_, n_, b_, diagonal, r, z, partials());
    TRELLIS_LAUNCH(start, 1, kThreads, 0, stream_, partials(), blocks_, options_.relative_tolerance, state(),
                   history_.data());
    return pinned_.read(state(), stream_).status == kRunning;
  }

  // The history array with room for entry k.
  double* history_for(std::int32_t k) {
    if (static_cast<std::size_t>(k) >= history_.size()) {
      const std::size_t limit = static_cast<std::size_t>(options_.max_iterations) + 1;
      DeviceArray<double> larger(std::min(limit, 2 * history_.size()));
      device::copy_on_device(larger.data(), history_.data(), history_.bytes(), stream_);
      device::synchronize(stream_);  // the old array is freed next; rare (past kHistoryUpFront)
      history_ = std::move(larger);
    }
    return history_.data();
  }

  // After iteration k: reads the state now; true to stop (the device has
  // stopped, or SolverOptions::progress, called every check_every
  // iterations with entry k of the history, returned false).
  bool stopped(std::int32_t k) {
    if (pinned_.read(state(), stream_).status != kRunning) return true;
    if (!options_.progress || k % options_.check_every != 0) return false;
    double residual = 0;
    device::copy_to_host(&residual, history_.data() + k, sizeof residual, stream_);
    device::synchronize(stream_);
    interrupted_ = !options_.progress(k, residual);
    return interrupted_;
  }

  // Every check_every iterations and at the last: stopped(k).
  bool stopped_after(std::int32_t k) {
    if (k % options_.check_every != 0 && k != options_.max_iterations) return false;
    return stopped(k);
  }

  // x = 0 for b = 0, the explicit residual (scratch: any n-vector), the
  // history; one synchronisation.
  SolveResult finish(T* scratch) {
    const SolverState last = pinned_.read(state(), stream_);
    const auto stop = last.status != kRunning ? static_cast<SolverStop>(last.status)
                      : interrupted_          ? SolverStop::interrupted
                                              : SolverStop::max_iterations;
    if (stop == SolverStop::zero_rhs) device::fill_zero(x_, sizeof(T) * static_cast<std::size_t>(n_), stream_);
    op_.apply(x_, scratch, stream_);
    TRELLIS_LAUNCH(initial_residual<T>, blocks_, kThreads, 0, stream_, n_, b_, static_cast<const T*>(nullptr), scratch,
                   static_cast<T*>(nullptr), partials());
    TRELLIS_LAUNCH(final_residual, 1, kThreads, 0, stream_, partials(), blocks_, state());
    SolveResult result;
    result.residual_history.resize(static_cast<std::size_t>(last.iteration) + 1);
    device::copy_to_host(result.residual_history.data(), history_.data(),
                         sizeof(double) * result.residual_history.size(), stream_);
    const SolverState& final_state = pinned_.read(state(), stream_);
    result.stop = stop;
    result.converged = stop == SolverStop::converged || stop == SolverStop::zero_rhs;
    result.iterations = final_state.iteration;
    result.rhs_norm = final_state.rhs_norm;
    result.initial_residual = final_state.initial_residual;
    result.final_residual = final_state.final_residual;
    return result;
  }

 private:
  const DeviceLinearOperator<T>& op_;
  const T* b_;
  T* x_;
  SolverOptions options_;
  Stream stream_;
  std::int32_t n_;
  int blocks_;
  DeviceArray<SolverState> state_;
  DeviceArray<double> partials_;
  DeviceArray<double> history_;
  PinnedState pinned_;
  bool interrupted_ = false;  // progress returned false
};

template <typename T>
SolveResult device_cg(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options,
                      Stream stream) {
  DeviceSolve<T> solve(op, b, x, options, stream);
  const std::int32_t n = solve.n();
  const int blocks = solve.blocks();
  const T* diagonal = op.diagonal;
  DeviceArray<T> r(static_cast<std::size_t>(n));
  DeviceArray<T> p(static_cast<std::size_t>(n));
  DeviceArray<T> q(static_cast<std::size_t>(n));
  SolverState* state = solve.state();
  double* partials = solve.partials();

  if (solve.begin(diagonal, r.data(), p.data())) {
    for (std::int32_t k = 1; k <= options.max_iterations; ++k) {
      double* history = solve.history_for(k);
      op.apply(p.data(), q.data(), stream);
      TRELLIS_LAUNCH(dot<T>, blocks, kThreads, 0, stream, n, p.data(), q.data(), partials, state);
      TRELLIS_LAUNCH(cg_alpha, 1, kThreads, 0, stream, partials, blocks, state);
      TRELLIS_LAUNCH(cg_update_residual<T>, blocks, kThreads, 0, stream, n, q.data(), diagonal, r.data(), partials,
                     state);
      TRELLIS_LAUNCH(cg_beta, 1, kThreads, 0, stream, partials, blocks, state, history, k);
      TRELLIS_LAUNCH(cg_step<T>, blocks, kThreads, 0, stream, n, diagonal, r.data(), p.data(), x, state, k);
      if (solve.stopped_after(k)) break;
    }
  }
  return solve.finish(q.data());
}

template <typename T>
SolveResult device_bicgstab(const DeviceLinearOperator<T>& op, const T* b, T* x, const SolverOptions& options,
                            Stream stream) {
  DeviceSolve<T> solve(op, b, x, options, stream);
  const std::int32_t n = solve.n();
  const auto length = static_cast<std::size_t>(n);
  const int blocks = solve.blocks();
  const T* diagonal = op.diagonal;
  DeviceArray<T> r(length);
  DeviceArray<T> r_hat(length);
  DeviceArray<T> p_hat(length);
  DeviceArray<T> v(length);
  DeviceArray<T> t(length);
  DeviceArray<T> s_hat_storage(diagonal != nullptr ? length : 0);
  T* s_hat = diagonal != nullptr ? s_hat_storage.data() : r.data();
  p_hat.fill_zero(stream);  // the first direction update reads p_hat and v
  v.fill_zero(stream);
  SolverState* state = solve.state();
  double* partials = solve.partials();

  // r_hat = r: the initial residual kernel writes it as "z" without a diagonal.
  if (solve.begin(nullptr, r.data(), r_hat.data())) {
    for (std::int32_t k = 1; k <= options.max_iterations; ++k) {
      double* history = solve.history_for(k);
      TRELLIS_LAUNCH(bicgstab_direction<T>, blocks, kThreads, 0, stream, n, r.data(), v.data(), diagonal, p_hat.data(),
                     state);
      op.apply(p_hat.data(), v.data(), stream);
      TRELLIS_LAUNCH(dot<T>, blocks, kThreads, 0, stream, n, r_hat.data(), v.data(), partials, state);
      TRELLIS_LAUNCH(bicgstab_alpha, 1, kThreads, 0, stream, partials, blocks, state);
      TRELLIS_LAUNCH(bicgstab_half_step<T>, blocks, kThreads, 0, stream, n, v.data(), diagonal, r.data(), s_hat,
                     partials, state);
      TRELLIS_LAUNCH(bicgstab_check_s, 1, kThreads, 0, stream, partials, blocks, state, history, k);
      op.apply(s_hat, t.data(), stream);
      TRELLIS_LAUNCH(dot_pair<T>, blocks, kThreads, 0, stream, n, t.data(), r.data(), t.data(), partials, state);
      TRELLIS_LAUNCH(bicgstab_omega, 1, kThreads, 0, stream, partials, blocks, state, history, k);
      TRELLIS_LAUNCH(bicgstab_step<T>, blocks, kThreads, 0, stream, n, p_hat.data(), s_hat, t.data(), r_hat.data(),
                     r.data(), x, partials, state, k);
      TRELLIS_LAUNCH(bicgstab_finish, 1, kThreads, 0, stream, partials, blocks, state, history, k);
      if (solve.stopped_after(k)) break;
    }
  }
  return solve.finish(t.data());
}

// A cycle costs dozens of launches and a stream wait at the coarsest
// level, so the multigrid drivers read the state after every iteration
// instead of running cycles past the stop.
template <typename T>
SolveResult device_stationary(const DeviceLinearOperator<T>& op, const std::function<void(T*, Stream)>& iterate,
                              const T* b, T* x, const SolverOptions& options, Stream stream) {
  DeviceSolve<T> solve(op, b, x, options, stream);
  const std::int32_t n = solve.n();
  const int blocks = solve.blocks();
  DeviceArray<T> r(static_cast<std::size_t>(n));
  DeviceArray<T> z(static_cast<std::size_t>(n));  // r again: the start test wants r.z > 0
  if (solve.begin(nullptr, r.data(), z.data())) {
    for (std::int32_t k = 1; k <= options.max_iterations; ++k) {
      double* history = solve.history_for(k);
      iterate(x, stream);
      op.apply(x, r.data(), stream);
      TRELLIS_LAUNCH(initial_residual<T>, blocks, kThreads, 0, stream, n, b, static_cast<const T*>(nullptr), r.data(),
                     static_cast<T*>(nullptr), solve.partials());
      TRELLIS_LAUNCH(residual_check, 1, kThreads, 0, stream, solve.partials(), blocks, solve.state(), history, k);
      if (solve.stopped(k)) break;
    }
  }
  return solve.finish(r.data());
}

template <typename T>
SolveResult device_flexible_cg(const DeviceLinearOperator<T>& op,
                               const std::function<void(const T*, T*, Stream)>& precondition, const T* b, T* x,
                               const SolverOptions& options, Stream stream) {
  DeviceSolve<T> solve(op, b, x, options, stream);
  const std::int32_t n = solve.n();
  const auto length = static_cast<std::size_t>(n);
  const int blocks = solve.blocks();
  DeviceArray<T> r(length), z(length), z_previous(length), p(length), q(length);
  z_previous.fill_zero(stream);
  p.fill_zero(stream);  // the first direction is z + 0 p
  SolverState* state = solve.state();
  double* partials = solve.partials();
  auto next_direction = [&] {
    precondition(r.data(), z.data(), stream);
    TRELLIS_LAUNCH(dot_pair<T>, blocks, kThreads, 0, stream, n, r.data(), z.data(), z_previous.data(), partials, state);
    TRELLIS_LAUNCH(flexible_beta, 1, kThreads, 0, stream, partials, blocks, state);
    TRELLIS_LAUNCH(flexible_direction<T>, blocks, kThreads, 0, stream, n, z.data(), p.data(), state);
  };
  if (solve.begin(nullptr, r.data(), z.data())) {
    next_direction();
    for (std::int32_t k = 1; k <= options.max_iterations; ++k) {
      double* history = solve.history_for(k);
      op.apply(p.data(), q.data(), stream);
      TRELLIS_LAUNCH(dot<T>, blocks, kThreads, 0, stream, n, p.data(), q.data(), partials, state);
      TRELLIS_LAUNCH(cg_alpha, 1, kThreads, 0, stream, partials, blocks, state);
      TRELLIS_LAUNCH(flexible_update<T>, blocks, kThreads, 0, stream, n, p.data(), q.data(), x, r.data(), partials,
                     state);
      TRELLIS_LAUNCH(residual_check, 1, kThreads, 0, stream, partials, blocks, state, history, k);
      if (solve.stopped(k)) break;
      std::swap(z, z_previous);
      next_direction();
    }
  }
  return solve.finish(q.data());
}

}  // namespace

SolveResult cg(const DeviceLinearOperator<float>& op, const float* b, float* x, const SolverOptions& options,
               Stream stream) {
  return device_cg(op, b, x, options, stream);
}
SolveResult cg(const DeviceLinearOperator<double>& op, const double* b, double* x, const SolverOptions& options,
               Stream stream) {
  return device_cg(op, b, x, options, stream);
}
SolveResult bicgstab(const DeviceLinearOperator<float>& op, const float* b, float* x, const SolverOptions& options,
                     Stream stream) {
  return device_bicgstab(op, b, x, options, stream);
}
SolveResult bicgstab(const DeviceLinearOperator<double>& op, const double* b, double* x, const SolverOptions& options,
                     Stream stream) {
  return device_bicgstab(op, b, x, options, stream);
}

SolveResult stationary(const DeviceLinearOperator<float>& op, const std::function<void(float*, Stream)>& iterate,
                       const float* b, float* x, const SolverOptions& options, Stream stream) {
  return device_stationary(op, iterate, b, x, options, stream);
}
SolveResult stationary(const DeviceLinearOperator<double>& op, const std::function<void(double*, Stream)>& iterate,
                       const double* b, double* x, const SolverOptions& options, Stream stream) {
  return device_stationary(op, iterate, b, x, options, stream);
}
SolveResult flexible_cg(const DeviceLinearOperator<float>& op,
                        const std::function<void(const float*, float*, Stream)>& precondition, const float* b, float* x,
                        const SolverOptions& options, Stream stream) {
  return device_flexible_cg(op, precondition, b, x, options, stream);
}
SolveResult flexible_cg(const DeviceLinearOperator<double>& op,
                        const std::function<void(const double*, double*, Stream)>& precondition, const double* b,
                        double* x, const SolverOptions& options, Stream stream) {
  return device_flexible_cg(op, precondition, b, x, options, stream);
}

void csr_diagonal(const CsrView<float>& a, float* diagonal, Stream stream) {
  if (a.rows > 0) TRELLIS_LAUNCH(extract_diagonal<float>, blocks_for(a.rows), kThreads, 0, stream, a, diagonal);
}
void csr_diagonal(const CsrView<double>& a, double* diagonal, Stream stream) {
  if (a.rows > 0) TRELLIS_LAUNCH(extract_diagonal<double>, blocks_for(a.rows), kThreads, 0, stream, a, diagonal);
}

}  // namespace trellis::grid::cuda
