// Frontier Bellman-Ford on the Vulkan device: rounds of bellman_ford.comp
// over frontier lists, each sizing the next round's indirect dispatch on the
// device. The host records a batch of rounds to a submission and reads after
// it how many nodes each round appended; rounds past the fixpoint run one
// workgroup each.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

#include "core/vulkan/context.hpp"
#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::graph::vulkan {
namespace {

constexpr std::uint32_t kBellmanFord[] =
#include "graph/vulkan/bellman_ford.spv.inc"
    ;

// Rounds recorded in the first submission, doubled in each next one up to
// the most: few submissions on a graph of many rounds, few idle rounds
// after the fixpoint on one of few.
constexpr std::uint32_t kFirstRounds = 16;
constexpr std::uint32_t kMostRounds = 256;

// Hops a workgroup follows in its shared-memory lists within one round
// (bellman_ford.comp); 32 was the fastest of 0 to 256 on the lattices of
// bench/results/vulkan-2026-12-05.md.
constexpr std::uint32_t kLocalHops = 32;

// The state buffer (bellman_ford.comp's `state`), in uints: per list its
// indirect workgroup counts (x, y, z, unused), per list its length, then
// per round of a submission the nodes it appended and the edges it relaxed.
constexpr std::size_t kLists = 3;
constexpr std::size_t kRoundStats = 16;
constexpr std::size_t kStateWords = kRoundStats + 2 * kMostRounds;

struct RoundArguments {
  std::uint32_t nodes;
  std::uint32_t has_cost;
  std::uint32_t round;
  std::uint32_t slot;
  std::uint32_t max_groups_x;
  std::uint32_t local_hops;
};

}  // namespace

struct GraphOnDevice::State {
  std::uint32_t nodes = 0;
  std::unique_ptr<vk::Buffer> row_offsets, heads, weights;
  std::unique_ptr<vk::Buffer> node_cost, distance, queued, frontiers, state;
  std::unique_ptr<vk::Buffer> readback;  // host memory: the round statistics after a submission
};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>& csr) : state_(std::make_unique<State>()) {
  const CsrView<Weight> g = csr.view();
  if (g.nnz > static_cast<RowOffset>(std::numeric_limits<std::uint32_t>::max()) ||
      static_cast<std::uint64_t>(g.rows) * kLists > std::numeric_limits<std::uint32_t>::max()) {
    throw BackendUnavailable(fmt::format(
        "the vulkan backend takes graphs of up to 2^32 / 3 nodes and 2^32 - 1 edges, this one has {} and {}", g.rows,
        g.nnz));
  }
  State& s = *state_;
  s.nodes = static_cast<std::uint32_t>(g.rows);
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(g.rows) + 1);
  for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<std::uint32_t>(g.row_offsets[i]);
  const auto edges = static_cast<std::size_t>(g.nnz);
  const auto n = static_cast<std::size_t>(g.rows);
  s.row_offsets = vk::Buffer::from<std::uint32_t>(offsets);
  s.heads = vk::Buffer::from<ColumnIndex>({g.col_indices, edges});
  s.weights = vk::Buffer::from<Weight>({g.values, edges});
  s.node_cost = std::make_unique<vk::Buffer>(n * sizeof(Weight));
  s.distance = std::make_unique<vk::Buffer>(n * sizeof(std::uint32_t));
  s.queued = std::make_unique<vk::Buffer>(n * sizeof(std::uint32_t));
  s.frontiers = std::make_unique<vk::Buffer>(kLists * n * sizeof(std::uint32_t));
  s.state = std::make_unique<vk::Buffer>(kStateWords * sizeof(std::uint32_t));
  s.readback = std::make_unique<vk::Buffer>(kStateWords * sizeof(std::uint32_t), vk::Memory::host);
}

GraphOnDevice::~GraphOnDevice() = default;

std::int64_t GraphOnDevice::search(const SearchSpec& search, std::span<Weight> distance) {
  State& s = *state_;
  vk::Context& context = vk::Context::get();
  const vk::Kernel& relax = context.kernel("graph/bellman_ford", kBellmanFord, 8, sizeof(RoundArguments));
  const std::size_t n = s.nodes;
  std::vector<std::uint32_t> sources(search.sources.begin(), search.sources.end());
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  if (sources.empty()) {
    std::fill(distance.begin(), distance.end(), kUnreachable);
    return 0;
  }
  const bool has_cost = !search.node_cost.empty();
  if (has_cost) s.node_cost->upload(search.node_cost);

  // List 0 holds the sources; the others are empty and start at one workgroup.
  const std::uint32_t max_x = context.max_groups_x();
  const auto first_groups = static_cast<std::uint32_t>(
      std::min<std::size_t>((sources.size() + vk::kWorkgroupSize - 1) / vk::kWorkgroupSize, max_x));
  const std::uint32_t header[kRoundStats] = {
      first_groups, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, static_cast<std::uint32_t>(sources.size()), 0, 0, 0};
  std::int64_t relaxed = 0;
  std::uint32_t round = 1;  // the search's next round
  bool settled = false;
  for (std::uint32_t batch = kFirstRounds; !settled; batch = std::min(2 * batch, kMostRounds)) {
    context.run([&](vk::Recorder& recorder) {
      if (round == 1) {
        recorder.fill(*s.distance, std::bit_cast<std::uint32_t>(kUnreachable));
        recorder.fill(*s.queued, 0);
        recorder.update(*s.frontiers, 0, sources.data(), sources.size() * sizeof(std::uint32_t));
        recorder.update(*s.state, 0, header, sizeof(header));
      }
      recorder.fill(*s.state, 0, kRoundStats * sizeof(std::uint32_t), 2 * batch * sizeof(std::uint32_t));
      recorder.barrier();
      for (std::uint32_t slot = 0; slot < batch; ++slot, ++round) {
        const RoundArguments arguments{s.nodes, has_cost ? 1u : 0u, round, slot, max_x, kLocalHops};
        const std::size_t list = (round - 1) % kLists;
        recorder.dispatch_indirect(relax,
                                   {s.row_offsets.get(), s.heads.get(), s.weights.get(), s.node_cost.get(),
                                    s.distance.get(), s.queued.get(), s.frontiers.get(), s.state.get()},
                                   &arguments, sizeof(arguments), *s.state, 4 * list * sizeof(std::uint32_t));
        recorder.barrier();
      }
      recorder.copy(*s.state, 0, *s.readback, 0, (kRoundStats + 2 * batch) * sizeof(std::uint32_t));
    });
    const std::uint32_t* stats = s.readback->as<std::uint32_t>() + kRoundStats;
    for (std::uint32_t slot = 0; slot < batch; ++slot) relaxed += stats[2 * slot + 1];
    settled = stats[2 * (batch - 1)] == 0;
    // Each round lowers some node's distance to a value it never had, and
    // the distances are floats: far more rounds than nodes means a fault.
    if (!settled && round > 64 * (n + 1) + 1024) {
      throw Error(fmt::format("vulkan bellman-ford did not settle after {} rounds on {} nodes", round - 1, n));
    }
  }
  s.distance->download(distance);
  return relaxed;
}

}  // namespace trellis::graph::vulkan
