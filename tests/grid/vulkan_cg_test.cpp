// CG on an assembled CSR matrix (cg(a, b, x, preconditioner, options,
// backend)) on vulkan against the same call on reference, Ginkgo style.
//
// Tolerances: the vulkan driver takes the reference's steps with the same
// stopping rules, but its dots are workgroup trees (fp64, or fp32 for fp32
// matrices) whose partials are added in double, where the reference adds
// term by term in double. The iterates therefore differ by rounding only,
// which CG amplifies by at most a few iterations: counts agree within 3, as
// for cuda (tests/grid/solvers_test.cpp); fp64 solutions solved to 1e-13
// agree within 1e-10 relative (condition numbers below 1e3 here); fp32
// solutions to 1e-5 are within 1e-3 of the fp64 truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_csr.hpp"
#include "support/random_values.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/solvers.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

namespace trellis::grid {
namespace {

using testing::max_abs;
using testing::max_difference;

using testing::random_vector;

// S (B + B^T + D) S with B seeded random sparse and D making each row
// strictly diagonally dominant (so SPD); S = I, or a diagonal scaling over
// two decades so that Jacobi has work to do.
template <typename T>
CsrMatrix<T> random_spd(std::int32_t n, double mean_entries, bool scaled, std::uint64_t seed) {
  testing::RandomCsrShape shape;
  shape.rows = n;
  shape.cols = n;
  shape.mean_entries_per_row = mean_entries;
  shape.duplicate_columns = false;
  const CsrMatrix<double> b = testing::random_csr<double>(shape, seed);
  std::vector<std::vector<std::pair<std::int32_t, double>>> rows(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) {
    for (RowOffset k = b.row_offsets[i]; k < b.row_offsets[i + 1]; ++k) {
      rows[i].push_back({b.col_indices[k], b.values[k]});
      rows[b.col_indices[k]].push_back({i, b.values[k]});
    }
  }
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> exponent(-1.0, 1.0);
  std::vector<double> scale(static_cast<std::size_t>(n), 1.0);
  if (scaled) {
    for (double& s : scale) s = std::pow(10.0, exponent(rng));
  }
  std::vector<std::int32_t> triplet_rows, triplet_cols;
  std::vector<T> values;
  for (std::int32_t i = 0; i < n; ++i) {
    double off_diagonal = 0;
    for (const auto& [j, v] : rows[i]) {
      if (j == i) continue;
      off_diagonal += std::abs(v);
      triplet_rows.push_back(i);
      triplet_cols.push_back(j);
      values.push_back(static_cast<T>(scale[i] * v * scale[j]));
    }
    triplet_rows.push_back(i);
    triplet_cols.push_back(i);
    values.push_back(static_cast<T>(scale[i] * (off_diagonal + 1.0) * scale[i]));
  }
  return csr_from_triplets<T>(n, n, triplet_rows, triplet_cols, values);
}

template <typename T>
CsrMatrix<T> from_triplets(std::int32_t rows, std::int32_t cols, std::vector<std::int32_t> row_of,
                           std::vector<ColumnIndex> col_of, std::vector<T> value_of) {
  return csr_from_triplets<T>(rows, cols, row_of, col_of, value_of);
}

template <typename T>
struct Solved {
  SolveResult result;
  std::vector<T> x;
};

template <typename T>
Solved<T> solve(Backend backend, const CsrMatrix<T>& a, Preconditioner preconditioner, const std::vector<T>& b,
                std::vector<T> x, const SolverOptions& options) {
  Solved<T> solved;
  solved.result = cg<T>(a, b, x, preconditioner, options, backend);
  solved.x = std::move(x);
  return solved;
}

struct Case {
  std::string name;
  CsrMatrix<double> a;
  Preconditioner preconditioner;
};

std::vector<Case> double_cases() {
  using P = Preconditioner;
  std::vector<Case> all;
  all.push_back({"3-D laplacian 10x9x8", laplacian_7point<double>(10, 9, 8), P::none});
  all.push_back({"3-D laplacian 10x9x8 jacobi", laplacian_7point<double>(10, 9, 8), P::jacobi});
  all.push_back({"3-D laplacian 16x14x12 jacobi", laplacian_7point<double>(16, 14, 12), P::jacobi});
  all.push_back(
      {"1-D laplacian 300 (more than one workgroup, long recurrence)", laplacian_7point<double>(1, 1, 300), P::none});
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    all.push_back({"random spd 700, seed " + std::to_string(seed), random_spd<double>(700, 6, false, seed), P::none});
    all.push_back({"scaled random spd 700 jacobi, seed " + std::to_string(seed),
                   random_spd<double>(700, 6, true, seed + 10), P::jacobi});
  }
  return all;
}

class VulkanCgIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(VulkanCgIsEquivalentToRef, DoubleConvergesLikeReference) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  std::uint64_t seed = 100;
  for (const Case& c : double_cases()) {
    SCOPED_TRACE(c.name);
    const auto n = static_cast<std::size_t>(c.a.rows);
    const std::vector<double> b = random_vector<double>(n, seed++);
    const std::vector<double> x0 = seed % 2 == 0 ? random_vector<double>(n, seed + 500) : std::vector<double>(n);
    SolverOptions options;
    options.relative_tolerance = 1e-10;
    const Solved<double> expected = solve(Backend::reference, c.a, c.preconditioner, b, x0, options);
    const Solved<double> actual = solve(GetParam(), c.a, c.preconditioner, b, x0, options);
    for (const Solved<double>* solved : {&expected, &actual}) {
      const SolveResult& r = solved->result;
      ASSERT_TRUE(r.converged) << r.stopped_because;
      EXPECT_GT(r.iterations, 0);
      ASSERT_EQ(r.residual_history.size(), static_cast<std::size_t>(r.iterations) + 1);
      EXPECT_LE(r.residual_history.back(), options.relative_tolerance * r.rhs_norm);
      EXPECT_LE(r.final_residual, options.relative_tolerance * r.rhs_norm) << "explicit residual";
    }
    EXPECT_NEAR(actual.result.iterations, expected.result.iterations, 3);
    EXPECT_NEAR(actual.result.rhs_norm, expected.result.rhs_norm, 1e-12 * expected.result.rhs_norm);
    EXPECT_NEAR(actual.result.initial_residual, expected.result.initial_residual,
                1e-12 * expected.result.initial_residual);

    options.relative_tolerance = 1e-13;
    const Solved<double> tight_expected = solve(Backend::reference, c.a, c.preconditioner, b, x0, options);
    const Solved<double> tight_actual = solve(GetParam(), c.a, c.preconditioner, b, x0, options);
    ASSERT_TRUE(tight_expected.result.converged) << tight_expected.result.stopped_because;
    ASSERT_TRUE(tight_actual.result.converged) << tight_actual.result.stopped_because;
    EXPECT_LE(max_difference(tight_actual.x, tight_expected.x), 1e-10 * max_abs(tight_expected.x));
  }
}

