// The reader's token-level helpers and the top of the (pcb ...) list.
#include "parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

#include "../bare_power_layers.hpp"
#include "../geometry/arcs.hpp"

namespace trellis::route::dsn_detail {
namespace {

// Beyond a kilometre a coordinate is a broken file, not a board; the limit
// also keeps every sum and product of two coordinates far from overflow.
constexpr double kLargestCoordinate = 1e12;  // nanometres

}  // namespace

std::optional<double> nanometres_per(std::string_view unit) {
  if (unit == "inch") return 25'400'000.0;
  if (unit == "mil") return 25'400.0;
  if (unit == "cm") return 10'000'000.0;
  if (unit == "mm") return 1'000'000.0;
  if (unit == "um") return 1'000.0;
  return std::nullopt;
}

void Parser::expect_open(std::string_view what) {
  const Token& token = tokens_.peek();
  if (token.kind == TokenKind::open) {
    tokens_.next();
    return;
  }
  if (token.kind == TokenKind::end) {
    fail(tokens_.last_line(), fmt::format("the file ends where {} was expected (was it cut short?)", what));
  }
  fail(token.line, fmt::format("expected {}, found {}", what, describe(token)));
}

void Parser::expect_close(std::string_view what) {
  const Token& token = tokens_.peek();
  if (token.kind == TokenKind::close) {
    tokens_.next();
    return;
  }
  if (token.kind == TokenKind::end) {
    fail(tokens_.last_line(), fmt::format("the file ends before the ')' that closes {} (was it cut short?)", what));
  }
  fail(token.line, fmt::format("expected ')' to close {}, found {}", what, describe(token)));
}

NameAt Parser::read_atom(std::string_view what) {
  const Token& token = tokens_.peek();
  if (token.kind == TokenKind::atom) {
    Token atom = tokens_.next();
    return {std::move(atom.text), atom.line};
  }
  if (token.kind == TokenKind::end) {
    fail(tokens_.last_line(), fmt::format("the file ends where {} was expected (was it cut short?)", what));
  }
  fail(token.line, fmt::format("expected {}, found {}", what, describe(token)));
}

NameAt Parser::open_list(std::string_view what) {
  expect_open(what);
  return read_atom(fmt::format("a keyword after '(' in {}", what));
}

bool Parser::not_read(const NameAt& keyword, std::initializer_list<std::string_view> ignored, std::string_view where) {
  warn_not_read(keyword, ignored, where);
  return false;
}

void Parser::warn_not_read(const NameAt& keyword, std::initializer_list<std::string_view> ignored,
                           std::string_view where) {
  if (std::find(ignored.begin(), ignored.end(), keyword.name) == ignored.end()) {
    board.warnings.push_back(fmt::format("{}:{}: ({} ...) in {} is not read and was skipped", tokens_.name(),
                                         keyword.line, keyword.name, where));
  }
}

std::optional<ShapeAt> Parser::read_shape_in(const NameAt& keyword, const Scale& in,
                                             std::initializer_list<std::string_view> ignored, std::string_view where) {
  std::optional<ShapeAt> shape = read_shape(keyword, in);
  if (!shape) warn_not_read(keyword, ignored, where);
  return shape;
}

void Parser::skip_rest(const NameAt& keyword) {
  int depth = 1;
  for (;;) {
    const Token token = tokens_.next();
    switch (token.kind) {
      case TokenKind::open:
        ++depth;
        break;
      case TokenKind::close:
        if (--depth == 0) return;
        break;
      case TokenKind::atom:
        break;
      case TokenKind::end:
        fail(tokens_.last_line(),
             fmt::format("the file ends inside the ({} ...) list opened at line {} (was it cut short?)", keyword.name,
                         keyword.line));
    }
  }
}

void Parser::for_each_list(const NameAt& owner, const std::function<bool(const NameAt& keyword)>& on_list) {
  for (;;) {
    const Token& token = tokens_.peek();
    if (token.kind == TokenKind::close) {
      tokens_.next();
      return;
    }
    if (token.kind == TokenKind::end) {
      fail(tokens_.last_line(),
           fmt::format("the file ends inside the ({} ...) list opened at line {} (was it cut short?)", owner.name,
                       owner.line));
    }
    if (token.kind == TokenKind::atom) {
      fail(token.line, fmt::format("expected '(' or ')' in the ({} ...) list opened at line {}, found {}", owner.name,
                                   owner.line, describe(token)));
    }
    const NameAt keyword = open_list(fmt::format("a list in ({} ...)", owner.name));
    if (!on_list(keyword)) skip_rest(keyword);
  }
}

double Parser::read_number(std::string_view what) { return parse_number(read_atom(what), what); }

double Parser::parse_number(const NameAt& atom, std::string_view what) const {
  std::string_view digits = atom.name;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  double value = 0;
  const char* last = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), last, value, std::chars_format::general);
  if (digits.empty() || stop != last || error != std::errc() || !std::isfinite(value)) {
    fail(atom.line, fmt::format("expected {} (a number), found {}", what, quoted(atom.name)));
  }
  return value;
}

