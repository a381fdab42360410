// The worked examples converge at the rates Bramble.jl asserts: the fitted
// order of the discrete H1 error within 0.3 of 2 on uniform meshes and within
// 0.4 on seeded non-uniform meshes, in 1-D, 2-D and 3-D; matrix-free and
// assembled solves agree; every backend gives the reference's table.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/backends.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/grid/vtk.hpp"

namespace trellis::grid {
namespace {

ProblemOptions options_for(int dim, MeshKind mesh, Backend backend = Backend::cpu) {
  ProblemOptions options;
  options.dim = dim;
  options.cells = dim == 3 ? 4 : 8;
  options.levels = dim == 1 ? 5 : dim == 2 ? 4 : 3;
  options.mesh = mesh;
  options.seed = 7;
  options.backend = backend;
  options.tolerance = 1e-12;
  return options;
}

TEST(Problems, PoissonConvergesAtSecondOrderInH1) {
  for (int dim = 1; dim <= 3; ++dim) {
    for (MeshKind mesh : {MeshKind::uniform, MeshKind::nonuniform, MeshKind::graded}) {
      SCOPED_TRACE(std::to_string(dim) + "-D mesh kind " + std::to_string(static_cast<int>(mesh)));
      const ConvergenceStudy study = poisson_study(options_for(dim, mesh));
      ASSERT_EQ(study.rows.size(), static_cast<std::size_t>(options_for(dim, mesh).levels));
      const double slack = mesh == MeshKind::uniform ? 0.3 : 0.4;
      EXPECT_NEAR(study.fitted_order_h1, 2.0, slack);
      EXPECT_GT(study.fitted_order_h, 1.6);
      for (std::size_t i = 1; i < study.rows.size(); ++i) EXPECT_LT(study.rows[i].error_h1, study.rows[i - 1].error_h1);
    }
  }
}

TEST(Problems, MatrixFreeSolveEqualsAssembledSolve) {
  for (int dim = 1; dim <= 3; ++dim) {
    ProblemOptions options = options_for(dim, MeshKind::nonuniform);
    const ConvergenceStudy assembled = poisson_study(options);
    options.matrix_free = true;
    const ConvergenceStudy matrix_free = poisson_study(options);
    ASSERT_EQ(assembled.solution.size(), matrix_free.solution.size());
    for (std::size_t i = 0; i < assembled.solution.size(); ++i) {
      ASSERT_NEAR(assembled.solution[i], matrix_free.solution[i], 1e-9 * std::abs(assembled.solution[i])) << i;
    }
  }
}

TEST(Problems, ConvectionDiffusionConvergesOnUniformMeshes) {
  for (int dim = 1; dim <= 3; ++dim) {
    SCOPED_TRACE(std::to_string(dim) + "-D");
    const ConvergenceStudy study = convection_diffusion_study(options_for(dim, MeshKind::uniform));
    EXPECT_NEAR(study.fitted_order_h1, 2.0, 0.3);
  }
}

TEST(Problems, HeatEquationConvergesWithRefillsEveryStep) {
  for (int dim = 1; dim <= 2; ++dim) {
    SCOPED_TRACE(std::to_string(dim) + "-D");
    ProblemOptions options = options_for(dim, MeshKind::uniform);
    options.cells = 8;
    options.levels = 3;
    const ConvergenceStudy study = heat_study(options);
    EXPECT_NEAR(study.fitted_order_h1, 2.0, 0.3);
    EXPECT_GT(study.rows.back().steps, 1);
  }
}

TEST(Problems, BadOptionsAreRefused) {
  ProblemOptions options;
  options.dim = 4;
  EXPECT_THROW(poisson_study(options), UsageError);
  options = {};
  options.cells = 1;
  EXPECT_THROW(poisson_study(options), UsageError);
  options = {};
  options.levels = 0;
  EXPECT_THROW(heat_study(options), UsageError);
  options = {};
  options.tolerance = std::nan("");
  EXPECT_THROW(convection_diffusion_study(options), UsageError);
  options = {};
  options.dim = 3;
  options.cells = 4096;
  options.levels = 2;
  EXPECT_THROW(poisson_study(options), UsageError);
}

TEST(Vtk, WritesARectilinearGrid) {
  const Mesh mesh({Mesh1D::uniform(0, 1, 2), Mesh1D::from_points({0.0, 0.25, 1.0})});
  const auto path = std::filesystem::temp_directory_path() / "trellis_vtk_test.vtk";
  write_vtk(path.string(), mesh, {{"u", std::vector<double>(9, 1.5)}});
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("DIMENSIONS 3 3 1"), std::string::npos);
  EXPECT_NE(text.find("Y_COORDINATES 3 double\n0 0.25 1\n"), std::string::npos);
  EXPECT_NE(text.find("POINT_DATA 9"), std::string::npos);
  EXPECT_NE(text.find("SCALARS u double 1"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_THROW(write_vtk(path.string(), mesh, {{"u", std::vector<double>(8, 1.0)}}), UsageError);
  EXPECT_THROW(write_vtk(path.string(), mesh, {{"two words", std::vector<double>(9, 1.0)}}), UsageError);
  EXPECT_FALSE(std::filesystem::exists(path));
}

class ProblemBackends : public ::testing::TestWithParam<Backend> {};

// The study on `backend` against the reference's: the same rows, H1 errors
// within 1e-6 relative, iterations within 3 a time step, the same steps.
template <typename Study>
void expect_study_like_reference(const Study& study, ProblemOptions options, Backend backend) {
  options.backend = Backend::reference;
  const ConvergenceStudy expected = study(options);
  options.backend = backend;
  const ConvergenceStudy got = study(options);
  ASSERT_EQ(got.rows.size(), expected.rows.size());
  for (std::size_t i = 0; i < got.rows.size(); ++i) {
    EXPECT_NEAR(got.rows[i].error_h1, expected.rows[i].error_h1, 1e-6 * expected.rows[i].error_h1);
    EXPECT_EQ(got.rows[i].steps, expected.rows[i].steps);
    EXPECT_NEAR(got.rows[i].iterations, expected.rows[i].iterations, 3 * expected.rows[i].steps);
  }
}

TEST_P(ProblemBackends, PoissonTableEqualsReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (bool matrix_free : {false, true}) {
    ProblemOptions options = options_for(2, MeshKind::nonuniform);
    options.levels = 3;
    options.matrix_free = matrix_free;
    expect_study_like_reference(poisson_study, options, GetParam());
  }
}

// Heat steps start from the last step's solution (a non-zero initial
// guess, sent whole to a device) and refill every step, with mgcg too.
TEST_P(ProblemBackends, HeatTableEqualsReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (const LinearSolver solver : {LinearSolver::cg, LinearSolver::mgcg}) {
    ProblemOptions options = options_for(2, MeshKind::uniform);
    options.cells = 8;
    options.levels = 2;
    options.solver = solver;
    expect_study_like_reference(heat_study, options, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ProblemBackends, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

}  // namespace
}  // namespace trellis::grid
