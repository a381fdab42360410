// The routed copy of a .kicad_pcb: hand-written boards of every format
// version KiCad 6 to 9 writes and the kicad-demos boards get wires and vias
// added, are read back with the KiCad reader, and must hold exactly the
// added copper, with everything else and the original text unchanged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------ the boards

// Nets are numbered out of file order (1, 3, 2) so that Board::nets indices
// and KiCad numbers differ: GND = net 1 = index 0, SIG = net 3 = index 1,
// VCC = net 2 = index 2.

const std::string kKicad6 = R"((kicad_pcb (version 20211014) (generator pcbnew)

  (general
    (thickness 1.6)
  )

  (paper "A4")
  (layers
    (0 "F.Cu" signal)
    (31 "B.Cu" signal)
    (36 "B.SilkS" user "B.Silkscreen")
    (37 "F.SilkS" user "F.Silkscreen")
    (44 "Edge.Cuts" user)
  )

  (setup
    (pad_to_mask_clearance 0)
  )

  (net 0 "")
  (net 1 "GND")
  (net 3 "SIG")
  (net 2 "VCC")

  (footprint "Lib:R" (layer "F.Cu")
    (tedit 5F0C7995) (tstamp 0b1d3c34-1111-4a3e-9a61-4c7f2d0b9e01)
    (at 20 30 90)
    (fp_text reference "R1" (at 0 0 90) (layer "F.SilkS")
      (effects (font (size 1 1) (thickness 0.15)))
      (tstamp 0b1d3c34-1111-4a3e-9a61-4c7f2d0b9e02)
    )
    (pad "1" thru_hole circle (at 0 -1.27 90) (size 1.6 1.6) (drill 0.8) (layers *.Cu *.Mask)
      (net 1 "GND") (tstamp 0b1d3c34-1111-4a3e-9a61-4c7f2d0b9e03))
    (pad "2" thru_hole circle (at 0 1.27 90) (size 1.6 1.6) (drill 0.8) (layers *.Cu *.Mask)
      (net 3 "SIG") (tstamp 0b1d3c34-1111-4a3e-9a61-4c7f2d0b9e04))
  )

  (footprint "Lib:C" (layer "B.Cu")
    (tedit 5F0C7996) (tstamp 0b1d3c34-2222-4a3e-9a61-4c7f2d0b9e05)
    (at 40 12.5 180)
    (fp_text reference "C1" (at 0 0 180) (layer "B.SilkS")
      (effects (font (size 1 1) (thickness 0.15)) (justify mirror))
      (tstamp 0b1d3c34-2222-4a3e-9a61-4c7f2d0b9e06)
    )
    (pad "1" smd rect (at -1 0 180) (size 1.2 1.4) (layers "B.Cu" "B.Mask")
      (net 2 "VCC") (tstamp 0b1d3c34-2222-4a3e-9a61-4c7f2d0b9e07))
    (pad "2" smd rect (at 1 0 180) (size 1.2 1.4) (layers "B.Cu" "B.Mask")
      (net 3 "SIG") (tstamp 0b1d3c34-2222-4a3e-9a61-4c7f2d0b9e08))
  )

  (gr_line (start 0 0) (end 60 0) (layer "Edge.Cuts") (width 0.1) (tstamp 0b1d3c34-3333-4a3e-9a61-4c7f2d0b9e09))
  (gr_line (start 60 0) (end 60 40) (layer "Edge.Cuts") (width 0.1) (tstamp 0b1d3c34-3333-4a3e-9a61-4c7f2d0b9e0a))
  (gr_line (start 60 40) (end 0 40) (layer "Edge.Cuts") (width 0.1) (tstamp 0b1d3c34-3333-4a3e-9a61-4c7f2d0b9e0b))
  (gr_line (start 0 40) (end 0 0) (layer "Edge.Cuts") (width 0.1) (tstamp 0b1d3c34-3333-4a3e-9a61-4c7f2d0b9e0c))

  (segment (start 20 31.27) (end 39 31.27) (width 0.25) (layer "B.Cu") (net 3) (tstamp 0b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0d))
  (via (at 39 31.27) (size 0.8) (drill 0.4) (layers "F.Cu" "B.Cu") (net 3) (tstamp 0b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0e))

)
)";

const std::string kKicad7 = R"((kicad_pcb (version 20221018) (generator pcbnew)

  (general
    (thickness 1.6)
  )

  (paper "A4")
  (layers
    (0 "F.Cu" signal)
    (31 "B.Cu" signal)
    (36 "B.SilkS" user "B.Silkscreen")
    (37 "F.SilkS" user "F.Silkscreen")
    (44 "Edge.Cuts" user)
  )

  (setup
    (pad_to_mask_clearance 0)
  )

  (net 0 "")
  (net 1 "GND")
  (net 3 "SIG")
  (net 2 "VCC")

  (footprint "Lib:R" (layer "F.Cu")
    (tstamp 1b1d3c34-1111-4a3e-9a61-4c7f2d0b9e01)
    (at 20 30 90)
    (fp_text reference "R1" (at 0 0 90) (layer "F.SilkS")
        (effects (font (size 1 1) (thickness 0.15)))
      (tstamp 1b1d3c34-1111-4a3e-9a61-4c7f2d0b9e02)
    )
    (pad "1" thru_hole circle (at 0 -1.27 90) (size 1.6 1.6) (drill 0.8) (layers "*.Cu" "*.Mask")
      (net 1 "GND") (tstamp 1b1d3c34-1111-4a3e-9a61-4c7f2d0b9e03))
    (pad "2" thru_hole circle (at 0 1.27 90) (size 1.6 1.6) (drill 0.8) (layers "*.Cu" "*.Mask")
      (net 3 "SIG") (tstamp 1b1d3c34-1111-4a3e-9a61-4c7f2d0b9e04))
  )

  (footprint "Lib:C" (layer "B.Cu")
    (tstamp 1b1d3c34-2222-4a3e-9a61-4c7f2d0b9e05)
    (at 40 12.5 180)
    (fp_text reference "C1" (at 0 0 180) (layer "B.SilkS")
        (effects (font (size 1 1) (thickness 0.15)) (justify mirror))
      (tstamp 1b1d3c34-2222-4a3e-9a61-4c7f2d0b9e06)
    )
    (pad "1" smd rect (at -1 0 180) (size 1.2 1.4) (layers "B.Cu" "B.Mask")
      (net 2 "VCC") (tstamp 1b1d3c34-2222-4a3e-9a61-4c7f2d0b9e07))
    (pad "2" smd rect (at 1 0 180) (size 1.2 1.4) (layers "B.Cu" "B.Mask")
      (net 3 "SIG") (tstamp 1b1d3c34-2222-4a3e-9a61-4c7f2d0b9e08))
  )

  (gr_rect (start 0 0) (end 60 40)
    (stroke (width 0.1) (type default)) (fill none) (layer "Edge.Cuts") (tstamp 1b1d3c34-3333-4a3e-9a61-4c7f2d0b9e09))

  (segment (start 20 31.27) (end 39 31.27) (width 0.25) (layer "B.Cu") (net 3) (tstamp 1b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0d))
  (via (at 39 31.27) (size 0.8) (drill 0.4) (layers "F.Cu" "B.Cu") (net 3) (tstamp 1b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0e))

)
)";

