// PathFinder negotiated congestion over the lattice: iterations of rip-up
// and reroute, nets in batches whose searches run together, costs from
// present congestion and history. See include/trellis/route/router.hpp.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "congestion_ledger.hpp"
#include "copper_from_paths.hpp"
#include "miter_corners.hpp"
#include "pull_tight.hpp"
#include "lattice.hpp"
#include "pour_joins.hpp"
#include "window_search.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/graph/sssp.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

using router_detail::kAnyNet;
using router_detail::Lattice;

// The cost of a node no search may enter. Any path that reaches its target
// cheaper than half of this used none.
constexpr graph::Weight kBlocked = 1e9f;
// Finer lattices tried at most where nets stay unrouted: 3/4, 9/16 and
// 27/64 of the pitch.
constexpr int kMostRefinements = 3;
// The present factor's growth of the negotiation tried last where nets
// stay unrouted.
constexpr double kSteepPresentFactorGrowth = 1.6;
// Marks of the net whose costs are being filled: its copper's centres and
// the nodes that copper claims.
constexpr unsigned char kNotOwn = 0, kOwnUse = 1, kOwnClaim = 2;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Adds the wall time of its scope to one of RoutePhases' seconds.
class PhaseClock {
 public:
  explicit PhaseClock(double& seconds) : seconds_(seconds) {}
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  ~PhaseClock() { seconds_ += timer_.elapsed_ms() / 1e3; }

 private:
  double& seconds_;
  SteadyTimer timer_;
};

void check_options(const RouterOptions& o) {
  const auto finite_non_negative = [](double v) { return v >= 0 && std::isfinite(v); };
  if (o.pitch && *o.pitch <= 0)
    throw UsageError(fmt::format("the lattice pitch must be positive, got {} nm", *o.pitch));
  if (o.max_iterations < 1)
    throw UsageError(fmt::format("max iterations must be at least 1, got {}", o.max_iterations));
  if (!finite_non_negative(o.first_present_factor) || !finite_non_negative(o.present_factor) ||
      !finite_non_negative(o.present_factor_max) || !finite_non_negative(o.history_factor)) {
    throw UsageError("present and history factors must be finite and non-negative");
  }
  if (!(o.present_factor_growth >= 1) || !std::isfinite(o.present_factor_growth)) {
    throw UsageError(fmt::format("the present factor growth must be at least 1, got {}", o.present_factor_growth));
  }
  if (!finite_non_negative(o.pour_cost))
    throw UsageError(fmt::format("the pour cost must be finite and non-negative, got {}", o.pour_cost));
  if (!finite_non_negative(o.via_cost))
    throw UsageError(fmt::format("the via cost must be finite and non-negative, got {}", o.via_cost));
  if (!(o.against_direction_cost >= 1) || !std::isfinite(o.against_direction_cost)) {
    throw UsageError(fmt::format("the cost of a step against a layer's direction must be at least 1, got {}",
                                 o.against_direction_cost));
  }
  if (o.box_margin < 1)
    throw UsageError(fmt::format("the box margin must be at least 1 grid step, got {}", o.box_margin));
  if (o.batch_size < 1) throw UsageError(fmt::format("the batch size must be at least 1, got {}", o.batch_size));
  if (o.device_round_min < 0) {
    throw UsageError(fmt::format("the fewest searches of a round on the device must be 0 (automatic) or more, got {}",
                                 o.device_round_min));
  }
  if (o.overuse_per_concurrent_net < 1) {
    throw UsageError(
        fmt::format("overused nodes per concurrent net must be at least 1, got {}", o.overuse_per_concurrent_net));
  }
  if (!finite_non_negative(o.cleanup_via_cost)) {
    throw UsageError(
        fmt::format("the clean-up's via cost must be finite and non-negative, got {}", o.cleanup_via_cost));
  }
  if (o.cleanup_passes < 0) {
    throw UsageError(fmt::format("clean-up passes must be 0 (none) or more, got {}", o.cleanup_passes));
  }
  if (o.neck_down_width && (*o.neck_down_width < 0 || *o.neck_down_width > 100 * kNanometresPerMillimetre)) {
    throw UsageError(fmt::format("the neck-down width must be 0 (none) to 100 mm, got {} nm", *o.neck_down_width));
  }
  if (o.concurrent_nets < 0) {
    throw UsageError(fmt::format("concurrent nets must be 0 (off) or more, got {}", o.concurrent_nets));
  }
}

// Per board net: whether the options ask for it to be routed.
std::vector<bool> nets_in_scope(const Board& board, const RouterOptions& options) {
  std::vector<bool> in_scope(board.nets.size(), options.nets.empty());
  for (const std::string& name : options.nets) {
    const auto found =
        std::find_if(board.nets.begin(), board.nets.end(), [&](const Net& net) { return net.name == name; });
    if (found == board.nets.end()) throw UsageError(fmt::format("the board has no net named '{}'", name));
    in_scope[static_cast<std::size_t>(found - board.nets.begin())] = true;
  }
  return in_scope;
}

// A net's routing as it grows.
struct NetRoute {
  std::vector<int> tree;                // every node its paths touch, pins included
  std::vector<std::vector<int>> paths;  // one per connection
  std::vector<int> uses;                // grid nodes and via sites its copper is centred on (sorted)
  std::vector<int> claims;              // nodes its copper keeps others from, not among its uses (sorted)
  std::vector<int> pending;             // pin nodes still to connect
  // Per pending pin, in step with `pending`: the squared distance to the
  // closest tree node and that node (the lowest of equals).
  std::vector<std::pair<std::int64_t, int>> closest;
  std::vector<int> failed;  // pin nodes no search reached
  int margin = 0;           // box margin of the next search
};

// Grid rows and columns a search may use (inclusive).
struct Window {
  int row0 = 0, row1 = -1, column0 = 0, column1 = -1;
  bool whole = false;  // covers the whole grid: a failure here is final
};

class Negotiation {
 public:
  Negotiation(const Board& board, const RouterOptions& options, Lattice lattice, RoutePhases& phases)
      : board_(board),
        options_(options),
        lattice_(std::move(lattice)),
        phases_(phases),
        // Left to choose, the router searches on cpu (see below).
        backend_(options.backend == Backend::automatic ? Backend::cpu : resolve(options.backend)),
        ledger_(lattice_, backend_ == Backend::cuda),
        routes_(board.nets.size()),
        margins_(board.nets.size(), options.box_margin) {
    // A batch is one launch: on cpu the graph module's searches run side by
    // side, each a Dijkstra costing what it settles, over cost arrays filled
    // here; on cuda one block a search prices its own window
    // (window_search.hpp); the reference runs each whole. Left to choose,
    // the router searches on cpu: one search on the device takes longer
    // than on a host core (bench/results/NOTES.md).
    if (backend_ == Backend::cuda) {
      // The cuda searches price their windows themselves from a copy of
      // the counts on the device (window_search.hpp).
      device_search_ = std::make_unique<router_detail::WindowSearch>(
          lattice_, static_cast<float>(options.via_cost), static_cast<float>(options.pour_cost), ledger_.counts());
    }
    // On cuda, rounds of few searches run here (RouterOptions::device_round_min).
    device_round_min_ = options.device_round_min > 0 ? options.device_round_min : omp_get_max_threads() + 1;
    graph::SsspOptions search_options;
    search_options.backend = backend_ == Backend::cuda ? Backend::cpu : backend_;
    search_options.parents = true;
    search_ = std::make_unique<graph::ShortestPaths>(lattice_.graph, search_options);
    const std::vector<bool> in_scope = nets_in_scope(board, options);
    for (std::size_t n = 0; n < board.nets.size(); ++n) {
      if (lattice_.group_of_net[n] >= 0 && in_scope[n]) nets_.push_back(static_cast<int>(n));
    }
    for (const auto* stencils :
         {&lattice_.wire_grid_claims, &lattice_.wire_via_claims, &lattice_.via_grid_claims, &lattice_.via_via_claims}) {
      for (const auto& stencil : *stencils) {
        for (const auto& o : stencil) claim_reach_ = std::max({claim_reach_, std::abs(o.row), std::abs(o.column)});
      }
    }
    claim_reach_ += 2;  // stubs reach a little beyond their grid node
    concurrent_now_ = options.concurrency_follows_overuse ? 0 : options.concurrent_nets;
    // Short nets first: they have the fewest ways around.
    std::stable_sort(nets_.begin(), nets_.end(), [&](int a, int b) { return pin_span(a) < pin_span(b); });
  }

  // The negotiation, then the nets still in conflict dropped and tried
  // again round the others (with room made where a few nets can move).
  void negotiate(const RouteProgress& progress) {
    RouteResult& result = negotiated_;
    result = RouteResult{};
    result.backend = backend_;
    result.nets_to_route = nets_.size();
    iterate(progress);
    const PhaseClock clock(phases_.repair);
    drop_conflicting_nets();
    route_dropped_nets_around();
    repair_dropped_nets();
  }

  // The routing as negotiate() left it, without its copper: the
  // iterations and the nets left unrouted.
  RouteResult negotiated() const {
    RouteResult result = negotiated_;
    result.unrouted_nets = unrouted_nets();
    return result;
  }

