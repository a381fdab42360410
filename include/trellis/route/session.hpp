// Specctra session (.ses): a router's output, what KiCad's "Import Specctra
// Session" reads back onto the board the DSN came from.
//
//   (session NAME
//     (base_design NAME)
//     (placement (resolution UNIT N) (component IMAGE (place REF X Y SIDE ROT)) ...)
//     (was_is)
//     (routes
//       (resolution UNIT N)
//       (parser (string_quote ") (host_cad "trellis") (host_version "..."))
//       (library_out (padstack NAME (shape (circle LAYER DIAMETER)) ...) ...)
//       (network_out (net NAME (wire (path LAYER WIDTH X Y X Y ...)) (via PADSTACK X Y) ...) ...)))
//
// Units. Every coordinate and width is an integer number of resolution steps
// (UNIT / N): the board's own resolution (Board::resolution_unit and
// resolution_per_unit), or um / 1000 (whole nanometres) for a board that
// has none. Nanometres are rounded to the nearest step, so copper off the
// resolution grid moves by at most half a step (5 nm for KiCad's um / 10);
// a router working on the board's grid loses nothing.
//
// What the writer puts in, and why (KiCad's importer is the reader that
// matters): (routes) and (library_out) are always present, because KiCad
// refuses a session without them; library_out holds every padstack a via
// uses, copied from the board; the placement repeats the board's (KiCad
// moves footprints to the positions a session gives, so these must be the
// board's own), leaving out components whose reference or image name holds
// a '"', which no quoting before (routes (parser)) can carry. Wires and vias
// are written net by net in the board's net order, each net's copper in the
// order given; copper of no net comes last under (net "" ...). Wiring types
// other than normal are kept as (type ...). KiCad turns path wires into
// tracks and circle-shaped via padstacks into vias; it ignores polygon
// wires.
//
// Names are quoted as KiCad's exporter quotes them: when empty, starting
// with '#', or holding whitespace, ( ) % { } or a '-' after the first
// character, and when they hold a quote character. The routes use '"' as
// the quote unless a name there holds one; then another quote character
// is declared with (string_quote C).
//
// Reading takes a session against its board: layer names, net names and
// padstack names resolve to the board's indices (a via's padstack must be
// one of the board's padstacks; library_out entries are checked for known
// layers and well-formed shapes, the board's geometry is what is used).
// Placement entries must name the board's components and agree with their
// side and position (within half a step): routes checked against a board
// whose parts the session moved would be checked against the wrong pads.
// (was_is), (history), (structure) and lists in the routes that carry no
// copper (parser, net_number, rules, supply pins, ...) are skipped. A via
// with several X Y pairs is one via per pair.
//
// Errors (InputError with the file, the line and what was expected):
// malformed or truncated lists, a file that is not one (session ...),
// missing (routes ...) or (library_out ...), numbers that are not numbers,
// unknown units, coordinates before a (resolution ...), lengths beyond
// 1 km, unknown layers, nets, padstacks or components, arcs (qarc), which
// this model cannot hold, and wires without a shape.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>

#include "trellis/route/board.hpp"
#include "trellis/route/routed_copper.hpp"

namespace trellis::route {

// Writes the routed copper as a session of `board`. Throws UsageError when
// the copper refers to a layer, net or padstack the board lacks, or the
// board's resolution is not one Specctra knows.
void write_session(const Board& board, const RoutedCopper& routed, std::ostream& out);

// The same, into a file that appears whole or not at all.
void write_session(const Board& board, const RoutedCopper& routed, const std::filesystem::path& path);

// Reads a session file against its board; messages name the path as given.
RoutedCopper read_session(const std::filesystem::path& path, const Board& board);

// Reads session text; `name` is what messages call the input.
RoutedCopper read_session(std::string_view text, const std::string& name, const Board& board);

// The board's own wiring followed by the session's copper that does not
// repeat it: routers that echo the existing wiring (as FreeRouting does)
// and routers that write only their new routes give the same copper.
// Repeats are wires with the same layer, net and shape and vias with the
// same padstack, position and net; the wiring type does not matter.
RoutedCopper with_board_wiring(const Board& board, const RoutedCopper& session);

}  // namespace trellis::route