const std::string kKicad8 =
    "(kicad_pcb\n"
    "\t(version 20240108)\n"
    "\t(generator \"pcbnew\")\n"
    "\t(generator_version \"8.0\")\n"
    "\t(general\n"
    "\t\t(thickness 1.6)\n"
    "\t\t(legacy_teardrops no)\n"
    "\t)\n"
    "\t(paper \"A4\")\n"
    "\t(layers\n"
    "\t\t(0 \"F.Cu\" signal)\n"
    "\t\t(31 \"B.Cu\" signal)\n"
    "\t\t(36 \"B.SilkS\" user \"B.Silkscreen\")\n"
    "\t\t(37 \"F.SilkS\" user \"F.Silkscreen\")\n"
    "\t\t(44 \"Edge.Cuts\" user)\n"
    "\t)\n"
    "\t(setup\n"
    "\t\t(pad_to_mask_clearance 0)\n"
    "\t\t(allow_soldermask_bridges_in_footprints no)\n"
    "\t)\n"
    "\t(net 0 \"\")\n"
    "\t(net 1 \"GND\")\n"
    "\t(net 3 \"SIG\")\n"
    "\t(net 2 \"VCC\")\n"
    "\t(footprint \"Lib:R\"\n"
    "\t\t(layer \"F.Cu\")\n"
    "\t\t(uuid \"2b1d3c34-1111-4a3e-9a61-4c7f2d0b9e01\")\n"
    "\t\t(at 20 30 90)\n"
    "\t\t(property \"Reference\" \"R1\"\n"
    "\t\t\t(at 0 0 90)\n"
    "\t\t\t(layer \"F.SilkS\")\n"
    "\t\t\t(uuid \"2b1d3c34-1111-4a3e-9a61-4c7f2d0b9e02\")\n"
    "\t\t\t(effects\n"
    "\t\t\t\t(font\n"
    "\t\t\t\t\t(size 1 1)\n"
    "\t\t\t\t\t(thickness 0.15)\n"
    "\t\t\t\t)\n"
    "\t\t\t)\n"
    "\t\t)\n"
    "\t\t(pad \"1\" thru_hole circle\n"
    "\t\t\t(at 0 -1.27 90)\n"
    "\t\t\t(size 1.6 1.6)\n"
    "\t\t\t(drill 0.8)\n"
    "\t\t\t(layers \"*.Cu\" \"*.Mask\")\n"
    "\t\t\t(net 1 \"GND\")\n"
    "\t\t\t(uuid \"2b1d3c34-1111-4a3e-9a61-4c7f2d0b9e03\")\n"
    "\t\t)\n"
    "\t\t(pad \"2\" thru_hole circle\n"
    "\t\t\t(at 0 1.27 90)\n"
    "\t\t\t(size 1.6 1.6)\n"
    "\t\t\t(drill 0.8)\n"
    "\t\t\t(layers \"*.Cu\" \"*.Mask\")\n"
    "\t\t\t(net 3 \"SIG\")\n"
    "\t\t\t(uuid \"2b1d3c34-1111-4a3e-9a61-4c7f2d0b9e04\")\n"
    "\t\t)\n"
    "\t)\n"
    "\t(footprint \"Lib:C\"\n"
    "\t\t(layer \"B.Cu\")\n"
    "\t\t(uuid \"2b1d3c34-2222-4a3e-9a61-4c7f2d0b9e05\")\n"
    "\t\t(at 40 12.5 180)\n"
    "\t\t(property \"Reference\" \"C1\"\n"
    "\t\t\t(at 0 0 180)\n"
    "\t\t\t(layer \"B.SilkS\")\n"
    "\t\t\t(uuid \"2b1d3c34-2222-4a3e-9a61-4c7f2d0b9e06\")\n"
    "\t\t)\n"
    "\t\t(pad \"1\" smd rect\n"
    "\t\t\t(at -1 0 180)\n"
    "\t\t\t(size 1.2 1.4)\n"
    "\t\t\t(layers \"B.Cu\" \"B.Mask\")\n"
    "\t\t\t(net 2 \"VCC\")\n"
    "\t\t\t(uuid \"2b1d3c34-2222-4a3e-9a61-4c7f2d0b9e07\")\n"
    "\t\t)\n"
    "\t\t(pad \"2\" smd rect\n"
    "\t\t\t(at 1 0 180)\n"
    "\t\t\t(size 1.2 1.4)\n"
    "\t\t\t(layers \"B.Cu\" \"B.Mask\")\n"
    "\t\t\t(net 3 \"SIG\")\n"
    "\t\t\t(uuid \"2b1d3c34-2222-4a3e-9a61-4c7f2d0b9e08\")\n"
    "\t\t)\n"
    "\t)\n"
    "\t(gr_rect\n"
    "\t\t(start 0 0)\n"
    "\t\t(end 60 40)\n"
    "\t\t(stroke\n"
    "\t\t\t(width 0.1)\n"
    "\t\t\t(type default)\n"
    "\t\t)\n"
    "\t\t(fill none)\n"
    "\t\t(layer \"Edge.Cuts\")\n"
    "\t\t(uuid \"2b1d3c34-3333-4a3e-9a61-4c7f2d0b9e09\")\n"
    "\t)\n"
    "\t(segment\n"
    "\t\t(start 20 31.27)\n"
    "\t\t(end 39 31.27)\n"
    "\t\t(width 0.25)\n"
    "\t\t(layer \"B.Cu\")\n"
    "\t\t(net 3)\n"
    "\t\t(uuid \"2b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0d\")\n"
    "\t)\n"
    "\t(via\n"
    "\t\t(at 39 31.27)\n"
    "\t\t(size 0.8)\n"
    "\t\t(drill 0.4)\n"
    "\t\t(layers \"F.Cu\" \"B.Cu\")\n"
    "\t\t(net 3)\n"
    "\t\t(uuid \"2b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0e\")\n"
    "\t)\n"
    ")\n";