  // The clean-up passes after negotiate(), and the routing they leave.
  // `uncleaned`, when given, receives the routing as it stood before the
  // clean-up, where the clean-up changed it.
  RouteResult clean_up_and_finish(std::optional<RouteResult>* uncleaned = nullptr) {
    RouteResult result = negotiated_;
    RouteResult before_cleanup;
    if (uncleaned) {
      before_cleanup = negotiated_;
      const PhaseClock clock(phases_.geometry);
      finish(before_cleanup);
    }
    const bool cleaned = clean_up_passes();
    const PhaseClock clock(phases_.geometry);
    finish(result);
    if (uncleaned && cleaned) *uncleaned = std::move(before_cleanup);
    return result;
  }

  const Lattice& lattice() const noexcept { return lattice_; }

 private:
  // PathFinder's iterations, every net at first, then those on overuse,
  // until none is overused or max_iterations have run.
  void iterate(const RouteProgress& progress) {
    const PhaseClock clock(phases_.negotiation);
    RouteResult& result = negotiated_;
    double present = options_.first_present_factor;
    std::vector<int> to_route = nets_;
    for (int iteration = 1; iteration <= options_.max_iterations; ++iteration) {
      const auto start = std::chrono::steady_clock::now();
      const std::size_t searched_before = searches_;
      const std::size_t rounds_before = rounds_;
      const std::size_t stale_before = stale_paths_;
      if (iteration == 2) present = options_.present_factor;
      if (iteration > 2) present = std::min(present * options_.present_factor_growth, options_.present_factor_max);
      if (iteration == 1 || options_.reroute_whole_nets) {
        for (const int net : to_route) rip_up(net);
      } else {
        rip_up_congested_connections(to_route);
      }
      for (std::vector<int> left = to_route; !left.empty();) {
        std::vector<int> batch = next_batch(left, present);
        // Nets whose search had to look further than their reach go back
        // to be batched again with their wider reach.
        std::vector<int> deferred = route_batch(std::move(batch), static_cast<float>(present));
        left.insert(left.begin(), deferred.begin(), deferred.end());
      }
      const std::size_t overused = ledger_.count_overused();
      RouteIteration record;
      record.iteration = iteration;
      record.pitch = lattice_.pitch;
      record.nets_routed = to_route.size();
      record.connections_searched = searches_ - searched_before;
      record.search_rounds = rounds_ - rounds_before;
      record.paths_searched_again = stale_paths_ - stale_before;
      record.overused_nodes = overused;
      for (const int net : nets_) record.failed_connections += routes_[static_cast<std::size_t>(net)].failed.size();
      record.present_factor = present;
      record.seconds = seconds_since(start);
      result.iterations.push_back(record);
      if (progress) progress(record);
      if (overused == 0) break;
      concurrent_now_ = concurrency_after(overused);
      raise_history();
      to_route = nets_on_overuse();
      widen_boxes(to_route, present);
    }
  }

  // The clean-up's passes; true if some routing changed. Each part of a
  // pass that changes some net gives the nets still dropped another chance
  // in the room it freed (so a pass never ends with fewer nets than its
  // first part left); the nets placed so are cleaned up by the next pass.
  bool clean_up_passes() {
    const PhaseClock clock(phases_.cleanup);
    bool cleaned = false;
    for (int pass = 0; pass < options_.cleanup_passes; ++pass) {
      bool changed = false;
      for (const bool crossing : {false, true}) {
        if (!(crossing ? untangle_vias() : clean_up())) continue;
        changed = true;
        route_dropped_nets_around();
        repair_dropped_nets();
      }
      if (!changed) break;
      cleaned = true;
    }
    return cleaned;
  }

  // The nets' routes as copper, and what is left unrouted.
  void finish(RouteResult& result) const {
    result.unrouted_nets = unrouted_nets();
    for (const int net : nets_) {
      const NetRoute& route = routes_[static_cast<std::size_t>(net)];
      if (!route.paths.empty())
        result.wire_length += router_detail::add_net_copper(lattice_, net, route.paths, result.copper);
    }
    result.overused_nodes = ledger_.count_overused();
    result.via_count = result.copper.vias.size();
    result.converged = result.overused_nodes == 0 && result.unrouted_nets.empty();
  }

  // The nets not complete, ascending. A net whose pins a pour joins all
  // (one pin left to connect) needs no path.
  std::vector<int> unrouted_nets() const {
    std::vector<int> nets;
    for (const int net : nets_) {
      const NetRoute& route = routes_[static_cast<std::size_t>(net)];
      const bool joined = lattice_.net_pins[static_cast<std::size_t>(net)].size() < 2;
      if (!route.failed.empty() || !route.pending.empty() || (route.paths.empty() && !joined)) nets.push_back(net);
    }
    std::sort(nets.begin(), nets.end());
    return nets;
  }

  double pin_span(int net) const {
    Box box;
    for (const int pin : lattice_.net_pins[static_cast<std::size_t>(net)])
      box.include(lattice_.position[static_cast<std::size_t>(pin)]);
    return static_cast<double>(box.max.x - box.min.x) + static_cast<double>(box.max.y - box.min.y);
  }

  // Where a net's searches may go: its pins' box grown by its margin. Every
  // search window lies inside, and the tree grows only inside windows.
  Window reach_of(int net) const {
    return window_around(lattice_.net_pins[static_cast<std::size_t>(net)],
                         routes_[static_cast<std::size_t>(net)].margin);
  }

  // Whether two reaches come close enough for copper in one to conflict
  // with copper in the other (claims reach a few grid steps).
  bool overlap(const Window& a, const Window& b) const {
    const int gap = claim_reach_;
    return a.column0 <= b.column1 + gap && b.column0 <= a.column1 + gap && a.row0 <= b.row1 + gap &&
           b.row0 <= a.row1 + gap;
  }

  // Takes from `left`, in order, the next batch_size nets: with checked
  // batches (route_batch places only the paths whose prices held), or
  // without present congestion (pres_fac 0, the first iteration by
  // default), where a net's costs do not depend on other nets' copper at
  // all. Otherwise up to batch_size nets whose reaches do not overlap:
  // nets routed together then cannot compete for the same nodes. With
  // concurrent_nets, that many nets share a batch whatever their reaches,
  // unchecked (RouterOptions).
  std::vector<int> next_batch(std::vector<int>& left, double present) const {
    const bool independent = present == 0;
    const bool concurrent = !independent && concurrent_now_ > 1;
    const bool checked = !independent && !concurrent && options_.checked_batches;
    const auto most = static_cast<std::size_t>(concurrent ? concurrent_now_ : options_.batch_size);
    std::vector<int> batch;
    std::vector<Window> taken;
    std::vector<int> rest;
    for (const int net : left) {
      const Window reach = reach_of(net);
      const auto clear_of = [&](const Window& w) { return !overlap(w, reach); };
      const bool free = batch.size() < most &&
                        (independent || concurrent || checked || std::all_of(taken.begin(), taken.end(), clear_of));
      if (free) {
        batch.push_back(net);
        taken.push_back(reach);
      } else {
        rest.push_back(net);
      }
    }
    left = std::move(rest);
    return batch;
  }

  // Nets sharing a batch whatever their reaches in the next iteration:
  // concurrent_nets, or with concurrency_follows_overuse one for every
  // kOverusePerNet overused nodes up to concurrent_nets, so that the last
  // iterations, with little overuse left, route one net after another.
  int concurrency_after(std::size_t overused) const {
    if (!options_.concurrency_follows_overuse) return options_.concurrent_nets;
    const std::size_t nets = overused / static_cast<std::size_t>(options_.overuse_per_concurrent_net);
    return static_cast<int>(std::min<std::size_t>(nets, static_cast<std::size_t>(options_.concurrent_nets)));
  }

  void rip_up(int net) {
    NetRoute& route = routes_[static_cast<std::size_t>(net)];
    count(route, -1);
    route = NetRoute{};
    const auto& pins = lattice_.net_pins[static_cast<std::size_t>(net)];
    route.tree = {pins.front()};
    route.pending.assign(pins.begin() + 1, pins.end());
    route.closest.assign(route.pending.size(), {std::numeric_limits<std::int64_t>::max(), 0});
    note_tree_nodes(route, route.tree);
    route.margin = margins_[static_cast<std::size_t>(net)];
  }

  // Brings each pending pin's closest tree node up to date with `nodes`,
  // new on the tree. Kept as the tree grows, so that choosing the next
  // connection costs pending pins, not pending pins times the tree.
  void note_tree_nodes(NetRoute& route, const std::vector<int>& nodes) const {
    for (std::size_t i = 0; i < route.pending.size(); ++i) {
      const Point p = lattice_.position[static_cast<std::size_t>(route.pending[i])];
      auto& [best_distance, best_node] = route.closest[i];
      for (const int node : nodes) {
        // Squared, in integers: exact (boards are under a metre, 2^30 nm, so
        // the sum stays below 2^61).
        const Point q = lattice_.position[static_cast<std::size_t>(node)];
        const std::int64_t dx = p.x - q.x;
        const std::int64_t dy = p.y - q.y;
        const std::int64_t d = dx * dx + dy * dy;
        if (d < best_distance || (d == best_distance && node < best_node)) {
          best_distance = d;
          best_node = node;
        }
      }
    }
  }

  // Takes a pin off the pending list, if on it (connected, or failed).
  static void erase_pending(NetRoute& route, int pin) {
    const auto at = std::find(route.pending.begin(), route.pending.end(), pin);
    if (at == route.pending.end()) return;
    route.closest.erase(route.closest.begin() + (at - route.pending.begin()));
    route.pending.erase(at);
  }

