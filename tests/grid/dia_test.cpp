// The DIA format: exact conversion from CSR, every backend's DIA SpMV against
// reference (cpu and cuda bitwise: same ascending-offset order, no fused
// multiply-add), and DIA SpMV against CSR SpMV of the same matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "support/random_csr.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/dia.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

namespace trellis::grid {
namespace {

// The 5-point negative Laplacian on an nx x ny grid, Dirichlet boundaries,
// columns ascending within each row.
template <typename T>
CsrMatrix<T> laplacian_5point(std::int32_t nx, std::int32_t ny) {
  CsrMatrix<T> a;
  a.rows = a.cols = nx * ny;
  auto add = [&](std::int32_t col, T value) {
    a.col_indices.push_back(col);
    a.values.push_back(value);
  };
  for (std::int32_t j = 0; j < ny; ++j) {
    for (std::int32_t i = 0; i < nx; ++i) {
      const std::int32_t row = i + nx * j;
      if (j > 0) add(row - nx, T(-1));
      if (i > 0) add(row - 1, T(-1));
      add(row, T(4));
      if (i + 1 < nx) add(row + 1, T(-1));
      if (j + 1 < ny) add(row + nx, T(-1));
      a.row_offsets.push_back(a.nnz());
    }
  }
  a.validate();
  return a;
}

// A random banded matrix: `bands` distinct random offsets, each entry present
// with probability `fill` (absent entries leave zeros inside the band), a
// fraction of rows empty, values uniform in [-1, 1]; columns ascending and distinct.
template <typename T>
CsrMatrix<T> random_banded(std::int32_t rows, std::int32_t cols, int bands, double fill, std::uint64_t seed,
                           double empty_row_fraction = 0.05) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> offset_of(-(rows - 1), cols - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<std::int32_t> offsets;
  while (static_cast<int>(offsets.size()) < bands) {
    const std::int32_t offset = offset_of(rng);
    if (std::find(offsets.begin(), offsets.end(), offset) == offsets.end()) offsets.push_back(offset);
  }
  std::sort(offsets.begin(), offsets.end());
  CsrMatrix<T> a;
  a.rows = rows;
  a.cols = cols;
  for (std::int32_t row = 0; row < rows; ++row) {
    const bool empty_row = unit(rng) < empty_row_fraction;
    for (std::int32_t offset : offsets) {
      const std::int64_t col = static_cast<std::int64_t>(row) + offset;
      if (empty_row || col < 0 || col >= cols || unit(rng) >= fill) continue;
      a.col_indices.push_back(static_cast<ColumnIndex>(col));
      a.values.push_back(static_cast<T>(value(rng)));
    }
    a.row_offsets.push_back(a.nnz());
  }
  a.validate();
  return a;
}

// Matrices with ascending, distinct columns per row: DIA SpMV must equal CSR
// SpMV on them bit for bit.
template <typename T>
std::vector<std::pair<std::string, CsrMatrix<T>>> cases() {
  std::vector<std::pair<std::string, CsrMatrix<T>>> all;
  all.emplace_back("laplacian 7-point 17x13x11", laplacian_7point<T>(17, 13, 11));
  all.emplace_back("laplacian 7-point 1x1x40", laplacian_7point<T>(1, 1, 40));
  all.emplace_back("laplacian 7-point 2x2x2", laplacian_7point<T>(2, 2, 2));
  all.emplace_back("laplacian 5-point 41x29", laplacian_5point<T>(41, 29));
  all.emplace_back("laplacian 5-point 1x1", laplacian_5point<T>(1, 1));
  all.emplace_back("banded square 9 bands", random_banded<T>(2000, 2000, 9, 0.9, 1));
  all.emplace_back("banded tall 5 bands", random_banded<T>(3001, 700, 5, 0.7, 2));
  all.emplace_back("banded wide 32 bands", random_banded<T>(500, 4000, 32, 0.5, 3));
  all.emplace_back("banded sparse 3 bands", random_banded<T>(1500, 1500, 3, 0.1, 4));
  all.emplace_back("no rows", testing::random_csr<T>({0, 5, 2, 0, 0, false}, 5));
  all.emplace_back("no columns", testing::random_csr<T>({6, 0, 2, 0, 0, false}, 6));
  all.emplace_back("all rows empty", testing::random_csr<T>({70, 30, 2, 1.0, 0, false}, 7));
  return all;
}

struct Scalars {
  double alpha;
  double beta;
};

constexpr Scalars kScalars[] = {{1, 0}, {-0.75, 1.5}, {2, -1}};

template <typename T>
void expect_bitwise(const std::vector<T>& expected, const std::vector<T>& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size());
  int reported = 0;
  for (std::size_t row = 0; row < expected.size(); ++row) {
    ASSERT_FALSE(std::isnan(expected[row])) << "row " << row << " is NaN: y was read with beta 0";
    if (testing::bits(expected[row]) != testing::bits(actual[row])) {
      ADD_FAILURE() << what << ": row " << row << " " << actual[row] << " differs bitwise from " << expected[row];
      if (++reported > 5) return;
    }
  }
}

template <typename T>
void expect_equivalent(Backend backend, const std::string& name, const CsrMatrix<T>& csr, Scalars s,
                       std::uint64_t seed) {
  SCOPED_TRACE(name + " alpha " + std::to_string(s.alpha) + " beta " + std::to_string(s.beta));
  const DiaMatrix<T> a = dia_from_csr(csr);
  const auto alpha = static_cast<T>(s.alpha);
  const auto beta = static_cast<T>(s.beta);
  std::vector<T> x = testing::random_vector<T>(static_cast<std::size_t>(a.cols), seed);
  std::vector<T> y0 = testing::random_vector<T>(static_cast<std::size_t>(a.rows), seed + 1000);
  if (beta == T(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> expected = y0;
  std::vector<T> actual = y0;
  dia_spmv<T>(alpha, a, x, beta, expected, Backend::reference);
  dia_spmv<T>(alpha, a, x, beta, actual, backend);
  expect_bitwise(expected, actual, std::string(to_string(backend)) + " against reference");
}

class DiaSpmvIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(DiaSpmvIsEquivalentToRef, Double) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 500;
  for (const auto& [name, a] : cases<double>()) {
    for (Scalars s : kScalars) expect_equivalent(GetParam(), name, a, s, seed++);
  }
}

TEST_P(DiaSpmvIsEquivalentToRef, Float) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 600;
  for (const auto& [name, a] : cases<float>()) {
    for (Scalars s : kScalars) expect_equivalent(GetParam(), name, a, s, seed++);
  }
}

TEST_P(DiaSpmvIsEquivalentToRef, ManySeededBandedMatrices) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::mt19937_64 shapes(23);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::int32_t rows = std::uniform_int_distribution<std::int32_t>(1, 900)(shapes);
    const std::int32_t cols = std::uniform_int_distribution<std::int32_t>(1, 900)(shapes);
    const int bands = std::uniform_int_distribution<int>(1, std::min(32, rows + cols - 1))(shapes);
    const double fill = std::uniform_real_distribution<double>(0.05, 1.0)(shapes);
    expect_equivalent(GetParam(), "seed " + std::to_string(seed), random_banded<double>(rows, cols, bands, fill, seed),
                      {1.25, seed % 2 == 0 ? 0.0 : 0.5}, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DiaSpmvIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

TEST(DiaSpmv, EqualsCsrSpmvOfTheSameMatrix) {
  std::uint64_t seed = 700;
  for (const auto& [name, csr] : cases<double>()) {
    SCOPED_TRACE(name);
    const DiaMatrix<double> a = dia_from_csr(csr);
    for (Scalars s : kScalars) {
      std::vector<double> x = testing::random_vector<double>(static_cast<std::size_t>(csr.cols), seed++);
      std::vector<double> y0 = testing::random_vector<double>(static_cast<std::size_t>(csr.rows), seed++);
      if (s.beta == 0) std::fill(y0.begin(), y0.end(), std::numeric_limits<double>::quiet_NaN());
      std::vector<double> from_csr = y0;
      std::vector<double> from_dia = y0;
      spmv<double>(s.alpha, csr, x, s.beta, from_csr, Backend::reference);
      dia_spmv<double>(s.alpha, a, x, s.beta, from_dia, Backend::reference);
      expect_bitwise(from_csr, from_dia, "DIA against CSR");
    }
  }
}

TEST(DiaSpmv, CloseToCsrSpmvWithDuplicateEntries) {
  // Duplicates are added into one slot before the product, so the result
  // differs from CSR's separate products only by rounding.
  testing::RandomCsrShape shape;
  shape.rows = 400;
  shape.cols = 400;
  shape.mean_entries_per_row = 30;
  CsrMatrix<double> csr = testing::random_csr<double>(shape, 8);
  // Fold the random columns into 11 diagonals around the main one, keeping duplicates.
  for (std::int32_t row = 0; row < csr.rows; ++row) {
    for (RowOffset k = csr.row_offsets[row]; k < csr.row_offsets[row + 1]; ++k) {
      csr.col_indices[k] = std::clamp(row + csr.col_indices[k] % 11 - 5, 0, csr.cols - 1);
    }
  }
  const DiaMatrix<double> a = dia_from_csr(csr);
  std::vector<double> x = testing::random_vector<double>(400, 9);
  std::vector<double> from_csr(400);
  std::vector<double> from_dia(400);
  spmv<double>(1.0, csr, x, 0.0, from_csr, Backend::reference);
  dia_spmv<double>(1.0, a, x, 0.0, from_dia, Backend::cpu);
  for (std::int32_t row = 0; row < 400; ++row) {
    double magnitude = 0;
    for (RowOffset k = csr.row_offsets[row]; k < csr.row_offsets[row + 1]; ++k) {
      magnitude += std::abs(csr.values[k] * x[csr.col_indices[k]]);
    }
    EXPECT_LE(std::abs(from_csr[row] - from_dia[row]), 1e-13 * std::max(1.0, magnitude)) << "row " << row;
  }
}

TEST(DiaFromCsr, LaysOutDiagonalsWithZerosOutsideTheMatrix) {
  // [[1, 2, 0], [0, 3, 0], [4, 0, 5]]: offsets -2, 0, 1.
  CsrMatrix<double> csr;
  csr.rows = 3;
  csr.cols = 3;
  csr.row_offsets = {0, 2, 3, 5};
  csr.col_indices = {0, 1, 1, 0, 2};
  csr.values = {1, 2, 3, 4, 5};
  const DiaMatrix<double> a = dia_from_csr(csr);
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 3);
  EXPECT_EQ(a.offsets, (std::vector<std::int32_t>{-2, 0, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{0, 0, 4, /**/ 1, 3, 5, /**/ 2, 0, 0}));
  EXPECT_NO_THROW(a.validate());
}

TEST(DiaFromCsr, AddsDuplicatesInCsrOrderAndKeepsLoneValuesExactly) {
  // Row 0 holds (0, 1) three times; the order of additions changes the float sum.
  CsrMatrix<float> csr;
  csr.rows = 2;
  csr.cols = 2;
  csr.row_offsets = {0, 3, 4};
  csr.col_indices = {1, 1, 1, 0};
  csr.values = {1e8f, 1.0f, -1e8f, -0.0f};
  const DiaMatrix<float> a = dia_from_csr(csr);
  ASSERT_EQ(a.offsets, (std::vector<std::int32_t>{-1, 1}));
  const float in_csr_order = (1e8f + 1.0f) + -1e8f;
  EXPECT_EQ(testing::bits(a.values[2 + 0]), testing::bits(in_csr_order));
  EXPECT_TRUE(std::signbit(a.values[0 + 1])) << "a lone -0 must stay -0";
  EXPECT_EQ(testing::bits(a.values[0 + 0]), testing::bits(0.0f));  // row 0 has no (0, -1) entry: outside the matrix
}

TEST(DiaFromCsr, ThrowsNamingTheCountWhenThereAreTooManyDiagonals) {
  CsrMatrix<double> csr = random_banded<double>(200, 200, 40, 1.0, 10, 0.0);
  try {
    (void)dia_from_csr(csr);
    FAIL() << "40 diagonals accepted with the default limit of 32";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("40"), std::string::npos) << error.what();
  }
  EXPECT_EQ(dia_from_csr(csr, 40).diagonals(), 40);
  EXPECT_THROW((void)dia_from_csr(csr, 39), UsageError);
  EXPECT_THROW((void)dia_from_csr(laplacian_7point<double>(4, 4, 4), 6), UsageError);
  EXPECT_EQ(dia_from_csr(laplacian_7point<double>(4, 4, 4), 7).diagonals(), 7);
  EXPECT_THROW((void)dia_from_csr(csr, -1), UsageError);
  CsrMatrix<double> empty = testing::random_csr<double>({5, 5, 2, 1.0, 0, false}, 11);
  EXPECT_EQ(dia_from_csr(empty, 0).diagonals(), 0);
}

TEST(DiaSpmv, RejectsMismatchedVectorsAndMalformedMatrices) {
  const DiaMatrix<double> a = dia_from_csr(laplacian_7point<double>(2, 2, 2));
  std::vector<double> x(7);
  std::vector<double> y(8);
  EXPECT_THROW(dia_spmv<double>(1.0, a, x, 0.0, y, Backend::reference), UsageError);
  x.resize(8);
  y.resize(9);
  EXPECT_THROW(dia_spmv<double>(1.0, a, x, 0.0, y, Backend::cpu), UsageError);
  y.resize(8);
  EXPECT_NO_THROW(dia_spmv<double>(1.0, a, x, 0.0, y, Backend::cpu));

  DiaMatrix<double> unsorted = a;
  std::swap(unsorted.offsets[0], unsorted.offsets[1]);
  EXPECT_THROW(dia_spmv<double>(1.0, unsorted, x, 0.0, y, Backend::reference), UsageError);
  DiaMatrix<double> repeated = a;
  repeated.offsets[1] = repeated.offsets[0];
  EXPECT_THROW(dia_spmv<double>(1.0, repeated, x, 0.0, y, Backend::reference), UsageError);
  DiaMatrix<double> short_values = a;
  short_values.values.pop_back();
  EXPECT_THROW(dia_spmv<double>(1.0, short_values, x, 0.0, y, Backend::cpu), UsageError);
}

TEST(DeviceDia, ResidentProductMatchesHostEntryAndRefills) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const CsrMatrix<double> csr = laplacian_7point<double>(20, 17, 9);
  DiaMatrix<double> a = dia_from_csr(csr);
  std::vector<double> x = testing::random_vector<double>(static_cast<std::size_t>(a.cols), 12);
  std::vector<double> expected(static_cast<std::size_t>(a.rows));
  dia_spmv<double>(1.0, a, x, 0.0, expected, Backend::reference);

