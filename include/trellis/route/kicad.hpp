// KiCad board files (.kicad_pcb) of KiCad 6 to 9, format versions 20211014
// (KiCad 6.0) to 20241229 (KiCad 9.0); older and newer files are refused.
//
// What is read from where:
// - .kicad_pcb (layers ...): the copper layers (F.Cu, In1.Cu ... InN.Cu, B.Cu
//   in stack order, whatever their ids; types signal, power, mixed, jumper).
//   Layers keep KiCad's canonical names ("F.Cu"), not the user names.
// - Edge.Cuts graphics, on the board (gr_line, gr_arc, gr_circle, gr_rect,
//   gr_poly) and inside footprints (fp_*): chained end to end (ends within
//   20 um join, as KiCad's own outline builder allows) into closed polygons.
//   The one of largest area is Board::boundary[0]; the others are cutouts,
//   kept as keepouts on every layer named "edge_cutout".
// - footprints: a Component each (reference from fp_text reference or, from
//   KiCad 8, property "Reference"); identical footprints share an Image.
//   Pads become pins with a Padstack each distinct shape. Pad shapes:
//   circle; rect; oval as a path whose width is the short side (a circle when
//   square); roundrect and chamfered rect as a polygon with the corners cut
//   or rounded (KiCad's corner radius = ratio x short side); trapezoid as a
//   polygon; custom as its anchor plus one shape per primitive (gr_poly ->
//   polygon, gr_line/gr_arc -> path, gr_circle -> circle, gr_rect ->
//   polygon). KiCad 9's per-layer padstacks are read as their default
//   (front) shape. Pads on no copper layer and np_thru_hole pads are not
//   pins; their holes become image keepouts on every layer. Duplicate or
//   empty pad numbers in one footprint are named NUMBER@k as KiCad's
//   Specctra export names them.
// - (net N "name"): Board::nets in file order (net 0, "no net", is not a
//   net); pads, tracks, vias and zones name nets by number.
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

namespace trellis::route {

// Reads a .kicad_pcb and, when it exists, the .kicad_pro beside it.
Board read_kicad_pcb(const std::filesystem::path& path);

// The project file's text, for reading from memory.
struct KicadProject {
  std::string_view text;
  std::string name;  // what messages call it
};

// Reads .kicad_pcb text; `name` is what messages call it. Without a
// project the defaults above apply.
Board read_kicad_pcb(std::string_view text, const std::string& name,
                     const std::optional<KicadProject>& project = std::nullopt);

}  // namespace trellis::route
