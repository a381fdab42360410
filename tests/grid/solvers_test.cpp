// CG and BiCGStab on every backend against reference: convergence to the
// tolerance (recurrence and explicit residual), fp64 solutions within 1e-10
// of reference's, iteration counts within a few, bitwise repeatable runs,
// and every way a solve can stop early.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/solvers.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

namespace trellis::grid {
namespace {

using testing::max_abs;
using testing::max_difference;

enum class Method { cg, bicgstab };

template <typename T>
struct Triplets {
  std::vector<std::int32_t> rows;
  std::vector<ColumnIndex> cols;
  std::vector<T> values;
  void add(std::int32_t row, std::int32_t col, double value) {
    rows.push_back(row);
    cols.push_back(col);
    values.push_back(static_cast<T>(value));
  }
  CsrMatrix<T> matrix(std::int32_t n) const { return csr_from_triplets<T>(n, n, rows, cols, values); }
};

// Tridiagonal [-1 2 -1], Dirichlet ends.
template <typename T>
CsrMatrix<T> laplacian_1d(std::int32_t n) {
  Triplets<T> t;
  for (std::int32_t i = 0; i < n; ++i) {
    if (i > 0) t.add(i, i - 1, -1);
    t.add(i, i, 2);
    if (i + 1 < n) t.add(i, i + 1, -1);
  }
  return t.matrix(n);
}

// [-1 1 ...]: the Neumann Laplacian, singular (constants are its null space).
template <typename T>
CsrMatrix<T> neumann_laplacian_1d(std::int32_t n) {
  Triplets<T> t;
  for (std::int32_t i = 0; i < n; ++i) {
    double diagonal = 0;
    if (i > 0) t.add(i, i - 1, -1), diagonal += 1;
    if (i + 1 < n) t.add(i, i + 1, -1), diagonal += 1;
    t.add(i, i, diagonal);
  }
  return t.matrix(n);
}

// 5-point, Dirichlet boundary.
template <typename T>
CsrMatrix<T> laplacian_2d(std::int32_t nx, std::int32_t ny) {
  Triplets<T> t;
  for (std::int32_t j = 0; j < ny; ++j) {
    for (std::int32_t i = 0; i < nx; ++i) {
      const std::int32_t row = i + nx * j;
      if (j > 0) t.add(row, row - nx, -1);
      if (i > 0) t.add(row, row - 1, -1);
      t.add(row, row, 4);
      if (i + 1 < nx) t.add(row, row + 1, -1);
      if (j + 1 < ny) t.add(row, row + nx, -1);
    }
  }
  return t.matrix(nx * ny);
}

// A = S (B^T B + n I) S with B dense uniform in [-1, 1]; S = I, or a
// diagonal scaling over two decades so that Jacobi has work to do.
template <typename T>
CsrMatrix<T> random_spd(std::int32_t n, bool scaled, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  std::uniform_real_distribution<double> exponent(-1.0, 1.0);
  std::vector<double> b(static_cast<std::size_t>(n) * n);
  for (double& e : b) e = entry(rng);
  std::vector<double> scale(static_cast<std::size_t>(n), 1.0);
  if (scaled) {
    for (double& s : scale) s = std::pow(10.0, exponent(rng));
  }
  Triplets<T> t;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = 0; j < n; ++j) {
      double sum = i == j ? n : 0.0;
      for (std::int32_t k = 0; k < n; ++k) sum += b[k * n + i] * b[k * n + j];
      t.add(i, j, scale[i] * sum * scale[j]);
    }
  }
  return t.matrix(n);
}

// -Laplace(u) + w . grad(u) on the unit square, central diffusion and
// first-order upwind convection in a rotating flow w = peclet * (y - 1/2,
// 1/2 - x): non-symmetric, diagonal varying from node to node.
template <typename T>
CsrMatrix<T> convection_diffusion(std::int32_t nx, std::int32_t ny, double peclet) {
  Triplets<T> t;
  const double h = 1.0 / (std::max(nx, ny) + 1);
  for (std::int32_t j = 0; j < ny; ++j) {
    for (std::int32_t i = 0; i < nx; ++i) {
      const std::int32_t row = i + nx * j;
      const double wx = peclet * ((j + 1) * h - 0.5) * h;
      const double wy = peclet * (0.5 - (i + 1) * h) * h;
      double west = -1 - std::max(wx, 0.0);
      double east = -1 + std::min(wx, 0.0);
      double south = -1 - std::max(wy, 0.0);
      double north = -1 + std::min(wy, 0.0);
      const double diagonal = 4 + std::abs(wx) + std::abs(wy);
      if (j > 0) t.add(row, row - nx, south);
      if (i > 0) t.add(row, row - 1, west);
      t.add(row, row, diagonal);
      if (i + 1 < nx) t.add(row, row + 1, east);
      if (j + 1 < ny) t.add(row, row + nx, north);
    }
  }
  return t.matrix(nx * ny);
}

