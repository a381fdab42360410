// The matrix-free apply's uniform constant path: Poisson (optionally with a
// constant reaction) on meshes with exactly equal spacings along each axis,
// constrained on the boundary, takes it on every backend and equals the
// reference apply and SpMV with the assembled matrix; non-uniform meshes,
// variable coefficients and other constraint sets do not take it and still
// give the right results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::grid {
namespace {

using trellis::testing::random_vector;

Mesh uniform_mesh(const std::vector<std::int32_t>& cells) {
  // A different length per axis, so the per-axis weights differ; [0, 1]
  // divided by most cell counts rounds the points, which must not matter
  // (a uniform mesh has one spacing).
  const double lengths[3] = {1.0, 0.3, 2.0};
  std::vector<Mesh1D> axes;
  for (std::size_t a = 0; a < cells.size(); ++a) axes.push_back(Mesh1D::uniform(0.0, lengths[a], cells[a]));
  return Mesh(axes);
}

std::string shape_name(const Mesh& mesh) {
  std::string name;
  for (int a = 0; a < mesh.dim(); ++a) {
    if (a > 0) name += 'x';
    name += std::to_string(mesh.extent(a));
  }
  return name;
}

template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& expected, double tolerance, const char* what) {
  double scale = 0;
  for (T e : expected) scale = std::max(scale, static_cast<double>(std::abs(e)));
  ASSERT_GT(scale, 0.0);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(expected[i]), tolerance * scale)
        << what << ", row " << i;
  }
}

// Applies op on backend and checks it against the reference apply and SpMV
// with the matrix Assembly builds for the same form and constraints.
template <typename T>
void expect_apply_matches(const MatrixFreeOperator<T>& op, const BilinearForm& form,
                          const std::vector<Marker>& dirichlet, bool symmetrize, const Coefficients<T>& coefficients,
                          Backend backend, double tolerance) {
  const Mesh& mesh = op.mesh();
  const auto n = static_cast<std::size_t>(mesh.nodes());
  const std::vector<T> x = random_vector<T>(n, 41 + n);
  std::vector<T> got(n), reference(n), assembled(n);
  op.apply(coefficients, x, got, backend);
  op.apply(coefficients, x, reference, Backend::reference);
  Assembly<T> assembly(mesh, form, LinearForm(), dirichlet, {.symmetrize = symmetrize});
  AssembledMatrix<T> a = assembly.new_matrix();
  assembly.refill(coefficients, a, Backend::reference);
  spmv<T>(T(1), a.matrix, x, T(0), assembled, Backend::reference);
  expect_close(got, reference, tolerance, "against the reference apply");
  expect_close(got, assembled, tolerance, "against SpMV with the assembled matrix");
}

struct UniformForm {
  std::string name;
  BilinearForm form;
};

std::vector<UniformForm> uniform_forms() {
  TrialFunction u;
  TestFunction v;
  return {{"poisson", inner_plus(grad_minus(u), grad_minus(v))},
          {"poisson with reaction", inner_plus(grad_minus(u), grad_minus(v)) + inner_h(2.5 * u, v)},
          {"scaled poisson with reaction", 0.75 * inner_plus(grad_minus(u), grad_minus(v)) + inner_h(3.0 * u, v)}};
}

// Tiny meshes, sizes that are not multiples of the cuda kernel's 32 x (8 x 4)
// tiles, and a few that are.
std::vector<Mesh> uniform_meshes() {
  return {uniform_mesh({2}),       uniform_mesh({40}),        uniform_mesh({2, 2}),      uniform_mesh({4, 6}),
          uniform_mesh({32, 64}),  uniform_mesh({36, 70}),    uniform_mesh({130, 33}),   uniform_mesh({2, 2, 2}),
          uniform_mesh({3, 4, 5}), uniform_mesh({16, 8, 32}), uniform_mesh({33, 34, 9}), uniform_mesh({1, 5, 3}),
          uniform_mesh({255, 255})};
}

class MatrixFreeUniform : public ::testing::TestWithParam<Backend> {};

template <typename T>
void expect_uniform_path_matches(Backend backend, double tolerance) {
  for (const Mesh& mesh : uniform_meshes()) {
    const std::vector<Marker> dirichlet = {boundary_marker(mesh)};
    const Coefficients<T> coefficients(mesh, 0);
    for (const UniformForm& named : uniform_forms()) {
      for (bool symmetrize : {false, true}) {
        SCOPED_TRACE(named.name + " on " + shape_name(mesh) + (symmetrize ? ", symmetrised" : ""));
        MatrixFreeOperator<T> op(mesh, named.form, dirichlet, {.symmetrize = symmetrize});
        EXPECT_TRUE(op.uses_uniform_constant_path());
        expect_apply_matches(op, named.form, dirichlet, symmetrize, coefficients, backend, tolerance);
      }
    }
  }
}

TEST_P(MatrixFreeUniform, UniformConstantPathEqualsReferenceAndSpmvDouble) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  expect_uniform_path_matches<double>(GetParam(), 1e-12);
}