TEST_P(VulkanCgIsEquivalentToRef, FloatConverges) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 300;
  for (const auto& [name, a64] : std::vector<std::pair<std::string, CsrMatrix<double>>>{
           {"3-D laplacian 12x11x10", laplacian_7point<double>(12, 11, 10)},
           {"scaled random spd 500", random_spd<double>(500, 5, true, 21)}}) {
    SCOPED_TRACE(name);
    CsrMatrix<float> a;
    a.rows = a64.rows;
    a.cols = a64.cols;
    a.row_offsets = a64.row_offsets;
    a.col_indices = a64.col_indices;
    a.values.assign(a64.values.begin(), a64.values.end());
    const auto n = static_cast<std::size_t>(a.rows);
    const std::vector<double> b64 = random_vector<double>(n, seed++);
    const std::vector<float> b(b64.begin(), b64.end());
    SolverOptions options;
    options.relative_tolerance = 1e-5;
    const Solved<float> expected =
        solve(Backend::reference, a, Preconditioner::jacobi, b, std::vector<float>(n), options);
    const Solved<float> actual = solve(GetParam(), a, Preconditioner::jacobi, b, std::vector<float>(n), options);
    ASSERT_TRUE(expected.result.converged) << expected.result.stopped_because;
    ASSERT_TRUE(actual.result.converged) << actual.result.stopped_because;
    EXPECT_LE(actual.result.final_residual, options.relative_tolerance * actual.result.rhs_norm);
    EXPECT_NEAR(actual.result.iterations, expected.result.iterations, 3);

    SolverOptions exact;
    exact.relative_tolerance = 1e-13;
    const Solved<double> truth =
        solve(Backend::reference, a64, Preconditioner::jacobi, b64, std::vector<double>(n), exact);
    const std::vector<double> x(actual.x.begin(), actual.x.end());
    EXPECT_LE(max_difference(x, truth.x), 1e-3 * max_abs(truth.x));
  }
}

