// The board a router works on: layers, outline, keepouts, planes, rules,
// the component library, placed components, nets and existing wiring.
//
// Units: every length and coordinate is an integer number of nanometres
// (Coord). Readers convert from the file's unit by rounding to the nearest
// nanometre, which is exact for the usual mm / um grids and within 0.5 nm
// for mil and inch values. Coordinates follow Specctra's orientation: x to
// the right, y up, angles in degrees counter-clockwise.
//
// Names are resolved to indices once, when the board is read: a component
// knows its image, a pin its padstack, a net its (component, pin) pairs.
// Library geometry (images, padstacks) stays relative to its origin; use
// pin_copper() for pad shapes in board coordinates.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

// PCB autorouting: boards and their files, the router, the design-rule check and rendering.
namespace trellis::route {

using Coord = std::int64_t;  // nanometres

// Nanometres in a millimetre.
inline constexpr Coord kNanometresPerMillimetre = 1'000'000;

// A length in millimetres, for reports.
inline double millimetres(double nanometres) { return nanometres / static_cast<double>(kNanometresPerMillimetre); }

// A point in board coordinates (nanometres, y up).
struct Point {
  Coord x = 0;  // nanometres, to the right
  Coord y = 0;  // nanometres, up
  // Equal when both coordinates are.
  friend bool operator==(const Point&, const Point&) = default;
};

// Axis-aligned box, both corners inclusive. An empty box has min > max.
struct Box {
  Point min{std::numeric_limits<Coord>::max(), std::numeric_limits<Coord>::max()};  // lower-left corner
  Point max{std::numeric_limits<Coord>::min(), std::numeric_limits<Coord>::min()};  // upper-right corner
  // True when the box holds no point (min > max on an axis).
  bool empty() const noexcept { return min.x > max.x || min.y > max.y; }
  // True when p lies in the box or on its edge.
  bool contains(Point p) const noexcept { return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y; }
  // Grows the box to hold p.
  void include(Point p) noexcept;
  // Grows the box to hold other.
  void include(const Box& other) noexcept;
};

// The kinds of Shape (see Shape for what each holds).
enum class ShapeKind {
  circle,   // width = diameter, points = {centre}
  rect,     // points = {lower-left, upper-right}
  polygon,  // points = vertices, width = aperture
  path      // points = centre line, width = trace width
};

// One outline. What `width` and `points` hold depends on the kind:
//   circle:  width = diameter, points = {centre}
//   rect:    width = 0, points = {lower-left, upper-right}
//   polygon: width = aperture (usually 0), points = vertices as written
//            (files often repeat the first vertex at the end)
//   path:    width = trace width, points = centre line (one point: a dot)
struct Shape {
  ShapeKind kind = ShapeKind::circle;  // what the outline is
  Coord width = 0;                     // diameter, aperture or trace width, by kind
  std::vector<Point> points;           // centre, corners, vertices or centre line, by kind
};

// The box a shape covers, including half the width of paths and polygons'
// apertures and the radius of circles.
Box bounding_box(const Shape& shape);

// A layer's use: signal routing, a power plane, both, or jumpers.
enum class LayerType {
  signal,  // routed on
  power,   // a plane, not routed on
  mixed,   // a plane that is routed on too
  jumper   // jumper wires
};
// The way a layer's wires should mostly run (Specctra's (direction ...)).
enum class LayerDirection {
  any,         // no preference
  horizontal,  // along x
  vertical     // along y
};

// One layer of the stack.
struct Layer {
  std::string name;                                // the file's layer name, e.g. "F.Cu"
  LayerType type = LayerType::signal;              // what the layer is used for
  int index = 0;                                   // position in the stack, 0 = front (the order the file lists them)
  LayerDirection direction = LayerDirection::any;  // preferred wiring direction
  // What Specctra files call the layer where that is not `name`: a KiCad
  // layer's user name ("top_layer" for F.Cu), as KiCad's DSN export and
  // session import name it.
  std::string specctra_name{};
};

// A shape on one layer (an index into Board::layers).
struct LayerShape {
  int layer = 0;  // index into Board::layers
  Shape shape;    // the shape on that layer
};

// Keepout::layer of a keepout on every layer.
inline constexpr int kAllLayers = -1;

// What a keepout forbids: everything, vias only, or wires only.
enum class KeepoutKind {
  keepout,      // no wires and no vias
  via_keepout,  // no vias
  wire_keepout  // no wires
};

// An area that wiring must avoid, on one layer or all.
struct Keepout {
  KeepoutKind kind = KeepoutKind::keepout;  // what it forbids
  std::string name;                         // the file's name for it (may be empty)
  int layer = kAllLayers;                   // a layer index or kAllLayers
  Shape shape;                              // the area
};

// Copper that belongs to no net: text and drawings on a copper layer. It
// connects nothing, and every net's copper keeps its clearance from it,
// except a net tie's copper from the tie's own nets (NetTie).
struct CopperGraphic {
  std::string description;    // what and where, for reports: "text 'VCC ON' (line 3533)"
  int layer = 0;              // index into Board::layers
  std::vector<Shape> shapes;  // filled together (a text: one box per glyph)
  int tie = -1;               // index into Board::net_ties where this is a net tie's copper, else -1
};

// How a pour joins its own net's pads (KiCad's connect_pads): not at all,
// by thermal spokes across a gap, merged whole, or spokes to through-hole
// pads only.
enum class PadConnection {
  none,           // not joined
  thermal,        // joined by thermal spokes across a gap
  solid,          // merged whole
  thru_hole_only  // spokes to through-hole pads only
};

// What decides a pour's filled copper, where the file says it (KiCad
// zones): the fill is the outline less other nets' copper grown by the
// clearance, less what is thinner than min_thickness; own-net pads join
// it as `pads` says.
struct PourRules {
  PadConnection pads = PadConnection::thermal;  // how own-net pads join the fill
  Coord clearance = 0;                          // from other nets' copper (the zone's own; net classes may ask more)
  Coord min_thickness = 0;                      // thinner copper is removed from the fill
  Coord thermal_gap = 0;                        // gap around own-net pads joined by spokes
  Coord thermal_bridge_width = 0;               // spoke width
  int priority = 0;                             // a higher priority zone's fill is cut out of lower ones
  Coord corner_radius = 0;                      // outline corners smoothed (fillet or chamfer) by this much
  bool hatched = false;                         // a grid of copper, not a solid fill
};

// A copper pour connected to a net.
struct Plane {
  std::string net_name;  // the net's name as the file gives it
  int net = -1;          // index into Board::nets, -1 when no net of that name has pins
  int layer = 0;         // index into Board::layers
  Shape shape;           // the pour's outline
  // The fill rules when the file gives them (KiCad); a Specctra plane has
  // none, and its outline is taken as its copper.
  std::optional<PourRules> pour = std::nullopt;
};

// A clearance that applies between particular kinds of objects, such as
// "smd_smd" (pad to pad of surface-mount pads) or "default_smd".
struct TypedClearance {
  std::string type;  // the kinds of objects, e.g. "smd_smd"
  Coord value = 0;   // the clearance
};

// Wire width and clearances, of the board, a net class or a net; empty fields are not set.
struct Rules {
  std::optional<Coord> width;      // wire width
  std::optional<Coord> clearance;  // the default clearance
  // The narrowest a wire may become where it leaves a pad it cannot leave
  // at its full width (Specctra's neck_down_width; KiCad's minimum track
  // width).
  std::optional<Coord> neck_down_width;
  std::vector<TypedClearance> typed_clearances;  // clearances between particular kinds of objects

