// KiCad board files (.kicad_pcb) of KiCad 5.1 to 9, format versions 20171130
// (KiCad 5.1, with KiCad 6's pre-release versions) to 20241229 (KiCad 9.0);
// older and newer files are refused. KiCad 5's (module ...) is a footprint,
// its arcs (start CENTRE) (end FIRST) (angle SWEEP) are read as such, and
// its (net_class ...) lists in the board are its net classes.
//
// What is read from where:
// - .kicad_pcb (layers ...): the copper layers (F.Cu, In1.Cu ... InN.Cu, B.Cu
//   in stack order, whatever their ids; types signal, power, mixed, jumper).
//   Layers keep KiCad's canonical names ("F.Cu"); a user name ("top_layer")
//   is the layer's specctra_name, which KiCad's Specctra export and session
//   import use, so sessions written for the board use it too.
// - Edge.Cuts graphics, on the board (gr_line, gr_arc, gr_circle, gr_rect,
//   gr_poly) and inside footprints (fp_*): chained end to end (ends within
//   20 um join, as KiCad's own outline builder allows) into closed polygons.
//   The one of largest area is Board::boundary[0]; the others are cutouts,
//   kept as keepouts on every layer named "edge_cutout".
// - footprints: a Component each (reference from fp_text reference or, from
//   KiCad 8, property "Reference"); identical footprints share an Image.
//   Pads become pins with a Padstack each distinct shape. A pad's or
//   footprint's (clearance C) override is kept (ImagePin::clearance,
//   Component::clearance; pin_clearance_override says how it applies). Pad shapes:
//   circle; rect; oval as a path whose width is the short side (a circle when
//   square); roundrect and chamfered rect as a polygon with the corners cut
//   or rounded (KiCad's corner radius = ratio x short side); trapezoid as a
//   polygon; custom as its anchor plus one shape per primitive (gr_poly ->
//   polygon, gr_line/gr_arc -> path, gr_circle -> circle, gr_rect ->
//   polygon). KiCad 9's per-layer padstacks are read as their default
//   (front) shape. Pads on no copper layer and np_thru_hole pads are not
//   pins; their holes become image keepouts on every layer. Duplicate or
//   empty pad numbers in one footprint are named `NUMBER@k` as KiCad's
//   Specctra export names them.
// - (net N "name"): Board::nets in file order (net 0, "no net", is not a
//   net); pads, tracks, vias and zones name nets by number.
// - text and drawings on copper layers (gr_text, gr_line, gr_arc, gr_circle,
//   gr_rect, gr_poly, gr_curve, gr_text_box and the footprints' fp_* and
//   KiCad 8 properties): Board::copper_graphics, connected to no net. A
//   text is one box per glyph of KiCad's stroke font (stroke_text.hpp);
//   hidden text is not copper.
// - tracks: segment -> a two-point path wire, arc -> a path along the arc,
//   via -> Board::vias with a padstack "Via[FIRST-LAST]_DIAMETER:DRILL_um"
//   (layer indices, um) spanning its layers. Locked tracks are protect.
// - zones: rule areas ((keepout ...)) that forbid tracks and vias become
//   keepouts, tracks only wire_keepouts, vias only via_keepouts, one per
//   layer; copper zones become Board::planes with their outline polygon
//   (not the filled areas), one per layer.
// - .kicad_pro next to the board (same stem), when present: the net
//   classes of net_settings.classes (clearance, track_width, via_diameter,
//   via_drill) with members from the class's "nets" (KiCad 6),
//   net_settings.netclass_assignments and netclass_patterns (KiCad 7+, '*'
//   and '?' wildcards); nets in no class belong to "Default". Board::rules
//   are the Default class's width and clearance. Without a project file
//   the board gets KiCad's defaults: clearance 0.2 mm, track 0.25 mm, via
//   0.8 mm with a 0.4 mm drill, and one class "Default" holding every net.
//   Each class with a via size gets a via padstack through all layers; the
//   Default class's is the first of Board::via_padstacks.
//
// Units and orientation: the file's millimetres become nanometres (rounded
// to the nearest). KiCad's y axis points down; the Board's points up, as in
// Specctra, so every y is negated. KiCad's angles are counter-clockwise as
// seen on the screen, which stays counter-clockwise once y points up, so
// angles keep their values (KiCad's Specctra export writes them the same).
// Pads store their absolute angle; a pin's rotation is the pad's angle minus
// the footprint's. Back-side footprints are stored already flipped; they
// are read as KiCad's Specctra export places them: side back, rotation =
// footprint angle + 180, the image holding the unflipped footprint (pad
// positions as written with y not negated, layers flipped to the front).
// Arcs and round corners are approximated by chords whose vertices lie on
// the curve, at most 5 um from it (KiCad's own ARC_HIGH_DEF), with at most
// 4096 chords per arc.
//
// Errors (InputError naming the file and line): malformed or truncated
// s-expressions, a version outside the range above, numbers that are not
// finite numbers or lengths beyond 1 km, unknown layers, pads, tracks and
// zones naming undeclared nets, impossible pad shapes, an outline that does
// not close, and a project file that is not JSON or holds values of the
// wrong type. Connected pads off the outline and duplicate references are
// accepted and listed in Board::warnings.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route {