// KiCad 9: four copper layers, numbered F.Cu 0, B.Cu 2, In1.Cu 4, In2.Cu 6.
const std::string kKicad9 =
    "(kicad_pcb\n"
    "\t(version 20241229)\n"
    "\t(generator \"pcbnew\")\n"
    "\t(generator_version \"9.0\")\n"
    "\t(general\n"
    "\t\t(thickness 1.6)\n"
    "\t\t(legacy_teardrops no)\n"
    "\t)\n"
    "\t(paper \"A4\")\n"
    "\t(layers\n"
    "\t\t(0 \"F.Cu\" signal)\n"
    "\t\t(4 \"In1.Cu\" power \"GND plane\")\n"
    "\t\t(6 \"In2.Cu\" signal)\n"
    "\t\t(2 \"B.Cu\" signal)\n"
    "\t\t(5 \"F.SilkS\" user \"F.Silkscreen\")\n"
    "\t\t(7 \"B.SilkS\" user \"B.Silkscreen\")\n"
    "\t\t(25 \"Edge.Cuts\" user)\n"
    "\t)\n"
    "\t(setup\n"
    "\t\t(pad_to_mask_clearance 0)\n"
    "\t)\n"
    "\t(net 0 \"\")\n"
    "\t(net 1 \"GND\")\n"
    "\t(net 3 \"SIG\")\n"
    "\t(net 2 \"VCC\")\n"
    "\t(footprint \"Lib:R\"\n"
    "\t\t(layer \"F.Cu\")\n"
    "\t\t(uuid \"3b1d3c34-1111-4a3e-9a61-4c7f2d0b9e01\")\n"
    "\t\t(at 20 30 90)\n"
    "\t\t(property \"Reference\" \"R1\"\n"
    "\t\t\t(at 0 0 90)\n"
    "\t\t\t(layer \"F.SilkS\")\n"
    "\t\t\t(uuid \"3b1d3c34-1111-4a3e-9a61-4c7f2d0b9e02\")\n"
    "\t\t)\n"
    "\t\t(pad \"1\" thru_hole circle\n"
    "\t\t\t(at 0 -1.27 90)\n"
    "\t\t\t(size 1.6 1.6)\n"
    "\t\t\t(drill 0.8)\n"
    "\t\t\t(layers \"*.Cu\" \"*.Mask\")\n"
    "\t\t\t(remove_unused_layers no)\n"
    "\t\t\t(net 1 \"GND\")\n"
    "\t\t\t(uuid \"3b1d3c34-1111-4a3e-9a61-4c7f2d0b9e03\")\n"
    "\t\t)\n"
    "\t\t(pad \"2\" thru_hole circle\n"
    "\t\t\t(at 0 1.27 90)\n"
    "\t\t\t(size 1.6 1.6)\n"
    "\t\t\t(drill 0.8)\n"
    "\t\t\t(layers \"*.Cu\" \"*.Mask\")\n"
    "\t\t\t(remove_unused_layers no)\n"
    "\t\t\t(net 3 \"SIG\")\n"
    "\t\t\t(uuid \"3b1d3c34-1111-4a3e-9a61-4c7f2d0b9e04\")\n"
    "\t\t)\n"
    "\t)\n"
    "\t(footprint \"Lib:C\"\n"
    "\t\t(layer \"B.Cu\")\n"
    "\t\t(uuid \"3b1d3c34-2222-4a3e-9a61-4c7f2d0b9e05\")\n"
    "\t\t(at 40 12.5 180)\n"
    "\t\t(property \"Reference\" \"C1\"\n"
    "\t\t\t(at 0 0 180)\n"
    "\t\t\t(layer \"B.SilkS\")\n"
    "\t\t\t(uuid \"3b1d3c34-2222-4a3e-9a61-4c7f2d0b9e06\")\n"
    "\t\t)\n"
    "\t\t(pad \"1\" smd rect\n"
    "\t\t\t(at -1 0 180)\n"
    "\t\t\t(size 1.2 1.4)\n"
    "\t\t\t(layers \"B.Cu\" \"B.Mask\")\n"
    "\t\t\t(net 2 \"VCC\")\n"
    "\t\t\t(uuid \"3b1d3c34-2222-4a3e-9a61-4c7f2d0b9e07\")\n"
    "\t\t)\n"
    "\t\t(pad \"2\" smd rect\n"
    "\t\t\t(at 1 0 180)\n"
    "\t\t\t(size 1.2 1.4)\n"
    "\t\t\t(layers \"B.Cu\" \"B.Mask\")\n"
    "\t\t\t(net 3 \"SIG\")\n"
    "\t\t\t(uuid \"3b1d3c34-2222-4a3e-9a61-4c7f2d0b9e08\")\n"
    "\t\t)\n"
    "\t)\n"
    "\t(gr_rect\n"
    "\t\t(start 0 0)\n"
    "\t\t(end 60 40)\n"
    "\t\t(stroke\n"
    "\t\t\t(width 0.1)\n"
    "\t\t\t(type default)\n"
    "\t\t)\n"
    "\t\t(fill no)\n"
    "\t\t(layer \"Edge.Cuts\")\n"
    "\t\t(uuid \"3b1d3c34-3333-4a3e-9a61-4c7f2d0b9e09\")\n"
    "\t)\n"
    "\t(segment\n"
    "\t\t(start 20 31.27)\n"
    "\t\t(end 39 31.27)\n"
    "\t\t(width 0.25)\n"
    "\t\t(layer \"In2.Cu\")\n"
    "\t\t(net 3)\n"
    "\t\t(uuid \"3b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0d\")\n"
    "\t)\n"
    "\t(via\n"
    "\t\t(at 39 31.27)\n"
    "\t\t(size 0.8)\n"
    "\t\t(drill 0.4)\n"
    "\t\t(layers \"F.Cu\" \"B.Cu\")\n"
    "\t\t(net 3)\n"
    "\t\t(uuid \"3b1d3c34-4444-4a3e-9a61-4c7f2d0b9e0e\")\n"
    "\t)\n"
    "\t(embedded_fonts no)\n"
    ")\n";

struct FormatCase {
  const char* kicad;
  const std::string* text;
  bool normalized;  // KiCad 8 and later: (uuid "..."), tab-indented lists
};

void PrintTo(const FormatCase& format, std::ostream* out) { *out << format.kicad; }

const std::vector<FormatCase>& format_cases() {
  static const std::vector<FormatCase> cases = {
      {"KiCad6", &kKicad6, false}, {"KiCad7", &kKicad7, false}, {"KiCad8", &kKicad8, true}, {"KiCad9", &kKicad9, true}};
  return cases;
}

// ----------------------------------------------------------- comparisons

Shape path(Coord width, std::vector<Point> points) { return Shape{ShapeKind::path, width, std::move(points)}; }

void expect_same_shape(const Shape& a, const Shape& b, const std::string& what) {
  EXPECT_EQ(a.kind, b.kind) << what;
  EXPECT_EQ(a.width, b.width) << what;
  EXPECT_EQ(a.points, b.points) << what;
}

const std::string& padstack_name(const Board& board, int padstack) {
  return board.padstacks.at(static_cast<std::size_t>(padstack)).name;
}