template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-scale, scale);
  std::vector<T> v(n);
  for (T& e : v) e = static_cast<T>(value(rng));
  return v;
}

template <typename T>
struct Solved {
  SolveResult result;
  std::vector<T> x;
};

// One solve on backend: host operator and vectors for reference and cpu,
// everything resident on the device for cuda.
template <typename T>
Solved<T> solve(Method method, Backend backend, const CsrMatrix<T>& a, Preconditioner preconditioner,
                const std::vector<T>& b, std::vector<T> x, const SolverOptions& options) {
  Solved<T> solved;
  if (backend == Backend::cuda) {
    DeviceCsr<T> device_a(a);
    DeviceCsrOperator<T> op(device_a, preconditioner);
    auto device_b = DeviceArray<T>::from_host(b);
    auto device_x = DeviceArray<T>::from_host(x);
    solved.result = method == Method::cg ? cg(op.op(), device_b, device_x, options)
                                         : bicgstab(op.op(), device_b, device_x, options);
    solved.x = device_x.to_host();
  } else {
    HostLinearOperator<T> op = csr_operator(a, preconditioner, backend);
    solved.result = method == Method::cg ? cg(op, b, x, options, backend) : bicgstab(op, b, x, options, backend);
    solved.x = std::move(x);
  }
  return solved;
}

template <typename T>
auto bits(const std::vector<T>& v) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::vector<Bits> out;
  for (T e : v) out.push_back(std::bit_cast<Bits>(e));
  return out;
}

struct Case {
  std::string name;
  Method method;
  CsrMatrix<double> a;
  Preconditioner preconditioner;
};

std::vector<Case> double_cases() {
  using P = Preconditioner;
  std::vector<Case> all;
  all.push_back({"cg 1-D laplacian 64", Method::cg, laplacian_1d<double>(64), P::none});
  all.push_back({"cg 1-D laplacian 64 jacobi", Method::cg, laplacian_1d<double>(64), P::jacobi});
  all.push_back({"cg 2-D laplacian 20x17 jacobi", Method::cg, laplacian_2d<double>(20, 17), P::jacobi});
  all.push_back({"cg 3-D laplacian 10x9x8", Method::cg, laplacian_7point<double>(10, 9, 8), P::none});
  all.push_back({"cg 3-D laplacian 10x9x8 jacobi", Method::cg, laplacian_7point<double>(10, 9, 8), P::jacobi});
  all.push_back({"cg 3-D laplacian 40x40x40 jacobi", Method::cg, laplacian_7point<double>(40, 40, 40), P::jacobi});
  all.push_back({"cg random spd 40", Method::cg, random_spd<double>(40, false, 11), P::none});
  all.push_back({"cg scaled random spd 40 jacobi", Method::cg, random_spd<double>(40, true, 12), P::jacobi});
  all.push_back(
      {"bicgstab convection-diffusion 24x20", Method::bicgstab, convection_diffusion<double>(24, 20, 40), P::none});
  all.push_back({"bicgstab convection-diffusion 24x20 jacobi", Method::bicgstab,
                 convection_diffusion<double>(24, 20, 40), P::jacobi});
  all.push_back({"bicgstab convection-diffusion 64x64 jacobi", Method::bicgstab,
                 convection_diffusion<double>(64, 64, 200), P::jacobi});
  all.push_back(
      {"bicgstab 3-D laplacian 10x9x8 jacobi", Method::bicgstab, laplacian_7point<double>(10, 9, 8), P::jacobi});
  all.push_back(
      {"bicgstab scaled random spd 40 jacobi", Method::bicgstab, random_spd<double>(40, true, 13), P::jacobi});
  return all;
}

class SolverIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(SolverIsEquivalentToRef, DoubleConvergesLikeReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 100;
  for (const Case& c : double_cases()) {
    SCOPED_TRACE(c.name);
    const auto n = static_cast<std::size_t>(c.a.rows);
    const std::vector<double> b = random_vector<double>(n, seed++);
    // Half the cases start from a random guess, half from zero.
    const std::vector<double> x0 = seed % 2 == 0 ? random_vector<double>(n, seed + 500) : std::vector<double>(n);
    SolverOptions options;
    options.relative_tolerance = 1e-10;
    const Solved<double> expected = solve(c.method, Backend::reference, c.a, c.preconditioner, b, x0, options);
    const Solved<double> actual = solve(c.method, GetParam(), c.a, c.preconditioner, b, x0, options);

    for (const Solved<double>* solved : {&expected, &actual}) {
      const SolveResult& r = solved->result;
      ASSERT_TRUE(r.converged) << r.stopped_because;
      EXPECT_EQ(r.stop, SolverStop::converged);
      EXPECT_GT(r.iterations, 0);
      ASSERT_EQ(r.residual_history.size(), static_cast<std::size_t>(r.iterations) + 1);
      EXPECT_DOUBLE_EQ(r.residual_history.front(), r.initial_residual);
      EXPECT_LE(r.residual_history.back(), options.relative_tolerance * r.rhs_norm);
      EXPECT_LE(r.final_residual, options.relative_tolerance * r.rhs_norm) << "explicit residual";
      EXPECT_NEAR(r.rhs_norm, std::sqrt(std::inner_product(b.begin(), b.end(), b.begin(), 0.0)), 1e-12 * r.rhs_norm);
    }
    EXPECT_NEAR(actual.result.iterations, expected.result.iterations, 3);
    EXPECT_NEAR(actual.result.initial_residual, expected.result.initial_residual,
                1e-12 * expected.result.initial_residual);

    // Tighter, so that both solutions sit at the rounding floor and can be
    // compared with each other.
    options.relative_tolerance = 1e-13;
    const Solved<double> tight_expected = solve(c.method, Backend::reference, c.a, c.preconditioner, b, x0, options);
    const Solved<double> tight_actual = solve(c.method, GetParam(), c.a, c.preconditioner, b, x0, options);
    ASSERT_TRUE(tight_expected.result.converged) << tight_expected.result.stopped_because;
    ASSERT_TRUE(tight_actual.result.converged) << tight_actual.result.stopped_because;
    EXPECT_LE(max_difference(tight_actual.x, tight_expected.x), 1e-10 * max_abs(tight_expected.x));
  }
}

TEST_P(SolverIsEquivalentToRef, FloatConverges) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  struct FloatCase {
    std::string name;
    Method method;
    CsrMatrix<float> a;
    CsrMatrix<double> a64;
  };
  std::vector<FloatCase> cases;
  cases.push_back(
      {"cg 3-D laplacian", Method::cg, laplacian_7point<float>(12, 11, 10), laplacian_7point<double>(12, 11, 10)});
  cases.push_back({"cg 2-D laplacian", Method::cg, laplacian_2d<float>(30, 20), laplacian_2d<double>(30, 20)});
  cases.push_back({"bicgstab convection-diffusion", Method::bicgstab, convection_diffusion<float>(24, 20, 40),
                   convection_diffusion<double>(24, 20, 40)});
  std::uint64_t seed = 300;
  for (const FloatCase& c : cases) {
    SCOPED_TRACE(c.name);
    const auto n = static_cast<std::size_t>(c.a.rows);
    const std::vector<double> b64 = random_vector<double>(n, seed++);
    const std::vector<float> b(b64.begin(), b64.end());
    SolverOptions options;
    options.relative_tolerance = 1e-5;
    const Solved<float> expected =
        solve(c.method, Backend::reference, c.a, Preconditioner::jacobi, b, std::vector<float>(n), options);
    const Solved<float> actual =
        solve(c.method, GetParam(), c.a, Preconditioner::jacobi, b, std::vector<float>(n), options);
    ASSERT_TRUE(expected.result.converged) << expected.result.stopped_because;
    ASSERT_TRUE(actual.result.converged) << actual.result.stopped_because;
    EXPECT_LE(actual.result.final_residual, options.relative_tolerance * actual.result.rhs_norm);
    EXPECT_NEAR(actual.result.iterations, expected.result.iterations, 3);

    // Against the fp64 solution: the error a 1e-5 residual allows on these
    // condition numbers (below 100).
    SolverOptions exact;
    exact.relative_tolerance = 1e-13;
    const Solved<double> truth =
        solve(c.method, Backend::reference, c.a64, Preconditioner::jacobi, b64, std::vector<double>(n), exact);
    const std::vector<double> x(actual.x.begin(), actual.x.end());
    EXPECT_LE(max_difference(x, truth.x), 1e-3 * max_abs(truth.x));
  }
}

