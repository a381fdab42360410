// Frontier Bellman-Ford on the Vulkan device: rounds of bellman_ford.comp,
// kRoundsPerSubmission to a submission, until a round lowers no distance.
#include <fmt/format.h>

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

// Rounds recorded per submission: the host reads the counters once per
// batch, and rounds after the frontier empties cost one early return per node.
constexpr std::uint32_t kRoundsPerSubmission = 16;

struct RoundArguments {
  std::uint32_t nodes;
  std::uint32_t has_cost;
  std::uint32_t slot;
};

}  // namespace

struct GraphOnDevice::State {
  std::uint32_t nodes = 0;
  std::unique_ptr<vk::Buffer> row_offsets, heads, weights;
  std::unique_ptr<vk::Buffer> node_cost, distance, frontier, next_frontier, counters;
};

GraphOnDevice::GraphOnDevice(const CsrMatrix<Weight>& csr) : state_(std::make_unique<State>()) {
  const CsrView<Weight> g = csr.view();
  if (g.nnz > static_cast<RowOffset>(std::numeric_limits<std::uint32_t>::max())) {
    throw BackendUnavailable(
        fmt::format("the vulkan backend takes graphs of up to 2^32 - 1 edges, this one has {}", g.nnz));
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
  s.frontier = std::make_unique<vk::Buffer>(n * sizeof(std::uint32_t));
  s.next_frontier = std::make_unique<vk::Buffer>(n * sizeof(std::uint32_t));
  s.counters = std::make_unique<vk::Buffer>(2 * kRoundsPerSubmission * sizeof(std::uint32_t));
}

GraphOnDevice::~GraphOnDevice() = default;

std::int64_t GraphOnDevice::search(const SearchSpec& search, std::span<Weight> distance) {
  State& s = *state_;
  vk::Context& context = vk::Context::get();
  const vk::Kernel& round = context.kernel("graph/bellman_ford", kBellmanFord, 8, sizeof(RoundArguments));
  const std::size_t n = s.nodes;
  std::uint32_t* labels = s.distance->as<std::uint32_t>();
  std::uint32_t* frontier = s.frontier->as<std::uint32_t>();
  std::fill_n(labels, n, std::bit_cast<std::uint32_t>(kUnreachable));
  std::fill_n(frontier, n, 0u);
  std::fill_n(s.next_frontier->as<std::uint32_t>(), n, 0u);
  for (const NodeId source : search.sources) {
    labels[source] = std::bit_cast<std::uint32_t>(Weight(0));
    frontier[source] = 1;
  }
  const bool has_cost = !search.node_cost.empty();
  if (has_cost) std::copy(search.node_cost.begin(), search.node_cost.end(), s.node_cost->as<Weight>());

  std::int64_t relaxed = 0;
  std::uint64_t rounds = 0;
  for (bool frontier_empty = false; !frontier_empty;) {
    context.run([&](vk::Recorder& recorder) {
      recorder.fill(*s.counters, 0);
      recorder.barrier();
      for (std::uint32_t slot = 0; slot < kRoundsPerSubmission; ++slot) {
        const bool even = (rounds + slot) % 2 == 0;
        const RoundArguments arguments{s.nodes, has_cost ? 1u : 0u, slot};
        recorder.dispatch(round,
                          {s.row_offsets.get(), s.heads.get(), s.weights.get(), s.node_cost.get(), s.distance.get(),
                           even ? s.frontier.get() : s.next_frontier.get(),
                           even ? s.next_frontier.get() : s.frontier.get(), s.counters.get()},
                          &arguments, sizeof(arguments), n);
        recorder.barrier();
      }
    });
    const std::uint32_t* counters = s.counters->as<std::uint32_t>();
    for (std::uint32_t slot = 0; slot < kRoundsPerSubmission; ++slot) {
      relaxed += counters[2 * slot + 1];
      if (counters[2 * slot] == 0) frontier_empty = true;
    }
    rounds += kRoundsPerSubmission;
    // Each round lowers some node's distance to a value it never had, and
    // the distances are floats: far more rounds than nodes means a fault.
    if (!frontier_empty && rounds > 64 * (n + 1) + 1024) {
      throw Error(fmt::format("vulkan bellman-ford did not settle after {} rounds on {} nodes", rounds, n));
    }
  }
  for (std::size_t v = 0; v < n; ++v) distance[v] = std::bit_cast<Weight>(labels[v]);
  return relaxed;
}

}  // namespace trellis::graph::vulkan
