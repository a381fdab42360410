// R_h and avg_h: nodal values, exactness of the control-volume means for
// polynomials, and avg_h - R_h = O(h^2) inside on smooth meshes.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "trellis/core/error.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {
namespace {

std::shared_ptr<const Mesh> shared(Mesh mesh) { return std::make_shared<const Mesh>(std::move(mesh)); }

TEST(Projections, RestrictToNodesTakesNodalValues) {
  auto mesh = shared(Mesh({Mesh1D::random(0, 1, 17, 1), Mesh1D::random(-1, 1, 9, 2), Mesh1D::uniform(0, 2, 5)}));
  auto f = [](const Point& x) { return std::sin(x[0]) + x[1] * x[2]; };
  const GridFunction<double> r = restrict_to_nodes(mesh, f);
  EXPECT_EQ(r.shared_mesh(), mesh);
  for (std::int32_t node = 0; node < mesh->nodes(); ++node) EXPECT_EQ(r[node], f(mesh->point(node)));
}

// p(t) = t^5 - 2 t^3 + 0.5 t^2 + t + 1 and its antiderivative.
double p(double t) { return ((((t * t - 2) * t) + 0.5) * t + 1) * t + 1; }
double p_integral(double t) { return std::pow(t, 6) / 6 - std::pow(t, 4) / 2 + std::pow(t, 3) / 6 + t * t / 2 + t; }
double q(double t) { return 3 * std::pow(t, 4) - t + 2; }
double q_integral(double t) { return 3 * std::pow(t, 5) / 5 - t * t / 2 + 2 * t; }

// The mean of g over node i's control volume on one axis, from g's antiderivative.
template <typename Antiderivative>
double exact_mean(const Mesh1D& axis, std::int32_t i, Antiderivative integral) {
  const double lo = i == 0 ? axis.point(0) : 0.5 * (axis.point(i - 1) + axis.point(i));
  const double hi = i == axis.cells() ? axis.point(i) : 0.5 * (axis.point(i) + axis.point(i + 1));
  return (integral(hi) - integral(lo)) / (hi - lo);
}

TEST(Projections, CellAverageIsExactForDegreeFive) {
  auto mesh = shared(Mesh({Mesh1D::random(-1, 1.5, 13, 3), Mesh1D::random(0, 2, 8, 4), Mesh1D::random(-2, 0, 6, 5)}));
  // A sum of tensor products of degree at most 5 in each variable.
  auto f = [](const Point& x) { return p(x[0]) * q(x[1]) * p(x[2]) - 2 * q(x[0]) * p(x[1]); };
  const GridFunction<double> avg = cell_average(mesh, f);
  for (std::int32_t node = 0; node < mesh->nodes(); ++node) {
    const MultiIndex i = mesh->multi_index(node);
    const double expected =
        exact_mean(mesh->axis(0), i[0], p_integral) * exact_mean(mesh->axis(1), i[1], q_integral) *
            exact_mean(mesh->axis(2), i[2], p_integral) -
        2 * exact_mean(mesh->axis(0), i[0], q_integral) * exact_mean(mesh->axis(1), i[1], p_integral);
    EXPECT_NEAR(avg[node], expected, 1e-12 * (1 + std::abs(expected))) << "node " << node;
  }
}

TEST(Projections, CellAverageOfOneDimensionAndMorePoints) {
  auto mesh = shared(Mesh({Mesh1D::random(0, 3, 21, 6)}));
  // Degree 9 needs five points.
  auto f = [](const Point& x) { return std::pow(x[0], 9) - x[0]; };
  auto integral = [](double t) { return std::pow(t, 10) / 10 - t * t / 2; };
  const GridFunction<double> avg = cell_average(mesh, f, 5);
  for (std::int32_t i = 0; i < mesh->nodes(); ++i) {
    const double expected = exact_mean(mesh->axis(0), i, integral);
    EXPECT_NEAR(avg[i], expected, 1e-12 * (1 + std::abs(expected))) << i;
  }
  // One point is the midpoint rule: exact for linear functions.
  const GridFunction<double> linear = cell_average(
      mesh, [](const Point& x) { return 2 * x[0] + 1; }, 1);
  for (std::int32_t i = 0; i < mesh->nodes(); ++i) {
    EXPECT_NEAR(linear[i], exact_mean(mesh->axis(0), i, [](double t) { return t * t + t; }), 1e-12) << i;
  }
}

TEST(Projections, CellAverageMinusRestrictionIsSecondOrderInside) {
  auto f = [](const Point& x) { return std::sin(2 * x[0]) * std::exp(x[1]); };
  double previous = 0;
  for (int level = 0; level < 4; ++level) {
    // The grading ratio tends to 1 as the cells shrink (h_{i+1} - h_i = O(h^2)),
    // so each control volume is centred on its node up to O(h^2).
    const std::int32_t cells = 16 << level;
    auto m = shared(Mesh({Mesh1D::graded(0, 1, cells, std::pow(1.5, 1.0 / cells)), Mesh1D::uniform(0, 1, cells)}));
    const GridFunction<double> difference = cell_average(m, f) - restrict_to_nodes(m, f);
    double largest = 0;
    for (std::int32_t node = 0; node < m->nodes(); ++node) {
      if (!m->on_boundary(node)) largest = std::max(largest, std::abs(difference[node]));
    }
    if (level > 0) {
      EXPECT_NEAR(previous / largest, 4.0, 0.4) << "level " << level;
    }
    previous = largest;
  }
}

TEST(Projections, RejectsBadArgumentsAndPassesOnExceptions) {
  auto mesh = shared(Mesh({Mesh1D::uniform(0, 1, 50)}));
  auto one = [](const Point&) { return 1.0; };
  EXPECT_THROW(cell_average(mesh, one, 0), UsageError);
  EXPECT_THROW(cell_average(mesh, one, 33), UsageError);
  EXPECT_THROW(restrict_to_nodes(nullptr, one), UsageError);
  auto failing = [](const Point& x) -> double {
    if (x[0] > 0.5) throw std::domain_error("f undefined right of 0.5");
    return 0.0;
  };
  EXPECT_THROW(restrict_to_nodes(mesh, failing), std::domain_error);
  EXPECT_THROW(cell_average(mesh, failing), std::domain_error);
  const GridFunction<double> avg = cell_average(mesh, one, 32);
  for (std::int32_t i = 0; i < mesh->nodes(); ++i) EXPECT_NEAR(avg[i], 1.0, 1e-14);
}

TEST(GridFunction, ArithmeticRequiresTheSameMesh) {
  auto mesh = shared(Mesh({Mesh1D::uniform(0, 1, 4)}));
  auto copy = shared(*mesh);
  auto other = shared(Mesh({Mesh1D::uniform(0, 2, 4)}));
  GridFunction<double> a(mesh, std::vector<double>{1, 2, 3, 4, 5});
  const GridFunction<double> b(copy, 2.0);
  EXPECT_EQ((a + b).values()[4], 7.0);
  EXPECT_EQ((a - b).values()[0], -1.0);
  EXPECT_EQ((3.0 * a)[(MultiIndex{2, 0, 0})], 9.0);
  a.add_scaled(0.5, b);
  EXPECT_EQ(a[1], 3.0);
  const GridFunction<float> f = a.converted<float>();
  EXPECT_EQ(f[1], 3.0f);
  EXPECT_THROW(a += GridFunction<double>(other), UsageError);
  EXPECT_THROW(GridFunction<double>(mesh, std::vector<double>(4)), UsageError);
  EXPECT_THROW(GridFunction<double>(nullptr), UsageError);
}

}  // namespace
}  // namespace trellis::grid
