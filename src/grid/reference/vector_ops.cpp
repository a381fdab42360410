// Scalar vector kernels of the Krylov solvers: one loop each, in index
// order, sums accumulated in double. The oracle the cpu and cuda kernels are
// checked against. A null diagonal means no preconditioner: z = r / 1 = r.
#include "../kernels.hpp"

namespace trellis::grid::reference {
namespace {

template <typename T>
T precondition(T value, const T* diagonal, std::int32_t i) {
  return diagonal == nullptr ? value : value / diagonal[i];
}

// sum x_i y_i
template <typename T>
double dot_of(std::int32_t n, const T* x, const T* y) {
  double sum = 0;
  for (std::int32_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * y[i];
  return sum;
}

// sums = {t.s, t.t}
template <typename T>
void dot_pair_of(std::int32_t n, const T* t, const T* s, double* sums) {
  double ts = 0;
  double tt = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    ts += static_cast<double>(t[i]) * s[i];
    tt += static_cast<double>(t[i]) * t[i];
  }
  sums[0] = ts;
  sums[1] = tt;
}

// On entry r holds A x. r = b - A x; z = D^-1 r unless z is null;
// sums = {r.r, r.z (0 when z is null), b.b}.
template <typename T>
void initial_residual_of(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* sums) {
  double rr = 0;
  double rz = 0;
  double bb = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const T residual = b[i] - r[i];
    r[i] = residual;
    rr += static_cast<double>(residual) * residual;
    bb += static_cast<double>(b[i]) * b[i];
    if (z != nullptr) {
      const T preconditioned = precondition(residual, diagonal, i);
      z[i] = preconditioned;
      rz += static_cast<double>(residual) * preconditioned;
    }
  }
  sums[0] = rr;
  sums[1] = rz;
  sums[2] = bb;
}

// y += alpha x
template <typename T>
void axpy_of(std::int32_t n, double alpha, const T* x, T* y) {
  const auto a = static_cast<T>(alpha);
  for (std::int32_t i = 0; i < n; ++i) y[i] += a * x[i];
}

// CG: r -= alpha q; sums = {r.r, r.D^-1 r}
template <typename T>
void cg_update_residual_of(std::int32_t n, double alpha, const T* q, const T* diagonal, T* r, double* sums) {
  const auto a = static_cast<T>(alpha);
  double rr = 0;
  double rz = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const T residual = r[i] - a * q[i];
    r[i] = residual;
    rr += static_cast<double>(residual) * residual;
    rz += static_cast<double>(residual) * precondition(residual, diagonal, i);
  }
  sums[0] = rr;
  sums[1] = rz;
}

// CG: x += alpha p with the old p, then p = D^-1 r + beta p.
template <typename T>
void cg_step_of(std::int32_t n, double alpha, double beta, const T* diagonal, const T* r, T* p, T* x) {
  const auto a = static_cast<T>(alpha);
  const auto b = static_cast<T>(beta);
  for (std::int32_t i = 0; i < n; ++i) {
    x[i] += a * p[i];
    p[i] = precondition(r[i], diagonal, i) + b * p[i];
  }
}

// BiCGStab with p holding the preconditioned direction D^-1 p:
// p = D^-1 (r - beta omega v) + beta p.
template <typename T>
void bicgstab_direction_of(std::int32_t n, double beta, double omega, const T* r, const T* v, const T* diagonal, T* p) {
  const auto b = static_cast<T>(beta);
  const auto bw = static_cast<T>(beta * omega);
  for (std::int32_t i = 0; i < n; ++i) p[i] = precondition(r[i] - bw * v[i], diagonal, i) + b * p[i];
}

// BiCGStab: s = r - alpha v, stored in r; s_hat = D^-1 s when there is a
// diagonal (s_hat is then r itself and not written otherwise). Returns s.s.
template <typename T>
double bicgstab_half_step_of(std::int32_t n, double alpha, const T* v, const T* diagonal, T* r, T* s_hat) {
  const auto a = static_cast<T>(alpha);
  double ss = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const T s = r[i] - a * v[i];
    r[i] = s;
    if (diagonal != nullptr) s_hat[i] = s / diagonal[i];
    ss += static_cast<double>(s) * s;
  }
  return ss;
}

// BiCGStab with s in r: x += alpha p + omega s_hat; r = s - omega t;
// sums = {r.r, r_hat.r}. s_hat may be r itself (no preconditioner).
template <typename T>
void bicgstab_step_of(std::int32_t n, double alpha, double omega, const T* p, const T* s_hat, const T* t,
                      const T* r_hat, T* r, T* x, double* sums) {
  const auto a = static_cast<T>(alpha);
  const auto w = static_cast<T>(omega);
  double rr = 0;
  double rhat_r = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const T s = r[i];
    x[i] += a * p[i] + w * s_hat[i];
    const T residual = s - w * t[i];
    r[i] = residual;
    rr += static_cast<double>(residual) * residual;
    rhat_r += static_cast<double>(r_hat[i]) * residual;
  }
  sums[0] = rr;
  sums[1] = rhat_r;
}

}  // namespace

#define TRELLIS_GRID_DEFINE_VECTOR_OPS(T)                                                                       \
  double dot(std::int32_t n, const T* x, const T* y) { return dot_of(n, x, y); }                                \
  void dot_pair(std::int32_t n, const T* t, const T* s, double* sums) { dot_pair_of(n, t, s, sums); }           \
  void initial_residual(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* sums) {              \
    initial_residual_of(n, b, diagonal, r, z, sums);                                                            \
  }                                                                                                             \
  void axpy(std::int32_t n, double alpha, const T* x, T* y) { axpy_of(n, alpha, x, y); }                        \
  void cg_update_residual(std::int32_t n, double alpha, const T* q, const T* diagonal, T* r, double* sums) {    \
    cg_update_residual_of(n, alpha, q, diagonal, r, sums);                                                      \
  }                                                                                                             \
  void cg_step(std::int32_t n, double alpha, double beta, const T* diagonal, const T* r, T* p, T* x) {          \
    cg_step_of(n, alpha, beta, diagonal, r, p, x);                                                              \
  }                                                                                                             \
  void bicgstab_direction(std::int32_t n, double beta, double omega, const T* r, const T* v, const T* diagonal, \
                          T* p) {                                                                               \
    bicgstab_direction_of(n, beta, omega, r, v, diagonal, p);                                                   \
  }                                                                                                             \
  double bicgstab_half_step(std::int32_t n, double alpha, const T* v, const T* diagonal, T* r, T* s_hat) {      \
    return bicgstab_half_step_of(n, alpha, v, diagonal, r, s_hat);                                              \
  }                                                                                                             \
  void bicgstab_step(std::int32_t n, double alpha, double omega, const T* p, const T* s_hat, const T* t,        \
                     const T* r_hat, T* r, T* x, double* sums) {                                                \
    bicgstab_step_of(n, alpha, omega, p, s_hat, t, r_hat, r, x, sums);                                          \
  }

TRELLIS_GRID_DEFINE_VECTOR_OPS(float)
TRELLIS_GRID_DEFINE_VECTOR_OPS(double)

#undef TRELLIS_GRID_DEFINE_VECTOR_OPS

}  // namespace trellis::grid::reference
