// The design-rule check's distances between primitives.
#include "route/geometry/geometry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace trellis::route::geometry {
namespace {

TEST(Geometry, KnownSeparations) {
  // Two discs 10 apart between centres, radii 2 and 3.
  EXPECT_DOUBLE_EQ(separation(disc({0, 0}, 2), disc({10, 0}, 3)).distance, 5);
  // A point 4 above the middle of a capsule of radius 1.
  EXPECT_DOUBLE_EQ(separation(Point{5, 4}, capsule({0, 0}, {10, 0}, 1)).distance, 3);
  // Inside a filled square: they overlap.
  const Primitive square = filled_polygon({{0, 0}, {10, 0}, {10, 10}, {0, 10}}, 0);
  EXPECT_EQ(separation(Point{5, 5}, square).distance, 0);
  EXPECT_DOUBLE_EQ(separation(Point{13, 14}, square).distance, 5);
}

// The point form is the disc form of radius 0 to the last bit, on discs,
// capsules and polygons, near and far, inside and on edges.
TEST(Geometry, APointSeparatesAsADiscOfRadiusZero) {
  std::mt19937 random(17);
  std::uniform_int_distribution<Coord> at(-50'000, 50'000);
  std::uniform_real_distribution<double> radius(0, 4'000);
  for (int i = 0; i < 20'000; ++i) {
    const Point p{at(random), at(random)};
    std::vector<Primitive> shapes = {
        disc({at(random), at(random)}, radius(random)),
        capsule({at(random), at(random)}, {at(random), at(random)}, radius(random)),
        capsule(p, {at(random), at(random)}, 0),
        filled_polygon({{at(random), at(random)}, {at(random), at(random)}, {at(random), at(random)}, p},
                       radius(random))};
    for (const Primitive& shape : shapes) {
      const Separation expected = separation(disc(p, 0), shape);
      const Separation actual = separation(p, shape);
      ASSERT_EQ(actual.distance, expected.distance) << i;
      ASSERT_EQ(actual.where, expected.where) << i;
    }
  }
}

}  // namespace
}  // namespace trellis::route::geometry