// Everything the reader takes from a board apart from its tracks and vias.
void expect_same_apart_from_copper(const Board& before, const Board& after) {
  ASSERT_EQ(before.layers.size(), after.layers.size());
  for (std::size_t i = 0; i < before.layers.size(); ++i) {
    EXPECT_EQ(before.layers[i].name, after.layers[i].name);
    EXPECT_EQ(before.layers[i].type, after.layers[i].type);
    EXPECT_EQ(before.layers[i].index, after.layers[i].index);
  }
  ASSERT_EQ(before.boundary.size(), after.boundary.size());
  for (std::size_t i = 0; i < before.boundary.size(); ++i)
    expect_same_shape(before.boundary[i], after.boundary[i], "outline");
  ASSERT_EQ(before.keepouts.size(), after.keepouts.size());
  for (std::size_t i = 0; i < before.keepouts.size(); ++i) {
    EXPECT_EQ(before.keepouts[i].kind, after.keepouts[i].kind);
    EXPECT_EQ(before.keepouts[i].layer, after.keepouts[i].layer);
    expect_same_shape(before.keepouts[i].shape, after.keepouts[i].shape, "keepout");
  }
  ASSERT_EQ(before.planes.size(), after.planes.size());
  for (std::size_t i = 0; i < before.planes.size(); ++i) {
    EXPECT_EQ(before.planes[i].net, after.planes[i].net);
    EXPECT_EQ(before.planes[i].layer, after.planes[i].layer);
    expect_same_shape(before.planes[i].shape, after.planes[i].shape, "plane");
  }
  ASSERT_EQ(before.components.size(), after.components.size());
  for (std::size_t i = 0; i < before.components.size(); ++i) {
    const Component& a = before.components[i];
    const Component& b = after.components[i];
    EXPECT_EQ(a.reference, b.reference);
    EXPECT_EQ(a.image, b.image) << a.reference;
    EXPECT_EQ(a.position, b.position) << a.reference;
    EXPECT_EQ(a.side, b.side) << a.reference;
    EXPECT_EQ(a.rotation, b.rotation) << a.reference;
  }
  ASSERT_EQ(before.images.size(), after.images.size());
  for (std::size_t i = 0; i < before.images.size(); ++i) {
    const Image& a = before.images[i];
    const Image& b = after.images[i];
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.pins.size(), b.pins.size()) << a.name;
    for (std::size_t p = 0; p < a.pins.size(); ++p) {
      EXPECT_EQ(a.pins[p].name, b.pins[p].name) << a.name;
      EXPECT_EQ(a.pins[p].offset, b.pins[p].offset) << a.name;
      EXPECT_EQ(a.pins[p].rotation, b.pins[p].rotation) << a.name;
      EXPECT_EQ(padstack_name(before, a.pins[p].padstack), padstack_name(after, b.pins[p].padstack)) << a.name;
    }
    EXPECT_EQ(a.keepouts.size(), b.keepouts.size()) << a.name;
  }
  // Pads in board coordinates, shape by shape.
  const std::vector<PinCopper> pads_before = pin_copper(before);
  const std::vector<PinCopper> pads_after = pin_copper(after);
  ASSERT_EQ(pads_before.size(), pads_after.size());
  for (std::size_t i = 0; i < pads_before.size(); ++i) {
    EXPECT_EQ(pads_before[i].pin, pads_after[i].pin);
    EXPECT_EQ(pads_before[i].layer, pads_after[i].layer);
    EXPECT_EQ(pads_before[i].net, pads_after[i].net);
    expect_same_shape(pads_before[i].shape, pads_after[i].shape, pin_name(before, pads_before[i].pin));
  }
  ASSERT_EQ(before.nets.size(), after.nets.size());
  for (std::size_t i = 0; i < before.nets.size(); ++i) {
    EXPECT_EQ(before.nets[i].name, after.nets[i].name);
    EXPECT_EQ(before.nets[i].pins, after.nets[i].pins) << before.nets[i].name;
  }
  ASSERT_EQ(before.classes.size(), after.classes.size());
  for (std::size_t i = 0; i < before.classes.size(); ++i) {
    EXPECT_EQ(before.classes[i].name, after.classes[i].name);
    EXPECT_EQ(before.classes[i].nets, after.classes[i].nets);
    EXPECT_EQ(before.classes[i].rules.width, after.classes[i].rules.width);
    EXPECT_EQ(before.classes[i].rules.clearance, after.classes[i].rules.clearance);
  }
  EXPECT_EQ(before.rules.width, after.rules.width);
  EXPECT_EQ(before.rules.clearance, after.rules.clearance);
  ASSERT_EQ(before.via_padstacks.size(), after.via_padstacks.size());
  for (std::size_t i = 0; i < before.via_padstacks.size(); ++i) {
    EXPECT_EQ(padstack_name(before, before.via_padstacks[i]), padstack_name(after, after.via_padstacks[i]));
  }
  EXPECT_EQ(before.warnings.size(), after.warnings.size());
}

// The two-point wires a path wire becomes: one per pair of successive
// distinct points, a dot as one zero-length segment.
std::vector<Wire> as_segments(const RoutedCopper& routed) {
  std::vector<Wire> segments;
  for (const Wire& wire : routed.wires) {
    Point from = wire.shape.points.front();
    const std::size_t first = segments.size();
    for (const Point& to : wire.shape.points) {
      if (to == from) continue;
      segments.push_back({wire.layer, path(wire.shape.width, {from, to}), wire.net, WiringType::normal});
      from = to;
    }
    if (segments.size() == first)
      segments.push_back({wire.layer, path(wire.shape.width, {from, from}), wire.net, WiringType::normal});
  }
  return segments;
}

// `after` holds `before`'s wires and vias, then exactly the routed copper.
void expect_added_copper(const Board& before, const RoutedCopper& routed, const Board& after) {
  const std::vector<Wire> added = as_segments(routed);
  ASSERT_EQ(after.wires.size(), before.wires.size() + added.size());
  for (std::size_t i = 0; i < after.wires.size(); ++i) {
    const Wire& expected = i < before.wires.size() ? before.wires[i] : added[i - before.wires.size()];
    const Wire& got = after.wires[i];
    EXPECT_EQ(got.layer, expected.layer) << "wire " << i;
    EXPECT_EQ(got.net, expected.net) << "wire " << i;
    EXPECT_EQ(got.type, expected.type) << "wire " << i;
    expect_same_shape(got.shape, expected.shape, "wire " + std::to_string(i));
  }
  ASSERT_EQ(after.vias.size(), before.vias.size() + routed.vias.size());
  for (std::size_t i = 0; i < after.vias.size(); ++i) {
    const bool old = i < before.vias.size();
    const Via& expected = old ? before.vias[i] : routed.vias[i - before.vias.size()];
    const Via& got = after.vias[i];
    EXPECT_EQ(got.position, expected.position) << "via " << i;
    EXPECT_EQ(got.net, expected.net) << "via " << i;
    EXPECT_EQ(got.type, old ? expected.type : WiringType::normal) << "via " << i;
    // The padstack read back (its name holds the size, drill and layers
    // written) is the one the via had on the board before.
    const Padstack& want = before.padstacks.at(static_cast<std::size_t>(expected.padstack));
    const Padstack& have = after.padstacks.at(static_cast<std::size_t>(got.padstack));
    EXPECT_EQ(have.name, want.name) << "via " << i;
    ASSERT_EQ(have.shapes.size(), want.shapes.size()) << "via " << i;
    for (std::size_t s = 0; s < have.shapes.size(); ++s) {
      EXPECT_EQ(have.shapes[s].layer, want.shapes[s].layer) << "via " << i;
      expect_same_shape(have.shapes[s].shape, want.shapes[s].shape, "via " + std::to_string(i));
    }
  }
}

