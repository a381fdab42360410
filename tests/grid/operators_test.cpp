// Operators: every atom and several chains on every backend against the
// reference, stencils against apply, and values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/grid_function.hpp"
#include "trellis/grid/operators.hpp"

namespace trellis::grid {
namespace {

template <typename T>
double tolerance() {
  return sizeof(T) == 8 ? 1e-12 : 1e-5;
}

// |actual - expected| within tolerance<T>() of expected's max-norm.
template <typename T>
void expect_close(const std::vector<T>& actual, const std::vector<T>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double scale = 0;
  for (T e : expected) scale = std::max(scale, std::abs(static_cast<double>(e)));
  const double bound = tolerance<T>() * std::max(scale, 1e-300);
  int reported = 0;
  for (std::size_t n = 0; n < actual.size(); ++n) {
    const double diff = std::abs(static_cast<double>(actual[n]) - static_cast<double>(expected[n]));
    if (!(diff <= bound)) {
      ADD_FAILURE() << what << ": node " << n << " got " << actual[n] << ", reference " << expected[n];
      if (++reported > 5) return;
    }
  }
}

std::vector<Operator> all_atoms(int axis) {
  return {backward_difference(axis), forward_difference(axis), backward_jump(axis),  forward_jump(axis),
          backward_average(axis),    forward_average(axis),    backward_shift(axis), forward_shift(axis)};
}

std::string describe(const Operator& op) {
  std::string s = "[";
  for (const Atom& atom : op.atoms()) {
    s += " kind " + std::to_string(static_cast<int>(atom.kind)) + "/axis " + std::to_string(atom.axis);
  }
  return s + " ]";
}

// Every atom on every axis, plus chains mixing axes and kinds.
std::vector<Operator> operators_for(int dim) {
  std::vector<Operator> ops{identity()};
  for (int a = 0; a < dim; ++a) {
    for (const Operator& atom : all_atoms(a)) ops.push_back(atom);
    ops.push_back(compose(forward_difference(a), backward_difference(a)));  // the 1-D Laplacian
    ops.push_back(compose(backward_average(a), forward_jump(a)));
    ops.push_back(compose(forward_shift(a), compose(backward_shift(a), backward_difference(a))));
  }
  if (dim >= 2) {
    ops.push_back(compose(backward_difference(1), backward_difference(0)));
    ops.push_back(compose(forward_average(0), compose(backward_difference(1), forward_shift(0))));
  }
  if (dim >= 3) {
    ops.push_back(compose(backward_difference(2), compose(forward_average(1), backward_jump(0))));
    ops.push_back(compose(forward_difference(2), backward_difference(2)));
  }
  return ops;
}

std::vector<Mesh> meshes() {
  return {
      Mesh({Mesh1D::random(0.0, 1.0, 40, 1)}),
      Mesh({Mesh1D::uniform(0.0, 1.0, 1)}),  // two nodes, both on the boundary
      Mesh({Mesh1D::random(-1.0, 2.0, 17, 2), Mesh1D::graded(0.0, 1.0, 12, 1.2)}),
      Mesh({Mesh1D::random(0.0, 1.0, 9, 3), Mesh1D::uniform(0.0, 1.0, 1), Mesh1D::random(0.0, 3.0, 11, 4)}),
      Mesh({Mesh1D::random(0.0, 1.0, 20, 5), Mesh1D::random(0.0, 1.0, 16, 6), Mesh1D::random(0.0, 1.0, 12, 7)}),
  };
}

class OperatorsIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

template <typename T>
void check_all_operators(Backend backend) {
  std::uint64_t seed = 10;
  for (const Mesh& mesh : meshes()) {
    const auto n = static_cast<std::size_t>(mesh.nodes());
    for (const Operator& op : operators_for(mesh.dim())) {
      const std::vector<T> u = testing::random_vector<T>(n, seed++);
      std::vector<T> expected(n);
      std::vector<T> actual(n, std::numeric_limits<T>::quiet_NaN());  // every entry must be written
      apply<T>(op, mesh, u, expected, Backend::reference);
      apply<T>(op, mesh, u, actual, backend);
      expect_close(actual, expected, std::to_string(mesh.dim()) + "-D " + describe(op));
    }
  }
}

TEST_P(OperatorsIsEquivalentToRef, Double) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  check_all_operators<double>(GetParam());
}

TEST_P(OperatorsIsEquivalentToRef, Float) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  check_all_operators<float>(GetParam());
}

