// The autorouter: PathFinder negotiated congestion (McMurchie & Ebeling) on
// a 3-D routing lattice built from the board's rules.
//
// Lattice. A square grid of pitch p (default: the smallest wire width plus
// clearance of any net's rules, so such wires on neighbouring grid lines
// keep the clearance) on every signal layer, edges between grid neighbours,
// via sites, and for every pad one node at its centre per layer it covers,
// joined to the lattice nodes a straight stub can reach without coming near
// another net's copper (where no straight stub can, a stub that leaves along
// one axis and turns once: fine-pitch pads between grid lines; where no
// stub of the net's width can, stubs of the neck-down width). A stub claims
// the nodes another net's copper could not use beside it, at the larger of
// the two nets' clearances (a class's wider clearance only where a net of
// that class may be). A node is
// usable by a net when the net's wire centred on it keeps the clearance
// from other nets' copper, keepouts and the outline (it is at least w/2 + c
// from them), and an edge when its whole segment does; an edge that fewer
// nets may use than may use both its ends runs through a midpoint node
// that carries the edge's restriction, since the searches price nodes.
// Vias: a net may use the via padstacks its class lists (the board's where
// its class lists none), the first of each set of layers they join: a
// through via, blind and buried ones. Each such set of layers is a via kind
// with a site at every grid point, usable where the via keeps its clearance
// on its layers; a via takes room on its own layers only, and a longer
// layer change can stack vias of several kinds.
// A layer may have a preferred direction (horizontal or vertical): a grid
// step across it costs more than a step along it (against_direction_cost),
// so wires run one way on a layer and change layers to turn, and nets
// crossing each other do so on different layers.
//
// Pours. Pins that a copper zone of their net surely connects once KiCad
// refills it (pour_islands in drc.hpp, with the board's own wiring) are
// taken as joined: the router connects each such group from one of its
// pins. Other nets' wires then cut the pours, so the islands are worked
// out again with the routed copper; where a join taken did not hold, the
// board is routed again taking only the joins that held (three routings
// at most), and where nets stay unrouted once more taking no join; the
// routing with the fewest unrouted nets is kept, a net whose pins its
// copper and the pours leave apart counting as unrouted.
//
// A grid node inside the outline of a pour on its layer costs pour_cost
// grid steps more to every net but the pour's, so signal wires keep off a
// pour's layer where another layer is cheap and pours stay whole.
//
// Negotiation. Every node has capacity one. A net's wire claims the nodes
// and via sites another net could not use at the same time (its own nodes,
// via sites too close to them, and for vias and wide wires the grid nodes
// around them). The cost of entering node n is (b_n + h_n) * p_n with
// b_n = 1 per grid step, p_n = 1 + pres_fac * (claims of other nets) and
// h_n the history, raised by acc_fac * overuse after each iteration (plus
// pour_cost on another net's pour, see Pours). The
// first iteration uses first_present_factor (0 by default: nets route as if
// alone), the second present_factor, growing by present_factor_growth up to
// present_factor_max. Multi-pin nets grow as trees: repeated searches from
// the partial tree to the nearest unconnected pin. After the first iteration
// only nets on overused nodes are rerouted, and of those only the
// connections on overuse and the ones that hang from them
// (reroute_whole_nets rips up the whole net instead). Routing stops at
// zero overuse or after max_iterations. Nets still in conflict then are
// dropped (the most conflicted first, until none is left), and each dropped
// net is tried once more alone with the other nets' copper forbidden rather
// than priced: it stays if it completes. A net still dropped then tries to
// make room: routed through the other nets' copper (conflicts priced at
// present_factor_max), the few nets it then conflicts with (three at most)
// are ripped up and routed again round it the same way, one level deeper at
// most; all of it stays only if every net involved completes without
// conflict. Then the clean-up (cleanup_passes): each complete net routed
// once more alone, round the others' final copper with no congestion or
// history priced and a via at cleanup_via_cost, where that is cheaper; it
// drops the detours and layer changes the negotiation left. Then each
// complete net with vias is routed through the others' copper (a conflict
// priced at a quarter of a via) and the nets it crosses (three at most)
// again round it: that stays where all of them complete and cost less in
// all, so a net passes a wire that could as well take the other layer
// without the two vias it took. After each part the nets still unrouted
// get another chance (round the others, then making room).
// The clean-up does not see pours: on a board with some, the routing before
// it is kept where its copper and the pours leave fewer nets, then fewer
// connections, apart.
//
// Backends. Backend::automatic routes on cpu: a search on one multiprocessor
// takes longer than a Dijkstra on a host core (bench/results/NOTES.md);
// cuda is there when asked for, and runs rounds of few searches on the
// host's cores (device_round_min).
// Contract: for the same board and options every backend gives the same
// routes, byte for byte. The searches of the host backends run on cost
// arrays Negotiation fills; the cuda searches price their windows on the
// device from a copy of the congestion counts, with the same float
// operations, and every search returns the graph module's parity-rule path.
//
// Parallelism. The nets of an iteration are routed in batches of
// batch_size in routing order; a batch goes in rounds, and the searches of
// a round (the next connection of each net of the batch) run in one launch
// (ShortestPaths::paths on the host backends, WindowSearch on cuda), each
// confined to its connection's bounding box with a margin that widens when
// the search fails. All search against the same copper; the paths found are
// then placed in routing order, each only where the paths placed before it
// in the round left the prices of its nodes as the search read them
// (checked_batches). Placing copper only raises prices, so such a path is
// still a shortest path: every path placed is a shortest path against the
// copper at the moment it is placed, as when nets are routed one after
// another, and PathFinder converges as it does then. A path whose price
// rose is not placed, and its net searches again in the next round. While
// pres_fac is 0 (the first iteration by default) no net's costs depend on
// another's, and every path is placed. Results depend only on the input
// and the options, not on the backend or the number of threads: the
// searches are bitwise identical across backends, and every path is checked
// (it starts on the net's tree and follows lattice edges; anything else is
// an internal error).
//
// Geometry. Paths become wires of the net's width (collinear steps merged
// into one segment) and vias of the padstack of their kind; a via whose
// layers the path does not change is never emitted. With miter_corners,
// each wire is then pulled tight: between its net's junctions, runs of
// points become one or two segments at multiples of 45 degrees where they
// keep clear of other nets' copper; the right-angle corners left are cut
// at 45 degrees from the middle of one leg to the middle of the other,
// except where a junction of the net lies on the part cut away. The
// design-rule check runs after each step, and a change it finds too close
// to other copper (or that leaves its net unconnected) is taken back.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::route {