  // From the second iteration on, a net on overuse keeps the connections
  // that are clear of it: only the paths whose copper is on an overused node
  // go, and with them the paths that start on a path that goes (each path
  // starts on the tree the earlier ones built). The pins left without a
  // connection are searched again from what stays. A net of many pins with
  // one connection in conflict then pays for one search, not for all of
  // them. Which paths go is settled for every net before any is ripped up,
  // so the nets' order does not matter.
  void rip_up_congested_connections(const std::vector<int>& nets) {
    std::vector<std::vector<std::vector<int>>> kept(nets.size());
    std::vector<int> uses;
    std::vector<int> claims;
    const auto hot = [&](int node) { return ledger_.overused(node); };
    for (std::size_t i = 0; i < nets.size(); ++i) {
      const int net = nets[i];
      std::unordered_set<int> on_tree{lattice_.net_pins[static_cast<std::size_t>(net)].front()};
      for (const std::vector<int>& path : routes_[static_cast<std::size_t>(net)].paths) {
        if (!on_tree.contains(path.front())) continue;
        uses.clear();
        claims.clear();
        path_copper(net, path, uses, claims);
        if (std::any_of(uses.begin(), uses.end(), hot) || std::any_of(claims.begin(), claims.end(), hot)) continue;
        on_tree.insert(path.begin(), path.end());
        kept[i].push_back(path);
      }
    }
    for (std::size_t i = 0; i < nets.size(); ++i) {
      rip_up(nets[i]);
      for (const std::vector<int>& path : kept[i]) add_path(nets[i], path);
    }
  }

  // Grid indices around a point (floor and ceiling for points off the grid).
  std::pair<int, int> column_range(Coord x) const {
    const double at = static_cast<double>(x - lattice_.origin.x) / static_cast<double>(lattice_.pitch);
    return {static_cast<int>(std::floor(at)), static_cast<int>(std::ceil(at))};
  }
  std::pair<int, int> row_range(Coord y) const {
    const double at = static_cast<double>(y - lattice_.origin.y) / static_cast<double>(lattice_.pitch);
    return {static_cast<int>(std::floor(at)), static_cast<int>(std::ceil(at))};
  }

  // The box around some nodes grown by a margin, clipped to the grid.
  Window window_around(const std::vector<int>& nodes, int margin) const {
    Window w{std::numeric_limits<int>::max(), std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
             std::numeric_limits<int>::min(), false};
    const auto include = [&](int node) {
      const Point p = lattice_.position[static_cast<std::size_t>(node)];
      const auto [c0, c1] = column_range(p.x);
      const auto [r0, r1] = row_range(p.y);
      w.column0 = std::min(w.column0, c0);
      w.column1 = std::max(w.column1, c1);
      w.row0 = std::min(w.row0, r0);
      w.row1 = std::max(w.row1, r1);
    };
    for (const int node : nodes) include(node);
    w.column0 = std::max(0, w.column0 - margin);
    w.row0 = std::max(0, w.row0 - margin);
    w.column1 = std::min(lattice_.columns - 1, w.column1 + margin);
    w.row1 = std::min(lattice_.rows - 1, w.row1 + margin);
    w.whole = w.column0 == 0 && w.row0 == 0 && w.column1 == lattice_.columns - 1 && w.row1 == lattice_.rows - 1;
    return w;
  }

  Window clip(Window w, const Window& to) const {
    w.column0 = std::max(w.column0, to.column0);
    w.column1 = std::min(w.column1, to.column1);
    w.row0 = std::max(w.row0, to.row0);
    w.row1 = std::min(w.row1, to.row1);
    w.whole = w.column0 == 0 && w.row0 == 0 && w.column1 == lattice_.columns - 1 && w.row1 == lattice_.rows - 1;
    return w;
  }

  // The pending pin closest to the tree (the first of equals), and the
  // tree node closest to it (the lowest of equals).
  static std::pair<int, int> nearest_pending(const NetRoute& route) {
    if (route.closest.size() != route.pending.size())
      throw Error("internal error: a net's closest tree nodes are out of step with its pending pins");
    std::size_t best = 0;
    for (std::size_t i = 1; i < route.pending.size(); ++i) {
      if (route.closest[i].first < route.closest[best].first) best = i;
    }
    return {route.pending[best], route.closest[best].second};
  }

  // The copper of the net whose window is being priced, so that it does
  // not conflict with itself: marks on its centres and claims, and its
  // uses counted into its group's claim stencils (what the ledger's near
  // uses hold of it). One per search of a round, so that the windows of a
  // round are priced side by side; fill_costs sets and clears it.
  struct OwnCopper {
    std::vector<unsigned char> marks;  // per node: kNotOwn, kOwnUse or kOwnClaim
    std::vector<int> near;             // per grid node or via site: the net's uses whose stencils hold it
  };

  // Other nets' copper at `node` or in the room copper there would take.
  int conflicts_at(int net, int node, const OwnCopper& own) const {
    const auto v = static_cast<std::size_t>(node);
    if (lattice_.is_stub(node)) {
      // A stub's wire meets other nets' copper centred on what it claims.
      int others = 0;
      for (const int near : lattice_.stub_of(node).claims) {
        const auto n = static_cast<std::size_t>(near);
        others += ledger_.uses(near) - (own.marks[n] == kOwnUse ? 1 : 0);
      }
      return others;
    }
    const int own_centre = own.marks[v] != kNotOwn ? 1 : 0;
    const auto group = static_cast<std::size_t>(lattice_.group_of_net[static_cast<std::size_t>(net)]);
    return ledger_.uses()[v] + ledger_.claims()[v] - own_centre + ledger_.near_uses(group)[v] - own.near[v];
  }

  // PathFinder's price of a node that `others` other nets' copper meets:
  // its base cost (a step, a via) scaled by the present congestion, plus
  // its history scaled the same way.
  static float congestion_cost(float base, float others, float history, float present) {
    const float penalty = 1.0f + present * others;
    return base * (penalty - 1.0f) + history * penalty;
  }

  graph::Weight node_cost(int net, const std::vector<int>& owner, int node, float present, const OwnCopper& own) const {
    const int who = owner[static_cast<std::size_t>(node)];
    if (who != kAnyNet && who != net) return kBlocked;
    // An edge's midpoint: the step's length is in the edge weights and its
    // ends carry the conflicts with grid copper; a stub's claim on the
    // edge, and another net's use of it, are priced here as at a node (0
    // where there are none).
    if (lattice_.is_mid(node)) {
      const auto v = static_cast<std::size_t>(node);
      const float others =
          static_cast<float>(ledger_.uses()[v] + ledger_.claims()[v] - (own.marks[v] != kNotOwn ? 1 : 0));
      if (forbid_conflicts_ && others > 0) return kBlocked;
      return congestion_cost(1.0f, others, ledger_.history()[v], present);
    }
    const float others = static_cast<float>(conflicts_at(net, node, own));
    if (forbid_conflicts_ && others > 0) return kBlocked;
    const float base = lattice_.is_via(node)    ? static_cast<float>(options_.via_cost)
                       : lattice_.is_stub(node) ? 0.0f
                                                : 1.0f;
    const float cost = congestion_cost(base, others, ledger_.history()[static_cast<std::size_t>(node)], present);
    return lattice_.is_via(node) && via_premium_ != 0 ? cost + via_premium_ : cost;
  }

  // node_cost() of `count` consecutive grid nodes or via sites from `first`
  // (base: a step's or a via's cost) plus pour_cost on another net's pour,
  // with the same float operations, in a
  // loop the compiler vectorises: most of a search's time goes to filling
  // its window.
  void fill_run(std::span<graph::Weight> costs, int net, std::size_t group, int first, int count, float present,
                float base, const OwnCopper& own_copper) const {
    const auto f = static_cast<std::size_t>(first);
    const int* const who = lattice_.owner[group].data() + f;
    const int* const uses = ledger_.uses().data() + f;
    const int* const claims = ledger_.claims().data() + f;
    const unsigned char* const own = own_copper.marks.data() + f;
    const int* const near = ledger_.near_uses(group).data() + f;
    const int* const own_near = own_copper.near.data() + f;
    const float* const history = ledger_.history().data() + f;
    graph::Weight* const out = costs.data() + f;
    const bool forbid = forbid_conflicts_;
    const auto fill = [&](auto&& with_pour) {
      for (int i = 0; i < count; ++i) {
        const float others =
            static_cast<float>(uses[i] + claims[i] - (own[i] != kNotOwn ? 1 : 0) + near[i] - own_near[i]);
        // Priced for every node, then selected: a branch round the price
        // keeps the compiler from vectorising the loop.
        const float cost = with_pour(congestion_cost(base, others, history[i], present), i);
        const bool allowed = (who[i] == kAnyNet || who[i] == net) && !(forbid && others > 0);
        out[i] = allowed ? cost : kBlocked;
      }
    };
    if (lattice_.pour_net.empty()) {
      fill([](float cost, int) { return cost; });
      return;
    }
    // Another net's pour adds pour_cost; adding 0 elsewhere leaves the
    // price as it was (it is never -0), as the cuda search, which adds
    // nothing there, has it.
    const int* const pours = lattice_.pour_net.data() + f;
    const float pour_cost = static_cast<float>(options_.pour_cost);
    fill([&](float cost, int i) {
      return cost + (pours[i] != router_detail::kNoPour && pours[i] != net ? pour_cost : 0.0f);
    });
  }