  // The typed clearance when given, else the default clearance.
  std::optional<Coord> clearance_for(const std::string& type) const;
};

// A pad definition: copper per layer, used by pins and vias.
struct Padstack {
  std::string name;  // the padstack's name in the file
  // Copper per layer; the file's layer wildcards ("signal", "*") are expanded
  // to one entry per matching layer.
  std::vector<LayerShape> shapes;
  bool attach_allowed = true;  // (attach off): no via may sit on this pad
};

// A pin of an image: a padstack placed relative to the image origin.
struct ImagePin {
  std::string name;                               // the pin's name, e.g. "1" or "A3"
  int padstack = 0;                               // index into Board::padstacks
  Point offset;                                   // relative to the image origin
  double rotation = 0;                            // degrees, counter-clockwise, applied to the padstack
  std::optional<Coord> clearance = std::nullopt;  // the pad's own clearance (KiCad's local override)
  // How pours join this pad where the pad or its footprint says (KiCad's
  // zone_connect), instead of the zone's rule; and its own thermal gap.
  std::optional<PadConnection> zone_connection = std::nullopt;
  std::optional<Coord> thermal_gap = std::nullopt;  // the pad's own thermal gap, when it sets one
};

// A footprint: pins and keepouts relative to its origin, as if placed on the
// front side without rotation. Silkscreen outlines are not kept.
struct Image {
  std::string name;               // the footprint's name
  std::vector<ImagePin> pins;     // its pins
  std::vector<Keepout> keepouts;  // its keepouts, relative to the origin
};

// The side of the board a component is placed on.
enum class Side {
  front,  // the front (first) layer's side
  back    // mirrored onto the back
};

// A placed component. On the back side the image is mirrored (x -> -x) and
// its layers flipped (layer i -> layer count - 1 - i) before the rotation.
struct Component {
  std::string reference;    // reference designator, e.g. "U3"
  int image = 0;            // index into Board::images
  Point position;           // where the image origin lands
  Side side = Side::front;  // front or back
  double rotation = 0;      // degrees, counter-clockwise
  std::optional<Coord> clearance =
      std::nullopt;  // its pads' clearance where a pad sets none (KiCad's footprint override)
};

// A pin of a placed component.
struct PinRef {
  int component = 0;  // index into Board::components
  int pin = 0;        // index into that component's image's pins
  // Equal when component and pin are.
  friend bool operator==(const PinRef&, const PinRef&) = default;
};

// A net tie (KiCad): pads of one footprint that join their nets on purpose,
// touching or through copper drawn between them. The tie's pads and
// drawings may touch each other, and copper of the tie's nets may touch
// them; copper of every other net keeps its clearance.
struct NetTie {
  std::string component;     // the footprint's reference, for reports
  std::vector<PinRef> pins;  // its pads
  std::vector<int> nets;     // their nets (indices into Board::nets), sorted, each once
};

// A net: the pins it must connect.
struct Net {
  std::string name;          // the net's name
  std::vector<PinRef> pins;  // its pins
  Rules rules;               // rules given on the net itself
};

// A net class: rules and vias shared by a set of nets.
struct NetClass {
  std::string name;       // the class's name
  std::vector<int> nets;  // indices into Board::nets
  Rules rules;            // rules of the class's nets
  std::vector<int> vias;  // padstack indices the class may use
};

// How existing wiring may be treated; a router keeps all of it in place.
enum class WiringType {
  normal,  // Specctra's normal: may be changed
  route,   // Specctra's route: routed wiring, may be changed
  fix,     // Specctra's fix: not to be moved
  protect  // Specctra's protect: not to be changed
};

// A piece of existing wiring on one layer.
struct Wire {
  int layer = 0;                         // index into Board::layers
  Shape shape;                           // a path (trace) or, rarely, a polygon
  int net = -1;                          // -1: no net given
  WiringType type = WiringType::normal;  // how the wiring may be treated
};

// A placed via.
struct Via {
  int padstack = 0;                      // index into Board::padstacks
  Point position;                        // its centre
  int net = -1;                          // index into Board::nets, -1: no net given
  WiringType type = WiringType::normal;  // how the via may be treated
};

// Everything read from a board file, names resolved to indices.
struct Board {
  std::string name;  // the board's name in the file
  // The file's resolution, e.g. "um" and 10 (tenths of a micrometre): what a
  // session file written back should use.
  std::string resolution_unit;
  double resolution_per_unit = 0;  // file units per unit of resolution_unit

