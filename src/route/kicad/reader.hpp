// The KiCad reader's state and its helpers for reading values out of the
// tree: the board being filled, the copper layers and nets by name and
// number, and numbers converted to nanometres in the Board's orientation.
// Each part of the board has its own file; read_kicad_pcb.cpp runs them in
// order (layers, nets, footprints, outline, tracks, zones, project rules).
#pragma once

#include <filesystem>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../geometry/arcs.hpp"
#include "sexpr.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route::kicad_detail {

// The oldest and newest format versions read: KiCad 5.1 and KiCad 9.0.
inline constexpr long kOldestVersion = 20171130;
// From KiCad 6's pre-releases on, copper layers keep their canonical names
// ("F.Cu") and a user name follows the type; KiCad 5 wrote the user name
// in place of the canonical one.
inline constexpr long kFirstCanonicalLayerNames = 20200000;
inline constexpr long kNewestVersion = 20241229;

// A placement: board = origin + rotate(local, angle), local in Board
// orientation (y up).
struct Placement {
  Point origin;
  double angle = 0;  // degrees, counter-clockwise
};

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  const std::string& name() const noexcept { return name_; }
  [[noreturn]] void fail(std::size_t line, std::string_view problem) const;
  void warn(std::size_t line, std::string_view message);

  // ---- values (values.cpp)
  // The item at `index` of a list, which must be an atom.
  const Node& atom(const Node& list, std::size_t index, std::string_view what) const;
  // A list's child list, which must be present.
  const Node& child(const Node& list, std::string_view keyword) const;
  double number(const Node& list, std::size_t index, std::string_view what) const;
  // Millimetres to nanometres, at most 1 km.
  Coord length(const Node& list, std::size_t index, std::string_view what) const;
  Coord to_nanometres(double millimetres, std::size_t line) const;
  // A length that must be > 0 (or >= 0 when zero_ok).
  Coord positive_length(const Node& list, std::size_t index, std::string_view what, bool zero_ok = false) const;
  // (KEYWORD x y) in Board orientation: y negated.
  Point point(const Node& list) const;
  // (KEYWORD x y) as written, y not negated.
  Point raw_point(const Node& list) const;
  // The optional third number of (at x y [angle]), 0 when absent.
  double angle(const Node& at) const;
  // A line width: (width W) or, from KiCad 7, (stroke (width W) ...); 0 when absent.
  Coord stroke_width(const Node& list) const;
  // The net a (net N ["name"]) names: a Board::nets index, -1 for net 0.
  int net(const Node& net_list) const;
  // A copper layer's index by its canonical name.
  std::optional<int> copper_layer(std::string_view name) const;
  // The copper layers a (layers ...) / (layer ...) list names, with "*.Cu"
  // (every copper layer) and "F&B.Cu" (the outer two) expanded; non-copper
  // names are skipped. Unknown copper-looking names ("In7.Cu" on a
  // two-layer board) are an error.
  std::vector<int> copper_layers(const Node& layers) const;
  // Whether a (layers ...) list is exactly "*.Cu" or every copper layer.
  bool all_copper(const std::vector<int>& layers) const;

  // ---- parts of the board, in reading order
  void read_version(const Node& root);
  void read_layers(const Node& root);                                             // layers.cpp
  void read_nets(const Node& root);                                               // nets.cpp
  void read_footprints(const Node& root);                                         // footprints.cpp (pads in pads.cpp)
  void read_outline(const Node& root);                                            // outline.cpp
  void read_tracks(const Node& root);                                             // tracks.cpp
  void read_copper_graphics(const Node& root);                                    // copper_graphics.cpp
  void read_zones(const Node& root);                                              // zones.cpp
  void read_rules(const Node& root, const std::optional<KicadProject>& project);  // project.cpp
  void make_net_ties();                                                           // net_ties.cpp
  void check_pins_on_board();                                                     // footprints.cpp

  // A via padstack through `first`..`last` (stack indices) of this size,
  // created once (tracks.cpp).
  int via_padstack(Coord diameter, Coord drill, int first, int last);
  // A pad's or footprint's (clearance C) override; none when absent or 0
  // (footprints.cpp).
  std::optional<Coord> local_clearance(const Node& item) const;
  // A pad's pour connection and thermal gap overrides, the pad's else its
  // footprint's (footprints.cpp).
  std::optional<PadConnection> zone_connection(const Node& pad, const Node& footprint) const;
  std::optional<Coord> thermal_gap(const Node& pad, const Node& footprint) const;
  // A padstack with these shapes, shared by every pad of the same copper.
  int padstack_for(std::string name, std::vector<LayerShape> shapes);

  Board board;
  long version = 0;                                    // the file's format version (read_version)
  std::unordered_map<std::string, int> layer_by_name;  // copper layers
  std::map<long, int> net_by_number;                   // KiCad number -> Board::nets index (-1: net 0)
  // Every footprint's pin (board coordinates) with the line of its pad, for
  // the outline check.
  struct PadAt {
    PinRef pin;
    std::size_t line = 0;
  };
  std::vector<PadAt> connected_pads;
  // A net tie footprint (net_ties.cpp): its pad groups (pins of its
  // image) and its copper drawings (a range of Board::copper_graphics),
  // which make_net_ties turns into Board::net_ties.
  struct PendingTie {
    int component = 0;
    std::vector<std::vector<int>> groups;
    std::size_t first_graphic = 0, end_graphic = 0;
  };
  std::vector<PendingTie> pending_ties;
  // The pad groups of a footprint that is a net tie (none for others), from
  // its copper pads' (number, pin) pairs.
  std::vector<std::vector<int>> net_tie_groups(const Node& footprint,
                                               const std::vector<std::pair<std::string, int>>& pads) const;

 private:
  std::string name_;
  std::unordered_map<std::string, int> padstack_by_key_;
};

