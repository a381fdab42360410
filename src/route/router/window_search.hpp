// The router's path searches on the device: a batch of connections, each in
// its own window of the lattice, searched in one launch, the cost of
// entering a node worked out inside the search from a copy of the
// congestion counts kept in device memory. No cost array crosses the bus:
// per batch the counts that changed go up, the queries go up, the paths
// come back.
//
// Contract: for the same counts, window, sources and target, a query gives
// the path and distance the graph module's search gives on the host cost
// array that Negotiation fills for that window (every node outside it
// blocked): the same float operations in the same order, and the parity
// rule of trellis/graph/sssp.hpp (fewest hops among tight edges, ties to
// the smallest id) for the path.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "lattice.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::route::router_detail {

// Grid rows and columns a search may use (inclusive).
struct SearchBox {
  int row0 = 0, row1 = -1, column0 = 0, column1 = -1;
};

struct WindowQuery {
  int net = 0;
  SearchBox box;
  int target = 0;                   // a pin node of the net
  std::span<const int> sources;     // the net's tree, sorted
  std::span<const int> own_uses;    // the net's copper centres, sorted
  std::span<const int> own_claims;  // what that copper claims beyond them, sorted
};

// The congestion counts as Negotiation keeps them on the host.
struct CongestionCounts {
  std::span<const int> uses;                    // per node
  std::span<const int> claims;                  // per node
  std::span<const std::vector<int>> near_uses;  // [group][grid node or via site]
  std::span<const float> history;               // per node
};

// Entries of the counts changed since the last upload.
struct CountChanges {
  std::vector<int> nodes;  // uses and claims changed there
  std::vector<int> near;   // group * pad_base + node
  bool history = false;    // the whole history array
};

class WindowSearch {
 public:
  // Uploads the lattice (the object must outlive this one) and the counts.
  // Throws BackendUnavailable without CUDA or without a device.
  WindowSearch(const Lattice& lattice, float via_cost, float pour_cost, const CongestionCounts& counts);
  ~WindowSearch();
  WindowSearch(const WindowSearch&) = delete;
  WindowSearch& operator=(const WindowSearch&) = delete;

  void update(const CongestionCounts& counts, const CountChanges& changes);

  // One launch for the whole batch; via_premium is added to a via site's
  // price. Unreachable targets give kUnreachable and an empty path.
  std::vector<graph::SsspPath> paths(std::span<const WindowQuery> queries, float present, bool forbid_conflicts,
                                     float via_premium);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::route::router_detail
