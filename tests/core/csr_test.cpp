#include <gtest/gtest.h>

#include "support/backends.hpp"
#include "support/random_csr.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/error.hpp"

namespace trellis {
namespace {

CsrMatrix<double> small_matrix() {
  CsrMatrix<double> a;
  a.rows = 3;
  a.cols = 4;
  a.row_offsets = {0, 2, 2, 3};
  a.col_indices = {1, 3, 0};
  a.values = {1.5, -2, 4};
  return a;
}

TEST(CsrMatrix, ValidMatrixPasses) {
  EXPECT_NO_THROW(small_matrix().validate());
  CsrMatrix<float> empty;
  EXPECT_NO_THROW(empty.validate());
  EXPECT_EQ(empty.nnz(), 0);
}

TEST(CsrMatrix, ValidateFindsEachInconsistency) {
  auto a = small_matrix();
  a.row_offsets = {1, 2, 2, 3};
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.row_offsets = {0, 2, 1, 3};
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.row_offsets.pop_back();
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.col_indices[1] = 4;
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.col_indices[0] = -1;
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.values.pop_back();
  EXPECT_THROW(a.validate(), Error);
  a = small_matrix();
  a.row_offsets.back() = 2;
  EXPECT_THROW(a.validate(), Error);
}

TEST(CsrMatrix, OffsetsAre64BitAndColumns32Bit) {
  static_assert(sizeof(RowOffset) == 8);
  static_assert(sizeof(ColumnIndex) == 4);
  CsrView<double> view = small_matrix().view();
  EXPECT_EQ(view.heavy_rows, nullptr);
  EXPECT_EQ(view.heavy_row_count, 0);
}

TEST(CsrFromTriplets, GroupsRowsAndKeepsInputOrder) {
  std::vector<std::int32_t> rows{2, 0, 2, 0, 2};
  std::vector<ColumnIndex> cols{1, 3, 0, 3, 1};
  std::vector<double> values{1, 2, 3, 4, 5};
  auto a = csr_from_triplets<double>(3, 4, rows, cols, values);
  EXPECT_EQ(a.row_offsets, (std::vector<RowOffset>{0, 2, 2, 5}));
  EXPECT_EQ(a.col_indices, (std::vector<ColumnIndex>{3, 3, 1, 0, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{2, 4, 1, 3, 5}));
}

TEST(CsrFromTriplets, RejectsOutOfRangeEntries) {
  std::vector<std::int32_t> rows{0, 3};
  std::vector<ColumnIndex> cols{0, 0};
  std::vector<double> values{1, 2};
  EXPECT_THROW(csr_from_triplets<double>(3, 3, rows, cols, values), Error);
  rows = {0, 1};
  cols = {0, 7};
  EXPECT_THROW(csr_from_triplets<double>(3, 3, rows, cols, values), Error);
  values.pop_back();
  EXPECT_THROW(csr_from_triplets<double>(3, 8, rows, cols, values), Error);
}

TEST(DeviceCsr, RoundTripsAndListsHeavyRows) {
  TRELLIS_SKIP_UNLESS_CUDA();
  testing::RandomCsrShape shape;
  shape.rows = 500;
  shape.cols = 20000;
  shape.long_row_entries = kHeavyRowEntries + 1;
  auto host = testing::random_csr<float>(shape, 11);
  DeviceCsr<float> device(host);
  EXPECT_EQ(device.rows(), host.rows);
  EXPECT_EQ(device.cols(), host.cols);
  EXPECT_EQ(device.nnz(), host.nnz());
  EXPECT_EQ(device.view().heavy_row_count, 1);
  auto back = device.to_host();
  EXPECT_EQ(back.row_offsets, host.row_offsets);
  EXPECT_EQ(back.col_indices, host.col_indices);
  EXPECT_EQ(back.values, host.values);
}

}  // namespace
}  // namespace trellis