TEST_P(MatrixFreeUniform, UniformConstantPathEqualsReferenceAndSpmvFloat) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  expect_uniform_path_matches<float>(GetParam(), 1e-5);
}

// Variable coefficients on the uniform meshes: the coefficient path on
// cuda, the tables elsewhere; the same matrix either way. Coefficients are
// seeded values in [0.75, 1.75].
std::vector<UniformForm> uniform_coefficient_forms() {
  TrialFunction u;
  TestFunction v;
  const Coefficient k{0};
  const Coefficient c{1};
  return {{"-div(k grad u)", inner_plus(k * grad_minus(u), grad_minus(v))},
          {"-div(k grad u) + c u", inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(c * u, v)},
          {"-div(k grad u) + 2.5 u", inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(2.5 * u, v)},
          {"Laplacian + k u", inner_plus(grad_minus(u), grad_minus(v)) + inner_h(k * u, v)}};
}

template <typename T>
void expect_uniform_coefficient_path_matches(Backend backend, double tolerance) {
  for (const Mesh& mesh : uniform_meshes()) {
    const std::vector<Marker> dirichlet = {boundary_marker(mesh)};
    Coefficients<T> coefficients(mesh, 2);
    for (std::int32_t s = 0; s < 2; ++s) {
      std::vector<T> values =
          random_vector<T>(static_cast<std::size_t>(mesh.nodes()), 40 + static_cast<std::uint64_t>(s));
      for (T& e : values) e = T(1.25) + e / T(2);
      coefficients.set(s, std::span<const T>(values));
    }
    for (const UniformForm& named : uniform_coefficient_forms()) {
      for (bool symmetrize : {false, true}) {
        SCOPED_TRACE(named.name + " on " + shape_name(mesh) + (symmetrize ? ", symmetrised" : ""));
        MatrixFreeOperator<T> op(mesh, named.form, dirichlet, {.symmetrize = symmetrize});
        EXPECT_TRUE(op.uses_uniform_coefficient_path());
        EXPECT_FALSE(op.uses_uniform_constant_path());
        expect_apply_matches(op, named.form, dirichlet, symmetrize, coefficients, backend, tolerance);
      }
    }
  }
}

TEST_P(MatrixFreeUniform, UniformCoefficientPathEqualsReferenceAndSpmvDouble) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  expect_uniform_coefficient_path_matches<double>(GetParam(), 1e-12);
}

TEST_P(MatrixFreeUniform, UniformCoefficientPathEqualsReferenceAndSpmvFloat) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  expect_uniform_coefficient_path_matches<float>(GetParam(), 1e-5);
}

TEST(MatrixFreeUniformCoefficients, OnlyUniformMeshesWithBoundaryConstraintsTakeThePath) {
  TrialFunction u;
  TestFunction v;
  const BilinearForm form = inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v));
  const Mesh square = uniform_mesh({12, 9});
  EXPECT_TRUE(MatrixFreeOperator<double>(square, form, {boundary_marker(square)}).uses_uniform_coefficient_path());
  const Mesh graded({Mesh1D::uniform(0.0, 7.0, 7), Mesh1D::graded(0.0, 1.0, 6, 1.3)});
  EXPECT_FALSE(MatrixFreeOperator<double>(graded, form, {boundary_marker(graded)}).uses_uniform_coefficient_path());
  EXPECT_FALSE(MatrixFreeOperator<double>(square, form, {}).uses_uniform_coefficient_path());
  Marker most = boundary_marker(square);
  most.nodes.pop_back();
  EXPECT_FALSE(MatrixFreeOperator<double>(square, form, {most}).uses_uniform_coefficient_path());
  const BilinearForm constant = inner_plus(grad_minus(u), grad_minus(v));
  EXPECT_FALSE(MatrixFreeOperator<double>(square, constant, {boundary_marker(square)}).uses_uniform_coefficient_path());
}

TEST_P(MatrixFreeUniform, DeviceArraysTakeTheUniformPath) {
  if (GetParam() != Backend::cuda) GTEST_SKIP() << "device arrays are a cuda method";
  TRELLIS_SKIP_UNLESS_CUDA();
  const Mesh mesh = uniform_mesh({45, 38, 11});
  const std::vector<Marker> dirichlet = {boundary_marker(mesh)};
  const BilinearForm form = uniform_forms()[1].form;
  MatrixFreeOperator<double> op(mesh, form, dirichlet, {.symmetrize = true});
  ASSERT_TRUE(op.uses_uniform_constant_path());
  const Coefficients<double> coefficients(mesh, 0);
  const auto n = static_cast<std::size_t>(mesh.nodes());
  const std::vector<double> x = random_vector<double>(n, 7);
  std::vector<double> expected(n);
  op.apply(coefficients, x, expected, Backend::reference);
  DeviceCoefficients<double> device_coefficients(coefficients);
  const auto device_x = DeviceArray<double>::from_host(x);
  DeviceArray<double> device_y(n);
  op.apply(device_coefficients, device_x, device_y);
  expect_close(device_y.to_host(), expected, 1e-12, "device arrays");
}