  DeviceDia<double> device_a(a);
  EXPECT_EQ(device_a.diagonals(), 7);
  auto device_x = DeviceArray<double>::from_host(x);
  DeviceArray<double> device_y(static_cast<std::size_t>(a.rows));
  dia_spmv<double>(1.0, device_a, device_x, 0.0, device_y);
  expect_bitwise(expected, device_y.to_host(), "resident against reference");

  // New values on the same diagonals.
  for (double& v : a.values) v *= -0.5;
  device_a.refill(a);
  dia_spmv<double>(1.0, a, x, 0.0, expected, Backend::reference);
  dia_spmv<double>(1.0, device_a, device_x, 0.0, device_y);
  expect_bitwise(expected, device_y.to_host(), "refilled against reference");
  EXPECT_EQ(device_a.to_host().values, a.values);

  DiaMatrix<double> other = dia_from_csr(laplacian_7point<double>(20, 17, 9));
  other.offsets.back() += 1;
  EXPECT_THROW(device_a.refill(other), UsageError);
  DeviceArray<double> wrong_x(static_cast<std::size_t>(a.cols) + 1);
  EXPECT_THROW(dia_spmv<double>(1.0, device_a, wrong_x, 0.0, device_y), UsageError);
}

TEST(DeviceDia, CudaMatchesCsrSpmvBitwiseOnLargeStencil) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const CsrMatrix<double> csr = laplacian_7point<double>(64, 64, 64);
  const DiaMatrix<double> a = dia_from_csr(csr);
  std::vector<double> x = testing::random_vector<double>(static_cast<std::size_t>(a.cols), 13);
  std::vector<double> expected = testing::random_vector<double>(static_cast<std::size_t>(a.rows), 14);
  std::vector<double> actual = expected;
  spmv<double>(0.3, csr, x, -1.7, expected, Backend::reference);
  dia_spmv<double>(0.3, a, x, -1.7, actual, Backend::cuda);
  expect_bitwise(expected, actual, "cuda DIA against reference CSR");
}

}  // namespace
}  // namespace trellis::grid