TEST_P(SolverIsEquivalentToRef, RunsRepeatBitForBitWhateverCheckEvery) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> spd = laplacian_7point<double>(16, 15, 14);
  const CsrMatrix<double> general = convection_diffusion<double>(30, 30, 60);
  for (Method method : {Method::cg, Method::bicgstab}) {
    const CsrMatrix<double>& a = method == Method::cg ? spd : general;
    const auto n = static_cast<std::size_t>(a.rows);
    const std::vector<double> b = random_vector<double>(n, 41);
    SolverOptions options;
    options.check_every = 10;
    const Solved<double> first =
        solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options);
    ASSERT_TRUE(first.result.converged);
    for (std::int32_t check_every : {10, 1, 7, 100000}) {
      SCOPED_TRACE("check_every " + std::to_string(check_every));
      options.check_every = check_every;
      const Solved<double> again =
          solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options);
      EXPECT_EQ(again.result.iterations, first.result.iterations);
      EXPECT_EQ(bits(again.x), bits(first.x));
      EXPECT_EQ(bits(again.result.residual_history), bits(first.result.residual_history));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(again.result.final_residual),
                std::bit_cast<std::uint64_t>(first.result.final_residual));
    }
  }
}

// SolverOptions::progress: called every check_every iterations with the
// history's residual, changing nothing; false stops the solve there
// (interrupted, the iterates so far unchanged); an exception leaves the solver.
TEST_P(SolverIsEquivalentToRef, ProgressIsCalledAndCanStopTheSolve) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> spd = laplacian_7point<double>(16, 15, 14);
  const CsrMatrix<double> general = convection_diffusion<double>(30, 30, 60);
  for (Method method : {Method::cg, Method::bicgstab}) {
    SCOPED_TRACE(method == Method::cg ? "cg" : "bicgstab");
    const CsrMatrix<double>& a = method == Method::cg ? spd : general;
    const auto n = static_cast<std::size_t>(a.rows);
    const std::vector<double> b = random_vector<double>(n, 43);
    SolverOptions options;
    options.check_every = 3;
    const Solved<double> plain =
        solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options);
    ASSERT_TRUE(plain.result.converged);
    ASSERT_GT(plain.result.iterations, 7);
    std::vector<std::pair<std::int32_t, double>> calls;
    options.progress = [&calls](std::int32_t k, double residual) {
      calls.emplace_back(k, residual);
      return true;
    };
    const Solved<double> watched =
        solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options);
    EXPECT_EQ(bits(watched.x), bits(plain.x));
    EXPECT_EQ(watched.result.iterations, plain.result.iterations);
    ASSERT_EQ(calls.size(), static_cast<std::size_t>((plain.result.iterations - 1) / 3));
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i].first, static_cast<std::int32_t>(3 * (i + 1)));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(calls[i].second),
                std::bit_cast<std::uint64_t>(plain.result.residual_history[static_cast<std::size_t>(calls[i].first)]));
    }

    options.progress = [](std::int32_t k, double) { return k < 6; };
    const Solved<double> stopped =
        solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options);
    EXPECT_EQ(stopped.result.stop, SolverStop::interrupted);
    EXPECT_FALSE(stopped.result.converged);
    EXPECT_EQ(stopped.result.iterations, 6);
    ASSERT_EQ(stopped.result.residual_history.size(), 7u);
    for (std::size_t k = 0; k < 7; ++k) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(stopped.result.residual_history[k]),
                std::bit_cast<std::uint64_t>(plain.result.residual_history[k]));
    }
    EXPECT_NE(stopped.result.stopped_because.find("progress"), std::string::npos) << stopped.result.stopped_because;

    options.progress = [](std::int32_t, double) -> bool { throw std::runtime_error("stop here"); };
    EXPECT_THROW(solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), options),
                 std::runtime_error);
  }
}

