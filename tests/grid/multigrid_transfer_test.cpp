// The levels' constraint flags: a coarse node takes the flag of the fine
// node at its place, and the list of constrained nodes holds every flagged
// index in order; both against the node-by-node definitions on meshes of
// one to three dimensions, with axes that halve and axes that do not.
#include "grid/multigrid_transfer.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "trellis/grid/mesh.hpp"

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

}  // namespace
}  // namespace trellis::grid::detail