TEST_P(VulkanCgIsEquivalentToRef, RunsRepeatBitForBit) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  const CsrMatrix<double> a = random_spd<double>(900, 7, true, 5);
  const auto n = static_cast<std::size_t>(a.rows);
  const std::vector<double> b = random_vector<double>(n, 41);
  const Solved<double> first = solve(GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), {});
  ASSERT_TRUE(first.result.converged) << first.result.stopped_because;
  const Solved<double> again = solve(GetParam(), a, Preconditioner::jacobi, b, std::vector<double>(n), {});
  EXPECT_EQ(again.result.iterations, first.result.iterations);
  EXPECT_EQ(again.x, first.x);
  EXPECT_EQ(again.result.residual_history, first.result.residual_history);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(again.result.final_residual),
            std::bit_cast<std::uint64_t>(first.result.final_residual));
}

TEST_P(VulkanCgIsEquivalentToRef, MaxIterationsReachedIsNotConverged) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  const CsrMatrix<double> a = laplacian_7point<double>(12, 12, 12);
  const std::vector<double> b = random_vector<double>(static_cast<std::size_t>(a.rows), 5);
  const std::vector<double> x0(static_cast<std::size_t>(a.rows));
  for (std::int32_t limit : {0, 1, 4}) {
    SCOPED_TRACE("max_iterations " + std::to_string(limit));
    SolverOptions options;
    options.max_iterations = limit;
    const Solved<double> expected = solve(Backend::reference, a, Preconditioner::jacobi, b, x0, options);
    const Solved<double> actual = solve(GetParam(), a, Preconditioner::jacobi, b, x0, options);
    EXPECT_FALSE(actual.result.converged);
    EXPECT_EQ(actual.result.stop, SolverStop::max_iterations);
    EXPECT_EQ(actual.result.iterations, limit);
    ASSERT_EQ(actual.result.residual_history.size(), static_cast<std::size_t>(limit) + 1);
    EXPECT_NE(actual.result.stopped_because.find("max_iterations"), std::string::npos);
    // Few iterations: the iterates still agree to rounding.
    EXPECT_LE(max_difference(actual.x, expected.x), 1e-12 * std::max(1.0, max_abs(expected.x)));
    for (std::size_t k = 0; k < expected.result.residual_history.size(); ++k) {
      EXPECT_NEAR(actual.result.residual_history[k], expected.result.residual_history[k],
                  1e-12 * expected.result.residual_history[0]);
    }
    EXPECT_NEAR(actual.result.final_residual, expected.result.final_residual, 1e-12 * expected.result.rhs_norm);
  }
}