  std::vector<Layer> layers;                   // the layer stack, front first
  std::vector<Shape> boundary;                 // the outline; the first one is the board edge
  std::vector<Keepout> keepouts;               // board-level keepouts
  std::vector<CopperGraphic> copper_graphics;  // copper that belongs to no net
  std::vector<NetTie> net_ties;                // footprints that join nets on purpose
  std::vector<Plane> planes;                   // copper pours
  // Rule areas that forbid pours only (tracks and vias may pass): what
  // zone fills keep out of, on their layer or every layer.
  std::vector<Keepout> pour_keepouts;
  std::vector<int> via_padstacks;  // padstacks that vias may use
  Rules rules;                     // board-level rules

  std::vector<Padstack> padstacks;    // pad definitions
  std::vector<Image> images;          // footprints
  std::vector<Component> components;  // placed components
  std::vector<Net> nets;              // nets
  std::vector<NetClass> classes;      // net classes

  std::vector<Wire> wires;  // existing wires
  std::vector<Via> vias;    // existing vias

  // What the reader accepted but a user may want to know, one line each
  // ("FILE:LINE: ..."), such as unconnected pads outside the outline.
  std::vector<std::string> warnings;
};

// The layer a component's copper lands on: flipped for the back side.
int placed_layer(const Board& board, const Component& component, int image_layer);

// A point of a component's image in board coordinates.
Point placed_point(const Component& component, Point image_point);

// The centre of a pin in board coordinates.
Point pin_position(const Board& board, const PinRef& pin);

// A pin's own clearance as KiCad resolves local overrides: the pad's, else
// its footprint's, else none. Where either of two objects has one, the
// larger of their overrides is the clearance between them, whatever the
// net classes ask.
std::optional<Coord> pin_clearance_override(const Board& board, const PinRef& pin);

// The net tie a pin belongs to (an index into Board::net_ties), or -1.
int net_tie_of(const Board& board, const PinRef& pin);

// Whether copper of `net` may touch copper of net tie `tie` (-1: none may).
bool tie_joins(const Board& board, int tie, int net);

// The copper of one pin on one layer, in board coordinates.
struct PinCopper {
  PinRef pin;     // the pin
  int layer = 0;  // index into Board::layers
  int net = -1;   // -1: the pin belongs to no net
  Shape shape;    // the copper, in board coordinates
};

// Every pin's copper on every layer its padstack covers, component by
// component, pin by pin, layer by layer. Rotations that are multiples of 90
// degrees are exact; a rectangle turned by any other angle becomes a polygon.
std::vector<PinCopper> pin_copper(const Board& board);

// The box around the boundary shapes (empty without a boundary).
Box boundary_box(const Board& board);

// Whether a point lies inside or on the board outline (the first boundary
// shape; rects, polygons and closed paths). True when there is no boundary.
bool inside_boundary(const Board& board, Point point);

}  // namespace trellis::route