TEST_P(OperatorsIsEquivalentToRef, GridFunctionApply) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  auto mesh = std::make_shared<const Mesh>(Mesh({Mesh1D::random(0, 1, 30, 8), Mesh1D::random(0, 2, 25, 9)}));
  GridFunction<double> u(mesh, testing::random_vector<double>(static_cast<std::size_t>(mesh->nodes()), 77));
  const Operator op = compose(forward_difference(1), backward_difference(0));
  const GridFunction<double> expected = apply(op, u, Backend::reference);
  const GridFunction<double> actual = apply(op, u, GetParam());
  EXPECT_EQ(actual.shared_mesh(), mesh);
  expect_close(std::vector<double>(actual.values().begin(), actual.values().end()),
               std::vector<double>(expected.values().begin(), expected.values().end()), "grid function");
}

INSTANTIATE_TEST_SUITE_P(Backends, OperatorsIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

TEST(OperatorsOnDevice, ResidentDataMatchesReference) {
  TRELLIS_SKIP_UNLESS_CUDA();
  for (const Mesh& mesh : meshes()) {
    const DeviceMesh<double> device_mesh(mesh);
    const auto n = static_cast<std::size_t>(mesh.nodes());
    for (const Operator& op : operators_for(mesh.dim())) {
      const std::vector<double> u = testing::random_vector<double>(n, 500);
      std::vector<double> expected(n);
      apply<double>(op, mesh, u, expected, Backend::reference);
      const auto device_u = DeviceArray<double>::from_host(u);
      DeviceArray<double> device_out(n);
      apply(op, device_mesh, device_u, device_out);
      expect_close(device_out.to_host(), expected, "resident " + describe(op));
    }
  }
}

TEST(Operators, ComposeAppliesTheRightOperandFirst) {
  const Operator laplacian = compose(forward_difference(0), backward_difference(1));
  ASSERT_EQ(laplacian.atoms().size(), 2u);
  EXPECT_EQ(laplacian.atoms()[0], (Atom{AtomKind::backward_difference, 1}));
  EXPECT_EQ(laplacian.atoms()[1], (Atom{AtomKind::forward_difference, 0}));
  EXPECT_EQ(compose(identity(), backward_jump(2)), backward_jump(2));
  EXPECT_EQ(compose(backward_jump(2), identity()), backward_jump(2));
  EXPECT_TRUE(identity().is_identity());
}

TEST(Operators, RejectsBadAxesAndSizes) {
  EXPECT_THROW(backward_difference(3), UsageError);
  EXPECT_THROW(forward_shift(-1), UsageError);
  const Mesh line({Mesh1D::uniform(0, 1, 4)});
  std::vector<double> u(5, 1.0), out(5);
  EXPECT_THROW(apply<double>(backward_difference(1), line, u, out, Backend::reference), UsageError);
  EXPECT_THROW(compose(backward_difference(0), forward_jump(2)).check_axes(2), UsageError);
  EXPECT_NO_THROW(compose(backward_difference(0), forward_jump(2)).check_axes(3));
  std::vector<double> short_out(4);
  EXPECT_THROW(apply<double>(backward_difference(0), line, u, short_out, Backend::cpu), UsageError);
  EXPECT_THROW(stencil_at(line, backward_difference(0), 5), UsageError);
  EXPECT_THROW(stencil_at(line, backward_difference(1), 0), UsageError);
}

// Points 0, 1, 3, 6 (h = 1, 1, 2, 3, 3) and u = 1, 4, 2, 8, worked by hand.
TEST(Operators, KnownValuesOnASmallNonUniformMesh) {
  const Mesh mesh({Mesh1D::from_points({0.0, 1.0, 3.0, 6.0})});
  const std::vector<double> u{1, 4, 2, 8};
  auto expect_values = [](const std::vector<double>& actual, const std::vector<double>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_DOUBLE_EQ(actual[i], expected[i]) << "node " << i;
  };
  auto applied = [&](const Operator& op) {
    std::vector<double> out(4);
    apply<double>(op, mesh, u, out, Backend::reference);
    return out;
  };
  expect_values(applied(backward_difference(0)), {1, 3, -1, 2});
  expect_values(applied(forward_difference(0)), {3, -1, 2, -8.0 / 3});
  expect_values(applied(backward_jump(0)), {1, 3, -2, 6});
  expect_values(applied(forward_jump(0)), {3, -2, 6, -8});
  expect_values(applied(backward_average(0)), {0.5, 2.5, 3, 5});
  expect_values(applied(forward_average(0)), {2.5, 3, 5, 4});
  expect_values(applied(backward_shift(0)), {0, 1, 4, 2});
  expect_values(applied(forward_shift(0)), {4, 2, 8, 0});
  EXPECT_EQ(applied(identity()), u);
  // D+ after D-: D- u = 1, 3, -1, 2, then D+ of that.
  const std::vector<double> second = applied(compose(forward_difference(0), backward_difference(0)));
  const std::vector<double> by_hand{2, -2, 1, -2.0 / 3};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(second[i], by_hand[i]) << i;
  // The same chain's stencil at node 1: (D- u)_2 / h_2 - (D- u)_1 / h_2 with h_2 = 2.
  const std::vector<StencilEntry> stencil = stencil_at(mesh, compose(forward_difference(0), backward_difference(0)), 1);
  ASSERT_EQ(stencil.size(), 3u);
  EXPECT_EQ(stencil[0].source, 0);
  EXPECT_DOUBLE_EQ(stencil[0].weight, 0.5);
  EXPECT_EQ(stencil[1].source, 1);
  EXPECT_DOUBLE_EQ(stencil[1].weight, -0.75);
  EXPECT_EQ(stencil[2].source, 2);
  EXPECT_DOUBLE_EQ(stencil[2].weight, 0.25);
}

TEST(Operators, BackwardDifferenceOfALinearFunctionIsExactInside) {
  const Mesh mesh({Mesh1D::random(0.0, 2.0, 25, 31), Mesh1D::random(-1.0, 1.0, 19, 32)});
  std::vector<double> u(static_cast<std::size_t>(mesh.nodes()));
  for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
    const Point x = mesh.point(node);
    u[static_cast<std::size_t>(node)] = 3 * x[0] - 5 * x[1] + 2;
  }
  for (int axis = 0; axis < 2; ++axis) {
    for (Backend backend : {Backend::reference, Backend::cpu}) {
      std::vector<double> du(u.size());
      apply<double>(backward_difference(axis), mesh, u, du, backend);
      const double slope = axis == 0 ? 3.0 : -5.0;
      for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
        if (mesh.multi_index(node)[static_cast<std::size_t>(axis)] == 0) continue;  // u_{-1} := 0 there
        EXPECT_NEAR(du[static_cast<std::size_t>(node)], slope, 1e-11) << "axis " << axis << " node " << node;
      }
    }
  }
}

