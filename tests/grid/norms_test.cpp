// Discrete inner products and norms: every backend against the reference,
// with and without markers, and known values (volumes, integrals).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/grid_function.hpp"
#include "trellis/grid/norms.hpp"

namespace trellis::grid {
namespace {

template <typename T>
double tolerance() {
  return sizeof(T) == 8 ? 1e-12 : 1e-5;
}

std::vector<Mesh> meshes() {
  return {
      Mesh({Mesh1D::random(0.0, 1.0, 300, 1)}),
      Mesh({Mesh1D::uniform(0.0, 1.0, 1)}),
      Mesh({Mesh1D::random(-1.0, 2.0, 70, 2), Mesh1D::graded(0.0, 1.0, 50, 1.05)}),
      Mesh({Mesh1D::random(0.0, 1.0, 9, 3), Mesh1D::uniform(0.0, 1.0, 1), Mesh1D::random(0.0, 3.0, 11, 4)}),
      Mesh({Mesh1D::random(0.0, 1.0, 40, 5), Mesh1D::random(0.0, 1.0, 36, 6), Mesh1D::random(0.0, 1.0, 30, 7)}),
  };
}

// Every norm of u and v on one mesh, in a fixed order, for comparing backends.
template <typename T>
std::vector<double> all_norms(const Mesh& mesh, const std::vector<T>& u, const std::vector<T>& v, const Marker* marker,
                              Backend backend) {
  std::vector<double> r;
  r.push_back(inner_h<T>(mesh, u, v, marker, backend));
  r.push_back(norm_h<T>(mesh, u, marker, backend));
  for (int a = 0; a < mesh.dim(); ++a) r.push_back(inner_plus<T>(mesh, u, v, a, marker, backend));
  std::vector<std::span<const T>> components;
  for (int a = 0; a < mesh.dim(); ++a) components.push_back(a % 2 == 0 ? std::span<const T>(u) : std::span<const T>(v));
  r.push_back(norm_plus<T>(mesh, components, marker, backend));
  r.push_back(h1_seminorm<T>(mesh, u, marker, backend));
  r.push_back(h1_norm<T>(mesh, u, marker, backend));
  r.push_back(max_norm<T>(u, marker, backend));
  return r;
}

template <typename T>
void check_all_norms(Backend backend) {
  std::uint64_t seed = 20;
  for (const Mesh& mesh : meshes()) {
    const auto n = static_cast<std::size_t>(mesh.nodes());
    const std::vector<T> u = testing::random_vector<T>(n, seed++);
    const std::vector<T> v = testing::random_vector<T>(n, seed++);
    const Marker interior = mark(mesh, "interior", [&](const Point& x) { return x[0] > 0.3; });
    const Marker boundary = boundary_marker(mesh);
    const Marker empty{"empty", {}};
    for (const Marker* marker : {static_cast<const Marker*>(nullptr), &interior, &boundary, &empty}) {
      const std::string what = std::to_string(mesh.dim()) + "-D, marker " + (marker ? marker->name : "none");
      const std::vector<double> expected = all_norms(mesh, u, v, marker, Backend::reference);
      const std::vector<double> actual = all_norms(mesh, u, v, marker, backend);
      for (std::size_t k = 0; k < expected.size(); ++k) {
        EXPECT_NEAR(actual[k], expected[k], tolerance<T>() * std::max(1.0, std::abs(expected[k])))
            << what << ", quantity " << k;
      }
    }
  }
}

class NormsIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(NormsIsEquivalentToRef, Double) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  check_all_norms<double>(GetParam());
}

TEST_P(NormsIsEquivalentToRef, Float) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  check_all_norms<float>(GetParam());
}

TEST_P(NormsIsEquivalentToRef, LargeMeshIsDeterministic) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Mesh mesh = Mesh::cube(Mesh1D::random(0.0, 1.0, 120, 9), 3);  // 1.8 M nodes, many chunks and blocks
  const std::vector<double> u = testing::random_vector<double>(static_cast<std::size_t>(mesh.nodes()), 99);
  const double first = norm_h<double>(mesh, u, nullptr, GetParam());
  EXPECT_EQ(first, norm_h<double>(mesh, u, nullptr, GetParam())) << "same input, same bits";
  EXPECT_NEAR(first, norm_h<double>(mesh, u, nullptr, Backend::reference), 1e-12 * first);
  EXPECT_EQ(max_norm<double>(u, nullptr, GetParam()), max_norm<double>(u, nullptr, Backend::reference));
}

