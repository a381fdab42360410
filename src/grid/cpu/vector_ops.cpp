// OpenMP vector kernels of the Krylov solvers, each one fused pass over its
// vectors. Reductions are deterministic whatever the thread count: the index
// range is cut into fixed chunks, each chunk is summed on its own (SIMD
// order fixed by the code), and the chunk sums are added in chunk order.
// Element-wise arithmetic is the reference's; only the summation order of
// dot products differs from it.
#include <algorithm>
#include <array>
#include <vector>

#include "../kernels.hpp"

namespace trellis::grid::cpu {
namespace {

// Large enough to amortise scheduling, small enough to balance 16+ threads
// on a 10^6-unknown problem.
constexpr std::int32_t kChunk = 16384;

// body(begin, end) -> std::array<double, K> of sums over [begin, end);
// returns the sums over [0, n) added chunk by chunk in order.
template <std::size_t K, typename Body>
std::array<double, K> chunked_sums(std::int32_t n, Body body) {
  const std::int32_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<std::array<double, K>> partials(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::int32_t c = 0; c < chunks; ++c) {
    const std::int32_t begin = c * kChunk;
    partials[static_cast<std::size_t>(c)] = body(begin, std::min(n, begin + kChunk));
  }
  std::array<double, K> total{};
  for (const auto& partial : partials) {
    for (std::size_t k = 0; k < K; ++k) total[k] += partial[k];
  }
  return total;
}

// body(begin, end) over [0, n) in chunks, in parallel.
template <typename Body>
void chunked(std::int32_t n, Body body) {
  const std::int32_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::int32_t c = 0; c < chunks; ++c) {
    const std::int32_t begin = c * kChunk;
    body(begin, std::min(n, begin + kChunk));
  }
}

// One fused loop per kernel, instantiated with and without the Jacobi
// division so the inner loops carry no branch.
template <typename T, bool kJacobi>
T precondition(T value, const T* diagonal, std::int32_t i) {
  if constexpr (kJacobi)
    return value / diagonal[i];
  else
    return value;
}

template <typename T>
double dot_of(std::int32_t n, const T* x, const T* y) {
  return chunked_sums<1>(n, [=](std::int32_t begin, std::int32_t end) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int32_t i = begin; i < end; ++i) sum += static_cast<double>(x[i]) * y[i];
    return std::array<double, 1>{sum};
  })[0];
}

template <typename T>
void dot_pair_of(std::int32_t n, const T* t, const T* s, double* sums) {
  const auto total = chunked_sums<2>(n, [=](std::int32_t begin, std::int32_t end) {
    double ts = 0;
    double tt = 0;
#pragma omp simd reduction(+ : ts, tt)
    for (std::int32_t i = begin; i < end; ++i) {
      ts += static_cast<double>(t[i]) * s[i];
      tt += static_cast<double>(t[i]) * t[i];
    }
    return std::array<double, 2>{ts, tt};
  });
  sums[0] = total[0];
  sums[1] = total[1];
}

template <typename T, bool kJacobi>
void initial_residual_of(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* sums) {
  const auto total = chunked_sums<3>(n, [=](std::int32_t begin, std::int32_t end) {
    double rr = 0;
    double rz = 0;
    double bb = 0;
    if (z == nullptr) {
#pragma omp simd reduction(+ : rr, bb)
      for (std::int32_t i = begin; i < end; ++i) {
        const T residual = b[i] - r[i];
        r[i] = residual;
        rr += static_cast<double>(residual) * residual;
        bb += static_cast<double>(b[i]) * b[i];
      }
    } else {
#pragma omp simd reduction(+ : rr, rz, bb)
      for (std::int32_t i = begin; i < end; ++i) {
        const T residual = b[i] - r[i];
        const T preconditioned = precondition<T, kJacobi>(residual, diagonal, i);
        r[i] = residual;
        z[i] = preconditioned;
        rr += static_cast<double>(residual) * residual;
        rz += static_cast<double>(residual) * preconditioned;
        bb += static_cast<double>(b[i]) * b[i];
      }
    }
    return std::array<double, 3>{rr, rz, bb};
  });
  std::copy(total.begin(), total.end(), sums);
}

template <typename T>
void axpy_of(std::int32_t n, double alpha, const T* x, T* y) {
  const auto a = static_cast<T>(alpha);
  chunked(n, [=](std::int32_t begin, std::int32_t end) {
#pragma omp simd
    for (std::int32_t i = begin; i < end; ++i) y[i] += a * x[i];
  });
}

template <typename T, bool kJacobi>
void cg_update_residual_of(std::int32_t n, double alpha, const T* q, const T* diagonal, T* r, double* sums) {
  const auto a = static_cast<T>(alpha);
  const auto total = chunked_sums<2>(n, [=](std::int32_t begin, std::int32_t end) {
    double rr = 0;
    double rz = 0;
#pragma omp simd reduction(+ : rr, rz)
    for (std::int32_t i = begin; i < end; ++i) {
      const T residual = r[i] - a * q[i];
      r[i] = residual;
      rr += static_cast<double>(residual) * residual;
      rz += static_cast<double>(residual) * precondition<T, kJacobi>(residual, diagonal, i);
    }
    return std::array<double, 2>{rr, rz};
  });
  sums[0] = total[0];
  sums[1] = total[1];
}

template <typename T, bool kJacobi>
void cg_step_of(std::int32_t n, double alpha, double beta, const T* diagonal, const T* r, T* p, T* x) {
  const auto a = static_cast<T>(alpha);
  const auto b = static_cast<T>(beta);
  chunked(n, [=](std::int32_t begin, std::int32_t end) {
#pragma omp simd
    for (std::int32_t i = begin; i < end; ++i) {
      x[i] += a * p[i];
      p[i] = precondition<T, kJacobi>(r[i], diagonal, i) + b * p[i];
    }
  });
}