TEST_P(SolverIsEquivalentToRef, MaxIterationsReachedIsNotConverged) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> spd = laplacian_7point<double>(12, 12, 12);
  const CsrMatrix<double> general = convection_diffusion<double>(30, 30, 60);
  for (Method method : {Method::cg, Method::bicgstab}) {
    const CsrMatrix<double>& a = method == Method::cg ? spd : general;
    const std::vector<double> b = random_vector<double>(static_cast<std::size_t>(a.rows), 5);
    const std::vector<double> x0(static_cast<std::size_t>(a.rows));
    for (std::int32_t limit : {0, 1, 4}) {
      SCOPED_TRACE("max_iterations " + std::to_string(limit));
      SolverOptions options;
      options.max_iterations = limit;
      options.check_every = 3;
      const Solved<double> expected = solve(method, Backend::reference, a, Preconditioner::jacobi, b, x0, options);
      const Solved<double> actual = solve(method, GetParam(), a, Preconditioner::jacobi, b, x0, options);
      EXPECT_FALSE(actual.result.converged);
      EXPECT_EQ(actual.result.stop, SolverStop::max_iterations);
      EXPECT_EQ(actual.result.iterations, limit);
      EXPECT_EQ(actual.result.residual_history.size(), static_cast<std::size_t>(limit) + 1);
      EXPECT_NE(actual.result.stopped_because.find("max_iterations"), std::string::npos);
      // Few iterations: the iterates still agree to rounding.
      EXPECT_LE(max_difference(actual.x, expected.x), 1e-12 * std::max(1.0, max_abs(expected.x)));
      for (std::size_t k = 0; k < expected.result.residual_history.size(); ++k) {
        EXPECT_NEAR(actual.result.residual_history[k], expected.result.residual_history[k],
                    1e-12 * expected.result.residual_history[0]);
      }
    }
  }
}

TEST_P(SolverIsEquivalentToRef, ZeroRightHandSideGivesZero) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> a = laplacian_2d<double>(9, 7);
  const auto n = static_cast<std::size_t>(a.rows);
  for (Method method : {Method::cg, Method::bicgstab}) {
    const Solved<double> solved = solve(method, GetParam(), a, Preconditioner::jacobi, std::vector<double>(n),
                                        random_vector<double>(n, 3), SolverOptions{});
    EXPECT_TRUE(solved.result.converged);
    EXPECT_EQ(solved.result.stop, SolverStop::zero_rhs);
    EXPECT_EQ(solved.result.iterations, 0);
    EXPECT_EQ(solved.result.final_residual, 0.0);
    EXPECT_EQ(solved.x, std::vector<double>(n));
  }
}

TEST_P(SolverIsEquivalentToRef, EmptySystem) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  CsrMatrix<double> a;  // 0 x 0
  for (Method method : {Method::cg, Method::bicgstab}) {
    const Solved<double> solved = solve(method, GetParam(), a, Preconditioner::jacobi, {}, {}, SolverOptions{});
    EXPECT_TRUE(solved.result.converged);
    EXPECT_EQ(solved.result.iterations, 0);
    EXPECT_EQ(solved.result.final_residual, 0.0);
    EXPECT_TRUE(solved.x.empty());
  }
}

TEST_P(SolverIsEquivalentToRef, ExactInitialGuessNeedsNoIteration) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> a = laplacian_7point<double>(6, 5, 4);
  const auto n = static_cast<std::size_t>(a.rows);
  const std::vector<double> x0 = random_vector<double>(n, 8);
  std::vector<double> b(n);
  spmv<double>(1.0, a, x0, 0.0, b, Backend::reference);  // the stencil's SpMV is bitwise equal on every backend
  for (Method method : {Method::cg, Method::bicgstab}) {
    const Solved<double> solved = solve(method, GetParam(), a, Preconditioner::jacobi, b, x0, SolverOptions{});
    EXPECT_TRUE(solved.result.converged);
    EXPECT_EQ(solved.result.iterations, 0);
    EXPECT_EQ(solved.result.initial_residual, 0.0);
    EXPECT_EQ(solved.x, x0);
  }
}

