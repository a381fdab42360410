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

namespace trellis::route {

using Coord = std::int64_t;  // nanometres

inline constexpr Coord kNanometresPerMillimetre = 1'000'000;

// A length in millimetres, for reports.
inline double millimetres(double nanometres) { return nanometres / static_cast<double>(kNanometresPerMillimetre); }

struct Point {
  Coord x = 0;
  Coord y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

// Axis-aligned box, both corners inclusive. An empty box has min > max.
struct Box {
  Point min{std::numeric_limits<Coord>::max(), std::numeric_limits<Coord>::max()};
  Point max{std::numeric_limits<Coord>::min(), std::numeric_limits<Coord>::min()};
  bool empty() const noexcept { return min.x > max.x || min.y > max.y; }
  bool contains(Point p) const noexcept { return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y; }
  void include(Point p) noexcept;
  void include(const Box& other) noexcept;
};

enum class ShapeKind { circle, rect, polygon, path };

// One outline. What `width` and `points` hold depends on the kind:
//   circle:  width = diameter, points = {centre}
//   rect:    width = 0, points = {lower-left, upper-right}
//   polygon: width = aperture (usually 0), points = vertices as written
//            (files often repeat the first vertex at the end)
//   path:    width = trace width, points = centre line (one point: a dot)
struct Shape {
  ShapeKind kind = ShapeKind::circle;
  Coord width = 0;
  std::vector<Point> points;
};

// The box a shape covers, including half the width of paths and polygons'
// apertures and the radius of circles.
Box bounding_box(const Shape& shape);

enum class LayerType { signal, power, mixed, jumper };
// The way a layer's wires should mostly run (Specctra's (direction ...)).
enum class LayerDirection { any, horizontal, vertical };

struct Layer {
  std::string name;
  LayerType type = LayerType::signal;
  int index = 0;  // position in the stack, 0 = front (the order the file lists them)
  LayerDirection direction = LayerDirection::any;
  // What Specctra files call the layer where that is not `name`: a KiCad
  // layer's user name ("top_layer" for F.Cu), as KiCad's DSN export and
  // session import name it.
  std::string specctra_name{};
};

// A shape on one layer (an index into Board::layers).
struct LayerShape {
  int layer = 0;
  Shape shape;
};

inline constexpr int kAllLayers = -1;

enum class KeepoutKind { keepout, via_keepout, wire_keepout };

struct Keepout {
  KeepoutKind kind = KeepoutKind::keepout;
  std::string name;
  int layer = kAllLayers;  // a layer index or kAllLayers
  Shape shape;
};

// Copper that belongs to no net: text and drawings on a copper layer. It
// connects nothing, and every net's copper keeps its clearance from it.
struct CopperGraphic {
  std::string description;  // what and where, for reports: "text 'VCC ON' (line 3533)"
  int layer = 0;
  std::vector<Shape> shapes;  // filled together (a text: one box per glyph)
};

// How a pour joins its own net's pads (KiCad's connect_pads): not at all,
// by thermal spokes across a gap, merged whole, or spokes to through-hole
// pads only.
enum class PadConnection { none, thermal, solid, thru_hole_only };

// What decides a pour's filled copper, where the file says it (KiCad
// zones): the fill is the outline less other nets' copper grown by the
// clearance, less what is thinner than min_thickness; own-net pads join
// it as `pads` says.
struct PourRules {
  PadConnection pads = PadConnection::thermal;
  Coord clearance = 0;  // from other nets' copper (the zone's own; net classes may ask more)
  Coord min_thickness = 0;
  Coord thermal_gap = 0;
  Coord thermal_bridge_width = 0;  // spoke width
  int priority = 0;                // a higher priority zone's fill is cut out of lower ones
  Coord corner_radius = 0;         // outline corners smoothed (fillet or chamfer) by this much
  bool hatched = false;            // a grid of copper, not a solid fill
};

// A copper pour connected to a net.
struct Plane {
  std::string net_name;
  int net = -1;  // index into Board::nets, -1 when no net of that name has pins
  int layer = 0;
  Shape shape;
  // The fill rules when the file gives them (KiCad); a Specctra plane has
  // none, and its outline is taken as its copper.
  std::optional<PourRules> pour = std::nullopt;
};

// A clearance that applies between particular kinds of objects, such as
// "smd_smd" (pad to pad of surface-mount pads) or "default_smd".
struct TypedClearance {
  std::string type;
  Coord value = 0;
};

struct Rules {
  std::optional<Coord> width;      // wire width
  std::optional<Coord> clearance;  // the default clearance
  // The narrowest a wire may become where it leaves a pad it cannot leave
  // at its full width (Specctra's neck_down_width; KiCad's minimum track
  // width).
  std::optional<Coord> neck_down_width;
  std::vector<TypedClearance> typed_clearances;