template <typename T, bool kJacobi>
void bicgstab_direction_of(std::int32_t n, double beta, double omega, const T* r, const T* v, const T* diagonal, T* p) {
  const auto b = static_cast<T>(beta);
  const auto bw = static_cast<T>(beta * omega);
  chunked(n, [=](std::int32_t begin, std::int32_t end) {
#pragma omp simd
    for (std::int32_t i = begin; i < end; ++i) {
      p[i] = precondition<T, kJacobi>(r[i] - bw * v[i], diagonal, i) + b * p[i];
    }
  });
}

template <typename T, bool kJacobi>
double bicgstab_half_step_of(std::int32_t n, double alpha, const T* v, const T* diagonal, T* r, T* s_hat) {
  const auto a = static_cast<T>(alpha);
  return chunked_sums<1>(n, [=](std::int32_t begin, std::int32_t end) {
    double ss = 0;
#pragma omp simd reduction(+ : ss)
    for (std::int32_t i = begin; i < end; ++i) {
      const T s = r[i] - a * v[i];
      r[i] = s;
      if constexpr (kJacobi) s_hat[i] = s / diagonal[i];
      ss += static_cast<double>(s) * s;
    }
    return std::array<double, 1>{ss};
  })[0];
}

// s_hat may alias r (no preconditioner): each element is read before r is
// written, and no simd pragma asserts independence here.
template <typename T>
void bicgstab_step_of(std::int32_t n, double alpha, double omega, const T* p, const T* s_hat, const T* t,
                      const T* r_hat, T* r, T* x, double* sums) {
  const auto a = static_cast<T>(alpha);
  const auto w = static_cast<T>(omega);
  const auto total = chunked_sums<2>(n, [=](std::int32_t begin, std::int32_t end) {
    double rr = 0;
    double rhat_r = 0;
    for (std::int32_t i = begin; i < end; ++i) {
      const T s = r[i];
      x[i] += a * p[i] + w * s_hat[i];
      const T residual = s - w * t[i];
      r[i] = residual;
      rr += static_cast<double>(residual) * residual;
      rhat_r += static_cast<double>(r_hat[i]) * residual;
    }
    return std::array<double, 2>{rr, rhat_r};
  });
  sums[0] = total[0];
  sums[1] = total[1];
}

}  // namespace

#define TRELLIS_GRID_DEFINE_VECTOR_OPS(T)                                                                       \
  double dot(std::int32_t n, const T* x, const T* y) { return dot_of(n, x, y); }                                \
  void dot_pair(std::int32_t n, const T* t, const T* s, double* sums) { dot_pair_of(n, t, s, sums); }           \
  void initial_residual(std::int32_t n, const T* b, const T* diagonal, T* r, T* z, double* sums) {              \
    if (diagonal != nullptr)                                                                                    \
      initial_residual_of<T, true>(n, b, diagonal, r, z, sums);                                                 \
    else                                                                                                        \
      initial_residual_of<T, false>(n, b, diagonal, r, z, sums);                                                \
  }                                                                                                             \
  void axpy(std::int32_t n, double alpha, const T* x, T* y) { axpy_of(n, alpha, x, y); }                        \
  void cg_update_residual(std::int32_t n, double alpha, const T* q, const T* diagonal, T* r, double* sums) {    \
    if (diagonal != nullptr)                                                                                    \
      cg_update_residual_of<T, true>(n, alpha, q, diagonal, r, sums);                                           \
    else                                                                                                        \
      cg_update_residual_of<T, false>(n, alpha, q, diagonal, r, sums);                                          \
  }                                                                                                             \
  void cg_step(std::int32_t n, double alpha, double beta, const T* diagonal, const T* r, T* p, T* x) {          \
    if (diagonal != nullptr)                                                                                    \
      cg_step_of<T, true>(n, alpha, beta, diagonal, r, p, x);                                                   \
    else                                                                                                        \
      cg_step_of<T, false>(n, alpha, beta, diagonal, r, p, x);                                                  \
  }                                                                                                             \
  void bicgstab_direction(std::int32_t n, double beta, double omega, const T* r, const T* v, const T* diagonal, \
                          T* p) {                                                                               \
    if (diagonal != nullptr)                                                                                    \
      bicgstab_direction_of<T, true>(n, beta, omega, r, v, diagonal, p);                                        \
    else                                                                                                        \
      bicgstab_direction_of<T, false>(n, beta, omega, r, v, diagonal, p);                                       \
  }                                                                                                             \
  double bicgstab_half_step(std::int32_t n, double alpha, const T* v, const T* diagonal, T* r, T* s_hat) {      \
    return diagonal != nullptr ? bicgstab_half_step_of<T, true>(n, alpha, v, diagonal, r, s_hat)                \
                               : bicgstab_half_step_of<T, false>(n, alpha, v, diagonal, r, s_hat);              \
  }                                                                                                             \
  void bicgstab_step(std::int32_t n, double alpha, double omega, const T* p, const T* s_hat, const T* t,        \
                     const T* r_hat, T* r, T* x, double* sums) {                                                \
    bicgstab_step_of(n, alpha, omega, p, s_hat, t, r_hat, r, x, sums);                                          \
  }

TRELLIS_GRID_DEFINE_VECTOR_OPS(float)
TRELLIS_GRID_DEFINE_VECTOR_OPS(double)

#undef TRELLIS_GRID_DEFINE_VECTOR_OPS

}  // namespace trellis::grid::cpu
