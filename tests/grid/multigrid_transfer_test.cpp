// The levels' constraint flags: a coarse node takes the flag of the fine
// node at its place, and the list of constrained nodes holds every flagged
// index in order; both against the node-by-node definitions on meshes of
// one to three dimensions, with axes that halve and axes that do not. On
// cuda, the cycle's transfers applied without their matrices equal the
// device SpMV with P and R bit for bit.
#include "grid/multigrid_transfer.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "grid/multigrid_device.hpp"
#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::grid::detail {
namespace {

std::vector<std::uint8_t> random_flags(std::size_t n, double density, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::bernoulli_distribution flagged(density);
  std::vector<std::uint8_t> flags(n);
  for (auto& flag : flags) flag = flagged(random) ? 1 : 0;
  return flags;
}

TEST(MultigridTransfer, CoarseFlagsAreTheFineFlagsAtTheirPlaces) {
  const std::vector<Mesh> meshes = {
      Mesh({Mesh1D::uniform(0, 1, 8)}), Mesh({Mesh1D::uniform(0, 1, 8), Mesh1D::uniform(0, 1, 3)}),
      Mesh({Mesh1D::uniform(0, 1, 5), Mesh1D::random(0, 1, 6, 3)}),
      Mesh({Mesh1D::uniform(0, 1, 4), Mesh1D::uniform(0, 1, 3), Mesh1D::uniform(0, 1, 8)}),
      Mesh::cube(Mesh1D::uniform(0, 1, 6), 3)};
  std::uint64_t seed = 1;
  for (const Mesh& fine : meshes) {
    ASSERT_TRUE(can_coarsen(fine));
    const Mesh coarse = coarsened(fine);
    const std::vector<std::uint8_t> fine_flags = random_flags(static_cast<std::size_t>(fine.nodes()), 0.3, seed++);
    std::vector<std::uint8_t> expected(static_cast<std::size_t>(coarse.nodes()));
    for (std::int32_t node = 0; node < coarse.nodes(); ++node) {
      MultiIndex at = coarse.multi_index(node);
      for (int a = 0; a < fine.dim(); ++a) {
        if (coarse.extent(a) != fine.extent(a)) at[static_cast<std::size_t>(a)] *= 2;
      }
      expected[static_cast<std::size_t>(node)] = fine_flags[static_cast<std::size_t>(fine.index(at))];
    }
    EXPECT_EQ(coarse_constraints(fine, coarse, fine_flags), expected) << fine.dim() << "-D, " << fine.nodes();
  }
}

TEST(MultigridTransfer, FlaggedNodesListEveryFlagInOrder) {
  std::uint64_t seed = 11;
  for (const std::size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 1000u}) {
    for (const double density : {0.0, 0.01, 0.5, 1.0}) {
      const std::vector<std::uint8_t> flags = random_flags(n, density, seed++);
      std::vector<std::int32_t> expected;
      for (std::size_t i = 0; i < n; ++i) {
        if (flags[i] != 0) expected.push_back(static_cast<std::int32_t>(i));
      }
      EXPECT_EQ(flagged_nodes(flags), expected) << n << " flags, density " << density;
    }
  }
}

// Restriction and prolongation as the cycle applies them (a row's entries
// formed on the fly) against the SpMV with the matrices the device builds,
// on uniform, random and graded axes, halved or not, under random flags.
TEST(MultigridTransfer, DeviceTransfersEqualTheirMatricesBitwise) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const std::vector<Mesh> meshes = {
      Mesh({Mesh1D::uniform(0, 1, 16)}), Mesh({Mesh1D::random(0, 1, 12, 5), Mesh1D::uniform(0, 1, 3)}),
      Mesh({Mesh1D::uniform(0, 1, 4), Mesh1D::uniform(0, 1, 5), Mesh1D::graded(0, 1, 8, 1.3)}),
      Mesh::cube(Mesh1D::uniform(0, 1, 10), 3), Mesh::cube(Mesh1D::random(0, 1, 6, 9), 3)};
  std::uint64_t seed = 40;
  for (const Mesh& fine : meshes) {
    const Mesh coarse = coarsened(fine);
    const std::string what = std::to_string(fine.dim()) + "-D, " + std::to_string(fine.nodes()) + " nodes";
    const std::vector<std::uint8_t> fine_flags = random_flags(static_cast<std::size_t>(fine.nodes()), 0.3, seed++);
    const std::vector<std::uint8_t> coarse_flags = coarse_constraints(fine, coarse, fine_flags);
    const auto device_fine_flags = DeviceArray<std::uint8_t>::from_host(fine_flags);
    const auto device_coarse_flags = DeviceArray<std::uint8_t>::from_host(coarse_flags);
    DeviceTransferInput input;
    for (int a = 0; a < 3; ++a) {
      const auto at = static_cast<std::size_t>(a);
      input.fine[at] = fine.extent(a);
      input.coarse[at] = coarse.extent(a);
      input.axes[at] = a < fine.dim() ? axis_interpolation(fine.axis(a), coarse.extent(a) != fine.extent(a))
                                      : std::vector<AxisWeights>{AxisWeights{{0, 0}, {1, 0}, 1}};
    }
    input.fine_constrained = device_fine_flags.data();
    input.coarse_constrained = device_coarse_flags.data();
    const DeviceTransfer transfer(input);
    const DeviceCsr<double> r = cuda::interpolation<double>(transfer, true);
    const DeviceCsr<double> p = cuda::interpolation<double>(transfer, false);

    const auto x = DeviceArray<double>::from_host(
        trellis::testing::random_vector<double>(static_cast<std::size_t>(fine.nodes()), seed++));
    DeviceArray<double> restricted(static_cast<std::size_t>(coarse.nodes())), by_matrix(restricted.size());
    transfer.restrict_to<double>(x.data(), restricted.data(), nullptr);
    spmv<double>(1.0, r, x, 0.0, by_matrix);
    EXPECT_EQ(restricted.to_host(), by_matrix.to_host()) << what;

    const std::vector<double> start =
        trellis::testing::random_vector<double>(static_cast<std::size_t>(fine.nodes()), seed++);
    auto prolonged = DeviceArray<double>::from_host(start);
    auto prolonged_by_matrix = DeviceArray<double>::from_host(start);
    transfer.prolong_add<double>(restricted.data(), prolonged.data(), nullptr);
    spmv<double>(1.0, p, restricted, 1.0, prolonged_by_matrix);
    EXPECT_EQ(prolonged.to_host(), prolonged_by_matrix.to_host()) << what;
  }
}

}  // namespace
}  // namespace trellis::grid::detail