// Reads a .kicad_pcb and, when it exists, the .kicad_pro beside it.
Board read_kicad_pcb(const std::filesystem::path& path);

// The project file's text, for reading from memory.
struct KicadProject {
  std::string_view text;  // the .kicad_pro text
  std::string name;       // what messages call it
};

// Reads .kicad_pcb text; `name` is what messages call it. Without a
// project the defaults above apply.
Board read_kicad_pcb(std::string_view text, const std::string& name,
                     const std::optional<KicadProject>& project = std::nullopt);

// ---- writing a routed copy
//
// The input board file with the routed copper added: its text unchanged,
// byte for byte, except for new items inserted before the final ')' of the
// (kicad_pcb ...) list (at the start of its line when nothing but blanks
// precede it there), in the input's line endings (CRLF or LF), and its
// zones' (filled_polygon ...) lists taken out (with their lines where
// they are alone on them): a fill made before routing would overlap the
// new tracks, so the zones are left for KiCad to refill. `board` is what
// read_kicad_pcb returned for that input (its copper layers and nets must
// match the file's; UsageError otherwise).
//
// Items, in the order given: every path wire becomes one segment per pair
// of successive distinct points (a wire whose points are all one point,
// a dot, becomes one zero-length segment); every via becomes a via. Their
// form follows the input's format version, as KiCad writes it:
//   before 20231014 (KiCad 6, 7): one line each, indented two spaces,
//     (segment (start X Y) (end X Y) (width W) (layer "F.Cu") (net N) (tstamp UUID))
//     (via [blind] (at X Y) (size D) (drill D) (layers "F.Cu" "B.Cu") (net N) (tstamp UUID))
//   from 20231014 (KiCad 8, 9): the same lists one per line, indented with
//     tabs, and (uuid "UUID") instead of (tstamp UUID).
//
// Values: millimetres written exactly from the nanometres (up to six
// decimals, no trailing zeros), y negated back to KiCad's downward axis.
// Layers are the Board layers' (canonical) names. Nets are the KiCad net
// numbers of Board::nets (the file's own numbering); a wire or via of no
// net (-1) gets net 0. A via's size is the largest circle diameter of its
// padstack; its layers the first and last copper layer the padstack covers
// (a via not through every layer is written "blind", KiCad's blind/buried
// type). Its drill is the first of these that is above zero and below the
// size: the drill in the padstack's name when it has the reader's form
// "Via[FIRST-LAST]_DIAMETER:DRILL_um"; the drill of the Default class's via
// (the first of Board::via_padstacks, named the same way, which carries
// the .kicad_pro's via_drill, or KiCad's default 0.4 mm without one); and
// otherwise the smaller of 0.4 mm and 60% of the size.
// UUIDs are version-4 shaped but derived from a hash of the input text,
// the item's number and its content: the same input gives the same output.
//
// UsageError: a wire that is not a path (polygons cannot be KiCad tracks),
// a path without points or with a width <= 0, layers, nets or padstacks out
// of range, a via padstack with no circle or covering one layer only, and
// a board that does not match the input. InputError: input that is not a
// readable KiCad 6-9 board (as read_kicad_pcb).
std::string routed_kicad_pcb(std::string_view input_text, const std::string& input_name, const Board& board,
                             const RoutedCopper& routed);

// The .kicad_pcb text without its tracks: every top-level (segment ...),
// (arc ...) and (via ...) list taken out with the lines it covers, the rest
// byte for byte (KiCad writes each such item on lines of its own). `name`
// is what messages call it. InputError for text that is not a readable
// board; UsageError where a track shares a line with another item.
std::string kicad_pcb_without_tracks(std::string_view text, const std::string& name);

// Reads `input`, writes it without its tracks (above) to `output` so that
// it appears whole or not at all; refuses (UsageError) to overwrite the
// input itself.
void write_kicad_pcb_without_tracks(const std::filesystem::path& input, const std::filesystem::path& output);

// Reads `input`, writes its routed copy (above) to `output` so that it
// appears whole or not at all. Refuses (UsageError) to overwrite the input
// itself. The .kicad_pro beside the input is not copied: reading `output`
// back finds net classes only when a project of its stem sits beside it.
void write_routed_kicad_pcb(const std::filesystem::path& input, const Board& board, const RoutedCopper& routed,
                            const std::filesystem::path& output);

}  // namespace trellis::route