TEST_P(NormsIsEquivalentToRef, GridFunctionsAndMismatchedMeshes) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  auto mesh = std::make_shared<const Mesh>(Mesh({Mesh1D::random(0, 1, 20, 1), Mesh1D::random(0, 1, 15, 2)}));
  auto same_values = std::make_shared<const Mesh>(*mesh);
  auto other = std::make_shared<const Mesh>(Mesh({Mesh1D::random(0, 1, 20, 3), Mesh1D::random(0, 1, 15, 2)}));
  const auto n = static_cast<std::size_t>(mesh->nodes());
  const GridFunction<double> u(mesh, testing::random_vector<double>(n, 5));
  const GridFunction<double> v(same_values, testing::random_vector<double>(n, 6));
  const GridFunction<double> w(other, testing::random_vector<double>(n, 7));
  const Backend b = GetParam();
  EXPECT_NEAR(inner_h(u, v, nullptr, b), inner_h<double>(*mesh, u.values(), v.values(), nullptr, Backend::reference),
              1e-12);
  EXPECT_NEAR(inner_plus(u, v, 1, nullptr, b),
              inner_plus<double>(*mesh, u.values(), v.values(), 1, nullptr, Backend::reference), 1e-12);
  EXPECT_NEAR(h1_norm(u, nullptr, b), h1_norm<double>(*mesh, u.values(), nullptr, Backend::reference), 1e-12);
  EXPECT_NEAR(norm_plus(std::vector<GridFunction<double>>{u, v}, nullptr, b),
              std::sqrt(inner_plus(u, u, 0, nullptr, b) + inner_plus(v, v, 1, nullptr, b)), 1e-12);
  EXPECT_THROW(inner_h(u, w, nullptr, b), UsageError);
  EXPECT_THROW(inner_plus(w, u, 0, nullptr, b), UsageError);
  EXPECT_THROW(norm_plus(std::vector<GridFunction<double>>{u, w}, nullptr, b), UsageError);
}

INSTANTIATE_TEST_SUITE_P(Backends, NormsIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

TEST(NormsOnDevice, ResidentDataMatchesReference) {
  TRELLIS_SKIP_UNLESS_CUDA();
  for (const Mesh& mesh : meshes()) {
    auto shared = std::make_shared<const Mesh>(mesh);
    const auto n = static_cast<std::size_t>(mesh.nodes());
    const GridFunction<double> u(shared, testing::random_vector<double>(n, 31));
    const GridFunction<double> v(shared, testing::random_vector<double>(n, 32));
    const Marker boundary = boundary_marker(mesh);
    const DeviceMesh<double> device_mesh(mesh);
    const DeviceMarker device_boundary(mesh, boundary);
    const DeviceGridFunction<double> du(u);
    const DeviceGridFunction<double> dv(v);
    for (bool restricted : {false, true}) {
      const Marker* marker = restricted ? &boundary : nullptr;
      const DeviceMarker* device_marker = restricted ? &device_boundary : nullptr;
      auto near = [](double actual, double expected) {
        EXPECT_NEAR(actual, expected, 1e-12 * (1 + std::abs(expected)));
      };
      near(inner_h(device_mesh, du, dv, device_marker), inner_h(u, v, marker, Backend::reference));
      near(norm_h(device_mesh, du, device_marker), norm_h(u, marker, Backend::reference));
      for (int a = 0; a < mesh.dim(); ++a) {
        near(inner_plus(device_mesh, du, dv, a, device_marker), inner_plus(u, v, a, marker, Backend::reference));
      }
      near(h1_seminorm(device_mesh, du, device_marker), h1_seminorm(u, marker, Backend::reference));
      near(h1_norm(device_mesh, du, device_marker), h1_norm(u, marker, Backend::reference));
      near(max_norm(du, device_marker), max_norm(u, marker, Backend::reference));
    }
    const Mesh other = mesh.refined();
    EXPECT_THROW(norm_h(DeviceMesh<double>(other), du), UsageError);
  }
}

class NormsKnownValues : public ::testing::TestWithParam<Backend> {};

TEST_P(NormsKnownValues, OneHasTheDomainVolume) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Mesh mesh({Mesh1D::random(-1.0, 2.0, 13, 1), Mesh1D::graded(0.0, 0.5, 9, 1.4), Mesh1D::random(1, 5, 7, 2)});
  const std::vector<double> one(static_cast<std::size_t>(mesh.nodes()), 1.0);
  const double volume = 3.0 * 0.5 * 4.0;
  EXPECT_NEAR(inner_h<double>(mesh, one, one, nullptr, GetParam()), volume, 1e-13);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(inner_plus<double>(mesh, one, one, a, nullptr, GetParam()), volume, 1e-13);
  EXPECT_NEAR(norm_h<double>(mesh, one, nullptr, GetParam()), std::sqrt(volume), 1e-13);
  EXPECT_EQ(max_norm<double>(one, nullptr, GetParam()), 1.0);
}