TEST_P(SolverIsEquivalentToRef, IndefiniteMatrixBreaksCg) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  // diag(1, -1): p^T A p = 0 for p = b = (1, 1).
  Triplets<double> t;
  t.add(0, 0, 1);
  t.add(1, 1, -1);
  const CsrMatrix<double> a = t.matrix(2);
  const std::vector<double> b{1, 1};
  Solved<double> solved = solve(Method::cg, GetParam(), a, Preconditioner::none, b, {0, 0}, SolverOptions{});
  EXPECT_FALSE(solved.result.converged);
  EXPECT_EQ(solved.result.stop, SolverStop::not_positive_definite) << solved.result.stopped_because;
  EXPECT_EQ(solved.result.iterations, 0);
  EXPECT_EQ(solved.x, (std::vector<double>{0, 0}));
  // With Jacobi, r^T D^-1 r = 1 - 1 = 0 at once.
  solved = solve(Method::cg, GetParam(), a, Preconditioner::jacobi, b, {0, 0}, SolverOptions{});
  EXPECT_FALSE(solved.result.converged);
  EXPECT_EQ(solved.result.stop, SolverStop::rho_breakdown) << solved.result.stopped_because;

  // A negative definite Laplacian fails in the first iteration.
  CsrMatrix<double> negative = laplacian_7point<double>(5, 5, 5);
  for (double& v : negative.values) v = -v;
  solved = solve(Method::cg, GetParam(), negative, Preconditioner::none,
                 random_vector<double>(static_cast<std::size_t>(negative.rows), 9),
                 std::vector<double>(static_cast<std::size_t>(negative.rows)), SolverOptions{});
  EXPECT_EQ(solved.result.stop, SolverStop::not_positive_definite) << solved.result.stopped_because;
  EXPECT_NE(solved.result.stopped_because.find("positive definite"), std::string::npos);
}

TEST_P(SolverIsEquivalentToRef, SingularInconsistentSystemDoesNotConverge) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  // The Neumann Laplacian's range is orthogonal to constants; b = e_0 is not.
  const CsrMatrix<double> a = neumann_laplacian_1d<double>(16);
  std::vector<double> b(16);
  b[0] = 1;
  SolverOptions options;
  options.max_iterations = 300;
  for (Method method : {Method::cg, Method::bicgstab}) {
    for (Preconditioner preconditioner : {Preconditioner::none, Preconditioner::jacobi}) {
      const Solved<double> solved = solve(method, GetParam(), a, preconditioner, b, std::vector<double>(16), options);
      EXPECT_FALSE(solved.result.converged) << solved.result.stopped_because;
      EXPECT_NE(solved.result.stop, SolverStop::converged);
      EXPECT_FALSE(solved.result.stopped_because.empty());
      // Whatever stopped it, the explicit residual says it is no solution.
      EXPECT_GT(solved.result.final_residual, 1e-3);
    }
  }
}

TEST_P(SolverIsEquivalentToRef, BicgstabBreakdowns) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  // [[0, 1], [1, 0]] with b = e_0: v = A r is orthogonal to r_hat = r.
  Triplets<double> t;
  t.add(0, 1, 1);
  t.add(1, 0, 1);
  const CsrMatrix<double> swap = t.matrix(2);
  Solved<double> solved = solve(Method::bicgstab, GetParam(), swap, Preconditioner::none, {1, 0}, {0, 0}, {});
  EXPECT_FALSE(solved.result.converged);
  EXPECT_EQ(solved.result.stop, SolverStop::alpha_breakdown) << solved.result.stopped_because;
  EXPECT_EQ(solved.result.iterations, 0);
  // Its zero diagonal makes Jacobi unusable, for both solvers.
  for (Method method : {Method::cg, Method::bicgstab}) {
    solved = solve(method, GetParam(), swap, Preconditioner::jacobi, {1, 0}, {0, 0}, {});
    EXPECT_FALSE(solved.result.converged);
    EXPECT_EQ(solved.result.stop, SolverStop::unusable_preconditioner) << solved.result.stopped_because;
    EXPECT_NE(solved.result.stopped_because.find("Jacobi"), std::string::npos);
  }
}

