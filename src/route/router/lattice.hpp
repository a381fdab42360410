// The routing lattice: grid nodes on every signal layer, via sites, pad
// nodes and pin nodes as one graph, with who may use each node and what a
// net's use of a node takes from other nets. Internal to the router; see
// include/trellis/route/router.hpp for the model.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "trellis/graph/graph.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/router.hpp"

namespace trellis::route::router_detail {

// Owner values besides a net index.
inline constexpr int kAnyNet = -1;  // every net may use the node
inline constexpr int kNoNet = -2;   // no net may use it

// Lattice::pour_net values besides a net index.
inline constexpr int kNoPour = -1;              // outside every pour on the node's layer
inline constexpr int kPoursOfSeveralNets = -2;  // inside pours of two nets or more: another net's for every net

// Nets that share a wire width, a clearance and their vias.
struct RuleGroup {
  Coord width = 0;
  Coord neck_width = 0;            // the narrowest its wires may be leaving a pad (width: no neck-down)
  Coord clearance = 0;             // what its copper keeps from other nets' copper
  std::vector<int> via_padstacks;  // per via kind: the padstack of the group's vias of that kind, -1: none
  Coord via_radius = 0;            // the largest of its vias
  std::vector<int> nets;
};

// Vias that join the same signal layers: a through via, or a blind or buried
// one that takes room only on the layers it joins. Each kind has a via site
// of its own at every grid point.
struct ViaKind {
  std::vector<int> slots;  // the slots its padstacks cover (ascending, two or more)
};

// A grid offset (columns, rows) within a claim stencil.
struct Offset {
  int column = 0;
  int row = 0;
};

// A wire from a pad's centre to a grid node on the pad's layer: straight,
// or (from fine-pitch pads, and where no straight wire keeps its clearance)
// out of the pad along one axis and on to the grid node square, at 45
// degrees, or at 45 degrees and then square. It is a node of its own between the two (at the grid node's
// position), so that its cost can count the copper of other nets near the
// whole wire. Its width is its net's, or the group's neck width for a pin
// that no wire of the full width can leave.
struct Stub {
  int pad_node = 0;
  int grid_node = 0;
  std::vector<Point> bends;  // its corners from the pad's centre on (none: straight)
  Coord width = 0;
  std::vector<int> claims;  // grid nodes, via sites and edge midpoints another net could not use with it
};

struct Lattice {
  Coord pitch = 0;
  Point origin;  // the position of grid column 0, row 0
  int columns = 0;
  int rows = 0;
  int layers = 0;                // signal layers ("slots")
  std::vector<int> board_layer;  // slot -> Board::layers index

  // Node ids: grid nodes [0, via_base), via sites [via_base, pad_base),
  // pad nodes [pad_base, pin_base), pin nodes [pin_base, stub_base), stub
  // nodes [stub_base, mid_base), edge midpoints [mid_base, node_count).
  int via_base = 0;
  int pad_base = 0;
  int pin_base = 0;
  int stub_base = 0;
  int mid_base = 0;
  int node_count = 0;

  std::vector<Point> position;  // per node
  std::vector<int> slot;        // per node: the layer slot of grid and pad nodes, -1 otherwise
  graph::Graph graph;           // edge weights in grid steps

  std::vector<RuleGroup> groups;
  std::vector<int> group_of_net;        // -1: the net is not routed (fewer than two pins)
  std::vector<std::vector<int>> owner;  // [group][node]: kAnyNet, kNoNet or the only net allowed

  std::vector<std::vector<int>> net_pins;  // per net: its pin nodes
  std::vector<std::vector<int>> net_pads;  // per net: its pad and stub nodes
  std::vector<PinRef> pin_of;              // per pin node (index node - pin_base)
  std::vector<int> pin_of_pad;             // per pad node (index node - pad_base): its pin node
  std::vector<ViaKind> via_kinds;
  std::vector<std::vector<int>> via_kinds_at_slot;  // per slot: the via kinds that reach it
  std::vector<std::vector<int>> via_kinds_meeting;  // per via kind: the kinds sharing a slot with it, itself too

  // Claim stencils per group: what a wire at a grid node claims around it
  // (grid offsets on its layer, via-site offsets for the kinds reaching that
  // layer) and what a via claims (grid offsets on every slot it reaches,
  // via-site offsets for the kinds sharing a slot with it).
  std::vector<std::vector<Offset>> wire_grid_claims;
  std::vector<std::vector<Offset>> wire_via_claims;
  std::vector<std::vector<Offset>> via_grid_claims;
  std::vector<std::vector<Offset>> via_via_claims;

