// Grid kernels, declared once; each backend folder defines them in its own
// namespace with these exact signatures. Pointers live in the backend's memory
// space (host for reference and cpu, device for cuda); host backends ignore
// the stream.
#pragma once

#include <functional>

#include "trellis/core/csr.hpp"
#include "trellis/core/stream.hpp"
#include "norm_terms.hpp"
#include "trellis/grid/operators.hpp"
#include "trellis/grid/dia.hpp"
#include "trellis/grid/solvers.hpp"

#define TRELLIS_GRID_DECLARE_SPMV(T) \
  void spmv(T alpha, const ::trellis::CsrView<T>& a, const T* x, T beta, T* y, ::trellis::Stream stream)

#define TRELLIS_GRID_DECLARE_ALL_KERNELS \
  TRELLIS_GRID_DECLARE_SPMV(float);      \
  TRELLIS_GRID_DECLARE_SPMV(double)

// out[node] = self(i) * u[node] + neighbour(i) * u[node + d * stride] with i = (node / stride) % extent the node's
// index along the atom's axis and spacings that axis' h_0..h_{N+1}; the neighbour term is skipped when i + d leaves
// 0..extent-1.
#define TRELLIS_GRID_DECLARE_APPLY_ATOM(T)                                                                     \
  void apply_atom(::trellis::grid::AtomKind kind, const T* spacings, std::int32_t extent, std::int32_t stride, \
                  std::int32_t nodes, const T* u, T* out, ::trellis::Stream stream)
// Sum of weight(node) * u[node] * v[node] in double over nodes[0..count) or, when nodes is null, over every node; the
// result is returned to the host.
#define TRELLIS_GRID_DECLARE_WEIGHTED_DOT(T)                                                  \
  double weighted_dot(const ::trellis::grid::NodeWeights<T>& weights, const T* u, const T* v, \
                      const std::int32_t* nodes, std::int32_t count, ::trellis::Stream stream)
// max |u[node]| over nodes[0..count) or, when nodes is null, over 0..count-1; 0 for none, NaN when any is NaN.
#define TRELLIS_GRID_DECLARE_MAX_ABS(T) \
  double max_abs(const T* u, const std::int32_t* nodes, std::int32_t count, ::trellis::Stream stream)
#define TRELLIS_GRID_DECLARE_OPERATOR_KERNELS \
  TRELLIS_GRID_DECLARE_APPLY_ATOM(float);     \
  TRELLIS_GRID_DECLARE_APPLY_ATOM(double)
#define TRELLIS_GRID_DECLARE_NORM_KERNELS    \
  TRELLIS_GRID_DECLARE_WEIGHTED_DOT(float);  \
  TRELLIS_GRID_DECLARE_WEIGHTED_DOT(double); \
  TRELLIS_GRID_DECLARE_MAX_ABS(float);       \
  TRELLIS_GRID_DECLARE_MAX_ABS(double)
// Y = alpha * A * X + beta * Y with X (cols x right_hand_sides) and Y (rows x right_hand_sides) column-major, leading
// dimensions cols and rows; Y unread when beta is 0.
#define TRELLIS_GRID_DECLARE_SPMM(T)                                                                          \
  void spmm(T alpha, const ::trellis::CsrView<T>& a, const T* x, std::int32_t right_hand_sides, T beta, T* y, \
            ::trellis::Stream stream)
// y = alpha * A * x + beta * y on a DIA matrix, diagonals added in ascending offset order; y unread when beta is 0.
#define TRELLIS_GRID_DECLARE_DIA_SPMV(T) \
  void dia_spmv(T alpha, const ::trellis::grid::DiaView<T>& a, const T* x, T beta, T* y, ::trellis::Stream stream)
#define TRELLIS_GRID_DECLARE_SPMM_DIA_KERNELS \
  TRELLIS_GRID_DECLARE_SPMM(float);           \
  TRELLIS_GRID_DECLARE_SPMM(double);          \
  TRELLIS_GRID_DECLARE_DIA_SPMV(float);       \
  TRELLIS_GRID_DECLARE_DIA_SPMV(double)
// Krylov vector kernels for the host drivers in solvers.cpp (reference, cpu): dots accumulate in double, a null
// diagonal means no preconditioner (z = r); the semantics of each are documented in reference/vector_ops.cpp.
#define TRELLIS_GRID_DECLARE_VECTOR_OPS(T)                                                                             \
  double dot(std::int32_t n, const T* x, const T* y);                                                                  \
  void dot_pair(std::int32_t n, const T* t, const T* s, double* sums);                                                 \
  void initial_residual(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* sums);                      \
  void axpy(std::int32_t n, double alpha, const T* x, T* y);                                                           \
  void cg_update_residual(std::int32_t n, double alpha, const T* q, const T* diagonal, T* r, double* sums);            \
  void cg_step(std::int32_t n, double alpha, double beta, const T* diagonal, const T* r, T* p, T* x);                  \
  void bicgstab_direction(std::int32_t n, double beta, double omega, const T* r, const T* v, const T* diagonal, T* p); \
  double bicgstab_half_step(std::int32_t n, double alpha, const T* v, const T* diagonal, T* r, T* s_hat);              \
  void bicgstab_step(std::int32_t n, double alpha, double omega, const T* p, const T* s_hat, const T* t,               \
                     const T* r_hat, T* r, T* x, double* sums)
