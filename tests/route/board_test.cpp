// Board geometry on its own: boxes, outline tests.
#include <gtest/gtest.h>

#include "trellis/route/board.hpp"

namespace trellis::route {
namespace {

TEST(BoardGeometry, BoundingBoxesGrowByHalfTheWidth) {
  EXPECT_EQ(bounding_box({ShapeKind::circle, 10, {{0, 0}}}).min, (Point{-5, -5}));
  const Box path = bounding_box({ShapeKind::path, 4, {{0, 0}, {10, 0}}});
  EXPECT_EQ(path.min, (Point{-2, -2}));
  EXPECT_EQ(path.max, (Point{12, 2}));
  EXPECT_EQ(bounding_box({ShapeKind::rect, 0, {{1, 2}, {3, 4}}}).max, (Point{3, 4}));
  EXPECT_TRUE(bounding_box({ShapeKind::polygon, 0, {}}).empty());
}

TEST(BoardGeometry, InsideBoundaryOfAnLShapedOutline) {
  Board board;
  // An L: the square 0..10 without its upper right quarter, as a closed path.
  board.boundary = {{ShapeKind::path, 0, {{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}, {0, 0}}}};
  EXPECT_TRUE(inside_boundary(board, {2, 2}));
  EXPECT_TRUE(inside_boundary(board, {8, 2}));
  EXPECT_TRUE(inside_boundary(board, {2, 8}));
  EXPECT_FALSE(inside_boundary(board, {8, 8}));  // the missing quarter
  EXPECT_TRUE(inside_boundary(board, {10, 3}));  // on an edge
  EXPECT_TRUE(inside_boundary(board, {5, 10}));  // on a corner
  EXPECT_FALSE(inside_boundary(board, {-1, 5}));
  const Box box = boundary_box(board);
  EXPECT_EQ(box.min, (Point{0, 0}));
  EXPECT_EQ(box.max, (Point{10, 10}));
}

TEST(BoardGeometry, NoBoundaryContainsEverything) { EXPECT_TRUE(inside_boundary(Board{}, {1'000'000'000, 0})); }

TEST(BoardGeometry, BackSideFlipsTheLayerStack) {
  Board board;
  board.layers.resize(4);
  const Component back{"X", 0, {}, Side::back, 0};
  const Component front{"Y", 0, {}, Side::front, 0};
  EXPECT_EQ(placed_layer(board, back, 0), 3);
  EXPECT_EQ(placed_layer(board, back, 1), 2);
  EXPECT_EQ(placed_layer(board, front, 1), 1);
  EXPECT_EQ(placed_point(back, {10, 3}), (Point{-10, 3}));
}

}  // namespace
}  // namespace trellis::route