Coord Parser::to_coord(double value, std::size_t line, const Scale& in) const {
  if (in.nanometres_per_unit == 0) {
    fail(line, "a length comes before any (resolution ...) or (unit ...): its unit is unknown");
  }
  const double nanometres = value * in.nanometres_per_unit;
  if (!(std::fabs(nanometres) <= kLargestCoordinate)) {
    fail(line, fmt::format("the length {} is out of range (at most 1 km)", value));
  }
  return std::llround(nanometres);
}

Coord Parser::read_coord(std::string_view what, const Scale& in) {
  const double value = read_number(what);
  return to_coord(value, tokens_.line(), in);
}

Scale Parser::read_unit_list(const NameAt& keyword) {
  const NameAt unit = read_atom(fmt::format("a unit ({}) in ({} ...)", kUnits, keyword.name));
  const std::optional<double> per = nanometres_per(unit.name);
  if (!per) fail(unit.line, fmt::format("unknown unit {}: expected {}", quoted(unit.name), kUnits));
  expect_close(fmt::format("({} ...)", keyword.name));
  return Scale{*per};
}

std::optional<ShapeAt> Parser::read_shape(const NameAt& keyword, const Scale& in) {
  const std::string& kind = keyword.name;
  if (kind != "circle" && kind != "rect" && kind != "polygon" && kind != "path" && kind != "qarc") {
    skip_rest(keyword);
    return std::nullopt;
  }
  ShapeAt result;
  result.layer = read_atom(fmt::format("a layer name in ({} ...)", kind));
  Shape& shape = result.shape;
  if (kind == "circle") {
    shape.kind = ShapeKind::circle;
    shape.width = read_coord("the circle's diameter", in);
    Point centre;
    if (next_is_atom()) {
      centre.x = read_coord("the circle centre's x", in);
      centre.y = read_coord("the circle centre's y", in);
    }
    shape.points = {centre};
  } else if (kind == "rect") {
    shape.kind = ShapeKind::rect;
    const Coord x1 = read_coord("the rect's first x", in);
    const Coord y1 = read_coord("the rect's first y", in);
    const Coord x2 = read_coord("the rect's second x", in);
    const Coord y2 = read_coord("the rect's second y", in);
    shape.points = {{std::min(x1, x2), std::min(y1, y2)}, {std::max(x1, x2), std::max(y1, y2)}};
  } else if (kind == "qarc") {
    // (qarc layer width start end centre): a stroke along the arc, as a
    // path of chords. A qarc turns at most a quarter: the shorter way.
    shape.kind = ShapeKind::path;
    shape.width = read_coord("the arc's width", in);
    std::array<Point, 3> at;
    for (std::size_t i = 0; i < at.size(); ++i) {
      static constexpr std::array<std::string_view, 3> kWhich = {"start", "end", "centre"};
      at[i].x = read_coord(fmt::format("the arc {}'s x", kWhich[i]), in);
      at[i].y = read_coord(fmt::format("the arc {}'s y", kWhich[i]), in);
    }
    shape.points = geometry::minor_arc(at[0], at[1], at[2]);
    if (shape.points.empty()) {
      fail(keyword.line, "a (qarc ...) needs its start apart from its end and from its centre");
    }
    for (const Point& p : shape.points) {
      if (std::max(std::abs(p.x), std::abs(p.y)) > kLargestCoordinate) {
        fail(keyword.line, "the (qarc ...) reaches out of range (beyond 1 km)");
      }
    }
  } else {
    shape.kind = kind == "path" ? ShapeKind::path : ShapeKind::polygon;
    shape.width = read_coord(kind == "path" ? "the path's width" : "the polygon's aperture width", in);
    while (next_is_atom()) {
      const Coord x = read_coord("a vertex's x", in);
      const std::size_t x_line = tokens_.line();
      if (!next_is_atom()) fail(x_line, fmt::format("a vertex in ({} ...) has an x but no y", kind));
      const Coord y = read_coord("a vertex's y", in);
      shape.points.push_back({x, y});
    }
    const std::size_t needed = shape.kind == ShapeKind::polygon ? 3 : 1;
    if (shape.points.size() < needed) {
      fail(tokens_.peek().line,
           fmt::format("a {} needs at least {} vertices, found {}", kind, needed, shape.points.size()));
    }
  }
  if (shape.width < 0) fail(keyword.line, fmt::format("the {}'s width or diameter is negative", kind));
  // Lists inside a shape (rare: aperture types, properties) are not used.
  while (next_is_open()) skip_rest(open_list(fmt::format("({} ...)", kind)));
  expect_close(fmt::format("the ({} ...) opened at line {}", kind, keyword.line));
  return result;
}