// Row `node` of the operator's matrix, from applying it to unit vectors.
std::vector<double> matrix_row(const Mesh& mesh, const Operator& op, std::int32_t node) {
  const auto n = static_cast<std::size_t>(mesh.nodes());
  std::vector<double> row(n);
  std::vector<double> unit(n, 0.0), out(n);
  for (std::size_t col = 0; col < n; ++col) {
    unit[col] = 1;
    apply<double>(op, mesh, unit, out, Backend::reference);
    row[col] = out[static_cast<std::size_t>(node)];
    unit[col] = 0;
  }
  return row;
}

TEST(Operators, StencilAgreesWithApplyOnUnitVectors) {
  const Mesh mesh({Mesh1D::random(0.0, 1.0, 5, 41), Mesh1D::random(0.0, 1.0, 4, 42)});
  for (const Operator& op : operators_for(2)) {
    for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
      const std::vector<double> row = matrix_row(mesh, op, node);
      const std::vector<StencilEntry> stencil = stencil_at(mesh, op, node);
      EXPECT_LE(stencil.size(), std::size_t{1} << op.atoms().size());
      std::vector<double> from_stencil(row.size(), 0.0);
      for (std::size_t k = 0; k < stencil.size(); ++k) {
        if (k > 0) {
          EXPECT_LT(stencil[k - 1].source, stencil[k].source) << "sources ascending";
        }
        EXPECT_NE(stencil[k].weight, 0.0);
        from_stencil[static_cast<std::size_t>(stencil[k].source)] = stencil[k].weight;
      }
      for (std::size_t col = 0; col < row.size(); ++col) {
        EXPECT_NEAR(from_stencil[col], row[col], 1e-12 * (1 + std::abs(row[col])))
            << describe(op) << " node " << node << " col " << col;
      }
    }
  }
}

TEST(Operators, StencilMergesCancellingEntries) {
  // M- after backward shift and forward shift after it: duplicates merge.
  const Mesh mesh({Mesh1D::uniform(0, 1, 6)});
  const Operator op = compose(forward_shift(0), backward_shift(0));
  EXPECT_TRUE(stencil_at(mesh, op, 6).empty());  // u_7 := 0 has no source
  const std::vector<StencilEntry> inside = stencil_at(mesh, op, 3);
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0].source, 3);
  EXPECT_EQ(inside[0].weight, 1.0);
  // D+ - D- style cancellation: jump forward then jump backward hits the node twice.
  const std::vector<StencilEntry> jumps = stencil_at(mesh, compose(backward_jump(0), forward_jump(0)), 3);
  ASSERT_EQ(jumps.size(), 3u);
  EXPECT_EQ(jumps[1].source, 3);
  EXPECT_EQ(jumps[1].weight, -2.0);
}

}  // namespace
}  // namespace trellis::grid
