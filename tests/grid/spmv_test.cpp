// Every SpMV backend against reference: cpu bitwise (same per-row order),
// cuda and vulkan within the rounding bound of each row's sum.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "support/random_csr.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"
#include "trellis/grid/vulkan_spmv.hpp"

namespace trellis::grid {
namespace {

using testing::RandomCsrShape;

struct Scalars {
  double alpha;
  double beta;
};

// The cases every backend must get right.
template <typename T>
std::vector<std::pair<std::string, CsrMatrix<T>>> cases() {
  std::vector<std::pair<std::string, CsrMatrix<T>>> all;
  std::uint64_t seed = 1;
  // Mean row lengths that select each lane-group width of the cuda kernel.
  for (double mean : {0.5, 1.5, 3.0, 6.0, 12.0, 24.0, 60.0}) {
    RandomCsrShape shape;
    shape.rows = 3001;
    shape.cols = 2003;
    shape.mean_entries_per_row = mean;
    all.emplace_back("random mean " + std::to_string(mean), testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // mostly empty rows
    shape.rows = 5000;
    shape.cols = 40;
    shape.empty_row_fraction = 0.95;
    all.emplace_back("mostly empty rows", testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // one row long enough to be heavy, among short ones
    shape.rows = 2000;
    shape.cols = 50000;
    shape.mean_entries_per_row = 3;
    shape.long_row_entries = 3 * kHeavyRowEntries + 17;
    all.emplace_back("one long row", testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // just over and just under the heavy threshold
    shape.rows = 7;
    shape.cols = 9000;
    shape.mean_entries_per_row = static_cast<double>(kHeavyRowEntries) / 2 + 1;
    shape.empty_row_fraction = 0;
    all.emplace_back("rows near the heavy threshold", testing::random_csr<T>(shape, seed++));
  }
  {
    RandomCsrShape shape;  // wide, few rows, duplicate columns
    shape.rows = 3;
    shape.cols = 100000;
    shape.mean_entries_per_row = 20000;
    all.emplace_back("three wide rows", testing::random_csr<T>(shape, seed++));
  }
  all.emplace_back("one by one", testing::random_csr<T>({1, 1, 1, 0, 0, true}, seed++));
  all.emplace_back("no rows", testing::random_csr<T>({0, 5, 2, 0, 0, true}, seed++));
  all.emplace_back("no columns", testing::random_csr<T>({6, 0, 2, 0, 0, true}, seed++));
  all.emplace_back("laplacian 7-point 17x13x11", laplacian_7point<T>(17, 13, 11));
  all.emplace_back("laplacian 7-point 1x1x40", laplacian_7point<T>(1, 1, 40));
  return all;
}

template <typename T>
void expect_equivalent(Backend backend, const std::string& name, const CsrMatrix<T>& a, Scalars s, std::uint64_t seed) {
  SCOPED_TRACE(name + " alpha " + std::to_string(s.alpha) + " beta " + std::to_string(s.beta));
  const auto alpha = static_cast<T>(s.alpha);
  const auto beta = static_cast<T>(s.beta);
  std::vector<T> x = testing::random_vector<T>(static_cast<std::size_t>(a.cols), seed);
  std::vector<T> y0 = testing::random_vector<T>(static_cast<std::size_t>(a.rows), seed + 1000);
  // With beta == 0, y must not be read: poison it.
  if (beta == T(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> expected = y0;
  std::vector<T> actual = y0;
  spmv<T>(alpha, a, x, beta, expected, Backend::reference);
  spmv<T>(alpha, a, x, beta, actual, backend);

  const double eps = std::numeric_limits<T>::epsilon();
  int reported = 0;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    ASSERT_FALSE(std::isnan(expected[row])) << "reference read y with beta 0 at row " << row;
    if (backend == Backend::cpu) {
      if (testing::bits(expected[row]) != testing::bits(actual[row])) {
        ADD_FAILURE() << "row " << row << ": cpu " << actual[row] << " differs bitwise from reference "
                      << expected[row];
        if (++reported > 5) return;
      }
      continue;
    }
    // Higham's bound for a length-n sum, doubled for the two evaluations.
    const RowOffset length = a.row_offsets[row + 1] - a.row_offsets[row];
    double magnitude = beta == T(0) ? 0.0 : std::abs(static_cast<double>(beta) * y0[row]);
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      magnitude += std::abs(static_cast<double>(alpha) * a.values[k] * x[a.col_indices[k]]);
    }
    const double bound = 2.0 * static_cast<double>(length + 3) * eps * magnitude;
    const double diff = std::abs(static_cast<double>(actual[row]) - expected[row]);
    if (!(diff <= bound)) {
      ADD_FAILURE() << "row " << row << " (" << length << " entries): " << to_string(backend) << " " << actual[row]
                    << " vs reference " << expected[row] << ", difference " << diff << " > bound " << bound;
      if (++reported > 5) return;
    }
  }
}

class SpmvIsEquivalentToRef : public ::testing::TestWithParam<Backend> {};

TEST_P(SpmvIsEquivalentToRef, Double) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  std::uint64_t seed = 100;
  for (const auto& [name, a] : cases<double>()) {
    for (Scalars s : {Scalars{1, 0}, Scalars{-0.75, 1.5}, Scalars{2, -1}}) {
      expect_equivalent(GetParam(), name, a, s, seed++);
    }
  }
}

TEST_P(SpmvIsEquivalentToRef, Float) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::uint64_t seed = 200;
  for (const auto& [name, a] : cases<float>()) {
    for (Scalars s : {Scalars{1, 0}, Scalars{-0.75, 1.5}, Scalars{2, -1}}) {
      expect_equivalent(GetParam(), name, a, s, seed++);
    }
  }
}

TEST_P(SpmvIsEquivalentToRef, ManySeededRandomMatrices) {
  TRELLIS_SKIP_UNLESS_FLOAT64(GetParam());
  std::mt19937_64 shapes(7);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    RandomCsrShape shape;
    shape.rows = std::uniform_int_distribution<std::int32_t>(0, 700)(shapes);
    shape.cols = std::uniform_int_distribution<std::int32_t>(1, 700)(shapes);
    shape.mean_entries_per_row = std::uniform_real_distribution<double>(0, 40)(shapes);
    shape.empty_row_fraction = std::uniform_real_distribution<double>(0, 0.5)(shapes);
    expect_equivalent(GetParam(), "seed " + std::to_string(seed), testing::random_csr<double>(shape, seed),
                      {1.25, seed % 2 == 0 ? 0.0 : 0.5}, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SpmvIsEquivalentToRef, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);
// Vulkan shaders round each product and sum on its own (precise), but
// drivers may flush fp32 denormals and need not match the reference's
// order elsewhere: the same per-row bound as cuda.
INSTANTIATE_TEST_SUITE_P(Vulkan, SpmvIsEquivalentToRef, ::testing::Values(Backend::vulkan), testing::backend_test_name);

// The resident product runs spmv's vulkan shader: the same bits as
// spmv(..., Backend::vulkan) on host data, product after product on the
// device's y.
template <typename T>
void expect_resident_matches_vulkan(const CsrMatrix<T>& a, std::uint64_t seed) {
  const std::vector<T> x = testing::random_vector<T>(static_cast<std::size_t>(a.cols), seed);
  const std::vector<T> y0 = testing::random_vector<T>(static_cast<std::size_t>(a.rows), seed + 1);
  std::vector<T> expected = y0;
  spmv<T>(T(1.5), a, x, T(0), expected, Backend::vulkan);
  spmv<T>(T(-0.5), a, x, T(2), expected, Backend::vulkan);

  VulkanSpmv<T> resident(a);
  resident.set_x(x);
  resident.set_y(y0);
  resident.run(T(1.5), T(0));
  resident.run(T(-0.5), T(2));
  std::vector<T> actual(y0.size());
  resident.get_y(actual);
  for (std::size_t row = 0; row < actual.size(); ++row) {
    ASSERT_EQ(testing::bits(actual[row]), testing::bits(expected[row])) << "row " << row;
  }
  EXPECT_THROW(resident.set_x(std::vector<T>(x.size() + 1)), UsageError);
  EXPECT_THROW(resident.set_y(std::vector<T>(y0.size() + 1)), UsageError);
}

TEST(VulkanSpmv, ResidentProductsMatchSpmvOnHostData) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  RandomCsrShape shape;
  shape.rows = 3001;
  shape.cols = 2003;
  shape.mean_entries_per_row = 6;
  expect_resident_matches_vulkan(testing::random_csr<float>(shape, 5), 11);
  expect_resident_matches_vulkan(laplacian_7point<float>(17, 13, 11), 12);
}

TEST(VulkanSpmv, ResidentProductsMatchSpmvOnHostDataFp64) {
  TRELLIS_SKIP_UNLESS_FLOAT64(Backend::vulkan);
  expect_resident_matches_vulkan(laplacian_7point<double>(17, 13, 11), 13);
}

TEST(Spmv, ReferenceComputesKnownProduct) {
  // [[2, 0, -1], [0, 0, 0], [1, 3, 0]] * [1, 2, 3] = [-1, 0, 7]
  CsrMatrix<double> a;
  a.rows = 3;
  a.cols = 3;
  a.row_offsets = {0, 2, 2, 4};
  a.col_indices = {0, 2, 0, 1};
  a.values = {2, -1, 1, 3};
  std::vector<double> x{1, 2, 3};
  std::vector<double> y{10, 20, 30};
  spmv<double>(2.0, a, x, 0.5, y, Backend::reference);
  EXPECT_EQ(y, (std::vector<double>{-2 + 5, 0 + 10, 14 + 15}));
}

TEST(Spmv, RejectsMismatchedVectors) {
  CsrMatrix<double> a = laplacian_7point<double>(2, 2, 2);
  std::vector<double> x(7);
  std::vector<double> y(8);
  EXPECT_THROW(spmv<double>(1.0, a, x, 0.0, y, Backend::reference), UsageError);
  x.resize(8);
  y.resize(9);
  EXPECT_THROW(spmv<double>(1.0, a, x, 0.0, y, Backend::cpu), UsageError);
}

TEST(Spmv, DeviceResidentMatchesHostEntry) {
  TRELLIS_SKIP_UNLESS_CUDA();
  RandomCsrShape shape;
  shape.rows = 1000;
  shape.cols = 1000;
  shape.long_row_entries = 2 * kHeavyRowEntries;
  CsrMatrix<float> a = testing::random_csr<float>(shape, 3);
  std::vector<float> x = testing::random_vector<float>(1000, 4);
  std::vector<float> expected(1000);
  spmv<float>(1.0f, a, x, 0.0f, expected, Backend::cuda);
  DeviceCsr<float> device_a(a);
  EXPECT_EQ(device_a.view().heavy_row_count, 1);
  auto device_x = DeviceArray<float>::from_host(x);
  DeviceArray<float> device_y(1000);
  spmv<float>(1.0f, device_a, device_x, 0.0f, device_y);
  EXPECT_EQ(device_y.to_host(), expected);  // same kernel, same order: bitwise
}

TEST(Spmv, AViewOfDeviceMemoryWithoutHeavyRowsGivesTheSameBits) {
  // A matrix another library owns comes in as a bare view: its heavy row
  // then takes the row-parallel path, which sums in another order, so that
  // row agrees to rounding and the others bitwise.
  TRELLIS_SKIP_UNLESS_CUDA();
  RandomCsrShape shape;
  shape.rows = 1000;
  shape.cols = 1000;
  shape.long_row_entries = 2 * kHeavyRowEntries;
  const CsrMatrix<double> a = testing::random_csr<double>(shape, 7);
  const std::vector<double> x = testing::random_vector<double>(1000, 8);
  const DeviceCsr<double> owned(a);
  CsrView<double> bare = owned.view();
  bare.heavy_rows = nullptr;
  bare.heavy_row_count = 0;
  const auto device_x = DeviceArray<double>::from_host(x);
  DeviceArray<double> with_heavy(1000);
  DeviceArray<double> without(1000);
  spmv<double>(1.0, owned, device_x.data(), 0.0, with_heavy.data());
  spmv<double>(1.0, bare, device_x.data(), 0.0, without.data());
  const std::vector<double> expected = with_heavy.to_host();
  const std::vector<double> actual = without.to_host();
  for (std::int32_t row = 0; row < a.rows; ++row) {
    if (a.row_offsets[row + 1] - a.row_offsets[row] > kHeavyRowEntries) {
      EXPECT_NEAR(actual[row], expected[row], 1e-12 * (1 + std::abs(expected[row]))) << "row " << row;
    } else {
      ASSERT_EQ(testing::bits(actual[row]), testing::bits(expected[row])) << "row " << row;
    }
  }
  CsrView<double> broken = bare;
  broken.col_indices = nullptr;
  EXPECT_THROW(spmv<double>(1.0, broken, device_x.data(), 0.0, without.data()), UsageError);
}

TEST(Spmv, CudaMatchesReferenceBitwiseOnShortRows) {
  // Rows of a stencil are short: the cuda kernel rounds each product and sum
  // as the reference does, so the bits agree (documented in cuda/spmv.cu).
  TRELLIS_SKIP_UNLESS_CUDA();
  for (auto [nx, ny, nz] : {std::tuple{33, 17, 9}, std::tuple{64, 64, 64}}) {
    CsrMatrix<double> a = laplacian_7point<double>(nx, ny, nz);
    std::vector<double> x = testing::random_vector<double>(static_cast<std::size_t>(a.cols), 5);
    std::vector<double> expected = testing::random_vector<double>(static_cast<std::size_t>(a.rows), 6);
    std::vector<double> actual = expected;
    spmv<double>(0.3, a, x, -1.7, expected, Backend::reference);
    spmv<double>(0.3, a, x, -1.7, actual, Backend::cuda);
    for (std::int32_t row = 0; row < a.rows; ++row) {
      ASSERT_EQ(testing::bits(expected[row]), testing::bits(actual[row]))
          << "row " << row << ": " << actual[row] << " vs " << expected[row];
    }
  }
}

}  // namespace
}  // namespace trellis::grid
