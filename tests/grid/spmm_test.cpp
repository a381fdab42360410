// Every SpMM backend against reference: cpu bitwise (same per-entry order),
// cuda within the rounding bound of each sum, and bitwise on stencil rows.
#include <gtest/gtest.h>

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
#include "trellis/grid/spmm.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"

namespace trellis::grid {
namespace {

using testing::RandomCsrShape;

struct Scalars {
  double alpha;
  double beta;
};

constexpr Scalars kScalars[] = {{1, 0}, {-0.75, 1.5}, {2, -1}};

// Right-hand-side counts: one, a few, a full tile, an odd count, and past one
// tile of 32 (the cuda kernel then makes two passes).
constexpr std::int32_t kRightHandSides[] = {1, 2, 3, 8, 17, 32, 40};

template <typename T>
std::vector<std::pair<std::string, CsrMatrix<T>>> cases() {
  std::vector<std::pair<std::string, CsrMatrix<T>>> all;
  std::uint64_t seed = 11;
  // Mean row lengths that select each lane-group width of the cuda kernel.
  for (double mean : {0.5, 3.0, 7.0, 12.0, 24.0, 60.0, 150.0}) {
    RandomCsrShape shape;
    shape.rows = 1201;
    shape.cols = 903;
    shape.mean_entries_per_row = mean;
    all.emplace_back("random mean " + std::to_string(mean), testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // mostly empty rows
    shape.rows = 3000;
    shape.cols = 40;
    shape.empty_row_fraction = 0.95;
    all.emplace_back("mostly empty rows", testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // one heavy row among short ones
    shape.rows = 500;
    shape.cols = 20000;
    shape.mean_entries_per_row = 3;
    shape.long_row_entries = 2 * kHeavyRowEntries + 17;
    all.emplace_back("one long row", testing::random_csr<T>(shape, seed++));
  }
  all.emplace_back("one by one", testing::random_csr<T>({1, 1, 1, 0, 0, true}, seed++));
  all.emplace_back("no rows", testing::random_csr<T>({0, 5, 2, 0, 0, true}, seed++));
  all.emplace_back("no columns", testing::random_csr<T>({6, 0, 2, 0, 0, true}, seed++));
  all.emplace_back("all rows empty", testing::random_csr<T>({50, 30, 2, 1.0, 0, true}, seed++));
  all.emplace_back("laplacian 7-point 13x11x9", laplacian_7point<T>(13, 11, 9));
  return all;
}

template <typename T>
void expect_equivalent(Backend backend, const std::string& name, const CsrMatrix<T>& a, std::int32_t k, Scalars s,
                       std::uint64_t seed) {
  SCOPED_TRACE(name + " k " + std::to_string(k) + " alpha " + std::to_string(s.alpha) + " beta " +
               std::to_string(s.beta));
  const auto alpha = static_cast<T>(s.alpha);
  const auto beta = static_cast<T>(s.beta);
  const auto rows = static_cast<std::size_t>(a.rows);
  const auto cols = static_cast<std::size_t>(a.cols);
  std::vector<T> x = testing::random_vector<T>(cols * static_cast<std::size_t>(k), seed);
  std::vector<T> y0 = testing::random_vector<T>(rows * static_cast<std::size_t>(k), seed + 1000);
  // With beta == 0, Y must not be read: poison it.
  if (beta == T(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> expected = y0;
  std::vector<T> actual = y0;
  spmm<T>(alpha, a, x, beta, expected, k, Backend::reference);
  spmm<T>(alpha, a, x, beta, actual, k, backend);

  const double eps = std::numeric_limits<T>::epsilon();
  int reported = 0;
  for (std::int32_t j = 0; j < k; ++j) {
    const T* x_column = x.data() + static_cast<std::size_t>(j) * cols;
    for (std::int32_t row = 0; row < a.rows; ++row) {
      const std::size_t at = static_cast<std::size_t>(j) * rows + static_cast<std::size_t>(row);
      ASSERT_FALSE(std::isnan(expected[at])) << "reference read Y with beta 0 at row " << row << " column " << j;
      if (backend == Backend::cpu) {
        if (testing::bits(expected[at]) != testing::bits(actual[at])) {
          ADD_FAILURE() << "row " << row << " column " << j << ": cpu " << actual[at]
                        << " differs bitwise from reference " << expected[at];
          if (++reported > 5) return;
        }
        continue;
      }
      // Higham's bound for a length-n sum, doubled for the two evaluations.
      const RowOffset length = a.row_offsets[row + 1] - a.row_offsets[row];
      double magnitude = beta == T(0) ? 0.0 : std::abs(static_cast<double>(beta) * y0[at]);
      for (RowOffset e = a.row_offsets[row]; e < a.row_offsets[row + 1]; ++e) {
        magnitude += std::abs(static_cast<double>(alpha) * a.values[e] * x_column[a.col_indices[e]]);
      }
      const double bound = 2.0 * static_cast<double>(length + 3) * eps * magnitude;
      const double diff = std::abs(static_cast<double>(actual[at]) - expected[at]);
      if (!(diff <= bound)) {
        ADD_FAILURE() << "row " << row << " column " << j << " (" << length << " entries): " << to_string(backend)
                      << " " << actual[at] << " vs reference " << expected[at] << ", difference " << diff << " > bound "
                      << bound;
        if (++reported > 5) return;
      }
    }
  }
}

class SpmmIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(SpmmIsEquivalentToRef, Double) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 300;
  for (const auto& [name, a] : cases<double>()) {
    for (std::int32_t k : kRightHandSides) {
      for (Scalars s : kScalars) expect_equivalent(GetParam(), name, a, k, s, seed++);
    }
  }
}

TEST_P(SpmmIsEquivalentToRef, Float) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 400;
  for (const auto& [name, a] : cases<float>()) {
    for (std::int32_t k : kRightHandSides) {
      for (Scalars s : kScalars) expect_equivalent(GetParam(), name, a, k, s, seed++);
    }
  }
}

TEST_P(SpmmIsEquivalentToRef, ManySeededRandomMatrices) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::mt19937_64 shapes(17);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomCsrShape shape;
    shape.rows = std::uniform_int_distribution<std::int32_t>(0, 400)(shapes);
    shape.cols = std::uniform_int_distribution<std::int32_t>(1, 400)(shapes);
    shape.mean_entries_per_row = std::uniform_real_distribution<double>(0, 40)(shapes);
    shape.empty_row_fraction = std::uniform_real_distribution<double>(0, 0.5)(shapes);
    const std::int32_t k = std::uniform_int_distribution<std::int32_t>(1, 33)(shapes);
    expect_equivalent(GetParam(), "seed " + std::to_string(seed), testing::random_csr<double>(shape, seed), k,
                      {1.25, seed % 2 == 0 ? 0.0 : 0.5}, seed);
  }
}

TEST_P(SpmmIsEquivalentToRef, NoRightHandSidesTouchesNothing) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  CsrMatrix<double> a = laplacian_7point<double>(3, 4, 5);
  std::vector<double> x;
  std::vector<double> y;
  EXPECT_NO_THROW(spmm<double>(1.0, a, x, 0.0, y, 0, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Backends, SpmmIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

TEST(Spmm, ReferenceColumnsAreReferenceSpmvs) {
  // The reference defines each column of Y as spmv on that column of X.
  RandomCsrShape shape;
  shape.rows = 300;
  shape.cols = 200;
  shape.mean_entries_per_row = 9;
  CsrMatrix<double> a = testing::random_csr<double>(shape, 5);
  const std::int32_t k = 5;
  std::vector<double> x = testing::random_vector<double>(200 * k, 6);
  std::vector<double> y = testing::random_vector<double>(300 * k, 7);
  std::vector<double> by_columns = y;
  spmm<double>(0.5, a, x, -2.0, y, k, Backend::reference);
  for (std::int32_t j = 0; j < k; ++j) {
    spmv<double>(0.5, a, std::span<const double>(x).subspan(200 * j, 200), -2.0,
                 std::span<double>(by_columns).subspan(300 * j, 300), Backend::reference);
  }
  for (std::size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(testing::bits(y[i]), testing::bits(by_columns[i])) << "entry " << i;
}

TEST(Spmm, ReferenceComputesKnownProduct) {
  // A = [[2, 0, -1], [0, 0, 0], [1, 3, 0]], X = [[1, 2, 3], [0, 1, 0]]^T (two columns).
  CsrMatrix<double> a;
  a.rows = 3;
  a.cols = 3;
  a.row_offsets = {0, 2, 2, 4};
  a.col_indices = {0, 2, 0, 1};
  a.values = {2, -1, 1, 3};
  std::vector<double> x{1, 2, 3, 0, 1, 0};
  std::vector<double> y{10, 20, 30, 1, 2, 3};
  spmm<double>(2.0, a, x, 0.5, y, 2, Backend::reference);
  // A x0 = [-1, 0, 7], A x1 = [0, 0, 3].
  EXPECT_EQ(y, (std::vector<double>{-2 + 5, 0 + 10, 14 + 15, 0 + 0.5, 0 + 1, 6 + 1.5}));
}

TEST(Spmm, RejectsMismatchedBlocks) {
  CsrMatrix<double> a = laplacian_7point<double>(2, 2, 2);  // 8 x 8
  std::vector<double> x(8 * 3);
  std::vector<double> y(8 * 3);
  EXPECT_NO_THROW(spmm<double>(1.0, a, x, 0.0, y, 3, Backend::reference));
  EXPECT_THROW(spmm<double>(1.0, a, x, 0.0, y, 2, Backend::reference), UsageError);
  EXPECT_THROW(spmm<double>(1.0, a, x, 0.0, y, -1, Backend::cpu), UsageError);
  x.resize(8 * 3 - 1);
  EXPECT_THROW(spmm<double>(1.0, a, x, 0.0, y, 3, Backend::cpu), UsageError);
  x.resize(8 * 3);
  y.resize(8 * 3 + 1);
  EXPECT_THROW(spmm<double>(1.0, a, x, 0.0, y, 3, Backend::reference), UsageError);
}

TEST(Spmm, DeviceResidentMatchesHostEntry) {
  TRELLIS_SKIP_UNLESS_CUDA();
  RandomCsrShape shape;
  shape.rows = 1000;
  shape.cols = 800;
  shape.long_row_entries = 2 * kHeavyRowEntries;
  CsrMatrix<float> a = testing::random_csr<float>(shape, 3);
  const std::int32_t k = 6;
  std::vector<float> x = testing::random_vector<float>(800 * k, 4);
  std::vector<float> expected(1000 * k);
  spmm<float>(1.0f, a, x, 0.0f, expected, k, Backend::cuda);
  DeviceCsr<float> device_a(a);
  EXPECT_EQ(device_a.view().heavy_row_count, 1);
  auto device_x = DeviceArray<float>::from_host(x);
  DeviceArray<float> device_y(1000 * k);
  spmm<float>(1.0f, device_a, device_x, 0.0f, device_y, k);
  EXPECT_EQ(device_y.to_host(), expected);  // same kernel, same order: bitwise
  DeviceArray<float> wrong_y(1000 * k - 1);
  EXPECT_THROW(spmm<float>(1.0f, device_a, device_x, 0.0f, wrong_y, k), UsageError);
}

TEST(Spmm, CudaMatchesReferenceBitwiseOnStencilRows) {
  // Stencil rows are short, so the cuda kernel gives each row one lane that
  // adds its products in storage order, rounded as the reference rounds them.
  TRELLIS_SKIP_UNLESS_CUDA();
  CsrMatrix<double> a = laplacian_7point<double>(33, 17, 9);
  for (std::int32_t k : {1, 4, 8, 32}) {
    std::vector<double> x = testing::random_vector<double>(static_cast<std::size_t>(a.cols) * k, 5);
    std::vector<double> expected = testing::random_vector<double>(static_cast<std::size_t>(a.rows) * k, 6);
    std::vector<double> actual = expected;
    spmm<double>(0.3, a, x, -1.7, expected, k, Backend::reference);
    spmm<double>(0.3, a, x, -1.7, actual, k, Backend::cuda);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(testing::bits(expected[i]), testing::bits(actual[i]))
          << "k " << k << " entry " << i << ": " << actual[i] << " vs " << expected[i];
    }
  }
}

}  // namespace
}  // namespace trellis::grid