// The text without the lines of its (filled_polygon ...) lists, which
// KiCad writes on lines of their own.
std::string without_fill_lines(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  int depth = 0;
  while (std::getline(in, line)) {
    if (depth == 0 && line.find_first_not_of(" \t") != std::string::npos &&
        line.compare(line.find_first_not_of(" \t"), 15, "(filled_polygon") == 0) {
      depth = 0;
      for (const char c : line) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      continue;
    }
    if (depth > 0) {
      for (const char c : line) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      continue;
    }
    out += line;
    if (!in.eof()) out += '\n';
  }
  return out;
}

// The output is the input, less its zone fills, with one block inserted:
// returns the block.
std::string inserted_block(const std::string& original, const std::string& output) {
  const std::string input = without_fill_lines(original);
  EXPECT_GT(output.size(), input.size());
  std::size_t prefix = 0;
  while (prefix < input.size() && input[prefix] == output[prefix]) ++prefix;
  const std::size_t block = output.size() - input.size();
  EXPECT_EQ(output.substr(prefix + block), input.substr(prefix)) << "the text after the added items changed";
  // Everything up to the line of the board's final ')' is kept as it was.
  const std::size_t last_line = input.rfind('\n', input.find_last_of(')'));
  EXPECT_GE(prefix, last_line == std::string::npos ? 0 : last_line + 1);
  return output.substr(prefix, block);
}

std::vector<std::string> uuids_in(const std::string& text) {
  static const std::regex pattern("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
    found.push_back(it->str());
  }
  return found;
}