  std::vector<Stub> stubs;  // per stub node (index node - stub_base)

  // A grid edge that fewer nets may use than may use both its ends (its
  // segment passes closer to some copper than its ends do) runs through a
  // midpoint node of its own, which carries the edge's owner: the searches
  // price nodes, not edges. Per grid node: the midpoints of its edges to
  // the next column and to the next row, -1 where the edge is direct or
  // absent. A midpoint claims nothing (its ends' claims cover the segment
  // from other grid copper), but a stub whose wire the segment comes too
  // close to claims it, as it claims grid nodes too close to it: every edge
  // such a stub claims, and whose ends it leaves free, has a midpoint.
  std::vector<std::array<int, 2>> edge_midpoints;
  std::vector<char> stub_claimed_mid;  // per midpoint (node - mid_base): some stub claims it
  // Per grid node and via site: the net whose copper pour (a plane with
  // fill rules) covers the grid node on its layer, kNoPour or
  // kPoursOfSeveralNets; via sites kNoPour. Empty where no routed net has a
  // pour: other nets' wires there pay RouterOptions::pour_cost.
  std::vector<int> pour_net;
  std::vector<std::string> warnings;  // pins no stub reaches, and the like
  // Per net: a pin of it that no wire of the net can leave at any pitch (the
  // wire comes too close to other copper even at the pad's centre).
  std::vector<char> pin_off_every_lattice;

  bool is_grid(int node) const noexcept { return node < via_base; }
  bool is_via(int node) const noexcept { return node >= via_base && node < pad_base; }
  bool is_pad(int node) const noexcept { return node >= pad_base && node < pin_base; }
  bool is_pin(int node) const noexcept { return node >= pin_base && node < stub_base; }
  bool is_stub(int node) const noexcept { return node >= stub_base && node < mid_base; }
  bool is_mid(int node) const noexcept { return node >= mid_base; }
  const Stub& stub_of(int node) const { return stubs[static_cast<std::size_t>(node - stub_base)]; }
  int grid_node(int slot_index, int row, int column) const noexcept {
    return (slot_index * rows + row) * columns + column;
  }
  int via_site(int kind, int row, int column) const noexcept {
    return via_base + (kind * rows + row) * columns + column;
  }
  // Whether a grid node lies on the pour of a net other than `net`.
  bool on_other_pour(int net, int node) const noexcept {
    if (pour_net.empty() || !is_grid(node)) return false;
    const int pour = pour_net[static_cast<std::size_t>(node)];
    return pour != kNoPour && pour != net;
  }
  int via_kind_of(int node) const noexcept { return (node - via_base) / (rows * columns); }
  // Row and column of a grid node or via site.
  int row_of(int node) const noexcept { return (is_via(node) ? node - via_base : node) % (rows * columns) / columns; }
  int column_of(int node) const noexcept { return (is_via(node) ? node - via_base : node) % columns; }
};

// Which pads get bent stubs (square, 45 degrees) besides straight ones.
enum class BentStubs {
  shut_in_and_fine_pitch,       // pads whose straight stubs are shut in, and pads no wire passes beside
  shut_in,                      // pads whose straight stubs are shut in
  fine_pitch_reaching_further,  // as the first, a fine-pitch pad's reaching grid nodes up to 7 pitches away
};

// What a stub claims round its wire: the room another net's copper would
// need there. A grid wire is its nodes and the edges between them.
enum class StubClaims {
  // Grid nodes within the clearance's reach widened by half a pitch, so
  // that every edge coming too close loses an end: cautious, and at a
  // fine-pitch part a neighbour's stub can claim the grid node beside
  // one's own, which another net could use.
  nodes_near,
  // Grid nodes within the reach, and the edges that come within it (their
  // midpoints) where they leave both ends free: what the clearance asks.
  nodes_and_edges,
};

// Builds the lattice; throws UsageError as route_board documents.
Lattice build_lattice(const Board& board, const RouterOptions& options,
                      BentStubs bent = BentStubs::shut_in_and_fine_pitch, StubClaims claims = StubClaims::nodes_near);

// The pin nodes of `net` that no path from its first pin reaches through
// nodes the net may use: what keeps it apart on this lattice with no other
// net routed. Empty when the lattice joins them all.
std::vector<int> pins_apart(const Lattice& lattice, int net);

}  // namespace trellis::route::router_detail