  // The typed clearance when given, else the default clearance.
  std::optional<Coord> clearance_for(const std::string& type) const;
};

struct Padstack {
  std::string name;
  // Copper per layer; the file's layer wildcards ("signal", "*") are expanded
  // to one entry per matching layer.
  std::vector<LayerShape> shapes;
  bool attach_allowed = true;  // (attach off): no via may sit on this pad
};

struct ImagePin {
  std::string name;
  int padstack = 0;                               // index into Board::padstacks
  Point offset;                                   // relative to the image origin
  double rotation = 0;                            // degrees, counter-clockwise, applied to the padstack
  std::optional<Coord> clearance = std::nullopt;  // the pad's own clearance (KiCad's local override)
  // How pours join this pad where the pad or its footprint says (KiCad's
  // zone_connect), instead of the zone's rule; and its own thermal gap.
  std::optional<PadConnection> zone_connection = std::nullopt;
  std::optional<Coord> thermal_gap = std::nullopt;
};

// A footprint: pins and keepouts relative to its origin, as if placed on the
// front side without rotation. Silkscreen outlines are not kept.
struct Image {
  std::string name;
  std::vector<ImagePin> pins;
  std::vector<Keepout> keepouts;
};

enum class Side { front, back };

// A placed component. On the back side the image is mirrored (x -> -x) and
// its layers flipped (layer i -> layer count - 1 - i) before the rotation.
struct Component {
  std::string reference;
  int image = 0;  // index into Board::images
  Point position;
  Side side = Side::front;
  double rotation = 0;  // degrees, counter-clockwise
  std::optional<Coord> clearance =
      std::nullopt;  // its pads' clearance where a pad sets none (KiCad's footprint override)
};

struct PinRef {
  int component = 0;  // index into Board::components
  int pin = 0;        // index into that component's image's pins
  friend bool operator==(const PinRef&, const PinRef&) = default;
};

struct Net {
  std::string name;
  std::vector<PinRef> pins;
  Rules rules;  // rules given on the net itself
};

struct NetClass {
  std::string name;
  std::vector<int> nets;  // indices into Board::nets
  Rules rules;
  std::vector<int> vias;  // padstack indices the class may use
};

// How existing wiring may be treated; a router keeps all of it in place.
enum class WiringType { normal, route, fix, protect };

struct Wire {
  int layer = 0;
  Shape shape;   // a path (trace) or, rarely, a polygon
  int net = -1;  // -1: no net given
  WiringType type = WiringType::normal;
};

struct Via {
  int padstack = 0;
  Point position;
  int net = -1;
  WiringType type = WiringType::normal;
};

struct Board {
  std::string name;
  // The file's resolution, e.g. "um" and 10 (tenths of a micrometre): what a
  // session file written back should use.
  std::string resolution_unit;
  double resolution_per_unit = 0;

  std::vector<Layer> layers;
  std::vector<Shape> boundary;  // the outline; the first one is the board edge
  std::vector<Keepout> keepouts;
  std::vector<CopperGraphic> copper_graphics;
  std::vector<Plane> planes;
  // Rule areas that forbid pours only (tracks and vias may pass): what
  // zone fills keep out of, on their layer or every layer.
  std::vector<Keepout> pour_keepouts;
  std::vector<int> via_padstacks;  // padstacks that vias may use
  Rules rules;

  std::vector<Padstack> padstacks;
  std::vector<Image> images;
  std::vector<Component> components;
  std::vector<Net> nets;
  std::vector<NetClass> classes;

  std::vector<Wire> wires;
  std::vector<Via> vias;

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

// The copper of one pin on one layer, in board coordinates.
struct PinCopper {
  PinRef pin;
  int layer = 0;
  int net = -1;  // -1: the pin belongs to no net
  Shape shape;
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
