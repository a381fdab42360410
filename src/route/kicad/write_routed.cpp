// The routed copy of a .kicad_pcb: the input text with segments and vias
// inserted before its final ')', in the form KiCad writes for the file's
// format version.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "reader.hpp"
#include "sexpr.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"

namespace trellis::route {
namespace {

// KiCad 8's file format normalization: (uuid "...") instead of (tstamp ...),
// and the tab-indented, one-list-per-line layout.
constexpr long kNormalizedVersion = 20231014;

// The drill KiCad gives a new board's vias, and the share of the via's size
// a drill may take when nothing else says.
constexpr Coord kDefaultDrill = 400'000;
constexpr Coord kFallbackDrillPercent = 60;

// Nanometres as millimetres, exact: up to six decimals, no trailing zeros.
std::string millimetres(Coord nanometres) {
  const bool negative = nanometres < 0;
  const std::uint64_t magnitude =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(nanometres) : static_cast<std::uint64_t>(nanometres);
  const auto per_mm = static_cast<std::uint64_t>(kNanometresPerMillimetre);
  std::string text = negative ? "-" : "";
  text += std::to_string(magnitude / per_mm);
  if (const std::uint64_t fraction = magnitude % per_mm; fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    digits.erase(digits.find_last_not_of('0') + 1);
    text += '.';
    text += digits;
  }
  return text;
}

// A Board point in KiCad's orientation (y down).
std::string kicad_point(Point p) { return millimetres(p.x) + " " + millimetres(-p.y); }

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// SplitMix64's finalizer: spreads every input bit over the whole word.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A UUID shaped like KiCad's own (random, version 4, RFC 4122 variant) but
// derived from the input, the item's number and its content.
std::string item_uuid(std::uint64_t input_hash, std::size_t item, std::string_view content) {
  const std::uint64_t content_hash = fnv1a(content);
  std::uint64_t high = mix(input_hash ^ mix(content_hash + static_cast<std::uint64_t>(item)));
  std::uint64_t low = mix(high ^ content_hash);
  high = (high & ~std::uint64_t{0xf000}) | 0x4000;                     // version 4
  low = (low & ~(std::uint64_t{3} << 62)) | (std::uint64_t{2} << 62);  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xffff, high & 0xffff, low >> 48,
                     low & 0xffffffffffffULL);
}

// The drill in a via padstack's name "Via[FIRST-LAST]_DIAMETER:DRILL_um"
// (micrometres), as the KiCad reader names them.
std::optional<Coord> drill_from_name(std::string_view name) {
  if (!name.starts_with("Via[") || !name.ends_with("_um")) return std::nullopt;
  const std::size_t colon = name.rfind(':');
  const std::size_t span_end = name.find("]_");
  if (colon == std::string_view::npos || span_end == std::string_view::npos || colon < span_end) return std::nullopt;
  const std::string digits(name.substr(colon + 1, name.size() - 3 - (colon + 1)));
  if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  std::size_t used = 0;
  double micrometres = 0;
  try {
    micrometres = std::stod(digits, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != digits.size() || !(micrometres >= 0) || micrometres > 1e6) return std::nullopt;
  return std::llround(micrometres * 1000.0);
}

struct Layout {
  bool normalized = false;  // KiCad 8 and later
  std::string newline;      // the input's: "\n" or "\r\n"
};

class RoutedWriter {
 public:
  RoutedWriter(std::string_view input, const std::string& name, const Board& board, const RoutedCopper& routed)
      : input_(input), name_(name), board_(board), routed_(routed), input_hash_(fnv1a(input)) {}

  std::string write() {
    read_input();
    check_indices();
    std::string items;
    std::size_t item = 0;
    for (const Wire& wire : routed_.wires) items += wire_items(wire, item);
    for (const Via& via : routed_.vias) items += via_item(via, item++);
    return insert(without_fills(input_), items);
  }

 private:
  // The file's version, copper layers and net numbers, read as the board
  // reader reads them, and checked against the board.
  void read_input() {
    const kicad_detail::Node root = kicad_detail::parse_tree(input_, name_);
    kicad_detail::Reader reader(name_);
    reader.read_version(root);
    reader.read_layers(root);
    reader.read_nets(root);
    layout_.normalized =
        static_cast<long>(reader.number(*root.find("version"), 0, "the format version")) >= kNormalizedVersion;
    layout_.newline = input_.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";

    const Board& file = reader.board;
    const auto mismatch = [&](const std::string& what) {
      throw UsageError(
          fmt::format("the board does not match {}: {} (pass the board read_kicad_pcb returned for it)", name_, what));
    };
    if (file.layers.size() != board_.layers.size()) {
      mismatch(fmt::format("the file has {} copper layers, the board {}", file.layers.size(), board_.layers.size()));
    }
    for (std::size_t i = 0; i < file.layers.size(); ++i) {
      if (file.layers[i].name != board_.layers[i].name) {
        mismatch(fmt::format("copper layer {} is {} in the file, {} on the board", i, file.layers[i].name,
                             board_.layers[i].name));
      }
    }
    if (file.nets.size() != board_.nets.size()) {
      mismatch(fmt::format("the file declares {} nets, the board has {}", file.nets.size(), board_.nets.size()));
    }
    for (std::size_t i = 0; i < file.nets.size(); ++i) {
      if (file.nets[i].name != board_.nets[i].name) {
        mismatch(
            fmt::format("net {} is '{}' in the file, '{}' on the board", i, file.nets[i].name, board_.nets[i].name));
      }
    }
    kicad_net_.assign(board_.nets.size(), 0);
    for (const auto& [number, index] : reader.net_by_number) {
      if (index >= 0) kicad_net_[static_cast<std::size_t>(index)] = number;
    }
  }

  void check_indices() const {
    check_copper_indices(board_, routed_);
    for (std::size_t i = 0; i < routed_.wires.size(); ++i) {
      const Wire& wire = routed_.wires[i];
      if (wire.shape.kind != ShapeKind::path) {
        throw UsageError(fmt::format("wire {} is not a path: a KiCad board holds tracks, not copper polygons", i));
      }
      if (wire.shape.width <= 0)
        throw UsageError(fmt::format("wire {} has width {} nm; tracks need a width", i, wire.shape.width));
    }
  }

  long net_number(int net) const { return net < 0 ? 0 : kicad_net_[static_cast<std::size_t>(net)]; }

  const std::string& layer_name(int layer) const { return board_.layers[static_cast<std::size_t>(layer)].name; }

  // One item: KiCad 6/7 on one line, KiCad 8/9 one list per line.
  std::string item_text(std::string_view head, const std::vector<std::string>& lists, std::size_t item) const {
    std::string content(head);
    for (const std::string& list : lists) content += " " + list;
    const std::string uuid = item_uuid(input_hash_, item, content);
    const std::string& nl = layout_.newline;
    if (!layout_.normalized) return "  (" + content + " (tstamp " + uuid + "))" + nl;
    std::string text = "\t(" + std::string(head) + nl;
    for (const std::string& list : lists) text += "\t\t" + list + nl;
    return text + "\t\t(uuid \"" + uuid + "\")" + nl + "\t)" + nl;
  }

  std::string wire_items(const Wire& wire, std::size_t& item) const {
    const std::vector<Point>& points = wire.shape.points;
    std::vector<std::pair<Point, Point>> segments;
    Point from = points.front();
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (points[i] == from) continue;  // a repeated point adds no copper
      segments.emplace_back(from, points[i]);
      from = points[i];
    }
    if (segments.empty()) segments.emplace_back(from, from);  // a dot
    std::string text;
    for (const auto& [start, end] : segments) {
      text += item_text("segment",
                        {"(start " + kicad_point(start) + ")", "(end " + kicad_point(end) + ")",
                         "(width " + millimetres(wire.shape.width) + ")", "(layer \"" + layer_name(wire.layer) + "\")",
                         fmt::format("(net {})", net_number(wire.net))},
                        item++);
    }
    return text;
  }

  std::string via_item(const Via& via, std::size_t item) const {
    const Padstack& padstack = board_.padstacks[static_cast<std::size_t>(via.padstack)];
    Coord size = 0;
    int first = static_cast<int>(board_.layers.size()), last = -1;
    for (const LayerShape& shape : padstack.shapes) {
      if (shape.layer < 0 || static_cast<std::size_t>(shape.layer) >= board_.layers.size()) {
        throw UsageError(fmt::format("via padstack '{}' has copper on layer {}, which the board does not have",
                                     padstack.name, shape.layer));
      }
      first = std::min(first, shape.layer);
      last = std::max(last, shape.layer);
      if (shape.shape.kind == ShapeKind::circle) size = std::max(size, shape.shape.width);
    }
    if (size <= 0) {
      throw UsageError(fmt::format("via padstack '{}' has no circle: KiCad vias are round", padstack.name));
    }
    if (first >= last) {
      throw UsageError(fmt::format("via padstack '{}' covers {} copper layer: a via joins two or more", padstack.name,
                                   last < 0 ? "no" : "one"));
    }
    const bool through = first == 0 && last + 1 == static_cast<int>(board_.layers.size());
    return item_text(through ? "via" : "via blind",
                     {"(at " + kicad_point(via.position) + ")", "(size " + millimetres(size) + ")",
                      "(drill " + millimetres(drill_for(padstack, size)) + ")",
                      "(layers \"" + layer_name(first) + "\" \"" + layer_name(last) + "\")",
                      fmt::format("(net {})", net_number(via.net))},
                     item);
  }

  Coord drill_for(const Padstack& padstack, Coord size) const {
    const auto leaves_copper = [&](std::optional<Coord> drill) { return drill && *drill > 0 && *drill < size; };
    if (const std::optional<Coord> own = drill_from_name(padstack.name); leaves_copper(own)) return *own;
    if (!board_.via_padstacks.empty()) {
      const int default_via = board_.via_padstacks.front();
      if (default_via >= 0 && static_cast<std::size_t>(default_via) < board_.padstacks.size()) {
        const std::optional<Coord> project =
            drill_from_name(board_.padstacks[static_cast<std::size_t>(default_via)].name);
        if (leaves_copper(project)) return *project;
      }
    }
    return std::min(kDefaultDrill, size * kFallbackDrillPercent / 100);
  }

  // The input without its zones' fills: every (filled_polygon ...) list,
  // with the lines it covers where nothing else shares them. A fill
  // computed before routing ignores the new tracks (it would short them),
  // so it goes; KiCad refills the zones (Edit > Fill All Zones, or its
  // DRC), and the pours it draws then are the ones the router's
  // pour_islands() reasoned about.
  static std::string without_fills(std::string_view text) {
    static constexpr std::string_view kFill = "(filled_polygon";
    std::string out;
    out.reserve(text.size());
    std::size_t copied = 0;
    for (std::size_t at = text.find(kFill); at != std::string_view::npos; at = text.find(kFill, at)) {
      // Its closing ')', quoted strings skipped.
      std::size_t end = at;
      int depth = 0;
      bool quoted = false;
      for (; end < text.size(); ++end) {
        const char c = text[end];
        if (quoted) {
          if (c == '\\')
            ++end;
          else if (c == '"')
            quoted = false;
        } else if (c == '"') {
          quoted = true;
        } else if (c == '(') {
          ++depth;
        } else if (c == ')' && --depth == 0) {
          break;
        }
      }
      if (end >= text.size()) break;  // parse_tree accepted the text: not reached
      std::size_t from = at, to = end + 1;
      const std::size_t line_start =
          text.find_last_of('\n', at) == std::string_view::npos ? 0 : text.find_last_of('\n', at) + 1;
      const std::size_t line_end = std::min(text.find('\n', to), text.size());
      const auto blank = [&](std::size_t a, std::size_t b) {
        return text.substr(a, b - a).find_first_not_of(" \t\r") == std::string_view::npos;
      };
      if (blank(line_start, from) && blank(to, line_end)) {  // whole lines
        from = line_start;
        to = line_end < text.size() ? line_end + 1 : line_end;
      }
      out.append(text.substr(copied, from - copied));
      copied = to;
      at = to;
    }
    out.append(text.substr(copied));
    return out;
  }

  // The text with `items` before its final ')': at the start of that line
  // when only blanks precede the ')' there, else on new lines of their own.
  std::string insert(const std::string& text, const std::string& items) const {
    if (items.empty()) return text;
    // parse_tree accepted the text, so its last non-blank character is
    // the ')' closing the board.
    const std::size_t close = text.find_last_not_of(" \t\r\n\f\v");
    const std::size_t newline = text.find_last_of('\n', close);
    const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
    const bool alone = text.substr(line_start, close - line_start).find_first_not_of(" \t") == std::string_view::npos;
    const std::size_t at = alone ? line_start : close;
    std::string output;
    output.reserve(text.size() + items.size() + 2);
    output.append(text.substr(0, at));
    if (!alone) output += layout_.newline;
    output += items;
    output.append(text.substr(at));
    return output;
  }

  std::string_view input_;
  const std::string& name_;
  const Board& board_;
  const RoutedCopper& routed_;
  std::uint64_t input_hash_;
  Layout layout_;
  std::vector<long> kicad_net_;  // Board::nets index -> KiCad net number
};

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  if (std::filesystem::equivalent(a, b, error) && !error) return true;
  const std::filesystem::path canonical_a = std::filesystem::weakly_canonical(a, error);
  if (error) return false;
  const std::filesystem::path canonical_b = std::filesystem::weakly_canonical(b, error);
  return !error && canonical_a == canonical_b;
}

}  // namespace

std::string routed_kicad_pcb(std::string_view input_text, const std::string& input_name, const Board& board,
                             const RoutedCopper& routed) {
  return RoutedWriter(input_text, input_name, board, routed).write();
}

void write_routed_kicad_pcb(const std::filesystem::path& input, const Board& board, const RoutedCopper& routed,
                            const std::filesystem::path& output) {
  if (same_file(input, output)) {
    throw UsageError(
        fmt::format("the routed copy would overwrite its input {}; name another output file", input.string()));
  }
  const std::string text = kicad_detail::read_file_text(input);
  const std::string routed_text = routed_kicad_pcb(text, input.string(), board, routed);
  AtomicOutputFile file(output, /*binary=*/true);
  file.stream() << routed_text;
  file.commit();
}

void write_kicad_pcb_without_tracks(const std::filesystem::path& input, const std::filesystem::path& output) {
  if (same_file(input, output)) {
    throw UsageError(
        fmt::format("the copy without tracks would overwrite its input {}; name another output file", input.string()));
  }
  const std::string text = kicad_pcb_without_tracks(kicad_detail::read_file_text(input), input.string());
  AtomicOutputFile file(output, /*binary=*/true);
  file.stream() << text;
  file.commit();
}

}  // namespace trellis::route
