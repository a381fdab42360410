// An independent geometric design-rule check of routed copper: clearance
// between copper of different nets on each layer, copper against keepouts
// and the board outline, and the connectivity of every net.
//
// Geometry. Every piece of copper is a core (a point, a segment or a filled
// polygon) grown by a radius: circles are points with their radius, path
// wires are one capsule per segment with half their width, rects (turned
// with their pads) and polygons are filled polygons (grown by half their
// aperture). Distances between these are exact up to floating-point
// rounding; the check tolerates kDistanceTolerance for that and for the
// nanometre rounding of pads turned by angles that are not quarter turns.
// A uniform grid per layer keeps the pairs tested to those nearby.
//
// Rules applied (the largest applicable value wins):
//   - The clearance between two objects is the largest of, for each of the
//     two nets, the board's rule, the rules of every class holding the net
//     and the net's own rule. At each of these levels a typed clearance for
//     the pair's kind (smd_smd, smd_via, pin_wire, ..., Specctra's names;
//     "smd" is a pad on one layer, "pin" a pad on several) replaces that
//     level's default clearance when given.
//   - A pad's own clearance (KiCad's pad or footprint override,
//     pin_clearance_override()) replaces all of that: where either object
//     of a pair has one, the larger of their overrides is the clearance.
//   - Copper of no net (pads no net lists, wires without a net) counts as
//     a net of its own, distinct from every other object.
//   - A net tie's pads and drawings (Board::net_ties) are not checked
//     against each other nor against copper of the tie's nets.
//   - Keepouts: wires must keep the clearance of their net from keepouts
//     and wire_keepouts, vias from keepouts and via_keepouts, on the layers
//     the keepout applies to (structure keepouts and those of placed
//     images). Pads are not checked against keepouts: footprints carry
//     keepouts around their own pads.
//   - Outline: copper must lie inside the first boundary shape and keep the
//     clearance of its net from its edges (DSN exports give no separate
//     edge rule). Pads over the edge (edge connectors) are input conflicts.
//   - Planes are pours the CAD tool cuts around other copper, so their
//     outline is not checked for clearance. A plane with fill rules (a
//     KiCad zone) connects what pour_islands() says it surely connects
//     once refilled; a plane without (Specctra) connects its net's pads,
//     wires and vias that touch its outline on its layer.
//
// Which list a violation goes to: conflicts between pads (and pads against
// the outline) are already in the input and go to `input_conflicts`; every
// violation that involves a wire or a via goes to `routing`. One violation
// is reported per pair of objects and layer: the closest approach.
//
// Connectivity: pads, wires, vias and planes of one net are joined when
// their copper touches on a common layer (a via joins every layer its
// padstack covers). A net is unconnected when its pins fall into more than
// one group.
#pragma once

#include <string>
#include <vector>

#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route {

// Distances within this many nanometres of the rule pass.
inline constexpr double kDistanceTolerance = 0.5;

// The kinds of object a violation involves.
enum class DrcObjectKind {
  pad,      // a pin's copper
  wire,     // a wire
  via,      // a via
  graphic,  // copper text or a drawing
  keepout,  // a keepout
  outline   // the board outline
};

// One object of a violation, named for reports.
struct DrcObject {
  DrcObjectKind kind = DrcObjectKind::pad;  // what the object is
  int index = -1;  // position in its list: pin_copper(board), the wires, the vias, Board::copper_graphics, the keepouts
  int net = -1;    // index into Board::nets, -1 when none
  PinRef pin;      // pads only
  std::string name;      // "U3-7", "wire 12", "via 4", "text 'VCC ON' (line 3533)", "keepout K1", "outline"
  std::string net_name;  // the net's name, empty when none
};

// `graphic`: copper against text or a drawing on a copper layer.
enum class ViolationKind {
  pad_pad,    // pad against pad
  pad_wire,   // pad against wire
  pad_via,    // pad against via
  wire_wire,  // wire against wire
  wire_via,   // wire against via
  via_via,    // via against via
  graphic,    // copper against text or a drawing
  keepout,    // copper in a keepout
  outline     // copper outside the outline or too close to its edge
};