TEST_P(VulkanCgIsEquivalentToRef, EarlyStopsMatchReference) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  const CsrMatrix<double> lap = laplacian_7point<double>(6, 5, 4);
  const auto n = static_cast<std::size_t>(lap.rows);
  // Zero right-hand side: x = 0 without iterating.
  Solved<double> solved =
      solve(GetParam(), lap, Preconditioner::jacobi, std::vector<double>(n), random_vector<double>(n, 3), {});
  EXPECT_EQ(solved.result.stop, SolverStop::zero_rhs);
  EXPECT_TRUE(solved.result.converged);
  EXPECT_EQ(solved.x, std::vector<double>(n));
  EXPECT_EQ(solved.result.final_residual, 0.0);
  // An exact initial guess: no iteration, x untouched.
  const std::vector<double> x0 = random_vector<double>(n, 8);
  std::vector<double> b(n);
  spmv<double>(1.0, lap, x0, 0.0, b, Backend::reference);
  solved = solve(GetParam(), lap, Preconditioner::jacobi, b, x0, {});
  EXPECT_EQ(solved.result.stop, SolverStop::converged);
  EXPECT_EQ(solved.result.iterations, 0);
  EXPECT_EQ(solved.x, x0);
  // Empty system.
  solved = solve(GetParam(), CsrMatrix<double>{}, Preconditioner::jacobi, {}, {}, {});
  EXPECT_TRUE(solved.result.converged);
  EXPECT_TRUE(solved.x.empty());

  // diag(1, -1), b = (1, 1): p^T A p = 0, and with Jacobi r^T D^-1 r = 0.
  const CsrMatrix<double> indefinite = from_triplets<double>(2, 2, {0, 1}, {0, 1}, {1.0, -1.0});
  solved = solve(GetParam(), indefinite, Preconditioner::none, {1, 1}, {0, 0}, {});
  EXPECT_EQ(solved.result.stop, SolverStop::not_positive_definite) << solved.result.stopped_because;
  EXPECT_EQ(solved.x, (std::vector<double>{0, 0}));
  solved = solve(GetParam(), indefinite, Preconditioner::jacobi, {1, 1}, {0, 0}, {});
  EXPECT_EQ(solved.result.stop, SolverStop::rho_breakdown) << solved.result.stopped_because;
  // A zero on the diagonal makes Jacobi unusable.
  const CsrMatrix<double> swap = from_triplets<double>(2, 2, {0, 1}, {1, 0}, {1.0, 1.0});
  solved = solve(GetParam(), swap, Preconditioner::jacobi, {1, 0}, {0, 0}, {});
  EXPECT_EQ(solved.result.stop, SolverStop::unusable_preconditioner) << solved.result.stopped_because;

  // NaN in b, infinity in x0.
  std::vector<double> bad_b = random_vector<double>(n, 4);
  bad_b[17] = std::numeric_limits<double>::quiet_NaN();
  solved = solve(GetParam(), lap, Preconditioner::jacobi, bad_b, std::vector<double>(n), {});
  EXPECT_EQ(solved.result.stop, SolverStop::non_finite_input);
  std::vector<double> bad_x0(n);
  bad_x0[3] = std::numeric_limits<double>::infinity();
  solved = solve(GetParam(), lap, Preconditioner::none, random_vector<double>(n, 4), bad_x0, {});
  EXPECT_EQ(solved.result.stop, SolverStop::non_finite_input);
}

TEST_P(VulkanCgIsEquivalentToRef, RejectsWhatTheHostSolverRejects) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const CsrMatrix<float> a = laplacian_7point<float>(3, 3, 3);
  std::vector<float> b(27, 1.0f), x(26);
  EXPECT_THROW(cg<float>(a, b, x, Preconditioner::jacobi, {}, GetParam()), UsageError);
  x.resize(27);
  SolverOptions options;
  options.max_iterations = -1;
  EXPECT_THROW(cg<float>(a, b, x, Preconditioner::jacobi, options, GetParam()), UsageError);
  const CsrMatrix<float> wide = from_triplets<float>(2, 3, {0}, {2}, {1.0f});
  std::vector<float> b2(2), x2(2);
  EXPECT_THROW(cg<float>(wide, b2, x2, Preconditioner::none, {}, GetParam()), UsageError);
  // Host operators stay on the host backends.
  EXPECT_THROW(cg(csr_operator(a, Preconditioner::jacobi), b, x, {}, GetParam()), UsageError);
}

INSTANTIATE_TEST_SUITE_P(Vulkan, VulkanCgIsEquivalentToRef, ::testing::Values(Backend::vulkan),
                         testing::backend_test_name);

TEST(CsrCg, HostBackendsRunTheHostDriver) {
  const CsrMatrix<double> a = laplacian_7point<double>(8, 7, 6);
  const auto n = static_cast<std::size_t>(a.rows);
  const std::vector<double> b = random_vector<double>(n, 9);
  for (Backend backend : {Backend::reference, Backend::cpu, Backend::automatic}) {
    std::vector<double> x(n), y(n);
    const SolveResult direct = cg<double>(a, b, x, Preconditioner::jacobi, {}, backend);
    const SolveResult through_operator =
        cg(csr_operator(a, Preconditioner::jacobi, backend), b, std::span<double>(y), {}, backend);
    EXPECT_TRUE(direct.converged);
    EXPECT_EQ(direct.iterations, through_operator.iterations);
    EXPECT_EQ(x, y);
  }
}

}  // namespace
}  // namespace trellis::grid