  // Calls visit(mid) for the midpoints of the edges of `count` consecutive
  // grid nodes from `first` to the next column and row.
  template <class Visit>
  void for_each_midpoint(int first, int count, Visit&& visit) const {
    for (int node = first; node < first + count; ++node) {
      for (const int mid : lattice_.edge_midpoints[static_cast<std::size_t>(node)]) {
        if (mid >= 0) visit(mid);
      }
    }
  }

  // Calls row(first, via_sites) for every row of a window, on each layer and
  // among each via kind's sites: `first` is the row's node in the window's
  // first column, and the row's nodes follow it.
  template <class Row>
  void for_each_window_row(const Window& w, Row&& row) const {
    const auto kinds = static_cast<int>(lattice_.via_kinds.size());
    for (int plane = 0; plane < lattice_.layers + kinds; ++plane) {
      const bool via_sites = plane >= lattice_.layers;
      for (int r = w.row0; r <= w.row1; ++r) {
        const int first = via_sites ? lattice_.via_site(plane - lattice_.layers, r, w.column0)
                                    : lattice_.grid_node(plane, r, w.column0);
        row(first, via_sites);
      }
    }
  }

  // Fills the costs of a search window (everything else stays blocked).
  // Reads the ledger and writes only `costs` and `own` (left cleared), so
  // the windows of a round are filled side by side.
  void fill_costs(std::span<graph::Weight> costs, int net, const NetRoute& route, const Window& w, float present,
                  OwnCopper& own) const {
    // The net's own copper does not conflict with itself: mark it for
    // conflicts_at (constant-time lookups), count its uses into the
    // stencils round them as the ledger's near uses do, and clear both after.
    const auto group = static_cast<std::size_t>(lattice_.group_of_net[static_cast<std::size_t>(net)]);
    for (const int node : route.uses) own.marks[static_cast<std::size_t>(node)] = kOwnUse;
    for (const int node : route.claims) own.marks[static_cast<std::size_t>(node)] = kOwnClaim;
    const auto count_near = [&](int sign) {
      for (const int u : route.uses) {
        ledger_.for_each_watcher(group, u, [&](int v) { own.near[static_cast<std::size_t>(v)] += sign; });
      }
    };
    count_near(+1);
    const auto& owner = lattice_.owner[group];
    const int count = w.column1 - w.column0 + 1;
    for_each_window_row(w, [&](int first, bool via_sites) {
      if (via_sites) {
        fill_run(costs, net, group, first, count, present, static_cast<float>(options_.via_cost), own);
        if (via_premium_ != 0) {
          for (int i = first; i < first + count; ++i) {
            auto& cost = costs[static_cast<std::size_t>(i)];
            if (cost != kBlocked) cost += via_premium_;
          }
        }
        return;
      }
      fill_run(costs, net, group, first, count, present, 1.0f, own);
      for_each_midpoint(first, count, [&](int mid) {
        costs[static_cast<std::size_t>(mid)] = node_cost(net, owner, mid, present, own);
      });
    });
    for (const int pin : lattice_.net_pins[static_cast<std::size_t>(net)]) costs[static_cast<std::size_t>(pin)] = 0;
    for (const int node : lattice_.net_pads[static_cast<std::size_t>(net)]) {
      if (!lattice_.is_stub(node)) {
        costs[static_cast<std::size_t>(node)] = 0;
        continue;
      }
      // A stub whose grid node is outside the window leads nowhere (that node
      // is blocked), so no path to the target uses it: it stays blocked, and
      // its cost, a sum over everything it claims, is not worked out. (A net
      // with pads all over the board has thousands of stubs.)
      const int grid = lattice_.stub_of(node).grid_node;
      const int row = lattice_.row_of(grid);
      const int column = lattice_.column_of(grid);
      if (row < w.row0 || row > w.row1 || column < w.column0 || column > w.column1) continue;
      costs[static_cast<std::size_t>(node)] = node_cost(net, owner, node, present, own);
    }
    for (const int node : route.uses) own.marks[static_cast<std::size_t>(node)] = kNotOwn;
    for (const int node : route.claims) own.marks[static_cast<std::size_t>(node)] = kNotOwn;
    count_near(-1);
  }

  void clear_costs(std::span<graph::Weight> costs, int net, const Window& w) const {
    const int count = w.column1 - w.column0 + 1;
    for_each_window_row(w, [&](int first, bool via_sites) {
      std::fill_n(costs.begin() + first, count, kBlocked);
      if (!via_sites)
        for_each_midpoint(first, count, [&](int mid) { costs[static_cast<std::size_t>(mid)] = kBlocked; });
    });
    for (const int pin : lattice_.net_pins[static_cast<std::size_t>(net)])
      costs[static_cast<std::size_t>(pin)] = kBlocked;
    for (const int node : lattice_.net_pads[static_cast<std::size_t>(net)])
      costs[static_cast<std::size_t>(node)] = kBlocked;
  }

  // Routes the nets of one batch: each round searches one connection of
  // every net that has one left, all against the same congestion, and
  // places the paths in batch order where their prices held (see
  // priced_as_searched).
  std::vector<int> route_batch(std::vector<int> batch, float present) {
    std::vector<int> deferred;
    std::vector<Window> reaches;
    for (const int net : batch) reaches.push_back(reach_of(net));
    for (;;) {
      std::vector<int> nets;
      std::vector<int> targets;
      std::vector<Window> windows;
      for (std::size_t b = 0; b < batch.size(); ++b) {
        const int net = batch[b];
        const NetRoute& route = routes_[static_cast<std::size_t>(net)];
        if (route.pending.empty() || std::find(deferred.begin(), deferred.end(), net) != deferred.end()) continue;
        nets.push_back(net);
        // The search box covers the target and the nearest part of the
        // tree (the rest of the tree is a source all the same), inside
        // the net's reach.
        const auto [target, nearest] = nearest_pending(route);
        targets.push_back(target);
        windows.push_back(clip(window_around({target, nearest}, route.margin), reaches[b]));
      }
      if (nets.empty()) return deferred;
      std::vector<graph::SsspPath> found = search(nets, targets, windows, present);
      searches_ += nets.size();
      ++rounds_;
      // Prices depend on other nets' copper only while conflicts are
      // priced or forbidden.
      const bool check = nets.size() > 1 && (present != 0 || forbid_conflicts_) && concurrent_now_ < 2;
      ledger_.mark();
      for (std::size_t q = 0; q < nets.size(); ++q) {
        NetRoute& route = routes_[static_cast<std::size_t>(nets[q])];
        const graph::Weight reached = found[q].distance;
        const std::vector<graph::NodeId>& path = found[q].nodes;
        if (reached < kBlocked / 2 && !sound(route, path)) {
          throw Error(
              fmt::format("the search for net '{}' returned a path that does not start on the net's tree "
                          "or leaves the lattice's edges",
                          board_.nets[static_cast<std::size_t>(nets[q])].name));
        }
        if (reached < kBlocked / 2 && check && !priced_as_searched(nets[q], path)) {
          ++stale_paths_;
          continue;  // searched again in the next round, against the copper placed now
        }
        if (reached < kBlocked / 2) {
          add_path(nets[q], path);
        } else if (windows[q].whole) {
          erase_pending(route, targets[q]);
          route.failed.push_back(targets[q]);
        } else {
          route.margin *= 2;
          deferred.push_back(nets[q]);
        }
      }
    }
  }

  // Whether a path found in this round's searches still costs what it did:
  // no path placed since changed the counts that price its nodes (a grid
  // node's or via site's uses, claims and its group's near uses there; a
  // stub's: the uses of what it claims). Placing copper only raises
  // prices, so such a path is still a shortest one, and placing it is what
  // searching again would do, up to ties.
  bool priced_as_searched(int net, const std::vector<graph::NodeId>& path) const {
    const auto group = static_cast<std::size_t>(lattice_.group_of_net[static_cast<std::size_t>(net)]);
    for (const int node : path) {
      if (lattice_.is_stub(node)) {
        const auto& claims = lattice_.stub_of(node).claims;
        if (std::any_of(claims.begin(), claims.end(), [&](int c) { return ledger_.changed_since_mark(c); }))
          return false;
      } else if (lattice_.is_grid(node) || lattice_.is_via(node)) {
        if (ledger_.changed_since_mark(node) || ledger_.near_changed_since_mark(group, node)) return false;
      } else if (lattice_.is_mid(node) && ledger_.changed_since_mark(node)) {
        return false;
      }
    }
    return true;
  }