TEST_P(SolverIsEquivalentToRef, NonFiniteInputIsReported) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<double> a = laplacian_2d<double>(8, 8);
  const auto n = static_cast<std::size_t>(a.rows);
  for (Method method : {Method::cg, Method::bicgstab}) {
    std::vector<double> b = random_vector<double>(n, 4);
    b[17] = std::numeric_limits<double>::quiet_NaN();
    Solved<double> solved = solve(method, GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), {});
    EXPECT_FALSE(solved.result.converged);
    EXPECT_EQ(solved.result.stop, SolverStop::non_finite_input);
    EXPECT_NE(solved.result.stopped_because.find("b holds NaN"), std::string::npos) << solved.result.stopped_because;
    EXPECT_EQ(solved.result.iterations, 0);

    b[17] = 0.5;
    std::vector<double> x0(n);
    x0[3] = std::numeric_limits<double>::infinity();
    solved = solve(method, GetParam(), a, Preconditioner::none, b, x0, {});
    EXPECT_FALSE(solved.result.converged);
    EXPECT_EQ(solved.result.stop, SolverStop::non_finite_input);
    EXPECT_NE(solved.result.stopped_because.find("initial residual"), std::string::npos)
        << solved.result.stopped_because;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SolverIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

TEST(Solvers, ReferenceCgFindsKnownSolution) {
  const CsrMatrix<double> a = laplacian_1d<double>(50);
  std::vector<double> exact(50);
  for (std::size_t i = 0; i < exact.size(); ++i) exact[i] = std::sin(0.1 * static_cast<double>(i)) + 0.01 * i;
  std::vector<double> b(50);
  spmv<double>(1.0, a, exact, 0.0, b, Backend::reference);
  std::vector<double> x(50);
  SolverOptions options;
  options.relative_tolerance = 1e-14;
  const SolveResult result =
      cg(csr_operator(a, Preconditioner::none, Backend::reference), b, x, options, Backend::reference);
  ASSERT_TRUE(result.converged) << result.stopped_because;
  // In exact arithmetic CG ends within n = 50 iterations.
  EXPECT_LE(result.iterations, 60);
  EXPECT_LE(max_difference(x, exact), 1e-10);
}

TEST(Solvers, MatrixFreeOperatorMatchesCsr) {
  // The 1-D Laplacian as a lambda, summed in the CSR row order: bitwise the
  // same solve as through the assembled matrix.
  const std::int32_t n = 40;
  HostLinearOperator<double> matrix_free;
  matrix_free.size = n;
  matrix_free.apply = [n](std::span<const double> x, std::span<double> y) {
    for (std::int32_t i = 0; i < n; ++i) {
      double sum = 0;
      if (i > 0) sum += -1.0 * x[i - 1];
      sum += 2.0 * x[i];
      if (i + 1 < n) sum += -1.0 * x[i + 1];
      y[i] = sum;
    }
  };
  matrix_free.diagonal.assign(n, 2.0);
  const CsrMatrix<double> a = laplacian_1d<double>(n);
  const std::vector<double> b = random_vector<double>(n, 21);
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    for (Method method : {Method::cg, Method::bicgstab}) {
      std::vector<double> x_free(n);
      std::vector<double> x_csr(n);
      const auto csr = csr_operator(a, Preconditioner::jacobi, backend);
      const SolveResult free_result = method == Method::cg ? cg(matrix_free, b, x_free, {}, backend)
                                                           : bicgstab(matrix_free, b, x_free, {}, backend);
      const SolveResult csr_result =
          method == Method::cg ? cg(csr, b, x_csr, {}, backend) : bicgstab(csr, b, x_csr, {}, backend);
      EXPECT_TRUE(free_result.converged);
      EXPECT_EQ(free_result.iterations, csr_result.iterations);
      EXPECT_EQ(x_free, x_csr);
    }
  }
}

TEST(Solvers, CsrOperatorSumsDuplicateDiagonalEntries) {
  Triplets<double> t;
  t.add(0, 0, 1.5);
  t.add(0, 1, -1);
  t.add(0, 0, 2.5);
  t.add(1, 1, 3);
  const HostLinearOperator<double> op = csr_operator(t.matrix(2), Preconditioner::jacobi, Backend::reference);
  EXPECT_EQ(op.diagonal, (std::vector<double>{4, 3}));
  EXPECT_TRUE(csr_operator(t.matrix(2), Preconditioner::none).diagonal.empty());
}