TEST_P(NormsKnownValues, LinearFunctionHasUnitSeminorm) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  // u = x on [0, 1]: D- u = 1 wherever inner_plus looks (index >= 1).
  const Mesh mesh({Mesh1D::random(0.0, 1.0, 50, 3)});
  std::vector<double> u(mesh.axis(0).points());
  for (double& x : u) x += 2.0;  // the constant does not matter either
  EXPECT_NEAR(h1_seminorm<double>(mesh, u, nullptr, GetParam()), 1.0, 1e-12);
  const double l2 = norm_h<double>(mesh, u, nullptr, GetParam());
  EXPECT_NEAR(h1_norm<double>(mesh, u, nullptr, GetParam()), std::sqrt(l2 * l2 + 1.0), 1e-12);
}

TEST_P(NormsKnownValues, NormOfExpApproachesTheIntegral) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  // ||e^{x+y}||^2 over [0,1]^2 is ((e^2 - 1) / 2)^2; the discrete norm is a
  // trapezoidal rule, so the error falls by about 4 per refinement.
  const double exact = std::sqrt(std::pow((std::exp(2.0) - 1) / 2, 2));
  double previous_error = 0;
  Mesh mesh = Mesh::cube(Mesh1D::graded(0.0, 1.0, 16, 1.05), 2);
  for (int level = 0; level < 4; ++level, mesh = mesh.refined()) {
    std::vector<double> u(static_cast<std::size_t>(mesh.nodes()));
    for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
      const Point x = mesh.point(node);
      u[static_cast<std::size_t>(node)] = std::exp(x[0] + x[1]);
    }
    const double error = std::abs(norm_h<double>(mesh, u, nullptr, GetParam()) - exact);
    if (level > 0) {
      EXPECT_NEAR(previous_error / error, 4.0, 0.3) << "level " << level;
    }
    previous_error = error;
  }
  EXPECT_LT(previous_error, 1e-3);
}