  // One search per net, each in its window, all against the same counts.
  std::vector<graph::SsspPath> search(const std::vector<int>& nets, const std::vector<int>& targets,
                                      const std::vector<Window>& windows, float present) {
    if (device_search_ && std::cmp_greater_equal(nets.size(), device_round_min_)) {
      device_search_->update(ledger_.counts(), ledger_.take_changes());
      std::vector<router_detail::WindowQuery> queries(nets.size());
      for (std::size_t q = 0; q < nets.size(); ++q) {
        const NetRoute& route = routes_[static_cast<std::size_t>(nets[q])];
        const Window& w = windows[q];
        queries[q] = {nets[q],     {w.row0, w.row1, w.column0, w.column1}, targets[q], route.tree, route.uses,
                      route.claims};
      }
      return device_search_->paths(queries, present, forbid_conflicts_, via_premium_);
    }
    // As many graph-sized cost arrays as searches run side by side: a
    // batch goes in chunks of that many (the same searches, so the same paths).
    const auto chunk = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
    while (cost_arrays_.size() < std::min(nets.size(), chunk)) {
      cost_arrays_.emplace_back(static_cast<std::size_t>(lattice_.node_count), kBlocked);
      own_copper_.push_back({std::vector<unsigned char>(static_cast<std::size_t>(lattice_.node_count), kNotOwn),
                             std::vector<int>(static_cast<std::size_t>(lattice_.pad_base), 0)});
    }
    std::vector<graph::SsspPath> found;
    found.reserve(nets.size());
    for (std::size_t first = 0; first < nets.size(); first += chunk) {
      const std::size_t count = std::min(chunk, nets.size() - first);
      // The windows priced side by side, as their searches run.
      const int threads = static_cast<int>(count);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t q = first + i;
        fill_costs(cost_arrays_[i], nets[q], routes_[static_cast<std::size_t>(nets[q])], windows[q], present,
                   own_copper_[i]);
      }
      std::vector<graph::SsspQuery> queries(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t q = first + i;
        const NetRoute& route = routes_[static_cast<std::size_t>(nets[q])];
        queries[i].sources = route.tree;
        queries[i].target = targets[q];
        queries[i].node_cost = cost_arrays_[i];
        // Prices of non-negative counts and history, or kBlocked: finite and
        // non-negative by construction.
        queries[i].node_cost_vouched = true;
      }
      std::vector<graph::SsspPath> paths = search_->paths(queries);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
      for (std::size_t i = 0; i < count; ++i) clear_costs(cost_arrays_[i], nets[first + i], windows[first + i]);
      for (std::size_t i = 0; i < count; ++i) found.push_back(std::move(paths[i]));
    }
    return found;
  }

  // A path starts on the tree it was searched from and follows the
  // lattice's edges; anything else is a broken parent chain.
  bool sound(const NetRoute& route, const std::vector<graph::NodeId>& path) const {
    return !path.empty() && std::binary_search(route.tree.begin(), route.tree.end(), path.front()) && along_edges(path);
  }

  // Whether every step of a path is an edge of the lattice.
  bool along_edges(const std::vector<graph::NodeId>& path) const {
    const auto csr = lattice_.graph.csr.view();
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      const auto* first = csr.col_indices + csr.row_offsets[path[i]];
      const auto* last = csr.col_indices + csr.row_offsets[path[i] + 1];
      if (std::find(first, last, path[i + 1]) == last) return false;
    }
    return true;
  }

  // The copper of a net's path: the grid nodes, via sites and stubs it is
  // centred on and the midpoints of the edges some stub claims that it
  // runs along (uses), and the nodes that copper keeps other nets from
  // (claims), neither sorted.
  void path_copper(int net, const std::vector<graph::NodeId>& path, std::vector<int>& uses,
                   std::vector<int>& claims) const {
    const int group = lattice_.group_of_net[static_cast<std::size_t>(net)];
    // Claims the grid nodes of a slot (plane < layers) or the sites of via
    // kind plane - layers at the offsets.
    const auto claim_around = [&](int plane, int row, int column, const std::vector<router_detail::Offset>& offsets) {
      const bool via = plane >= lattice_.layers;
      for (const auto& o : offsets) {
        const int r = row + o.row;
        const int c = column + o.column;
        if (r < 0 || c < 0 || r >= lattice_.rows || c >= lattice_.columns) continue;
        claims.push_back(via ? lattice_.via_site(plane - lattice_.layers, r, c) : lattice_.grid_node(plane, r, c));
      }
    };
    for (const int node : path) {
      if (lattice_.is_grid(node)) {
        const int slot = lattice_.slot[static_cast<std::size_t>(node)];
        const int row = lattice_.row_of(node);
        const int column = lattice_.column_of(node);
        uses.push_back(node);
        claim_around(slot, row, column, lattice_.wire_grid_claims[static_cast<std::size_t>(group)]);
        for (const int kind : lattice_.via_kinds_at_slot[static_cast<std::size_t>(slot)]) {
          claim_around(lattice_.layers + kind, row, column, lattice_.wire_via_claims[static_cast<std::size_t>(group)]);
        }
      } else if (lattice_.is_via(node)) {
        const int row = lattice_.row_of(node);
        const int column = lattice_.column_of(node);
        const auto kind = static_cast<std::size_t>(lattice_.via_kind_of(node));
        uses.push_back(node);
        for (const int slot : lattice_.via_kinds[kind].slots) {
          claim_around(slot, row, column, lattice_.via_grid_claims[static_cast<std::size_t>(group)]);
        }
        for (const int other : lattice_.via_kinds_meeting[kind]) {
          claim_around(lattice_.layers + other, row, column, lattice_.via_via_claims[static_cast<std::size_t>(group)]);
        }
      }
      if (lattice_.is_stub(node)) {
        uses.push_back(node);
        const auto& stub_claims = lattice_.stub_of(node).claims;
        claims.insert(claims.end(), stub_claims.begin(), stub_claims.end());
      }
      // An edge some stub claims: its use meets that claim.
      if (lattice_.is_mid(node) && lattice_.stub_claimed_mid[static_cast<std::size_t>(node - lattice_.mid_base)] != 0)
        uses.push_back(node);
    }
  }

  void add_path(int net, const std::vector<graph::NodeId>& path) {
    NetRoute& route = routes_[static_cast<std::size_t>(net)];
    for (const int node : path) {
      if (lattice_.is_pin(node)) erase_pending(route, node);
    }
    note_tree_nodes(route, path);
    // The tree grows by the path's nodes, merged in (sorted, unique), as
    // the copper below: a large net's tree is not sorted again at every
    // connection.
    std::vector<int> added(path.begin(), path.end());
    sort_unique(added);
    std::vector<int> tree;
    tree.reserve(route.tree.size() + added.size());
    std::set_union(route.tree.begin(), route.tree.end(), added.begin(), added.end(), std::back_inserter(tree));
    route.tree = std::move(tree);
    std::vector<int> uses;
    std::vector<int> claims;
    path_copper(net, path, uses, claims);
    // The net's copper grows by the path's: merge the path's (sorted, few)
    // into the net's (sorted), and count only what changed, not the whole
    // net out and in again (a net of many connections would pay for all
    // of its copper at every one).
    sort_unique(uses);
    sort_unique(claims);
    std::vector<int> all_uses;
    std::set_union(route.uses.begin(), route.uses.end(), uses.begin(), uses.end(), std::back_inserter(all_uses));
    std::vector<int> all_claims;
    std::set_union(route.claims.begin(), route.claims.end(), claims.begin(), claims.end(),
                   std::back_inserter(all_claims));
    NetRoute change;  // what the counts gain
    std::set_difference(all_uses.begin(), all_uses.end(), route.uses.begin(), route.uses.end(),
                        std::back_inserter(change.uses));
    std::vector<int> new_claims;
    std::set_difference(all_claims.begin(), all_claims.end(), all_uses.begin(), all_uses.end(),
                        std::back_inserter(new_claims));
    NetRoute lost;  // what they lose: claims now among the uses
    std::set_difference(route.claims.begin(), route.claims.end(), new_claims.begin(), new_claims.end(),
                        std::back_inserter(lost.claims));
    std::set_difference(new_claims.begin(), new_claims.end(), route.claims.begin(), route.claims.end(),
                        std::back_inserter(change.claims));
    count(lost, -1);
    count(change, +1);
    route.uses = std::move(all_uses);
    route.claims = std::move(new_claims);
    route.paths.push_back(path);
  }

  static void sort_unique(std::vector<int>& list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }

  // Adds (+1) or removes (-1) a net's uses and claims from the counts.
  void count(const NetRoute& route, int sign) { ledger_.add(route.uses, route.claims, sign); }

  void raise_history() { ledger_.raise_history(options_.history_factor, stubs_in_use()); }

  // The stub nodes nets' trees pass through (a stub is its own net's only,
  // and a tree is sorted, so each tree's stubs are one run of it).
  std::vector<int> stubs_in_use() const {
    std::vector<int> stubs;
    for (const int net : nets_) {
      const auto& tree = routes_[static_cast<std::size_t>(net)].tree;
      const auto first = std::lower_bound(tree.begin(), tree.end(), lattice_.stub_base);
      const auto last = std::lower_bound(first, tree.end(), lattice_.mid_base);
      stubs.insert(stubs.end(), first, last);
    }
    return stubs;
  }

  bool touches_overuse(const NetRoute& route) const {
    const auto hot = [&](int node) { return ledger_.overused(node); };
    return std::any_of(route.uses.begin(), route.uses.end(), hot) ||
           std::any_of(route.claims.begin(), route.claims.end(), hot);
  }

  // A net that ends an iteration on overuse once a conflict costs more than
  // a detour around its search box (the present factor, in grid steps a
  // conflict, against its box margin in grid steps) looks further: its
  // margin doubles, up to the whole grid. A search widens its box only when
  // it finds no path at all, so without this a congested net fights for the
  // same nodes in the same box however high the present factor climbs.
  void widen_boxes(const std::vector<int>& congested, double present) {
    const int widest = std::max(lattice_.rows, lattice_.columns);
    for (const int net : congested) {
      int& margin = margins_[static_cast<std::size_t>(net)];
      if (present >= margin) margin = std::min(2 * margin, widest);
    }
  }

  std::vector<int> nets_on_overuse() const {
    std::vector<int> nets;
    for (const int net : nets_) {
      const NetRoute& route = routes_[static_cast<std::size_t>(net)];
      if (touches_overuse(route)) nets.push_back(net);
    }
    return nets;
  }

  // Once nothing is overused (after dropping nets in conflict): each dropped
  // net is tried once more alone, where no other net's copper conflicts
  // (conflicts forbidden, not priced). A net that completes without
  // touching overuse stays; any other is dropped again.
  void route_dropped_nets_around() {
    if (ledger_.count_overused() != 0) return;
    forbid_conflicts_ = true;
    for (const int net : nets_) {
      if (!dropped(net)) continue;
      rip_up(net);
      NetRoute& after = routes_[static_cast<std::size_t>(net)];
      if (!route_whole(net, 0.0f) || touches_overuse(after)) {
        count(after, -1);
        after = NetRoute{};
        after.failed = lattice_.net_pins[static_cast<std::size_t>(net)];
      }
    }
    forbid_conflicts_ = false;
  }

  // Whether a net was dropped whole (drop_conflicting_nets, or
  // route_dropped_nets_around after it).
  bool dropped(int net) const {
    const NetRoute& route = routes_[static_cast<std::size_t>(net)];
    return route.paths.empty() && route.failed.size() == lattice_.net_pins[static_cast<std::size_t>(net)].size();
  }

  // Routes every connection of a ripped-up net; false if one fails.
  bool route_whole(int net, float present) {
    for (std::vector<int> left{net}; !left.empty();) left = route_batch(left, present);
    const NetRoute& route = routes_[static_cast<std::size_t>(net)];
    return route.failed.empty() && route.pending.empty();
  }

  // Routes as they were before a repair changed them, to put back.
  struct Journal {
    std::vector<int> nets;
    std::vector<NetRoute> routes;
    void save(int net, const NetRoute& route) {
      if (std::find(nets.begin(), nets.end(), net) != nets.end()) return;
      nets.push_back(net);
      routes.push_back(route);
    }
  };

  // Routes `net` (ripped up) without conflict, making room where it has to:
  // through other nets' copper (conflicts priced at the present factor's
  // cap), then those nets, ripped up, the same way one level down. Nets in
  // `placed` (this repair's chain) are not moved. False if some net of the
  // chain does not complete; the journal then holds what to put back.
  bool route_making_room(int net, int depth, std::vector<int>& placed, Journal& journal) {
    constexpr std::size_t kMostMoved = 3;
    placed.push_back(net);
    forbid_conflicts_ = true;
    const bool around = route_whole(net, 0.0f);
    forbid_conflicts_ = false;
    if (around) return true;
    if (depth == 0) return false;
    rip_up(net);
    if (!route_whole(net, static_cast<float>(options_.present_factor_max))) return false;
    std::vector<int> moved;
    for (const int other : nets_) {
      if (other != net && touches_overuse(routes_[static_cast<std::size_t>(other)])) moved.push_back(other);
    }
    if (moved.size() > kMostMoved) return false;
    for (const int other : moved) {
      if (std::find(placed.begin(), placed.end(), other) != placed.end()) return false;
    }
    for (const int other : moved) {
      journal.save(other, routes_[static_cast<std::size_t>(other)]);
      rip_up(other);
    }
    for (const int other : moved) {
      if (!route_making_room(other, depth - 1, placed, journal)) return false;
    }
    return ledger_.count_overused() == 0;
  }

  // A dropped net that cannot go round the others may still fit if a few
  // of them move (route_making_room, two levels deep). PathFinder can
  // settle where two nets hold one node at the present factor's cap, each
  // with no way round the other's present route, though one of them has a
  // way round the other's next. The change stays only if every net it
  // moved completes without conflict; otherwise all is put back.
  void repair_dropped_nets() {
    if (ledger_.count_overused() != 0) return;
    for (const int net : nets_) {
      if (!dropped(net)) continue;
      Journal journal;
      journal.save(net, routes_[static_cast<std::size_t>(net)]);
      rip_up(net);
      std::vector<int> placed;
      if (route_making_room(net, 2, placed, journal)) continue;
      put_back(journal);
    }
  }

  // Restores the routes a journal saved, whatever their nets hold now.
  void put_back(const Journal& journal) {
    for (const int changed : journal.nets) count(routes_[static_cast<std::size_t>(changed)], -1);
    for (std::size_t i = 0; i < journal.nets.size(); ++i) {
      NetRoute& route = routes_[static_cast<std::size_t>(journal.nets[i])];
      route = journal.routes[i];
      count(route, +1);
    }
  }

  // The sum of the lattice's edge weights along a net's paths and the pour
  // costs of its nodes: what its searches minimise where no conflict and
  // no history is priced.
  double route_cost(int net, const NetRoute& route) const {
    const auto csr = lattice_.graph.csr.view();
    double cost = 0;
    for (const std::vector<int>& path : route.paths) {
      for (std::size_t i = 1; i < path.size(); ++i) {  // the first node is on the tree already
        if (lattice_.on_other_pour(net, path[i])) cost += options_.pour_cost;
        if (lattice_.is_via(path[i])) cost += via_premium_;
      }
      for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const auto* first = csr.col_indices + csr.row_offsets[path[i]];
        const auto* last = csr.col_indices + csr.row_offsets[path[i] + 1];
        const auto* at = std::find(first, last, path[i + 1]);
        cost += static_cast<double>(csr.values[at - csr.col_indices]);
      }
    }
    return cost;
  }

  // The first part of a clean-up pass after the negotiation, with nothing overused
  // (RouterOptions::cleanup_passes): each complete net, in routing order,
  // is ripped up and routed again alone round the others' copper as it is
  // now (conflicts forbidden, history cleared, its searches starting from
  // the first box margin), and keeps the new routing only where it costs
  // less. Its old routing is conflict-free, so it is always there to fall
  // back on; what changes is the detours and layer changes the
  // negotiation's prices led to. True if some net's routing changed.
  bool clean_up() {
    if (ledger_.count_overused() != 0) return false;
    ledger_.clear_history();
    clean_up_prices(true);
    bool changed = false;
    for (const int net : nets_) {
      NetRoute& route = routes_[static_cast<std::size_t>(net)];
      if (route.paths.empty() || !route.failed.empty() || !route.pending.empty()) continue;
      NetRoute before = route;
      const double cost = route_cost(net, before);
      rip_up(net);
      route.margin = options_.box_margin;
      if (route_whole(net, 0.0f) && !touches_overuse(route) && route_cost(net, route) < cost) {
        changed = true;
        continue;
      }
      count(route, -1);
      route = std::move(before);
      count(route, +1);
    }
    clean_up_prices(false);
    return changed;
  }

  // The clean-up's second part: cross_instead_of_vias for each complete net
  // with vias, in routing order; true if some routing changed.
  bool untangle_vias() {
    if (ledger_.count_overused() != 0) return false;
    clean_up_prices(true);
    bool changed = false;
    for (const int net : nets_) {
      const NetRoute& route = routes_[static_cast<std::size_t>(net)];
      if (route.failed.empty() && route.pending.empty() && has_vias(route) && cross_instead_of_vias(net)) {
        changed = true;
      }
    }
    clean_up_prices(false);
    return changed;
  }

  // The clean-up's prices (other nets' copper forbidden, a via at
  // cleanup_via_cost), or back to the negotiation's.
  void clean_up_prices(bool on) {
    forbid_conflicts_ = on;
    via_premium_ = on ? static_cast<float>(std::max(0.0, options_.cleanup_via_cost - options_.via_cost)) : 0.0f;
  }

  bool has_vias(const NetRoute& route) const {
    return std::any_of(route.uses.begin(), route.uses.end(), [&](int node) { return lattice_.is_via(node); });
  }

  // A net often changes layers twice to pass another net's wire that could
  // as well run on the other layer (between two through-hole pins, say),
  // which rerouting either net alone never finds. So the clean-up routes
  // the net again through the others' copper, a conflict priced at a
  // quarter of a via, and then the few nets it crossed again round it,
  // conflicts forbidden. The change stays only where every net involved
  // completes, nothing is overused, and their routes cost less in all
  // (vias at the clean-up's price); otherwise all is put back.
  bool cross_instead_of_vias(int net) {
    constexpr std::size_t kMostCrossed = 3;
    const auto crossing_price = static_cast<float>(std::max(options_.cleanup_via_cost, options_.via_cost) / 4);
    Journal journal;
    NetRoute& route = routes_[static_cast<std::size_t>(net)];
    journal.save(net, route);
    double before = route_cost(net, route);
    rip_up(net);
    route.margin = options_.box_margin;
    forbid_conflicts_ = false;
    const bool routed = route_whole(net, crossing_price);
    forbid_conflicts_ = true;
    bool better = false;
    if (routed) {
      double after = route_cost(net, route);
      std::vector<int> crossed;
      for (const int other : nets_) {
        if (other != net && touches_overuse(routes_[static_cast<std::size_t>(other)])) crossed.push_back(other);
      }
      if (crossed.size() <= kMostCrossed) {
        for (const int other : crossed) {
          NetRoute& moved = routes_[static_cast<std::size_t>(other)];
          before += route_cost(other, moved);
          journal.save(other, moved);
          rip_up(other);
          moved.margin = options_.box_margin;
        }
        better = true;
        for (const int other : crossed) {
          if (!route_whole(other, 0.0f)) {
            better = false;
            break;
          }
          after += route_cost(other, routes_[static_cast<std::size_t>(other)]);
        }
        better = better && ledger_.count_overused() == 0 && after < before;
      }
    }
    if (!better) put_back(journal);
    return better;
  }

  // Whatever overuse is left when the iterations run out: remove the net
  // with the most overused claims (ties: the later net) until none is left,
  // so that the copper handed back is free of conflicts.
  void drop_conflicting_nets() {
    for (;;) {
      int worst = -1;
      std::size_t worst_count = 0;
      for (const int net : nets_) {
        const NetRoute& route = routes_[static_cast<std::size_t>(net)];
        const auto hot = [&](int node) { return ledger_.overused(node); };
        const auto conflicts = static_cast<std::size_t>(std::count_if(route.uses.begin(), route.uses.end(), hot) +
                                                        std::count_if(route.claims.begin(), route.claims.end(), hot));
        if (conflicts > 0 && conflicts >= worst_count) {
          worst = net;
          worst_count = conflicts;
        }
      }
      if (worst < 0) return;
      NetRoute& route = routes_[static_cast<std::size_t>(worst)];
      count(route, -1);
      route = NetRoute{};
      route.failed = lattice_.net_pins[static_cast<std::size_t>(worst)];
    }
  }

  const Board& board_;
  const RouterOptions options_;  // a copy: a routing kept for its clean-up outlives the caller's options
  Lattice lattice_;
  RoutePhases& phases_;  // the router's, summed over its routings
  Backend backend_ = Backend::reference;
  router_detail::CongestionLedger ledger_;
  int claim_reach_ = 0;                           // grid steps a net's claims reach beyond its copper
  int concurrent_now_ = 0;                        // nets sharing a batch whatever their reaches (this iteration)
  std::unique_ptr<graph::ShortestPaths> search_;  // host backends, and cuda's rounds of few searches
  std::unique_ptr<router_detail::WindowSearch> device_search_;  // cuda
  int device_round_min_ = 1;       // on cuda: the fewest searches of a round sent to the device
  std::vector<NetRoute> routes_;   // per board net
  std::vector<int> margins_;       // per board net: the box margin its searches start from
  bool forbid_conflicts_ = false;  // route_dropped_nets_around: other nets' copper blocks, not prices
  float via_premium_ = 0;          // the clean-up: added to a via site's price (cleanup_via_cost)
  std::vector<int> nets_;          // the nets routed, in routing order
  RouteResult negotiated_;         // negotiate()'s iterations (the copper is made from routes_)
  std::size_t searches_ = 0;       // path searches so far
  std::size_t rounds_ = 0;         // launches of searches so far
  std::size_t stale_paths_ = 0;    // paths found but not placed: copper placed after the search priced them higher
  // Host backends: one per search of a launch, blocked outside its window,
  // and the marks of that search's net (cleared between fills).
  std::vector<std::vector<graph::Weight>> cost_arrays_;
  std::vector<OwnCopper> own_copper_;
};

}  // namespace