int Parser::layer_index(const NameAt& layer) const {
  const auto found = layer_by_name.find(layer.name);
  if (found == layer_by_name.end()) {
    fail(layer.line, fmt::format("unknown layer {}: the structure declares no such (layer ...)", quoted(layer.name)));
  }
  return found->second;
}

std::vector<int> Parser::layers_named(const NameAt& layer) const {
  std::vector<int> indices;
  const bool all = layer.name == "*" || layer.name == "pcb";
  const bool signal = layer.name == "signal";
  const bool power = layer.name == "power";
  if (!all && !signal && !power) return {layer_index(layer)};
  for (const Layer& declared : board.layers) {
    const bool is_power = declared.type == LayerType::power;
    if (all || (signal && !is_power) || (power && is_power)) indices.push_back(declared.index);
  }
  return indices;
}

void Parser::read_keepout(const NameAt& keyword, const Scale& in, std::vector<Keepout>& keepouts) {
  Keepout keepout;
  keepout.kind = keyword.name == "via_keepout"    ? KeepoutKind::via_keepout
                 : keyword.name == "wire_keepout" ? KeepoutKind::wire_keepout
                                                  : KeepoutKind::keepout;
  if (next_is_atom()) keepout.name = read_atom("the keepout's name").name;
  for_each_list(keyword, [&](const NameAt& item) {
    const std::optional<ShapeAt> shape =
        read_shape_in(item, in, {"sequence_number", "window", "clearance_class"}, "a keepout");
    if (!shape) return true;
    keepout.shape = shape->shape;
    if (shape->layer.name == "pcb" || shape->layer.name == "*") {
      keepout.layer = kAllLayers;
      keepouts.push_back(keepout);
    } else {
      for (const int layer : layers_named(shape->layer)) {
        keepout.layer = layer;
        keepouts.push_back(keepout);
      }
    }
    return true;
  });
}