TEST(Solvers, RejectsMismatchedSizesAndBadOptions) {
  const CsrMatrix<double> a = laplacian_1d<double>(5);
  const HostLinearOperator<double> op = csr_operator(a);
  std::vector<double> b(5);
  std::vector<double> x(5);
  std::vector<double> short_vector(4);
  EXPECT_THROW(cg(op, short_vector, x), UsageError);
  EXPECT_THROW(cg(op, b, short_vector), UsageError);
  EXPECT_THROW(bicgstab(op, short_vector, x), UsageError);
  EXPECT_THROW(bicgstab(op, b, short_vector, {}, Backend::reference), UsageError);

  HostLinearOperator<double> bad_diagonal = op;
  bad_diagonal.diagonal.resize(3);
  EXPECT_THROW(cg(bad_diagonal, b, x), UsageError);
  HostLinearOperator<double> no_apply = op;
  no_apply.apply = nullptr;
  EXPECT_THROW(bicgstab(no_apply, b, x), UsageError);
  HostLinearOperator<double> negative = op;
  negative.size = -1;
  EXPECT_THROW(cg(negative, b, x), UsageError);

  for (SolverOptions options : {SolverOptions{-1e-8, 10, 10}, SolverOptions{std::nan(""), 10, 10},
                                SolverOptions{1e-8, -1, 10}, SolverOptions{1e-8, 10, 0}}) {
    EXPECT_THROW(cg(op, b, x, options), UsageError);
    EXPECT_THROW(bicgstab(op, b, x, options), UsageError);
  }
  // Host vectors never run on cuda: that needs a device operator.
  EXPECT_THROW(cg(op, b, x, {}, Backend::cuda), UsageError);
  EXPECT_THROW(csr_operator(a, Preconditioner::jacobi, Backend::cuda), UsageError);
  CsrMatrix<double> wide = a;
  wide.cols = 6;
  EXPECT_THROW(csr_operator(wide), UsageError);

  // Device entry points check sizes before touching the device.
  DeviceLinearOperator<double> device_op;
  device_op.size = 3;
  device_op.apply = [](const double*, double*, Stream) {};
  DeviceArray<double> empty_b;
  DeviceArray<double> empty_x;
  EXPECT_THROW(cg(device_op, empty_b, empty_x), UsageError);
  EXPECT_THROW(bicgstab(device_op, empty_b, empty_x), UsageError);
  device_op.size = 0;
  device_op.apply = nullptr;
  EXPECT_THROW(cg(device_op, empty_b, empty_x), UsageError);
}

// The device-pointer entry points (memory another library owns) give the
// DeviceArray ones' bits.
TEST(Solvers, DevicePointerEntryPointsEqualDeviceArrays) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const CsrMatrix<double> a = convection_diffusion<double>(30, 30, 60);
  const auto n = static_cast<std::size_t>(a.rows);
  const std::vector<double> b = random_vector<double>(n, 44);
  const DeviceCsr<double> device_a(a);
  const DeviceCsrOperator<double> op(device_a, Preconditioner::jacobi);
  const auto device_b = DeviceArray<double>::from_host(b);
  for (Method method : {Method::cg, Method::bicgstab}) {
    DeviceArray<double> by_array(n);
    DeviceArray<double> by_pointer(n);
    by_array.fill_zero();
    by_pointer.fill_zero();
    const SolveResult want =
        method == Method::cg ? cg(op.op(), device_b, by_array) : bicgstab(op.op(), device_b, by_array);
    const SolveResult got = method == Method::cg ? cg(op.op(), device_b.data(), by_pointer.data())
                                                 : bicgstab(op.op(), device_b.data(), by_pointer.data());
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_EQ(bits(by_pointer.to_host()), bits(by_array.to_host()));
  }
  DeviceArray<double> y_array(n);
  DeviceArray<double> y_pointer(n);
  spmv(2.0, device_a, device_b, 0.0, y_array);
  spmv(2.0, device_a, device_b.data(), 0.0, y_pointer.data());
  EXPECT_EQ(bits(y_pointer.to_host()), bits(y_array.to_host()));
  EXPECT_THROW(cg<double>(op.op(), nullptr, y_pointer.data()), UsageError);
  EXPECT_THROW(spmv<double>(1.0, device_a, nullptr, 0.0, y_pointer.data()), UsageError);
}

TEST(Solvers, StopReasonsHaveNames) {
  for (SolverStop stop : {SolverStop::converged, SolverStop::zero_rhs, SolverStop::max_iterations,
                          SolverStop::non_finite_input, SolverStop::unusable_preconditioner,
                          SolverStop::not_positive_definite, SolverStop::rho_breakdown, SolverStop::alpha_breakdown,
                          SolverStop::omega_breakdown, SolverStop::non_finite_residual, SolverStop::interrupted}) {
    EXPECT_NE(to_string(stop), "unknown");
  }
}

}  // namespace
}  // namespace trellis::grid