// Where a layer's preferred direction comes from: the board, alternating from the front layer, or nowhere.
enum class LayerDirections {
  from_board,  // the board's (direction ...) per layer
  alternate,   // horizontal and vertical alternating from the front layer
  none         // no preferred directions
};

// What route_board() does and on which backend (see above for the terms).
struct RouterOptions {
  Backend backend = Backend::automatic;  // automatic routes on cpu (see Backends)
  std::optional<Coord> pitch;            // lattice pitch; empty: the smallest wire width + clearance
  int max_iterations = 50;               // most negotiation iterations
  double first_present_factor = 0;       // pres_fac of the first iteration
  double present_factor = 0.5;           // pres_fac of the second iteration
  double present_factor_growth = 1.3;    // pres_fac's factor per later iteration
  double present_factor_max = 1000;      // largest pres_fac
  double history_factor = 1;             // acc_fac: history added per unit of overuse
  double via_cost = 10;                  // a via costs as much as this many grid steps
  int box_margin = 10;                   // grid steps around a connection's pins
  int batch_size = 64;                   // nets searched together (at most)
  // After the first iteration a batch holds the next batch_size nets
  // whatever their reaches, searched against the same copper; of the paths
  // found, in routing order, each is placed only if no path placed before
  // it since the search changed the prices of its nodes (else its net
  // searches again), so every path placed is a shortest path at the moment
  // it is placed, as one net after another would have it (true). Otherwise
  // a batch holds only nets whose reaches do not overlap (false).
  bool checked_batches = true;
  // On cuda: a round of fewer searches than this runs on the host's cores
  // instead (the same searches, so the same paths): a search on one
  // multiprocessor takes longer than on a host core, so only a round of
  // more searches than the host has threads may gain from the device.
  // 0: that many (the OpenMP threads plus one); 1: every round on the device.
  int device_round_min = 0;
  // After the first iteration a batch holds only nets whose reaches do not
  // overlap, so routing them at once gives what routing them one by one
  // would (0). Otherwise the next concurrent_nets nets in routing order
  // whatever their reaches: searched against the same copper, they may
  // take the same room, which the next iteration negotiates. More
  // searches run at once, and more iterations are needed; the routes
  // differ from the default's but are the same on every backend.
  int concurrent_nets = 0;
  // With concurrent_nets: each iteration shares batches among one net for
  // every overuse_per_concurrent_net nodes overused after the one before,
  // at most concurrent_nets (fewer than two: reaches apart, as by default).
  bool concurrency_follows_overuse = false;
  int overuse_per_concurrent_net = 8;  // nodes overused per net sharing a batch
  bool miter_corners = true;           // pull wires tight and cut corners at 45 degrees where the clearance allows
  // Preferred directions: the board's (Specctra's (direction ...) per layer),
  // horizontal and vertical alternating from the front layer whatever the
  // board says, or none. A grid step against its layer's direction costs
  // against_direction_cost grid steps instead of one.
  LayerDirections layer_directions = LayerDirections::from_board;
  double against_direction_cost = 2;  // grid steps a step against the layer's direction costs
  // A grid node on a layer inside the outline of another net's copper pour
  // (a zone with fill rules) costs this many grid steps more: wires cut
  // pours into islands, so other nets go round them or take another layer
  // where that costs less (a via costs via_cost). 0: pours cost nothing.
  double pour_cost = 1;
  // After the first iteration a net on overuse is routed again whole (true)
  // or only its connections on overuse and those that hang from them (false).
  bool reroute_whole_nets = false;
  // Without a pitch: a routing that leaves nets unrouted is tried again on
  // a lattice of 3/4 the pitch, and again (9/16, 27/64) while the latest
  // routing's searches still found no way at all for some connection;
  // the one with the fewest unrouted nets is kept (the coarsest of equals).
  // Not where each unrouted net has a pin that no wire of the net can
  // leave at any pitch (too close to other copper even at the pad's centre).
  // Where nets not blocked by their own rules are still unrouted after
  // that, the finest lattice is routed once more with straight stubs only
  // on fine-pitch pads (their bent stubs' claims can shut a net out), then
  // the first with bent stubs there reaching further (past the rows in
  // front of the part), and last the first lattice under a steeper
  // negotiation (present_factor_growth 1.6, where it is less), and the
  // first with stubs claiming only the room their clearance asks (see
  // exact_stub_claims, where that is off); each is kept if it leaves fewer
  // nets unrouted. These four run in the first routing only, not in those
  // the pours ask for. Routings are compared
  // after their clean-ups, but a routing is cleaned up only when needed:
  // one complete as negotiated replaces the one kept without that one's
  // clean-up (which could at best tie it); a finer lattice that leaves
  // every unrouted net's pins apart with no other net routed is not
  // negotiated (no routing on it could be kept).
  bool refine_pitch = true;
  // After the negotiation, with nothing overused: passes over the nets in
  // routing order, each complete net routed again alone round the others'
  // copper as it is then (conflicts forbidden, the history of overuse
  // forgotten), its new routing kept where the lattice's edge weights
  // (grid steps, vias, steps against a layer's direction) sum to less;
  // then each net with vias routed across the wires in its way, which move
  // round it, kept where that costs less in all (see above); after each
  // part the nets still unrouted are tried again in the room it freed.
  // Passes stop early when one changes nothing; 0: none.
  int cleanup_passes = 2;
  // What a stub (a pad's wire to its grid node) claims, keeping other nets'
  // grid wires from it. Off: the grid nodes within the clearance's reach
  // widened by half a pitch, which keeps every grid edge that comes too
  // close from an end; at a fine-pitch part that can claim the grid node
  // beside a neighbouring pin's stub, where the clearance would let that
  // pin's wire run. Those claims on every lattice but the last tried where
  // nets stay unrouted (refine_pitch). On: on every lattice, the grid nodes
  // within the reach and the edges coming within it, each edge through a
  // midpoint node the searches price.
  bool exact_stub_claims = false;
  // In the clean-up a via costs this many grid steps (via_cost where that
  // is more): with nothing left to negotiate, a layer change is worth a
  // longer way round, as human routings have it.
  double cleanup_via_cost = 25;
  // A pin that no wire of its net's width can leave (its pads too close to
  // others, as on fine-pitch parts) gets wires narrowed to this width
  // between its pads and the lattice, as human routings neck down. Empty:
  // the net's rules (its class's or the board's neck-down width: Specctra's
  // neck_down_width, KiCad's minimum track width), else
  // kDefaultNeckDownWidth; 0: no wire narrower than its net's width.
  std::optional<Coord> neck_down_width;
  // The names of the nets to route (a usage error names one the board
  // lacks); empty: every net. The others are not routed, nor reported
  // unrouted; their pads and the board's wiring stay in the way.
  std::vector<std::string> nets;
};