namespace {

// A routing negotiated on one lattice, its clean-up not yet run: of the
// routings route_once tries, only the one it keeps is cleaned up.
struct Routing {
  std::unique_ptr<Negotiation> negotiation;
  RouteResult result;             // as negotiated (no copper): iterations, unrouted nets, the lattice and warnings
  bool finer_could_help = false;  // an unrouted net has no pin that no lattice can reach
  // Unrouted nets the lattice does not join even with no other net routed,
  // with the rule and the pins it leaves apart ("" where a warning names a
  // pin no wire of the net leaves at any pitch).
  std::map<int, std::string> blocked;
};

// Nets a routing leaves unrouted or that its copper and the pours leave in
// pieces, then the connections missing (pieces less one, over the nets).
std::pair<std::size_t, std::size_t> left_apart(const Board& board, const RouteResult& result) {
  std::vector<int> nets = result.unrouted_nets;
  std::size_t missing = 0;
  for (const UnconnectedNet& net : check_design_rules(board, with_board_wiring(board, result.copper)).unconnected) {
    missing += net.groups.size() - 1;
    nets.push_back(net.net);
  }
  std::sort(nets.begin(), nets.end());
  nets.erase(std::unique(nets.begin(), nets.end()), nets.end());
  return {nets.size(), missing};
}

// Whether one of `nets` has no pin that no lattice reaches: a finer
// lattice could route it.
bool some_net_reachable(const Lattice& lattice, const std::vector<int>& nets) {
  return std::any_of(nets.begin(), nets.end(),
                     [&](int net) { return !lattice.pin_off_every_lattice[static_cast<std::size_t>(net)]; });
}

// The lattice the options describe, the pins in one of the `poured`
// groups taken as joined.
Lattice lattice_for(const Board& board, const RouterOptions& options, const router_detail::PinGroups& poured,
                    RoutePhases& phases,
                    router_detail::BentStubs bent = router_detail::BentStubs::shut_in_and_fine_pitch,
                    router_detail::StubClaims claims = router_detail::StubClaims::nodes_near) {
  const PhaseClock clock(phases.lattice);
  if (options.exact_stub_claims) claims = router_detail::StubClaims::nodes_and_edges;
  Lattice lattice = router_detail::build_lattice(board, options, bent, claims);
  router_detail::join_pins(lattice, poured);
  return lattice;
}

// One negotiation on a lattice made by lattice_for.
Routing route_on_lattice(const Board& board, const RouterOptions& options, const RouteProgress& progress,
                         Lattice lattice, RoutePhases& phases) {
  Routing routing;
  routing.negotiation = std::make_unique<Negotiation>(board, options, std::move(lattice), phases);
  routing.negotiation->negotiate(progress);
  RouteResult& result = routing.result;
  result = routing.negotiation->negotiated();
  const Lattice& built = routing.negotiation->lattice();
  result.lattice.pitch = built.pitch;
  result.lattice.columns = built.columns;
  result.lattice.rows = built.rows;
  result.lattice.layers = built.layers;
  result.lattice.nodes = static_cast<std::size_t>(built.node_count);
  result.lattice.edges = static_cast<std::size_t>(built.graph.edge_count());
  for (int node = 0; node < built.via_base; ++node) {
    if (std::any_of(built.owner.begin(), built.owner.end(), [&](const std::vector<int>& owner) {
          return owner[static_cast<std::size_t>(node)] != router_detail::kNoNet;
        })) {
      ++result.lattice.usable_grid_nodes;
    }
  }
  result.warnings = built.warnings;
  routing.finer_could_help = some_net_reachable(built, result.unrouted_nets);
  const auto name = [&](int pin) {
    return pin_name(board, built.pin_of[static_cast<std::size_t>(pin - built.pin_base)]);
  };
  for (const int net : result.unrouted_nets) {
    const std::vector<int> apart = router_detail::pins_apart(built, net);
    if (apart.empty()) continue;
    if (built.pin_off_every_lattice[static_cast<std::size_t>(net)]) {
      routing.blocked[net] = "";  // a warning names the pin already
      continue;
    }
    std::vector<std::string> names;
    for (const int pin : apart) names.push_back(name(pin));
    const router_detail::RuleGroup& group =
        built.groups[static_cast<std::size_t>(built.group_of_net[static_cast<std::size_t>(net)])];
    routing.blocked[net] = fmt::format(
        "{} mm wire with {} mm clearance from pin {} to {} {}", millimetres(static_cast<double>(group.width)),
        millimetres(static_cast<double>(group.clearance)), name(built.net_pins[static_cast<std::size_t>(net)].front()),
        names.size() == 1 ? "pin" : "pins", fmt::join(names, ", "));
  }
  return routing;
}

// The routing kept: its clean-up, pull-tight and mitred corners. The
// clean-up does not see pours: where the board has some, the routing
// before it is kept if its copper and the pours leave fewer nets, then
// fewer connections, apart.
RouteResult cleaned_up(const Board& board, const RouterOptions& options, Routing& routing, RoutePhases& phases) {
  const bool pours =
      std::any_of(board.planes.begin(), board.planes.end(), [](const Plane& p) { return p.pour.has_value(); });
  std::optional<RouteResult> uncleaned;
  RouteResult result = routing.negotiation->clean_up_and_finish(pours ? &uncleaned : nullptr);
  const auto miter = [&](RouteResult& r) {
    if (!options.miter_corners) return;
    const PhaseClock clock(phases.geometry);
    router_detail::pull_tight(board, r.copper);
    r.mitred_corners = router_detail::miter_corners(board, r.copper);
    r.wire_length = 0;
    for (const Wire& wire : r.copper.wires) r.wire_length += router_detail::length_of(wire.shape.points);
  };
  miter(result);
  if (uncleaned) {
    miter(*uncleaned);
    if (left_apart(board, *uncleaned) < left_apart(board, result)) result = std::move(*uncleaned);
  }
  result.lattice = routing.result.lattice;
  result.warnings = routing.result.warnings;
  return result;
}

// Names the unrouted nets that every lattice tried (finest `finest`,
// coarsest `coarsest`) left apart with no other net routed: their own
// width and clearance find no way past the board's fixed copper.
void report_blocked_nets(const Board& board, const std::map<int, std::string>& blocked, Coord coarsest, Coord finest,
                         RouteResult& result) {
  const auto mm = [](Coord pitch) { return millimetres(static_cast<double>(pitch)); };
  const std::string lattices = coarsest == finest
                                   ? fmt::format("the lattice of {} mm has no way", mm(finest))
                                   : fmt::format("no lattice tried ({} to {} mm) has a way", mm(coarsest), mm(finest));
  for (const int net : result.unrouted_nets) {
    const auto found = blocked.find(net);
    if (found == blocked.end()) continue;
    result.blocked_nets.push_back(net);
    if (found->second.empty()) continue;
    result.warnings.push_back(
        fmt::format("net '{}' is blocked by its own rules: even with no other net routed, {} for a {}",
                    board.nets[static_cast<std::size_t>(net)].name, lattices, found->second));
  }
}

// One routing, and routings on finer lattices where that could help, and
// with `other_stubs` with other stubs at fine-pitch pads; pins in one of
// the `poured` groups are taken as joined. Routings are compared after
// their clean-ups, as if each were cleaned up when made, but the routing
// kept is cleaned up only when a comparison needs it: a further routing
// complete as negotiated wins whatever that clean-up would leave (it
// could at best tie), so its time is saved. At most two routings are held.
RouteResult route_once(const Board& board, const RouterOptions& options, const RouteProgress& progress,
                       const router_detail::PinGroups& poured, bool other_stubs, RoutePhases& phases) {
  Routing kept = route_on_lattice(board, options, progress, lattice_for(board, options, poured, phases), phases);
  std::optional<RouteResult> kept_cleaned;
  const auto settle = [&] {
    if (!kept_cleaned) kept_cleaned = cleaned_up(board, options, kept, phases);
  };
  // The kept routing's unrouted nets: after its clean-up where that ran,
  // else as negotiated (a superset: the clean-up only adds nets).
  const auto unrouted = [&]() -> const std::vector<int>& {
    return kept_cleaned ? kept_cleaned->unrouted_nets : kept.result.unrouted_nets;
  };
  // Nets every lattice tried so far leaves apart with no other net routed.
  std::map<int, std::string> blocked = kept.blocked;
  const Coord coarsest = kept.result.lattice.pitch;
  Coord finest = coarsest;  // of the lattices routed
  const auto finish = [&] {
    settle();
    RouteResult result = std::move(*kept_cleaned);
    report_blocked_nets(board, blocked, coarsest, finest, result);
    return result;
  };
  if (options.pitch || !options.refine_pitch) return finish();
  // What the latest routing tells of a finer lattice's chances (after its
  // clean-up where that ran).
  bool finer_could_help = kept.finer_could_help;
  // Weighs a further routing, made because the kept one, as negotiated,
  // left `wanted()` true: where the kept one was not cleaned up yet, the
  // further one counts only if `wanted()` still holds after that clean-up
  // (else false: it is dropped, as if never made); it is kept where it
  // leaves fewer nets unrouted after both clean-ups. A routing complete
  // as negotiated wins without the kept one's clean-up.
  const auto weigh = [&](Routing routing, const auto& wanted) {
    if (!kept_cleaned && routing.result.unrouted_nets.empty()) {
      blocked.clear();
      finer_could_help = false;
      kept = std::move(routing);
      return true;
    }
    const bool settled_before = kept_cleaned.has_value();
    settle();
    if (!settled_before && !wanted()) return false;
    std::erase_if(blocked, [&](const auto& entry) { return !routing.blocked.contains(entry.first); });
    RouteResult cleaned = cleaned_up(board, options, routing, phases);
    finer_could_help = some_net_reachable(routing.negotiation->lattice(), cleaned.unrouted_nets);
    if (cleaned.unrouted_nets.size() < kept_cleaned->unrouted_nets.size()) {
      kept = std::move(routing);
      kept_cleaned = std::move(cleaned);
    }
    return true;
  };
  const auto refinement_wanted = [&] {
    return !unrouted().empty() && some_net_reachable(kept.negotiation->lattice(), unrouted());
  };
  bool unreachable = !kept.result.iterations.empty() && kept.result.iterations.back().failed_connections > 0;
  Coord pitch = coarsest;
  for (int refinement = 1; refinement <= kMostRefinements && !unrouted().empty(); ++refinement) {
    // Wires on a grid of one wire and clearance a step leave no room
    // between two neighbours' paths; a finer grid lets a net pass where
    // the coarse one had a single node for two nets. (Not where every
    // unrouted net has a pin no wire of it can leave at any pitch.) After
    // the first, a finer lattice again only while searches still found no
    // way at all: congestion alone it does not relieve.
    if (!finer_could_help || (refinement > 1 && !unreachable)) break;
    RouterOptions finer = options;
    const Coord finer_pitch = pitch * 3 / 4;
    finer.pitch = finer_pitch;
    Routing latest;
    try {
      Lattice lattice = lattice_for(board, finer, poured, phases);
      // Where the finer lattice leaves each unrouted net's pins apart even
      // with no other net routed, its routing could route none of them and
      // so could not be kept: it is not negotiated, and the refinement
      // goes on as after a routing whose searches found no way.
      if (std::all_of(unrouted().begin(), unrouted().end(),
                      [&](int net) { return !router_detail::pins_apart(lattice, net).empty(); })) {
        pitch = finest = finer_pitch;
        unreachable = true;
        continue;
      }
      latest = route_on_lattice(board, finer, progress, std::move(lattice), phases);
    } catch (const UsageError&) {  // the finer lattice would be too large: keep what there is
      const bool settled_before = kept_cleaned.has_value();
      settle();
      if (settled_before || refinement_wanted()) {
        kept_cleaned->warnings.push_back(
            fmt::format("a lattice of {} nm, tried after {} nets stayed unrouted, would be too large", finer_pitch,
                        unrouted().size()));
      }
      break;
    }
    const bool latest_unreachable =
        !latest.result.iterations.empty() && latest.result.iterations.back().failed_connections > 0;
    if (!weigh(std::move(latest), refinement_wanted)) break;
    pitch = finest = finer_pitch;
    unreachable = latest_unreachable;
  }

  // Where nets other than those blocked by their own rules stay unrouted,
  // other stubs at fine-pitch pads: straight ones only, on the finest
  // lattice (bent stubs fan wires out at 45 degrees, but their claims reach
  // further round the pads and can shut a net out: DAC2020_bm01's GND);
  // then bent ones reaching further, on the first lattice (past the rows
  // in front of a part, where neighbouring pins' wires need 45-degree jogs
  // that square steps do not fit: thegrid's +3V3 beside its QFN's reset
  // pin).
  const std::pair<router_detail::BentStubs, Coord> variants[] = {
      {router_detail::BentStubs::shut_in, finest}, {router_detail::BentStubs::fine_pitch_reaching_further, coarsest}};
  const auto congested = [&] {
    return std::any_of(unrouted().begin(), unrouted().end(), [&](int net) { return !blocked.contains(net); });
  };
  for (const auto& [bent, variant_pitch] : variants) {
    if (!other_stubs || !congested()) break;
    RouterOptions variant = options;
    variant.pitch = variant_pitch;
    if (!weigh(route_on_lattice(board, variant, progress, lattice_for(board, variant, poured, phases, bent), phases),
               congested))
      break;
  }
  // Then the first lattice once more under a steeper negotiation: the
  // present factor growing faster settles conflicts the default's 50
  // iterations leave circling.
  if (other_stubs && congested() && options.present_factor_growth < kSteepPresentFactorGrowth) {
    RouterOptions steeper = options;
    steeper.pitch = coarsest;
    steeper.present_factor_growth = kSteepPresentFactorGrowth;
    weigh(route_on_lattice(board, steeper, progress, lattice_for(board, steeper, poured, phases), phases), congested);
  }
  // Last, the first lattice with stubs claiming only the room the
  // clearance asks (StubClaims::nodes_and_edges): round a fine-pitch part
  // the cautious claims can take the grid node beside a neighbouring pin's
  // stub, leaving its escape no way out (RainbowFox's LED drivers, 0.4 mm
  // pitch).
  if (other_stubs && congested() && !options.exact_stub_claims) {
    RouterOptions exact = options;
    exact.pitch = coarsest;
    weigh(route_on_lattice(board, exact, progress,
                           lattice_for(board, exact, poured, phases, router_detail::BentStubs::shut_in_and_fine_pitch,
                                       router_detail::StubClaims::nodes_and_edges),
                           phases),
          congested);
  }
  return finish();
}

}  // namespace

RouteResult route_board(const Board& board, const RouterOptions& options, const RouteProgress& progress) {
  check_options(options);
  const auto start = std::chrono::steady_clock::now();
  RoutePhases phases;
  RouteResult result =
      router_detail::route_with_pours(board, nets_in_scope(board, options),
                                      // The other stubs are tried in the first routing only, not again in
                                      // each routing the pours ask for: they change how pins reach the
                                      // lattice, not which pads the pours join.
                                      [&, first = true](const router_detail::PinGroups& poured) mutable {
                                        const bool other_stubs = first;
                                        first = false;
                                        return route_once(board, options, progress, poured, other_stubs, phases);
                                      });
  result.seconds = seconds_since(start);
  result.phases = phases;
  return result;
}

}  // namespace trellis::route
