// CG on a matrix-free operator (MatrixFreeOperator::cg) on vulkan against the
// same call on reference: Poisson on uniform and random meshes in 1-3 D, a
// variable diffusion coefficient with a reaction, plain and Jacobi, fp64 and
// fp32; bitwise repeatable runs; forms that are not separable refused.
//
// Tolerances as tests/grid/vulkan_cg_test.cpp's (the same driver on another
// operator): iteration counts within 3, fp64 solutions at 1e-12 within 1e-9
// relative of the reference's, fp32 at 1e-5 within 1e-3 of the fp64 truth.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/matrix_free.hpp"

namespace trellis::grid {
namespace {

using testing::max_abs;
using testing::max_difference;
using testing::random_vector;

struct Problem {
  std::string name;
  Mesh mesh;
  BilinearForm form;
  std::int32_t slots;
};

std::vector<Problem> problems() {
  TrialFunction u;
  TestFunction v;
  const BilinearForm poisson = inner_plus(grad_minus(u), grad_minus(v));
  const Coefficient k{0}, c{1};
  const BilinearForm variable = inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(c * u, v);
  const Mesh line({Mesh1D::uniform(0.0, 1.0, 90)});
  const Mesh square({Mesh1D::uniform(0.0, 1.0, 31), Mesh1D::uniform(0.0, 0.5, 17)});
  const Mesh random({Mesh1D::random(0.0, 1.0, 25, 3), Mesh1D::random(0.0, 2.0, 19, 4)});
  const Mesh cube({Mesh1D::uniform(0.0, 1.0, 11), Mesh1D::random(0.0, 1.0, 9, 5), Mesh1D::graded(0.0, 1.0, 8, 1.2)});
  return {{"poisson 1-D", line, poisson, 0},
          {"poisson 2-D", square, poisson, 0},
          {"poisson on a random mesh", random, poisson, 0},
          {"variable diffusion and reaction 2-D", random, variable, 2},
          {"variable diffusion and reaction 3-D", cube, variable, 2}};
}

template <typename T>
Coefficients<T> coefficients_of(const Problem& problem) {
  Coefficients<T> coefficients(problem.mesh, problem.slots);
  for (std::int32_t s = 0; s < problem.slots; ++s) {
    std::vector<T> values =
        random_vector<T>(static_cast<std::size_t>(problem.mesh.nodes()), 70 + static_cast<std::uint64_t>(s));
    for (T& e : values) e = T(1.25) + e / T(2);  // in [0.75, 1.75]
    coefficients.set(s, std::span<const T>(values));
  }
  return coefficients;
}

template <typename T>
SolveResult solve(const Problem& problem, Preconditioner preconditioner, double tolerance, Backend backend,
                  std::vector<T>& x) {
  const MatrixFreeOperator<T> op(problem.mesh, problem.form, {boundary_marker(problem.mesh)}, {.symmetrize = true});
  EXPECT_TRUE(op.separable());
  const auto n = static_cast<std::size_t>(problem.mesh.nodes());
  const std::vector<T> b = random_vector<T>(n, 17 + n);
  x.assign(n, T(0));
  const SolverOptions options{.relative_tolerance = tolerance, .max_iterations = 5000};
  return op.cg(coefficients_of<T>(problem), b, x, preconditioner, options, backend);
}

TEST(VulkanMatrixFreeCg, Float64IsEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_FLOAT64(Backend::vulkan);
  for (const Problem& problem : problems()) {
    for (const Preconditioner preconditioner : {Preconditioner::none, Preconditioner::jacobi}) {
      SCOPED_TRACE(problem.name + (preconditioner == Preconditioner::jacobi ? ", jacobi" : ", none"));
      std::vector<double> want, got;
      const SolveResult expected = solve(problem, preconditioner, 1e-12, Backend::reference, want);
      const SolveResult result = solve(problem, preconditioner, 1e-12, Backend::vulkan, got);
      ASSERT_TRUE(expected.converged) << expected.stopped_because;
      EXPECT_TRUE(result.converged) << result.stopped_because;
      EXPECT_LE(std::abs(result.iterations - expected.iterations), 3);
      EXPECT_LE(max_difference(got, want), 1e-9 * max_abs(want));
    }
  }
}

TEST(VulkanMatrixFreeCg, Float32IsEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  for (const Problem& problem : problems()) {
    SCOPED_TRACE(problem.name);
    std::vector<double> truth;
    std::vector<float> got;
    ASSERT_TRUE(solve(problem, Preconditioner::jacobi, 1e-12, Backend::reference, truth).converged);
    const SolveResult result = solve(problem, Preconditioner::jacobi, 1e-5, Backend::vulkan, got);
    EXPECT_TRUE(result.converged) << result.stopped_because;
    const std::vector<double> widened(got.begin(), got.end());
    EXPECT_LE(max_difference(widened, truth), 1e-3 * max_abs(truth));
  }
}

TEST(VulkanMatrixFreeCg, RunsRepeatBitForBit) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  const Problem problem = problems()[3];
  std::vector<float> first, second;
  const SolveResult a = solve(problem, Preconditioner::jacobi, 1e-5, Backend::vulkan, first);
  const SolveResult b = solve(problem, Preconditioner::jacobi, 1e-5, Backend::vulkan, second);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.residual_history, b.residual_history);
  EXPECT_EQ(first, second);
}

TEST(VulkanMatrixFreeCg, FormsThatAreNotSeparableAreRefused) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  TrialFunction u;
  TestFunction v;
  const Mesh mesh({Mesh1D::uniform(0.0, 1.0, 12), Mesh1D::uniform(0.0, 1.0, 10)});
  const BilinearForm chained = inner_h(compose(forward_average(0), backward_difference(0))(u), backward_average(0)(v)) +
                               inner_plus(grad_plus(u), grad_plus(v));
  const MatrixFreeOperator<float> op(mesh, chained, {boundary_marker(mesh)}, {.symmetrize = true});
  ASSERT_FALSE(op.separable());
  const Coefficients<float> coefficients(mesh, 0);
  const auto n = static_cast<std::size_t>(mesh.nodes());
  const std::vector<float> b(n, 1.0f);
  std::vector<float> x(n, 0.0f), y(n);
  EXPECT_THROW(op.cg(coefficients, b, x, Preconditioner::jacobi, {}, Backend::vulkan), BackendUnavailable);
  EXPECT_THROW(op.apply(coefficients, b, y, Backend::vulkan), BackendUnavailable);
}

}  // namespace
}  // namespace trellis::grid
