// Meshes: constructors, validation errors, refinement, spacing conventions,
// node numbering and markers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "trellis/core/error.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid {
namespace {

// The UsageError's message, or "" when f does not throw one.
template <typename F>
std::string usage_error_of(F f) {
  try {
    f();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(Mesh1D, UniformHasEqualCellsAndExactEnds) {
  const Mesh1D m = Mesh1D::uniform(-1.0, 2.0, 6);
  EXPECT_EQ(m.cells(), 6);
  EXPECT_EQ(m.nodes(), 7);
  EXPECT_EQ(m.point(0), -1.0);
  EXPECT_EQ(m.point(6), 2.0);
  for (std::int32_t i = 1; i <= 6; ++i) EXPECT_NEAR(m.spacing(i), 0.5, 1e-15);
  EXPECT_NEAR(m.max_spacing(), 0.5, 1e-15);
}

TEST(Mesh1D, UniformMeshesHaveOneSpacingBitForBit) {
  // On [0, 1] with 255 cells the points' differences scatter over a few ulps;
  // the spacing is (b - a) / N for every i, also after refinement.
  const Mesh1D m = Mesh1D::uniform(0.0, 1.0, 255);
  EXPECT_TRUE(m.is_uniform());
  for (std::int32_t i = 0; i <= m.cells() + 1; ++i) EXPECT_EQ(m.spacing(i), 1.0 / 255) << i;
  const Mesh1D fine = m.refined();
  EXPECT_TRUE(fine.is_uniform());
  for (std::int32_t i = 0; i <= fine.cells() + 1; ++i) EXPECT_EQ(fine.spacing(i), 0.5 / 255) << i;
  EXPECT_TRUE(Mesh1D::graded(0.0, 1.0, 7, 1.0).is_uniform());
  EXPECT_FALSE(Mesh1D::from_points(m.points()).is_uniform());
  EXPECT_FALSE(Mesh1D::random(0.0, 1.0, 8, 3).is_uniform());
  EXPECT_FALSE(Mesh1D::graded(0.0, 1.0, 7, 1.1).is_uniform());
}

TEST(Mesh1D, SpacingConventionsAtTheEnds) {
  const Mesh1D m = Mesh1D::from_points({0.0, 1.0, 3.0, 6.0});
  EXPECT_EQ(m.spacings(), (std::vector<double>{1, 1, 2, 3, 3}));  // h_0 := h_1, h_4 := h_3
  EXPECT_EQ(m.half_spacings(), (std::vector<double>{0.5, 1.5, 2.5, 1.5}));
  EXPECT_EQ(m.spacing(0), m.spacing(1));
  EXPECT_EQ(m.spacing(4), m.spacing(3));
  EXPECT_EQ(m.max_spacing(), 3.0);
  EXPECT_THROW((void)m.spacing(5), UsageError);
  EXPECT_THROW((void)m.spacing(-1), UsageError);
  EXPECT_THROW((void)m.half_spacing(4), UsageError);
}

TEST(Mesh1D, HalfSpacingsSumToTheLength) {
  const Mesh1D m = Mesh1D::random(0.25, 3.5, 37, 11);
  const std::vector<double> hh = m.half_spacings();
  EXPECT_NEAR(std::accumulate(hh.begin(), hh.end(), 0.0), 3.25, 1e-13);
}

TEST(Mesh1D, FromPointsRejectsBadPoints) {
  EXPECT_NE(usage_error_of([] { Mesh1D::from_points({}); }).find("at least two points"), std::string::npos);
  EXPECT_NE(usage_error_of([] { Mesh1D::from_points({1.0}); }).find("at least two points"), std::string::npos);
  EXPECT_EQ(usage_error_of([] {
              Mesh1D::from_points({0.0, 0.1, 0.25, 0.2});
            }),
            "mesh points must be strictly increasing: x[3] = 0.2 <= x[2] = 0.25");
  EXPECT_NE(usage_error_of([] {
              Mesh1D::from_points({0.0, 0.5, 0.5});
            }).find("x[2] = 0.5 <= x[1] = 0.5"),
            std::string::npos);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(usage_error_of([&] { Mesh1D::from_points({0.0, nan, 1.0}); }).find("x[1]"), std::string::npos);
  EXPECT_NE(usage_error_of([] {
              Mesh1D::from_points({0.0, std::numeric_limits<double>::infinity()});
            }).find("not finite"),
            std::string::npos);
}

TEST(Mesh1D, ConstructorsRejectBadArguments) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(usage_error_of([] { Mesh1D::uniform(0, 1, 0); }).find("cells must be at least 1"), std::string::npos);
  EXPECT_THROW(Mesh1D::uniform(0, 1, -3), UsageError);
  EXPECT_THROW(Mesh1D::uniform(1, 1, 3), UsageError);
  EXPECT_THROW(Mesh1D::uniform(2, 1, 3), UsageError);
  EXPECT_THROW(Mesh1D::uniform(nan, 1, 3), UsageError);
  EXPECT_NE(
      usage_error_of([] { Mesh1D::uniform(0, 1, std::numeric_limits<std::int32_t>::max()); }).find("2^31-1 nodes"),
      std::string::npos);
  EXPECT_NE(usage_error_of([] { Mesh1D::graded(0, 1, 4, 0.0); }).find("ratio"), std::string::npos);
  EXPECT_THROW(Mesh1D::graded(0, 1, 4, -2.0), UsageError);
  EXPECT_THROW(Mesh1D::graded(0, 1, 4, nan), UsageError);
  EXPECT_THROW(Mesh1D::graded(0, 1, 4, std::numeric_limits<double>::infinity()), UsageError);
  EXPECT_THROW(Mesh1D::graded(0, 1, 0, 1.1), UsageError);
  EXPECT_NE(usage_error_of([] { Mesh1D::random(0, 1, 4, 1, 1.0); }).find("jitter"), std::string::npos);
  EXPECT_THROW(Mesh1D::random(0, 1, 4, 1, -0.1), UsageError);
  EXPECT_THROW(Mesh1D::random(0, 1, 4, 1, nan), UsageError);
  EXPECT_THROW(Mesh1D::random(0, 1, 0, 1), UsageError);
}

TEST(Mesh1D, GradedSpacingsGrowByTheRatio) {
  const Mesh1D m = Mesh1D::graded(0.0, 1.0, 10, 1.3);
  EXPECT_EQ(m.point(0), 0.0);
  EXPECT_EQ(m.point(10), 1.0);
  for (std::int32_t i = 1; i < 10; ++i) EXPECT_NEAR(m.spacing(i + 1) / m.spacing(i), 1.3, 1e-12);
  const Mesh1D shrinking = Mesh1D::graded(0.0, 1.0, 10, 0.5);
  for (std::int32_t i = 1; i < 10; ++i) EXPECT_NEAR(shrinking.spacing(i + 1) / shrinking.spacing(i), 0.5, 1e-12);
  EXPECT_EQ(Mesh1D::graded(0.0, 2.0, 7, 1.0), Mesh1D::uniform(0.0, 2.0, 7));
  // A ratio a hair away from 1 is still accurate.
  const Mesh1D nearly_uniform = Mesh1D::graded(0.0, 1.0, 8, 1.0 + 1e-13);
  for (std::int32_t i = 1; i <= 8; ++i) EXPECT_NEAR(nearly_uniform.spacing(i), 0.125, 1e-12);
}

TEST(Mesh1D, RandomIsSeededAndBounded) {
  const double jitter = 0.6;
  const Mesh1D m = Mesh1D::random(1.0, 5.0, 50, 42, jitter);
  EXPECT_EQ(m, Mesh1D::random(1.0, 5.0, 50, 42, jitter));
  EXPECT_NE(m, Mesh1D::random(1.0, 5.0, 50, 43, jitter));
  EXPECT_EQ(m.point(0), 1.0);
  EXPECT_EQ(m.point(50), 5.0);
  const double h = 4.0 / 50;
  for (std::int32_t i = 1; i <= 50; ++i) {
    EXPECT_GT(m.spacing(i), (1 - jitter) * h * (1 - 1e-12));
    EXPECT_LT(m.spacing(i), (1 + jitter) * h * (1 + 1e-12));
  }
  const Mesh1D still = Mesh1D::random(0.0, 1.0, 10, 7, 0.0);
  for (std::int32_t i = 0; i <= 10; ++i) EXPECT_NEAR(still.point(i), i / 10.0, 1e-15);
  EXPECT_EQ(Mesh1D::random(0.0, 1.0, 1, 9).points(), (std::vector<double>{0.0, 1.0}));
}

TEST(Mesh1D, RefinedInsertsMidpoints) {
  const Mesh1D m = Mesh1D::from_points({0.0, 1.0, 3.0});
  EXPECT_EQ(m.refined().points(), (std::vector<double>{0.0, 0.5, 1.0, 2.0, 3.0}));
  const Mesh1D r = Mesh1D::random(0, 1, 13, 5);
  const Mesh1D fine = r.refined();
  EXPECT_EQ(fine.cells(), 26);
  for (std::int32_t i = 0; i <= 13; ++i) EXPECT_EQ(fine.point(2 * i), r.point(i));
  EXPECT_NEAR(fine.max_spacing(), r.max_spacing() / 2, 1e-15);
}

TEST(Mesh, NodeNumberingRoundTrips) {
  const Mesh mesh({Mesh1D::uniform(0, 1, 3), Mesh1D::random(0, 2, 4, 3), Mesh1D::uniform(-1, 1, 2)});
  EXPECT_EQ(mesh.dim(), 3);
  EXPECT_EQ(mesh.nodes(), 4 * 5 * 3);
  EXPECT_EQ(mesh.stride(0), 1);
  EXPECT_EQ(mesh.stride(1), 4);
  EXPECT_EQ(mesh.stride(2), 20);
  EXPECT_EQ(mesh.extent(2), 3);
  for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
    const MultiIndex i = mesh.multi_index(node);
    EXPECT_EQ(node, i[0] + 4 * (i[1] + 5 * i[2]));
    EXPECT_EQ(mesh.index(i), node);
    const Point x = mesh.point(node);
    EXPECT_EQ(x[0], mesh.axis(0).point(i[0]));
    EXPECT_EQ(x[1], mesh.axis(1).point(i[1]));
    EXPECT_EQ(x[2], mesh.axis(2).point(i[2]));
    const bool boundary = i[0] == 0 || i[0] == 3 || i[1] == 0 || i[1] == 4 || i[2] == 0 || i[2] == 2;
    EXPECT_EQ(mesh.on_boundary(node), boundary) << node;
  }
}

TEST(Mesh, LowerDimensionsFillUnusedEntries) {
  const Mesh line({Mesh1D::uniform(0, 1, 4)});
  EXPECT_EQ(line.extent(1), 1);
  EXPECT_EQ(line.extent(2), 1);
  EXPECT_EQ(line.multi_index(3), (MultiIndex{3, 0, 0}));
  EXPECT_EQ(line.point(2), (Point{0.5, 0, 0}));
  EXPECT_TRUE(line.on_boundary(0));
  EXPECT_TRUE(line.on_boundary(4));
  EXPECT_FALSE(line.on_boundary(2));
  const Mesh square = Mesh::cube(Mesh1D::uniform(0, 1, 2), 2);
  EXPECT_EQ(square.nodes(), 9);
  EXPECT_EQ(square.multi_index(5), (MultiIndex{2, 1, 0}));
  EXPECT_EQ(square.point(4), (Point{0.5, 0.5, 0}));
  EXPECT_FALSE(square.on_boundary(4));
}

TEST(Mesh, RejectsBadAxisCountsAndTooManyNodes) {
  EXPECT_THROW(Mesh(std::vector<Mesh1D>{}), UsageError);
  EXPECT_THROW(Mesh(std::vector<Mesh1D>(4, Mesh1D::uniform(0, 1, 1))), UsageError);
  EXPECT_THROW(Mesh::cube(Mesh1D::uniform(0, 1, 1), 0), UsageError);
  EXPECT_THROW(Mesh::cube(Mesh1D::uniform(0, 1, 1), 4), UsageError);
  const std::string message = usage_error_of([] { Mesh::cube(Mesh1D::uniform(0, 1, 2000), 3); });
  EXPECT_NE(message.find("2^31-1"), std::string::npos) << message;
}

TEST(Mesh, RefinedRefinesEveryAxis) {
  const Mesh mesh({Mesh1D::uniform(0, 1, 3), Mesh1D::graded(0, 1, 2, 2.0)});
  const Mesh fine = mesh.refined();
  EXPECT_EQ(fine.axis(0), mesh.axis(0).refined());
  EXPECT_EQ(fine.axis(1), mesh.axis(1).refined());
  EXPECT_EQ(fine.nodes(), 7 * 5);
  EXPECT_DOUBLE_EQ(fine.max_spacing(), mesh.max_spacing() / 2);
}

TEST(Marker, MarkSelectsByCoordinates) {
  const Mesh mesh = Mesh::cube(Mesh1D::uniform(0, 1, 4), 2);
  const Marker left = mark(mesh, "left", [](const Point& x) { return x[0] == 0.0; });
  EXPECT_EQ(left.name, "left");
  EXPECT_EQ(left.nodes, (std::vector<std::int32_t>{0, 5, 10, 15, 20}));
  const Marker none = mark(mesh, "none", [](const Point&) { return false; });
  EXPECT_TRUE(none.nodes.empty());
  const Marker all = mark(mesh, "all", [](const Point&) { return true; });
  EXPECT_EQ(all.nodes.size(), 25u);
}

TEST(Marker, BoundaryMarkerHoldsTheBoundaryAscending) {
  const Mesh mesh({Mesh1D::uniform(0, 1, 4), Mesh1D::uniform(0, 1, 3), Mesh1D::uniform(0, 1, 5)});
  const Marker boundary = boundary_marker(mesh);
  EXPECT_EQ(boundary.name, "boundary");
  EXPECT_EQ(static_cast<std::int32_t>(boundary.nodes.size()), mesh.nodes() - 3 * 2 * 4);
  EXPECT_TRUE(std::is_sorted(boundary.nodes.begin(), boundary.nodes.end()));
  for (std::int32_t node : boundary.nodes) EXPECT_TRUE(mesh.on_boundary(node));
  EXPECT_EQ(boundary_marker(Mesh({Mesh1D::uniform(0, 1, 1)}), "ends").nodes, (std::vector<std::int32_t>{0, 1}));
  // Exactly the nodes on_boundary names, in 1 to 3 dimensions, one cell along an axis too.
  const std::vector<Mesh> meshes = {
      Mesh({Mesh1D::uniform(0, 1, 6)}),
      Mesh({Mesh1D::random(0, 1, 3, 7), Mesh1D::uniform(0, 1, 1)}),
      Mesh({Mesh1D::uniform(0, 1, 1), Mesh1D::uniform(0, 1, 4)}),
      Mesh({Mesh1D::uniform(0, 1, 2), Mesh1D::uniform(0, 1, 1), Mesh1D::uniform(0, 1, 3)}),
      Mesh({Mesh1D::uniform(0, 1, 5), Mesh1D::uniform(0, 1, 4), Mesh1D::uniform(0, 1, 1)}),
      Mesh::cube(Mesh1D::uniform(0, 1, 6), 3)};
  for (const Mesh& m : meshes) {
    std::vector<std::int32_t> scanned;
    for (std::int32_t node = 0; node < m.nodes(); ++node) {
      if (m.on_boundary(node)) scanned.push_back(node);
    }
    EXPECT_EQ(boundary_marker(m).nodes, scanned) << m.dim() << "-D, " << m.nodes() << " nodes";
  }
}

TEST(Mesh, RequireSameMesh) {
  const Mesh a = Mesh::cube(Mesh1D::uniform(0, 1, 4), 2);
  const Mesh equal = Mesh::cube(Mesh1D::uniform(0, 1, 4), 2);
  const Mesh moved({Mesh1D::uniform(0, 1, 4), Mesh1D::uniform(0, 2, 4)});
  const Mesh smaller = Mesh::cube(Mesh1D::uniform(0, 1, 3), 2);
  EXPECT_NO_THROW(require_same_mesh(a, a, "test"));
  EXPECT_NO_THROW(require_same_mesh(a, equal, "test"));
  std::string message = usage_error_of([&] { require_same_mesh(a, moved, "inner_h"); });
  EXPECT_NE(message.find("inner_h: operands from different spaces"), std::string::npos) << message;
  message = usage_error_of([&] { require_same_mesh(a, smaller, "apply"); });
  EXPECT_NE(message.find("25 and 16 nodes"), std::string::npos) << message;
}

}  // namespace
}  // namespace trellis::grid