// Two objects closer than the rules allow, or copper outside the outline or in a keepout.
struct Violation {
  ViolationKind kind = ViolationKind::pad_pad;  // which objects conflict
  int layer = 0;                                // index into Board::layers
  Point position;                               // where the two come closest (midpoint of the closest points)
  DrcObject first;                              // one object
  DrcObject second;                             // the other object
  double measured = 0;  // nanometres between the copper; 0 when they overlap, negative outside the outline
  Coord required = 0;   // nanometres the rules ask for
};

// A net whose pins its copper leaves in more than one group.
struct UnconnectedNet {
  int net = 0;                              // index into Board::nets
  std::string name;                         // the net's name
  std::vector<std::vector<PinRef>> groups;  // pins joined by copper, largest group first
};

// ---- pours (pour_islands.cpp)
//
// What a net's copper pour surely connects once KiCad refills it. The fill
// of a zone with fill rules (Plane::pour) on its layer is its outline less:
// other nets' pads, wires, vias and copper drawings grown by the larger of
// the zone's and the rules' clearance (a pad's own override included),
// keepouts and pour keepouts grown by the largest clearance, the board
// edge grown by the same, other nets' zones of equal or higher priority
// (their whole outline grown by the clearance), its own net's pads as
// their connection says, the pad's or footprint's override before the
// zone's (thermal: grown by the thermal gap, the pad's own where it has
// one; none: by the larger of clearance and thermal gap; solid: not at
// all), and then everything narrower than
// min_thickness (KiCad opens the fill by half of it). What is left is
// approximated from inside on a raster: a cell counts as filled when every
// point of it keeps half the min_thickness more than those distances, so
// a cell counted is copper after any refill, and cells sharing an edge are
// one island of copper. Pieces of copper join an island when:
//   - a pad of thermal connection (thru_hole_only: through-hole pads) has,
//     among the spokes KiCad may draw (four at the pad's angle, four at 45
//     degrees to it, and the same along the board's axes), at least one
//     spoke of each set whose body keeps the clearance from other nets and
//     whose end (the pad's extent plus the thermal gap) lies in the
//     island with room for the min_thickness beyond it; and the spoke
//     width (the bridge width, at most the pad's narrow side) is at least
//     min_thickness, as KiCad draws none narrower;
//   - a pad of solid connection, a via of the net or a wire's end point
//     of the net lies in a cell of the island.
// An island reaching nothing is dropped (KiCad removes such islands);
// hatched fills are not relied on. Everything here errs towards fewer
// connections: a connection listed is one KiCad's refill makes, a
// connection not listed may be made all the same.
struct PourIsland {
  int plane = 0;             // index into Board::planes
  int net = 0;               // index into Board::nets
  int layer = 0;             // index into Board::layers
  std::vector<PinRef> pins;  // pads it reaches
  std::vector<int> wires;    // indices of the wires it reaches
  std::vector<int> vias;     // indices of the vias it reaches
};

// The islands of every plane with fill rules that reach at least one pad,
// wire or via, plane by plane, in raster order within a plane.
std::vector<PourIsland> pour_islands(const Board& board, const RoutedCopper& routed);

// The result of a design-rule check: violations, unconnected nets and counts.
struct DrcReport {
  std::vector<Violation> routing;           // involving wires or vias
  std::vector<Violation> input_conflicts;   // pads against pads or the outline
  std::vector<UnconnectedNet> unconnected;  // nets whose pins fall into more than one group
  std::vector<PourIsland> pours;            // what the pours connect (pour_islands), two pads or more each
  std::size_t nets_checked = 0;             // nets with two or more pins
  std::size_t pads = 0;                     // pad shapes (one per pin and layer)
  std::size_t wires = 0;                    // wires checked
  std::size_t vias = 0;                     // vias checked
  double seconds = 0;                       // wall time of the check
};

// Checks the routed copper against the board's pads, keepouts, outline and
// rules. Results are sorted (layer, position, names), so deterministic.
DrcReport check_design_rules(const Board& board, const RoutedCopper& routed);

// Checks the board's own wiring.
DrcReport check_design_rules(const Board& board);

// The kind's name in reports, e.g. "pad-wire".
const char* to_string(ViolationKind kind);
// The kind's name in reports, e.g. "pad" or "wire".
const char* to_string(DrcObjectKind kind);

// "REF-PIN" as a DSN file names the pin.
std::string pin_name(const Board& board, const PinRef& pin);

}  // namespace trellis::route