// Multigrid kernels of the host cycle (reference, cpu): residual r = b - A x; smoothing_step d = alpha * d + beta *
// D^-1 r then x += d (D^-1 given as inverse_diagonal, zero on rows the smoother leaves alone); xpay p = z + beta * p;
// galerkin_product C = R A P with each row's columns ascending and no duplicates.
#define TRELLIS_GRID_DECLARE_MULTIGRID_KERNELS(T)                                                                    \
  void residual(const ::trellis::CsrView<T>& a, const T* b, const T* x, T* r);                                       \
  void smoothing_step(std::int32_t n, double alpha, double beta, const T* inverse_diagonal, const T* r, T* d, T* x); \
  void xpay(std::int32_t n, const T* z, double beta, T* p);                                                          \
  ::trellis::CsrMatrix<T> galerkin_product(const ::trellis::CsrView<T>& r, const ::trellis::CsrView<T>& a,           \
                                           const ::trellis::CsrView<T>& p)
// Defines them for one backend from its templates residual_of, smoothing_step_of, xpay_of and galerkin_of (same
// arguments).
#define TRELLIS_GRID_DEFINE_MULTIGRID_KERNELS(T)                                                                      \
  void residual(const ::trellis::CsrView<T>& a, const T* b, const T* x, T* r) { residual_of(a, b, x, r); }            \
  void smoothing_step(std::int32_t n, double alpha, double beta, const T* inverse_diagonal, const T* r, T* d, T* x) { \
    smoothing_step_of(n, alpha, beta, inverse_diagonal, r, d, x);                                                     \
  }                                                                                                                   \
  void xpay(std::int32_t n, const T* z, double beta, T* p) { xpay_of(n, z, beta, p); }                                \
  ::trellis::CsrMatrix<T> galerkin_product(const ::trellis::CsrView<T>& r, const ::trellis::CsrView<T>& a,            \
                                           const ::trellis::CsrView<T>& p) {                                          \
    return galerkin_of(r, a, p);                                                                                      \
  }
// Whole Krylov solves on the device (cuda): stop is filled, stopped_because is left to the caller; csr_diagonal writes
// A's diagonal (duplicates summed).
#define TRELLIS_GRID_DECLARE_DEVICE_SOLVERS(T)                                                                    \
  ::trellis::grid::SolveResult cg(const ::trellis::grid::DeviceLinearOperator<T>& op, const T* b, T* x,           \
                                  const ::trellis::grid::SolverOptions& options, ::trellis::Stream stream);       \
  ::trellis::grid::SolveResult bicgstab(const ::trellis::grid::DeviceLinearOperator<T>& op, const T* b, T* x,     \
                                        const ::trellis::grid::SolverOptions& options, ::trellis::Stream stream); \
  void csr_diagonal(const ::trellis::CsrView<T>& a, T* diagonal, ::trellis::Stream stream)
// Multigrid drivers on the device (cuda), the state read after every iteration: stationary runs iterate (x <- x + B (b
// - A x), one cycle) as the iteration with op giving the residual; flexible_cg is CG preconditioned by precondition (z
// = B r) with the flexible beta r_k+1.(z_k+1 - z_k) / r_k.z_k. stop is filled, stopped_because left to the caller.
#define TRELLIS_GRID_DECLARE_DEVICE_CYCLE_SOLVERS(T)                                                                   \
  ::trellis::grid::SolveResult stationary(const ::trellis::grid::DeviceLinearOperator<T>& op,                          \
                                          const std::function<void(T*, ::trellis::Stream)>& iterate, const T* b, T* x, \
                                          const ::trellis::grid::SolverOptions& options, ::trellis::Stream stream);    \
  ::trellis::grid::SolveResult flexible_cg(const ::trellis::grid::DeviceLinearOperator<T>& op,                         \
                                           const std::function<void(const T*, T*, ::trellis::Stream)>& precondition,   \
                                           const T* b, T* x, const ::trellis::grid::SolverOptions& options,            \
                                           ::trellis::Stream stream)

namespace trellis::grid::reference {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
TRELLIS_GRID_DECLARE_VECTOR_OPS(float);
TRELLIS_GRID_DECLARE_VECTOR_OPS(double);
TRELLIS_GRID_DECLARE_OPERATOR_KERNELS;
TRELLIS_GRID_DECLARE_NORM_KERNELS;
TRELLIS_GRID_DECLARE_SPMM_DIA_KERNELS;
TRELLIS_GRID_DECLARE_MULTIGRID_KERNELS(float);
TRELLIS_GRID_DECLARE_MULTIGRID_KERNELS(double);
}  // namespace trellis::grid::reference
namespace trellis::grid::cpu {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
TRELLIS_GRID_DECLARE_VECTOR_OPS(float);
TRELLIS_GRID_DECLARE_VECTOR_OPS(double);
TRELLIS_GRID_DECLARE_OPERATOR_KERNELS;
TRELLIS_GRID_DECLARE_NORM_KERNELS;
TRELLIS_GRID_DECLARE_SPMM_DIA_KERNELS;
TRELLIS_GRID_DECLARE_MULTIGRID_KERNELS(float);
TRELLIS_GRID_DECLARE_MULTIGRID_KERNELS(double);
}  // namespace trellis::grid::cpu
namespace trellis::grid::cuda {
TRELLIS_GRID_DECLARE_ALL_KERNELS;
TRELLIS_GRID_DECLARE_DEVICE_SOLVERS(float);
TRELLIS_GRID_DECLARE_DEVICE_SOLVERS(double);
TRELLIS_GRID_DECLARE_DEVICE_CYCLE_SOLVERS(float);
TRELLIS_GRID_DECLARE_DEVICE_CYCLE_SOLVERS(double);
TRELLIS_GRID_DECLARE_OPERATOR_KERNELS;
TRELLIS_GRID_DECLARE_NORM_KERNELS;
TRELLIS_GRID_DECLARE_SPMM_DIA_KERNELS;
}  // namespace trellis::grid::cuda