// Wires on the front and back layers (and an inner one when there is one),
// multi-segment, with coordinates off every round millimetre; vias of the
// board's default padstack.
RoutedCopper hand_routes(const Board& board) {
  const int back = static_cast<int>(board.layers.size()) - 1;
  RoutedCopper routed;
  routed.wires.push_back(
      {0,
       path(250'000,
            {{10'000'001, -5'000'000}, {12'345'678, -5'000'000}, {12'345'678, -20'500'000}, {30'000'000, -20'500'000}}),
       0, WiringType::normal});
  // A repeated point adds no segment.
  routed.wires.push_back({back,
                          path(300'000, {{40'000'000, -10'000'000},
                                         {40'000'000, -10'000'000},
                                         {45'500'000, -15'250'000},
                                         {50'000'000, -15'250'000}}),
                          1, WiringType::normal});
  routed.wires.push_back(
      {back, path(200'000, {{1'000'000, -39'000'000}, {59'000'000, -39'000'000}}), -1, WiringType::protect});
  routed.wires.push_back({0, path(123'457, {{-1, 3}, {987'654'321, -7}}), 2, WiringType::normal});
  if (back > 1)
    routed.wires.push_back(
        {1, path(250'000, {{5'000'000, -5'000'000}, {5'000'000, -35'000'000}}), 2, WiringType::normal});
  const int via = board.via_padstacks.at(0);
  routed.vias.push_back({via, {12'345'678, -20'500'000}, 2, WiringType::normal});
  routed.vias.push_back({via, {33'300'000, -7'000'007}, -1, WiringType::normal});
  return routed;
}

// ------------------------------------------------ every format version

class KicadWriterFormats : public ::testing::TestWithParam<FormatCase> {};

TEST_P(KicadWriterFormats, RoundTripAddsExactlyTheRoutedCopper) {
  const FormatCase& format = GetParam();
  const std::string& input = *format.text;
  const Board before = read_kicad_pcb(input, "hand.kicad_pcb");
  ASSERT_EQ(before.nets.size(), 3u);
  ASSERT_EQ(before.components.size(), 2u);
  ASSERT_EQ(before.wires.size(), 1u);
  ASSERT_EQ(before.vias.size(), 1u);
  const RoutedCopper routed = hand_routes(before);

  const std::string output = routed_kicad_pcb(input, "hand.kicad_pcb", before, routed);
  const Board after = read_kicad_pcb(output, "hand.kicad_pcb");
  expect_same_apart_from_copper(before, after);
  expect_added_copper(before, routed, after);
  EXPECT_EQ(output, routed_kicad_pcb(input, "hand.kicad_pcb", before, routed)) << "not reproducible";

  const std::string block = inserted_block(input, output);
  // The input's final ")\n" stands alone on its line: the items go before it.
  EXPECT_TRUE(output.ends_with(")\n"));
  const std::size_t segments = as_segments(routed).size();
  const std::vector<std::string> uuids = uuids_in(block);
  ASSERT_EQ(uuids.size(), segments + routed.vias.size());
  EXPECT_EQ(std::set<std::string>(uuids.begin(), uuids.end()).size(), uuids.size()) << "UUIDs repeat";
  static const std::regex version4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  for (const std::string& uuid : uuids) {
    EXPECT_TRUE(std::regex_match(uuid, version4)) << uuid;
    EXPECT_EQ(input.find(uuid), std::string::npos) << uuid;
  }

  // The form KiCad writes for this version; the net numbers are KiCad's
  // (SIG, the second net, is net 3; no net is net 0).
  if (format.normalized) {
    EXPECT_EQ(block.find("(tstamp"), std::string::npos);
    EXPECT_TRUE(
        block.starts_with("\t(segment\n\t\t(start 10.000001 5)\n\t\t(end 12.345678 5)\n\t\t(width 0.25)\n"
                          "\t\t(layer \"F.Cu\")\n\t\t(net 1)\n\t\t(uuid \"" +
                          uuids[0] + "\")\n\t)\n"))
        << block;
    EXPECT_NE(block.find("\t(segment\n\t\t(start 40 10)\n\t\t(end 45.5 15.25)\n\t\t(width 0.3)\n\t\t(layer \"B.Cu\")\n"
                         "\t\t(net 3)\n"),
              std::string::npos)
        << block;
    EXPECT_NE(block.find("\t(via\n\t\t(at 12.345678 20.5)\n\t\t(size 0.8)\n\t\t(drill 0.4)\n"
                         "\t\t(layers \"F.Cu\" \"B.Cu\")\n\t\t(net 2)\n\t\t(uuid \""),
              std::string::npos)
        << block;
  } else {
    EXPECT_EQ(block.find("(uuid"), std::string::npos);
    EXPECT_TRUE(
        block.starts_with("  (segment (start 10.000001 5) (end 12.345678 5) (width 0.25) (layer \"F.Cu\") "
                          "(net 1) (tstamp " +
                          uuids[0] + "))\n"))
        << block;
    EXPECT_NE(block.find("  (segment (start 40 10) (end 45.5 15.25) (width 0.3) (layer \"B.Cu\") (net 3) (tstamp "),
              std::string::npos)
        << block;
    EXPECT_NE(
        block.find("  (via (at 12.345678 20.5) (size 0.8) (drill 0.4) (layers \"F.Cu\" \"B.Cu\") (net 2) (tstamp "),
        std::string::npos)
        << block;
    std::istringstream lines(block);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
      EXPECT_TRUE(line.starts_with("  (segment ") || line.starts_with("  (via ")) << line;
    }
    EXPECT_EQ(count, segments + routed.vias.size());
  }
  // Exact to the nanometre, signs included, no "-0".
  EXPECT_NE(block.find("(start -0.000001 -0.000003)"), std::string::npos) << block;
  EXPECT_NE(block.find("(end 987.654321 0.000007)"), std::string::npos) << block;
  EXPECT_NE(block.find("(width 0.123457)"), std::string::npos) << block;
  EXPECT_NE(block.find("33.3 7.000007"), std::string::npos) << block;
  EXPECT_EQ(block.find("-0 "), std::string::npos) << block;
  EXPECT_NE(block.find("(net 0)"), std::string::npos) << "no net is net 0";
}

TEST_P(KicadWriterFormats, NothingToAddLeavesTheTextAsItWas) {
  const std::string& input = *GetParam().text;
  const Board board = read_kicad_pcb(input, "hand.kicad_pcb");
  EXPECT_EQ(routed_kicad_pcb(input, "hand.kicad_pcb", board, {}), input);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, KicadWriterFormats, ::testing::ValuesIn(format_cases()),
                         [](const ::testing::TestParamInfo<FormatCase>& format) {
                           return std::string(format.param.kicad);
                         });

// ------------------------------------------------------------ details

TEST(KicadWriter, BlindViasAndInnerLayers) {
  const Board before = read_kicad_pcb(kKicad9, "four.kicad_pcb");
  ASSERT_EQ(before.layers.size(), 4u);
  Board board = before;
  // A buried via between the inner layers, and one from the front to In2.
  const auto via_padstack = [&](std::string name, int first, int last, Coord diameter) {
    Padstack padstack{std::move(name), {}, true};
    for (int layer = first; layer <= last; ++layer)
      padstack.shapes.push_back({layer, {ShapeKind::circle, diameter, {{0, 0}}}});
    board.padstacks.push_back(padstack);
    return static_cast<int>(board.padstacks.size()) - 1;
  };
  const int buried = via_padstack("Via[1-2]_600:300_um", 1, 2, 600'000);
  const int blind = via_padstack("Via[0-2]_450.5:200.2_um", 0, 2, 450'500);
  RoutedCopper routed;
  routed.wires.push_back(
      {2, path(200'000, {{10'000'000, -10'000'000}, {20'000'000, -10'000'000}}), 1, WiringType::normal});
  routed.vias.push_back({buried, {10'000'000, -10'000'000}, 1, WiringType::normal});
  routed.vias.push_back({blind, {20'000'000, -10'000'000}, 1, WiringType::normal});
  const std::string output = routed_kicad_pcb(kKicad9, "four.kicad_pcb", board, routed);
  const std::string block = inserted_block(kKicad9, output);
  EXPECT_NE(
      block.find("\t(via blind\n\t\t(at 10 10)\n\t\t(size 0.6)\n\t\t(drill 0.3)\n\t\t(layers \"In1.Cu\" \"In2.Cu\")\n"),
      std::string::npos)
      << block;
  EXPECT_NE(
      block.find(
          "\t(via blind\n\t\t(at 20 10)\n\t\t(size 0.4505)\n\t\t(drill 0.2002)\n\t\t(layers \"F.Cu\" \"In2.Cu\")\n"),
      std::string::npos)
      << block;
  EXPECT_NE(block.find("(layer \"In2.Cu\")"), std::string::npos) << block;
  const Board after = read_kicad_pcb(output, "four.kicad_pcb");
  ASSERT_EQ(after.vias.size(), 3u);
  EXPECT_EQ(padstack_name(after, after.vias[1].padstack), "Via[1-2]_600:300_um");
  EXPECT_EQ(padstack_name(after, after.vias[2].padstack), "Via[0-2]_450.5:200.2_um");
  ASSERT_EQ(after.wires.size(), 2u);
  EXPECT_EQ(after.wires[1].layer, 2);
}

TEST(KicadWriter, DrillsOfPadstacksNotNamedByTheReader) {
  const Board before = read_kicad_pcb(kKicad6, "hand.kicad_pcb");
  Board board = before;
  const auto round_via = [&](std::string name, Coord diameter) {
    board.padstacks.push_back(
        {std::move(name),
         {{0, {ShapeKind::circle, diameter, {{0, 0}}}}, {1, {ShapeKind::circle, diameter, {{0, 0}}}}},
         true});
    return static_cast<int>(board.padstacks.size()) - 1;
  };
  // Named otherwise: the Default class's drill (KiCad's 0.4 mm without a
  // project) when it leaves copper, else 60% of the size.
  const int wide = round_via("via_1mm", 1'000'000);
  const int narrow = round_via("via_small", 300'000);
  // Named by the reader but with a drill as wide as the via: the same fallbacks.
  const int drilled_through = round_via("Via[0-1]_500:500_um", 500'000);
  RoutedCopper routed;
  routed.vias.push_back({wide, {1'000'000, -1'000'000}, 0, WiringType::normal});
  routed.vias.push_back({narrow, {2'000'000, -1'000'000}, 0, WiringType::normal});
  routed.vias.push_back({drilled_through, {3'000'000, -1'000'000}, 0, WiringType::normal});
  const std::string output = routed_kicad_pcb(kKicad6, "hand.kicad_pcb", board, routed);
  const std::string block = inserted_block(kKicad6, output);
  EXPECT_NE(block.find("(size 1) (drill 0.4)"), std::string::npos) << block;
  EXPECT_NE(block.find("(size 0.3) (drill 0.18)"), std::string::npos) << block;
  EXPECT_NE(block.find("(size 0.5) (drill 0.4)"), std::string::npos) << block;
  const Board after = read_kicad_pcb(output, "hand.kicad_pcb");
  ASSERT_EQ(after.vias.size(), 4u);
  EXPECT_EQ(padstack_name(after, after.vias[1].padstack), "Via[0-1]_1000:400_um");
  EXPECT_EQ(padstack_name(after, after.vias[2].padstack), "Via[0-1]_300:180_um");

  // A project's Default via drill is used when the padstack's name has none.
  const std::string project =
      R"({"net_settings": {"classes": [{"name": "Default", "via_diameter": 0.9, "via_drill": 0.35}]}})";
  Board with_project = read_kicad_pcb(kKicad6, "hand.kicad_pcb", KicadProject{project, "hand.kicad_pro"});
  with_project.padstacks.push_back(
      {"via_1mm",
       {{0, {ShapeKind::circle, 1'000'000, {{0, 0}}}}, {1, {ShapeKind::circle, 1'000'000, {{0, 0}}}}},
       true});
  RoutedCopper one;
  one.vias.push_back({static_cast<int>(with_project.padstacks.size()) - 1, {0, 0}, -1, WiringType::normal});
  EXPECT_NE(routed_kicad_pcb(kKicad6, "hand.kicad_pcb", with_project, one).find("(at 0 0) (size 1) (drill 0.35)"),
            std::string::npos);
}

TEST(KicadWriter, DotsAndTheInputsLineEndings) {
  // One line, CRLF, the board's ')' right after its last item.
  const std::string input =
      "(kicad_pcb (version 20211014) (generator pcbnew)\r\n"
      "  (layers (0 \"F.Cu\" signal) (31 \"B.Cu\" signal) (44 \"Edge.Cuts\" user))\r\n"
      "  (net 0 \"\") (net 1 \"GND\"))\r\n";
  const Board before = read_kicad_pcb(input, "crlf.kicad_pcb");
  RoutedCopper routed;
  routed.wires.push_back({1, path(100'000, {{5'000'000, -5'000'000}}), 0, WiringType::normal});
  routed.wires.push_back({0, path(100'000, {{7'000'000, -5'000'000}, {7'000'000, -5'000'000}}), 0, WiringType::normal});
  routed.vias.push_back({before.via_padstacks.at(0), {0, 0}, 0, WiringType::normal});
  const std::string output = routed_kicad_pcb(input, "crlf.kicad_pcb", before, routed);
  const std::size_t close = input.find_last_of(')');
  EXPECT_EQ(output.substr(0, close), input.substr(0, close));
  EXPECT_TRUE(
      output.ends_with("\r\n  (via (at 0 0) (size 0.8) (drill 0.4) (layers \"F.Cu\" \"B.Cu\") (net 1) (tstamp " +
                       uuids_in(output).back() + "))\r\n)\r\n"))
      << output;
  EXPECT_NE(output.find("\r\n  (segment (start 5 5) (end 5 5) (width 0.1) (layer \"B.Cu\") (net 1) (tstamp "),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find(")\n"), std::string::npos) << "LF alone in a CRLF file";
  const Board after = read_kicad_pcb(output, "crlf.kicad_pcb");
  expect_same_apart_from_copper(before, after);
  expect_added_copper(before, routed, after);
  ASSERT_EQ(after.wires.size(), 2u);
  EXPECT_EQ(after.wires[0].shape.points, (std::vector<Point>{{5'000'000, -5'000'000}, {5'000'000, -5'000'000}}));
}

// --------------------------------------------------------------- errors

TEST(KicadWriterErrors, RefusesWhatKiCadCannotHold) {
  const Board board = read_kicad_pcb(kKicad6, "hand.kicad_pcb");
  const auto refused = [&](const RoutedCopper& routed, const Board& with = {}) {
    const Board& used = with.layers.empty() ? board : with;
    EXPECT_THROW(routed_kicad_pcb(kKicad6, "hand.kicad_pcb", used, routed), UsageError);
  };
  RoutedCopper polygon;
  polygon.wires.push_back(
      {0, Shape{ShapeKind::polygon, 0, {{0, 0}, {1'000'000, 0}, {0, 1'000'000}}}, 0, WiringType::normal});
  refused(polygon);
  refused({{{0, path(250'000, {}), 0, WiringType::normal}}, {}});                // no points
  refused({{{0, path(0, {{0, 0}, {1, 1}}), 0, WiringType::normal}}, {}});        // no width
  refused({{{2, path(250'000, {{0, 0}, {1, 1}}), 0, WiringType::normal}}, {}});  // no layer 2
  refused({{{0, path(250'000, {{0, 0}, {1, 1}}), 3, WiringType::normal}}, {}});  // no net 3
  refused({{}, {{99, {0, 0}, 0, WiringType::normal}}});                          // no padstack 99
  refused({{}, {{board.via_padstacks[0], {0, 0}, 7, WiringType::normal}}});      // no net 7
  // A via padstack of a rect, or on one layer only.
  Board odd = board;
  odd.padstacks.push_back(
      {"square", {{0, {ShapeKind::rect, 0, {{0, 0}, {1, 1}}}}, {1, {ShapeKind::rect, 0, {{0, 0}, {1, 1}}}}}, true});
  odd.padstacks.push_back({"Via[0-0]_600:300_um", {{0, {ShapeKind::circle, 600'000, {{0, 0}}}}}, true});
  refused({{}, {{static_cast<int>(odd.padstacks.size()) - 2, {0, 0}, 0, WiringType::normal}}}, odd);
  refused({{}, {{static_cast<int>(odd.padstacks.size()) - 1, {0, 0}, 0, WiringType::normal}}}, odd);
  // A board read from another file.
  const Board four = read_kicad_pcb(kKicad9, "four.kicad_pcb");
  EXPECT_THROW(routed_kicad_pcb(kKicad6, "hand.kicad_pcb", four, {}), UsageError);
  Board renamed = board;
  renamed.nets[1].name = "OTHER";
  EXPECT_THROW(routed_kicad_pcb(kKicad6, "hand.kicad_pcb", renamed, {}), UsageError);
  // Input that is not a board.
  EXPECT_THROW(routed_kicad_pcb("(kicad_pcb (version 20211014)", "cut.kicad_pcb", board, {}), InputError);
  EXPECT_THROW(routed_kicad_pcb(kKicad6.substr(0, kKicad6.size() - 3), "cut.kicad_pcb", board, {}), InputError);
}

struct TemporaryFolder {
  fs::path path;
  explicit TemporaryFolder(const std::string& name)
      : path(fs::temp_directory_path() / ("trellis_kicad_writer_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream whole;
  whole << in.rdbuf();
  return std::move(whole).str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(KicadWriterErrors, NeverOverwritesItsInputAndLeavesNothingHalfWritten) {
  const TemporaryFolder folder("overwrite");
  const fs::path input = folder.path / "board.kicad_pcb";
  write_text(input, kKicad6);
  const Board board = read_kicad_pcb(input);
  const RoutedCopper routed = hand_routes(board);
  EXPECT_THROW(write_routed_kicad_pcb(input, board, routed, input), UsageError);
  EXPECT_THROW(write_routed_kicad_pcb(input, board, routed, folder.path / "." / "board.kicad_pcb"), UsageError);
  fs::create_symlink(input, folder.path / "link.kicad_pcb");
  EXPECT_THROW(write_routed_kicad_pcb(input, board, routed, folder.path / "link.kicad_pcb"), UsageError);
  fs::create_hard_link(input, folder.path / "hard.kicad_pcb");
  EXPECT_THROW(write_routed_kicad_pcb(input, board, routed, folder.path / "hard.kicad_pcb"), UsageError);
  EXPECT_EQ(read_text(input), kKicad6);

  // A refused wire: no output, no temporary left behind.
  RoutedCopper polygon;
  polygon.wires.push_back({0, Shape{ShapeKind::polygon, 0, {{0, 0}, {1, 0}, {0, 1}}}, 0, WiringType::normal});
  EXPECT_THROW(write_routed_kicad_pcb(input, board, polygon, folder.path / "out.kicad_pcb"), UsageError);
  EXPECT_FALSE(fs::exists(folder.path / "out.kicad_pcb"));
  EXPECT_THROW(write_routed_kicad_pcb(folder.path / "missing.kicad_pcb", board, routed, folder.path / "out.kicad_pcb"),
               InputError);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path), fs::directory_iterator()), 3);

  // Written: what the string version gives, read back through the path.
  write_routed_kicad_pcb(input, board, routed, folder.path / "out.kicad_pcb");
  EXPECT_EQ(read_text(folder.path / "out.kicad_pcb"), routed_kicad_pcb(kKicad6, input.string(), board, routed));
  expect_added_copper(board, routed, read_kicad_pcb(folder.path / "out.kicad_pcb"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path), fs::directory_iterator()), 4);
}

// ------------------------------------------------------ kicad-demos boards

// Routes between the first two pins of several nets: L-shaped paths on the
// front and back layers (the corner 1 nm off the grid) and a via at each
// corner, as a router's output would look (not checked for clearance).
RoutedCopper demo_routes(const Board& board) {
  RoutedCopper routed;
  const int back = static_cast<int>(board.layers.size()) - 1;
  const Coord width = board.rules.width.value_or(250'000);
  int routed_nets = 0;
  for (std::size_t n = 0; n < board.nets.size() && routed_nets < 12; ++n) {
    const Net& net = board.nets[n];
    if (net.pins.size() < 2) continue;
    const Point a = pin_position(board, net.pins[0]);
    const Point b = pin_position(board, net.pins[1]);
    const Point corner{b.x + 1, a.y - 1};
    const int layer = routed_nets % 2 == 0 ? 0 : back;
    routed.wires.push_back({layer, path(width, {a, corner, b}), static_cast<int>(n), WiringType::normal});
    routed.vias.push_back({board.via_padstacks.at(0), corner, static_cast<int>(n), WiringType::normal});
    ++routed_nets;
  }
  routed.vias.push_back({board.via_padstacks.at(0), {-1, 1}, -1, WiringType::normal});
  return routed;
}

void expect_demo_round_trip(const std::string& relative) {
  const fs::path input = fs::path("/usr/share/kicad/demos") / relative;
  if (!fs::exists(input)) {
    GTEST_SKIP() << input.string() << " is missing (Debian package kicad-demos; scripts/setup installs it)";
  }
  const TemporaryFolder folder(input.stem().string());
  const fs::path output = folder.path / ("routed_" + input.filename().string());
  // The project beside the copy, so that both are read with the same rules.
  fs::path project = input;
  project.replace_extension(".kicad_pro");
  if (fs::exists(project)) {
    fs::path copied = output;
    fs::copy_file(project, copied.replace_extension(".kicad_pro"));
  }
  const Board before = read_kicad_pcb(input);
  const RoutedCopper routed = demo_routes(before);
  ASSERT_GE(routed.wires.size(), 6u);
  write_routed_kicad_pcb(input, before, routed, output);
  const Board after = read_kicad_pcb(output);
  expect_same_apart_from_copper(before, after);
  expect_added_copper(before, routed, after);
  const std::string original = read_text(input);
  const std::string copy = read_text(output);
  const std::string block = inserted_block(original, copy);
  EXPECT_EQ(uuids_in(block).size(), as_segments(routed).size() + routed.vias.size());
}

TEST(KicadWriterDemoBoards, PicProgrammer) { expect_demo_round_trip("pic_programmer/pic_programmer.kicad_pcb"); }

TEST(KicadWriterDemoBoards, Ecc83) { expect_demo_round_trip("ecc83/ecc83-pp.kicad_pcb"); }

TEST(KicadWriterDemoBoards, Ecc83Version2) { expect_demo_round_trip("ecc83/ecc83-pp_v2.kicad_pcb"); }

// The text with every line that starts with one of `starts` taken out.
std::string without_lines_starting(const std::string& text, const std::vector<std::string>& starts) {
  std::string kept;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t end = newline == std::string::npos ? text.size() : newline + 1;
    const std::string line = text.substr(start, end - start);
    if (std::none_of(starts.begin(), starts.end(), [&](const std::string& s) { return line.rfind(s, 0) == 0; })) {
      kept += line;
    }
    start = end;
  }
  return kept;
}

TEST(KicadWithoutTracks, TakesOutTracksAndKeepsTheRestByteForByte) {
  const std::string stripped = kicad_pcb_without_tracks(kKicad6, "six.kicad_pcb");
  EXPECT_EQ(stripped, without_lines_starting(kKicad6, {"  (segment ", "  (via "}));
  const Board before = read_kicad_pcb(kKicad6, "six");
  const Board after = read_kicad_pcb(stripped, "six");
  EXPECT_EQ(before.wires.size(), 1u);
  EXPECT_EQ(before.vias.size(), 1u);
  EXPECT_TRUE(after.wires.empty());
  EXPECT_TRUE(after.vias.empty());
  EXPECT_EQ(after.nets.size(), before.nets.size());
  EXPECT_EQ(after.components.size(), before.components.size());
}

TEST(KicadWithoutTracks, ATrackOverSeveralLinesGoesWhole) {
  // KiCad 8 writes a track's fields one per line.
  std::string multi = kKicad6;
  const std::string one_line = "  (segment (start 20 31.27) (end 39 31.27) (width 0.25)";
  const std::size_t at = multi.find(one_line);
  ASSERT_NE(at, std::string::npos);
  multi.replace(at, one_line.size(), "  (segment\n    (start 20 31.27)\n    (end 39 31.27)\n    (width 0.25)");
  const std::string stripped = kicad_pcb_without_tracks(multi, "eight.kicad_pcb");
  EXPECT_EQ(stripped, without_lines_starting(kKicad6, {"  (segment ", "  (via "}));
}

TEST(KicadWithoutTracks, ATrackSharingALineIsRefused) {
  std::string shared = kKicad6;
  const std::size_t at = shared.find("\n  (via ");
  ASSERT_NE(at, std::string::npos);
  shared.replace(at, 1, " ");  // the via on the segment's line
  try {
    kicad_pcb_without_tracks(shared, "shared.kicad_pcb");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("shared.kicad_pcb:"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("shares a line"), std::string::npos) << error.what();
  }
  EXPECT_THROW(kicad_pcb_without_tracks("(kicad_pcb (version 20211014)", "cut.kicad_pcb"), InputError);
}

TEST(KicadWithoutTracks, WritesAFileAndNeverOverwritesItsInput) {
  const TemporaryFolder folder("without_tracks");
  const fs::path input = folder.path / "board.kicad_pcb";
  write_text(input, kKicad6);
  EXPECT_THROW(write_kicad_pcb_without_tracks(input, input), UsageError);
  EXPECT_THROW(write_kicad_pcb_without_tracks(input, folder.path / "." / "board.kicad_pcb"), UsageError);
  EXPECT_EQ(read_text(input), kKicad6);
  EXPECT_THROW(write_kicad_pcb_without_tracks(folder.path / "missing.kicad_pcb", folder.path / "out.kicad_pcb"),
               InputError);
  EXPECT_FALSE(fs::exists(folder.path / "out.kicad_pcb"));
  write_kicad_pcb_without_tracks(input, folder.path / "out.kicad_pcb");
  EXPECT_EQ(read_text(folder.path / "out.kicad_pcb"), kicad_pcb_without_tracks(kKicad6, input.string()));
}

}  // namespace
}  // namespace trellis::route