// The neck-down width where neither the options nor the board name one: a
// common fabrication minimum (6 mil).
inline constexpr Coord kDefaultNeckDownWidth = 150'000;

// One PathFinder iteration.
struct RouteIteration {
  int iteration = 0;                     // 1-based, on the lattice of this pitch
  Coord pitch = 0;                       // grid pitch of the lattice routed on
  std::size_t nets_routed = 0;           // nets (re)routed in this iteration
  std::size_t connections_searched = 0;  // path searches run, one connection of a net each
  std::size_t search_rounds = 0;         // launches those searches ran in (searches run side by side in each)
  std::size_t paths_searched_again = 0;  // paths not placed: copper placed after their search priced them higher
  std::size_t overused_nodes = 0;        // after it
  std::size_t failed_connections = 0;    // searches that found no path even with the widest box
  double present_factor = 0;             // pres_fac of this iteration
  double seconds = 0;                    // wall time of the iteration
};

// Size of the routing lattice routed on.
struct LatticeSummary {
  Coord pitch = 0;                    // grid pitch
  int columns = 0;                    // grid points along x
  int rows = 0;                       // grid points along y
  int layers = 0;                     // signal layers routed on
  std::size_t nodes = 0;              // graph nodes (grid nodes, via sites, pad nodes)
  std::size_t edges = 0;              // directed graph edges
  std::size_t usable_grid_nodes = 0;  // grid nodes some net may use
};