TEST_P(NormsKnownValues, MarkersRestrictTheSums) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  const Backend b = GetParam();
  const Mesh mesh({Mesh1D::random(0.0, 1.0, 30, 4), Mesh1D::random(0.0, 2.0, 20, 5)});
  const std::vector<double> u = testing::random_vector<double>(static_cast<std::size_t>(mesh.nodes()), 8);
  const std::vector<double> v = testing::random_vector<double>(static_cast<std::size_t>(mesh.nodes()), 9);
  const Marker left = mark(mesh, "left", [](const Point& x) { return x[0] < 0.5; });
  const Marker right = mark(mesh, "right", [](const Point& x) { return x[0] >= 0.5; });
  const Marker all = mark(mesh, "all", [](const Point&) { return true; });
  const Marker none = mark(mesh, "none", [](const Point&) { return false; });
  EXPECT_NEAR(inner_h<double>(mesh, u, v, &left, b) + inner_h<double>(mesh, u, v, &right, b),
              inner_h<double>(mesh, u, v, nullptr, b), 1e-13);
  EXPECT_NEAR(inner_plus<double>(mesh, u, v, 1, &left, b) + inner_plus<double>(mesh, u, v, 1, &right, b),
              inner_plus<double>(mesh, u, v, 1, nullptr, b), 1e-13);
  EXPECT_NEAR(inner_h<double>(mesh, u, v, &all, b), inner_h<double>(mesh, u, v, nullptr, b), 1e-13);
  EXPECT_EQ(inner_h<double>(mesh, u, v, &none, b), 0.0);
  EXPECT_EQ(h1_norm<double>(mesh, u, &none, b), 0.0);
  EXPECT_EQ(max_norm<double>(u, &none, b), 0.0);
  // One node: its weight times u v.
  const std::int32_t node = mesh.index({7, 4, 0});
  const Marker one{"one", {node}};
  const double weight = mesh.axis(0).half_spacing(7) * mesh.axis(1).half_spacing(4);
  const auto at = static_cast<std::size_t>(node);
  EXPECT_NEAR(inner_h<double>(mesh, u, v, &one, b), weight * u[at] * v[at], 1e-15);
  const double plus_weight = mesh.axis(0).spacing(7) * mesh.axis(1).half_spacing(4);
  EXPECT_NEAR(inner_plus<double>(mesh, u, v, 0, &one, b), plus_weight * u[at] * v[at], 1e-15);
  EXPECT_EQ(max_norm<double>(u, &one, b), std::abs(u[at]));
  // Index 0 along the axis is left out of inner_plus.
  const Marker first_column{"first column", {mesh.index({0, 3, 0})}};
  EXPECT_EQ(inner_plus<double>(mesh, u, v, 0, &first_column, b), 0.0);
  EXPECT_NE(inner_plus<double>(mesh, u, v, 1, &first_column, b), 0.0);
}

TEST_P(NormsKnownValues, MaxNormPropagatesNaN) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::vector<double> u = testing::random_vector<double>(20000, 10);
  u[12345] = -7.5;
  EXPECT_EQ(max_norm<double>(u, nullptr, GetParam()), 7.5);
  u[17] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(max_norm<double>(u, nullptr, GetParam())));
  const Marker elsewhere{"elsewhere", {3, 12345}};
  EXPECT_EQ(max_norm<double>(u, &elsewhere, GetParam()), 7.5);
}

INSTANTIATE_TEST_SUITE_P(Backends, NormsKnownValues, ::testing::Values(Backend::reference, Backend::cpu, Backend::cuda),
                         testing::backend_test_name);

TEST(Norms, RejectsBadArguments) {
  const Mesh mesh = Mesh::cube(Mesh1D::uniform(0, 1, 4), 2);
  const std::vector<double> u(25, 1.0), short_u(24, 1.0);
  EXPECT_THROW(inner_h<double>(mesh, u, short_u, nullptr, Backend::reference), UsageError);
  EXPECT_THROW(norm_h<double>(mesh, short_u, nullptr, Backend::cpu), UsageError);
  EXPECT_THROW(inner_plus<double>(mesh, u, u, 2, nullptr, Backend::reference), UsageError);
  EXPECT_THROW(inner_plus<double>(mesh, u, u, -1, nullptr, Backend::reference), UsageError);
  const Marker outside{"outside", {3, 25}};
  EXPECT_THROW(inner_h<double>(mesh, u, u, &outside, Backend::reference), UsageError);
  const Marker unsorted{"unsorted", {4, 3}};
  EXPECT_THROW(norm_h<double>(mesh, u, &unsorted, Backend::cpu), UsageError);
  EXPECT_THROW(max_norm<double>(u, &outside, Backend::cpu), UsageError);
  const std::vector<std::span<const double>> one_component{u};
  EXPECT_THROW(norm_plus<double>(mesh, one_component, nullptr, Backend::reference), UsageError);
}

}  // namespace
}  // namespace trellis::grid