Rules Parser::read_rules(const NameAt& keyword, const Scale& in) {
  Rules rules;
  for_each_list(keyword, [&](const NameAt& item) {
    if (item.name == "width") {
      rules.width = read_coord("the rule's width", in);
      expect_close("(width ...)");
      return true;
    }
    if (item.name == "neck_down_width") {
      const Coord width = read_coord("the rule's neck-down width", in);
      if (width <= 0) fail(item.line, "a neck-down width must be positive");
      rules.neck_down_width = width;
      expect_close("(neck_down_width ...)");
      return true;
    }
    if (item.name != "clearance") return not_read(item, {}, "a (rule ...)");
    const Coord value = read_coord("the clearance", in);
    bool typed = false;
    for_each_list(item, [&](const NameAt& option) {
      if (option.name != "type") return not_read(option, {}, "a (clearance ...)");
      while (next_is_atom()) {
        rules.typed_clearances.push_back({read_atom("a clearance type").name, value});
        typed = true;
      }
      expect_close("(type ...)");
      return true;
    });
    if (!typed) rules.clearance = value;
    return true;
  });
  return rules;
}

WiringType Parser::read_wiring_type(const NameAt& keyword) {
  const NameAt type = read_atom("a wiring type (route, fix, protect or normal)");
  WiringType result = WiringType::normal;
  if (type.name == "route") {
    result = WiringType::route;
  } else if (type.name == "fix") {
    result = WiringType::fix;
  } else if (type.name == "protect") {
    result = WiringType::protect;
  } else if (type.name != "normal") {
    fail(type.line, fmt::format("unknown wiring type {}: expected route, fix, protect or normal", quoted(type.name)));
  }
  expect_close(fmt::format("the ({} ...) opened at line {}", keyword.name, keyword.line));
  return result;
}

Board Parser::read() {
  const Token& first = tokens_.peek();
  if (first.kind == TokenKind::end) fail(tokens_.last_line(), "the file is empty: expected (pcb ...)");
  const NameAt pcb = open_list("'(pcb' at the start of the file");
  if (pcb.name != "pcb") {
    fail(pcb.line,
         fmt::format("expected (pcb ...), found ({} ...): this reader takes Specctra design files", quoted(pcb.name)));
  }
  if (next_is_atom()) board.name = read_atom("the board's name").name;
  bool unit_given = false;
  for_each_list(pcb, [&](const NameAt& section) {
    const std::string& name = section.name;
    if (name == "resolution") {
      const NameAt unit = read_atom(fmt::format("a unit ({}) in (resolution ...)", kUnits));
      const std::optional<double> per = nanometres_per(unit.name);
      if (!per) fail(unit.line, fmt::format("unknown unit {}: expected {}", quoted(unit.name), kUnits));
      const double steps = read_number("the resolution's steps per unit");
      if (!(steps > 0)) fail(tokens_.line(), "the resolution's steps per unit must be positive");
      expect_close("(resolution ...)");
      board.resolution_unit = unit.name;
      board.resolution_per_unit = steps;
      // Coordinates are in the resolution's unit unless (unit ...) says otherwise.
      if (!unit_given) scale = Scale{*per};
    } else if (name == "unit") {
      scale = read_unit_list(section);
      unit_given = true;
    } else if (name == "structure") {
      read_structure(section);
    } else if (name == "library") {
      read_library(section);
    } else if (name == "placement") {
      read_placement(section);
    } else if (name == "network") {
      read_network(section);
    } else if (name == "wiring") {
      read_wiring(section);
    } else {
      return not_read(section,
                      {"parser", "floor_plan", "part_library", "colors", "host_cad", "host_version",
                       "capacitance_resolution", "conductance_resolution", "current_resolution",
                       "inductance_resolution", "resistance_resolution", "time_resolution", "voltage_resolution"},
                      "(pcb ...)");
    }
    return true;
  });
  const Token& after = tokens_.peek();
  if (after.kind != TokenKind::end) {
    fail(after.line, fmt::format("expected the end of the file after the (pcb ...) list, found {}", describe(after)));
  }
  resolve();
  // Specctra keeps autorouters off power layers; one that carries no plane
  // is routed on all the same, with a warning.
  for (const int layer : route_on_bare_power_layers(board)) {
    board.warnings.push_back(fmt::format("{}:{}: power layer {} carries no plane: routed on as a mixed layer",
                                         tokens_.name(), layer_lines[static_cast<std::size_t>(layer)],
                                         quoted(board.layers[static_cast<std::size_t>(layer)].name)));
  }
  return std::move(board);
}

}  // namespace trellis::route::dsn_detail
