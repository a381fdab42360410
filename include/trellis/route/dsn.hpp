// Specctra DSN, the autorouter interchange KiCad and other CAD tools export.
//
// The reader takes one (pcb ...) list and fills a Board in nanometres. It
// reads (parser (string_quote C)), (resolution UNIT N) and (unit UNIT)
// (inch, mil, cm, mm, um; a (unit) inside a section applies to the rest of
// that section), (structure: layers, boundary, keepout / via_keepout /
// wire_keepout, plane, via, rule), (library: image with pins and keepouts,
// padstack with circle / rect / polygon / path shapes and attach),
// (placement), (network: net with pins and rules, class with nets, circuit
// use_via and rules) and (wiring: wire, via, with net and type).
// Lists it does not use (autoroute settings, grids, outlines, properties,
// part numbers, ...) are skipped whole, whatever they contain.
//
// Tokens: a quoted string may hold spaces and parentheses and may be glued
// to more text ("Big Part"-3 is one token); an unquoted name may hold
// balanced parentheses (Net-(C2-Pad1)); a line whose first non-blank
// character is '#' is a comment.
//
// Names: a pin reference COMPONENT-PIN is split at the first '-' that
// leaves a placed component and one of its image's pins, so component and
// pin names may themselves contain '-'.
//
// Errors (InputError with the file, the line and what was expected):
// malformed or truncated lists, numbers that are not numbers, unknown units
// or a coordinate before any unit, unknown layers, components placed with an
// unknown image, pins with an unknown padstack, nets naming missing
// components or pins, wiring on unknown nets or layers, duplicate names,
// and pads off the board: a pin of a net whose centre lies outside the board
// outline is an error, because no route can reach it. Pins of no net off
// the board (fiducials on a panel's frame, as real boards have) are kept and
// listed in Board::warnings; copper that merely overhangs the edge, as edge
// connectors' pads do, is accepted. Class members that name no net of the
// network are dropped (KiCad lists nets without pins there).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>

#include "trellis/route/board.hpp"

namespace trellis::route {

// Reads a DSN file; messages name it by the path as given. Throws
// InputError when it cannot be opened or is malformed.
Board read_dsn_file(const std::filesystem::path& path);

// Reads DSN text; `name` is what messages call the input.
Board read_dsn(std::string_view text, const std::string& name);
// Reads DSN text from a stream; `name` is what messages call the input.
Board read_dsn(std::istream& in, const std::string& name);

}  // namespace trellis::route