// ---- geometry (geometry.cpp), all in Board orientation
// The points along the arc from `start` through `mid` to `end`, both ends
// included; collinear points give the straight segment.
std::vector<Point> arc_points(Point start, Point mid, Point end);
// A closed circle as polygon vertices (first not repeated).
std::vector<Point> circle_points(Point centre, double radius);
// Arcs about a centre (geometry/arcs.hpp).
using geometry::arc_about;
using geometry::arc_outside;
Point rotate(Point p, double degrees);
Point place(const Placement& placement, Point local);
// Twice the signed area of a closed polygon (counter-clockwise positive).
double twice_area(const std::vector<Point>& polygon);

// Whether a graphic is filled: KiCad 6 and 7 write (fill solid|none), KiCad
// 8 (fill yes|no); `when_absent` where it writes none (values.cpp).
bool filled(const Node& graphic, bool when_absent);

// The points of a graphic arc: (start) (mid) (end) as KiCad 6 and later
// write it, or (start CENTRE) (end FIRST) (angle SWEEP) as KiCad 5 and
// KiCad 6's pre-releases do. In Board orientation, or with y as written
// when `raw`.
std::vector<Point> read_arc(const Reader& reader, const Node& arc, bool raw = false);

// The polygon of a (pts (xy x y) ... (arc (start) (mid) (end)) ...) list,
// in Board orientation, or with y as written when `raw`.
std::vector<Point> read_pts(const Reader& reader, const Node& pts, bool raw = false);

// The board's footprints: (footprint ...) lists, or (module ...) as KiCad 5
// and KiCad 6's early pre-releases call them (footprints.cpp).
std::vector<const Node*> footprints_of(const Node& root);

// A footprint's reference ("R1"), empty when it has none (footprints.cpp).
std::string reference_of(const Reader& reader, const Node& footprint);

// A whole file's bytes; InputError naming the file when it cannot be read.
std::string read_file_text(const std::filesystem::path& path);

}  // namespace trellis::route::kicad_detail
