#include <gtest/gtest.h>

#include "trellis/core/error.hpp"
#include "trellis/grid/stencil.hpp"

namespace trellis::grid {
namespace {

TEST(Laplacian7Point, HasTheStencilEntries) {
  const std::int32_t nx = 4, ny = 3, nz = 5;
  CsrMatrix<double> a = laplacian_7point<double>(nx, ny, nz);
  a.validate();
  EXPECT_EQ(a.rows, nx * ny * nz);
  // 7 per node minus one per boundary face a node touches.
  const std::int64_t missing = 2LL * (ny * nz + nx * nz + nx * ny);
  EXPECT_EQ(a.nnz(), 7LL * a.rows - missing);
  for (std::int32_t row = 0; row < a.rows; ++row) {
    double sum = 0;
    int diagonal = 0;
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      if (k > a.row_offsets[row]) {
        EXPECT_LT(a.col_indices[k - 1], a.col_indices[k]) << "columns ascending";
      }
      if (a.col_indices[k] == row) {
        EXPECT_EQ(a.values[k], 6.0);
        ++diagonal;
      }
      sum += a.values[k];
    }
    EXPECT_EQ(diagonal, 1);
    const std::int32_t i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    const int boundary_faces = (i == 0) + (i == nx - 1) + (j == 0) + (j == ny - 1) + (k == 0) + (k == nz - 1);
    EXPECT_EQ(sum, boundary_faces) << "row sum counts the missing neighbours";
  }
}

TEST(Laplacian7Point, IsSymmetric) {
  CsrMatrix<float> a = laplacian_7point<float>(3, 4, 2);
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      const ColumnIndex col = a.col_indices[k];
      bool found = false;
      for (RowOffset t = a.row_offsets[col]; t < a.row_offsets[col + 1]; ++t) {
        found = found || (a.col_indices[t] == row && a.values[t] == a.values[k]);
      }
      EXPECT_TRUE(found) << "entry (" << row << ", " << col << ") has no mirror";
    }
  }
}

TEST(Laplacian7Point, RejectsBadDimensions) {
  EXPECT_THROW(laplacian_7point<double>(0, 3, 3), UsageError);
  EXPECT_THROW(laplacian_7point<double>(3, -1, 3), UsageError);
  EXPECT_THROW(laplacian_7point<double>(2000, 2000, 2000), UsageError);
}

}  // namespace
}  // namespace trellis::grid