struct OtherCase {
  std::string name;
  Mesh mesh;
  BilinearForm form;
  std::int32_t slots;
  std::vector<Marker> dirichlet;
  bool differs_in_float = true;  // false where rounding to float hides the difference
};

// Cases one step away from the uniform path, each of which must leave it.
std::vector<OtherCase> other_cases() {
  TrialFunction u;
  TestFunction v;
  const BilinearForm poisson = inner_plus(grad_minus(u), grad_minus(v));
  const Mesh square = uniform_mesh({12, 9});
  const Mesh cube = uniform_mesh({7, 6, 5});
  std::vector<OtherCase> cases;
  const Mesh random({Mesh1D::random(0.0, 1.0, 12, 3), Mesh1D::random(0.0, 2.0, 9, 4)});
  cases.push_back({"non-uniform mesh", random, poisson, 0, {boundary_marker(random)}});
  const Mesh graded({Mesh1D::uniform(0.0, 7.0, 7), Mesh1D::graded(0.0, 1.0, 6, 1.3), Mesh1D::uniform(0.0, 2.5, 5)});
  cases.push_back({"graded axis", graded, poisson, 0, {boundary_marker(graded)}});
  // Spacings one ulp apart: equal as numbers to print, not as bits.
  const Mesh1D nudged = Mesh1D::from_points({0.0, 1.0, 2.0, std::nextafter(3.0, 4.0), 4.0, 5.0, 6.0});
  const Mesh almost({nudged, Mesh1D::uniform(0.0, 6.0, 6)});
  cases.push_back({"spacings an ulp apart", almost, poisson, 0, {boundary_marker(almost)}, false});
  cases.push_back({"variable coefficient",
                   square,
                   inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v)),
                   1,
                   {boundary_marker(square)}});
  cases.push_back({"variable reaction", cube, poisson + inner_h(Coefficient{0} * u, v), 1, {boundary_marker(cube)}});
  cases.push_back({"no constraints", square, poisson, 0, {}});
  Marker left{"left", {}};
  for (std::int32_t node = 0; node < square.nodes(); node += square.extent(0)) left.nodes.push_back(node);
  cases.push_back({"one face constrained", square, poisson, 0, {left}});
  Marker interior{"interior", {cube.extent(0) * cube.extent(1) * 2 + cube.extent(0) * 2 + 3}};
  cases.push_back({"boundary and an interior node", cube, poisson, 0, {boundary_marker(cube), interior}});
  Marker most = boundary_marker(cube);
  most.nodes.pop_back();
  cases.push_back({"boundary but one node", cube, poisson, 0, {most}});
  cases.push_back({"reach two",
                   square,
                   inner_h(backward_difference(0)(u), forward_difference(0)(v)) + inner_h(forward_shift(0)(u), v),
                   0,
                   {boundary_marker(square)}});
  return cases;
}

template <typename T>
void expect_other_cases_leave_uniform_path(Backend backend, double tolerance) {
  for (const OtherCase& c : other_cases()) {
    for (bool symmetrize : {false, true}) {
      SCOPED_TRACE(c.name + (symmetrize ? ", symmetrised" : ""));
      Coefficients<T> coefficients(c.mesh, c.slots);
      for (std::int32_t s = 0; s < c.slots; ++s) {
        std::vector<T> values =
            random_vector<T>(static_cast<std::size_t>(c.mesh.nodes()), 90 + static_cast<std::uint64_t>(s));
        for (T& e : values) e = T(1.25) + e / T(2);  // in [0.75, 1.75]
        coefficients.set(s, std::span<const T>(values));
      }
      MatrixFreeOperator<T> op(c.mesh, c.form, c.dirichlet, {.symmetrize = symmetrize});
      if (sizeof(T) == sizeof(double) || c.differs_in_float) {
        EXPECT_FALSE(op.uses_uniform_constant_path());
      }
      expect_apply_matches(op, c.form, c.dirichlet, symmetrize, coefficients, backend, tolerance);
    }
  }
}

TEST_P(MatrixFreeUniform, OtherFormsMeshesAndConstraintsLeaveTheUniformPathDouble) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  expect_other_cases_leave_uniform_path<double>(GetParam(), 1e-12);
}

TEST_P(MatrixFreeUniform, OtherFormsMeshesAndConstraintsLeaveTheUniformPathFloat) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  expect_other_cases_leave_uniform_path<float>(GetParam(), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Backends, MatrixFreeUniform, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);
// Every case here is separable, so vulkan applies them all (fp64 where the
// device has it: lavapipe does).
INSTANTIATE_TEST_SUITE_P(Vulkan, MatrixFreeUniform, ::testing::Values(Backend::vulkan), testing::backend_test_name);

}  // namespace
}  // namespace trellis::grid