// Wall time of the router's parts, summed over every routing tried (finer
// lattices, other stubs, again round pours), in seconds.
struct RoutePhases {
  double lattice = 0;      // building the lattices
  double negotiation = 0;  // PathFinder's iterations
  double repair = 0;       // after the iterations: conflicting nets dropped, routed round the others, room made
  double cleanup = 0;      // the clean-up passes, with the repairs each part gives the dropped nets
  double geometry = 0;     // the routes as copper: wires and vias, pull-tight, mitred corners
  // The rest of RouteResult::seconds: the design-rule checks that weigh
  // routings against each other and against the pours, and setting up the
  // searches (on cuda, the lattice's copy on the device).
};

// What route_board() returns: the new copper, the iterations, and what is left unrouted.
struct RouteResult {
  RoutedCopper copper;                     // the router's wires and vias (the board's own wiring not repeated)
  std::vector<RouteIteration> iterations;  // one entry per negotiation iteration
  LatticeSummary lattice;                  // the lattice of the routing kept
  std::size_t nets_to_route = 0;           // nets with two or more pins
  std::vector<int> unrouted_nets;          // nets (Board::nets indices) left without a complete tree
  // Of the unrouted nets, those that every lattice tried leaves apart even
  // with no other net routed: their own wire width and clearance find no
  // way past the board's fixed copper (a warning names the pins).
  std::vector<int> blocked_nets;
  std::size_t overused_nodes = 0;  // at the end; 0 when the routing converged
  bool converged = false;          // zero overuse and every net complete
  Coord wire_length = 0;           // total centre-line length of the new wires (nm)
  std::size_t via_count = 0;       // number of new vias
  std::size_t mitred_corners = 0;  // right-angle corners cut at 45 degrees
  // Pads joined by their net's copper pour once KiCad refills it, with
  // this copper in place (pour_islands; islands reaching two pads or
  // more): connections the router left to the pours.
  std::vector<PourIsland> pour_joins;
  std::vector<std::string> warnings;  // pins no wire of their net can reach, and the like
  // Wall time of the lattice, negotiation and geometry together (of every
  // routing tried: finer lattices, other stubs, again round pours).
  double seconds = 0;
  RoutePhases phases;                    // where `seconds` went
  Backend backend = Backend::reference;  // the backend that ran the searches
};

// Called after every iteration (for a progress line).
using RouteProgress = std::function<void(const RouteIteration&)>;

// Routes every net with two or more pins. Throws UsageError for options out
// of range (pitch <= 0, max_iterations < 1, negative factors or costs) and
// for a board without signal layers or without a wire width and clearance
// when no pitch is given; BackendUnavailable as the graph module does.
RouteResult route_board(const Board& board, const RouterOptions& options = {}, const RouteProgress& progress = {});

}  // namespace trellis::route
