// The session reader: the DSN reader's tokenizer and list helpers, with
// names resolved against the board the session routes.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "../dsn/parser.hpp"
#include "trellis/core/error.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

using dsn_detail::NameAt;
using dsn_detail::Scale;
using dsn_detail::ShapeAt;

class SessionReader {
 public:
  SessionReader(std::string_view text, const std::string& name, const Board& board)
      : parser_(text, name), board_(board) {
    // The parser's layer helpers look names up in its own board.
    parser_.board.layers = board.layers;
    // A session names layers as the board's Specctra export did: KiCad's
    // user names for a .kicad_pcb ("top_layer"); the canonical ones too.
    for (const Layer& layer : board.layers) {
      parser_.layer_by_name.emplace(layer.name, layer.index);
      if (!layer.specctra_name.empty()) parser_.layer_by_name.emplace(layer.specctra_name, layer.index);
    }
    for (std::size_t i = 0; i < board.nets.size(); ++i) net_by_name_.emplace(board.nets[i].name, static_cast<int>(i));
    for (std::size_t i = 0; i < board.padstacks.size(); ++i) {
      padstack_by_name_.emplace(board.padstacks[i].name, static_cast<int>(i));
    }
    for (std::size_t i = 0; i < board.components.size(); ++i) {
      component_by_name_.emplace(board.components[i].reference, static_cast<int>(i));
    }
  }

  RoutedCopper read() {
    if (parser_.tokens().peek().kind == dsn_detail::TokenKind::end) {
      parser_.fail(parser_.tokens().last_line(), "the file is empty: expected (session ...)");
    }
    const NameAt session = parser_.open_list("'(session' at the start of the file");
    if (session.name != "session") {
      parser_.fail(session.line, fmt::format("expected (session ...), found ({} ...): this reader takes Specctra "
                                             "session files",
                                             dsn_detail::quoted(session.name)));
    }
    parser_.read_atom("the session's name");
    std::optional<std::size_t> routes_line;
    parser_.for_each_list(session, [&](const NameAt& section) {
      if (section.name == "base_design") {
        parser_.read_atom("the base design's name");
        parser_.expect_close("(base_design ...)");
      } else if (section.name == "placement") {
        read_placement(section);
      } else if (section.name == "routes") {
        if (routes_line)
          parser_.fail(section.line, fmt::format("a second (routes ...) (the first is at line {})", *routes_line));
        routes_line = section.line;
        read_routes(section);
      } else {
        return false;  // history, structure, was_is: no copper
      }
      return true;
    });
    const dsn_detail::Token& after = parser_.tokens().peek();
    if (after.kind != dsn_detail::TokenKind::end) {
      parser_.fail(after.line, fmt::format("expected the end of the file after the (session ...) list, found {}",
                                           dsn_detail::describe(after)));
    }
    if (!routes_line) parser_.fail(session.line, "the session has no (routes ...): there is nothing to read");
    return std::move(routed_);
  }

 private:
  // (resolution UNIT N) after its keyword: coordinates are in steps of UNIT / N.
  Scale read_resolution(const NameAt& keyword) {
    const NameAt unit = parser_.read_atom(fmt::format("a unit ({}) in (resolution ...)", dsn_detail::kUnits));
    const std::optional<double> per = dsn_detail::nanometres_per(unit.name);
    if (!per) {
      parser_.fail(unit.line,
                   fmt::format("unknown unit {}: expected {}", dsn_detail::quoted(unit.name), dsn_detail::kUnits));
    }
    const double steps = parser_.read_number("the resolution's steps per unit");
    if (!(steps >= 1) || steps > 1e9) {
      parser_.fail(parser_.tokens().line(), "the resolution's steps per unit must be between 1 and 1e9");
    }
    parser_.expect_close(fmt::format("the (resolution ...) opened at line {}", keyword.line));
    return Scale{*per / steps};
  }

  void read_placement(const NameAt& keyword) {
    Scale in;
    parser_.for_each_list(keyword, [&](const NameAt& item) {
      if (item.name == "resolution") {
        in = read_resolution(item);
        return true;
      }
      if (item.name != "component") return false;
      parser_.read_atom("the component's image name");
      parser_.for_each_list(item, [&](const NameAt& place) {
        if (place.name != "place") return false;
        const NameAt reference = parser_.read_atom("the placed component's reference");
        const auto found = component_by_name_.find(reference.name);
        if (found == component_by_name_.end()) {
          parser_.fail(reference.line, fmt::format("the placement names component {}, which the board does not have",
                                                   dsn_detail::quoted(reference.name)));
        }
        if (!parser_.next_is_atom()) {  // a place without a position leaves the part where it is
          parser_.for_each_list(place, [](const NameAt&) { return false; });
          return true;
        }
        const Component& component = board_.components[static_cast<std::size_t>(found->second)];
        Point position;
        position.x = parser_.read_coord("the component's x", in);
        position.y = parser_.read_coord("the component's y", in);
        const NameAt side = parser_.read_atom("the component's side (front or back)");
        if (side.name != "front" && side.name != "back") {
          parser_.fail(side.line,
                       fmt::format("expected the side front or back, found {}", dsn_detail::quoted(side.name)));
        }
        parser_.read_number("the component's rotation in degrees");
        const double tolerance = in.nanometres_per_unit / 2 + 1;
        const bool moved = std::abs(static_cast<double>(position.x - component.position.x)) > tolerance ||
                           std::abs(static_cast<double>(position.y - component.position.y)) > tolerance ||
                           (side.name == "front") != (component.side == Side::front);
        if (moved) {
          parser_.fail(place.line, fmt::format("the session places {} elsewhere than the board does; routes are "
                                               "checked against the board's placement",
                                               dsn_detail::quoted(reference.name)));
        }
        parser_.for_each_list(place, [](const NameAt&) { return false; });
        return true;
      });
      return true;
    });
  }

  void read_routes(const NameAt& keyword) {
    bool library_read = false;
    parser_.for_each_list(keyword, [&](const NameAt& item) {
      if (item.name == "resolution") {
        scale_ = read_resolution(item);
      } else if (item.name == "library_out") {
        read_library(item);
        library_read = true;
      } else if (item.name == "network_out") {
        parser_.for_each_list(item, [&](const NameAt& net) {
          if (net.name != "net") {
            parser_.fail(net.line, fmt::format("expected (net ...) in (network_out ...), found ({} ...)",
                                               dsn_detail::quoted(net.name)));
          }
          read_net(net);
          return true;
        });
      } else {
        return false;  // parser, structure_out, test points
      }
      return true;
    });
    if (!library_read) {
      parser_.fail(keyword.line, "the (routes ...) has no (library_out ...): KiCad refuses such a session");
    }
  }

  // Checked for well-formed shapes on known layers; vias use the board's
  // padstack of the same name.
  void read_library(const NameAt& keyword) {
    parser_.for_each_list(keyword, [&](const NameAt& item) {
      if (item.name != "padstack") return false;  // images of changed parts: not used
      const NameAt name = parser_.read_atom("the padstack's name");
      if (!padstack_by_name_.contains(name.name)) {
        parser_.fail(name.line, fmt::format("the session's padstack {} is not in the board's library; vias must use "
                                            "the board's padstacks",
                                            dsn_detail::quoted(name.name)));
      }
      if (const auto [at, inserted] = library_lines_.emplace(name.name, name.line); !inserted) {
        parser_.fail(name.line, fmt::format("the padstack {} is defined twice (first at line {})",
                                            dsn_detail::quoted(name.name), at->second));
      }
      parser_.for_each_list(item, [&](const NameAt& part) {
        if (part.name != "shape") return false;  // attach, rotate, ...
        parser_.for_each_list(part, [&](const NameAt& shape_keyword) {
          require_scale(shape_keyword.line);
          if (const std::optional<ShapeAt> shape = parser_.read_shape(shape_keyword, scale_)) {
            parser_.layers_named(shape->layer);  // fails on an unknown layer
          }
          return true;
        });
        return true;
      });
      return true;
    });
  }

  void require_scale(std::size_t line) const {
    if (scale_.nanometres_per_unit == 0) {
      parser_.fail(line, "a length comes before the (resolution ...) of the (routes ...): its unit is unknown");
    }
  }

  int net_index(const NameAt& name) const {
    if (name.name.empty()) return -1;
    const auto found = net_by_name_.find(name.name);
    if (found == net_by_name_.end()) {
      parser_.fail(name.line,
                   fmt::format("unknown net {}: the board's network has no such net", dsn_detail::quoted(name.name)));
    }
    return found->second;
  }

  void read_net(const NameAt& keyword) {
    const int net = net_index(parser_.read_atom("the net's name"));
    parser_.for_each_list(keyword, [&](const NameAt& item) {
      if (item.name == "wire") {
        read_wire(item, net);
      } else if (item.name == "via") {
        read_via(item, net);
      } else {
        return false;  // net_number, rule, supply_pin, guides
      }
      return true;
    });
  }

  void read_wire(const NameAt& keyword, int net) {
    std::optional<Wire> wire;
    WiringType type = WiringType::normal;
    parser_.for_each_list(keyword, [&](const NameAt& part) {
      if (part.name == "type") {
        type = parser_.read_wiring_type(part);
        return true;
      }
      if (part.name == "arc") {
        parser_.fail(part.line, "(arc ...) is not a Specctra shape: a wire's arc is written (qarc ...)");
      }
      const bool is_shape = part.name == "path" || part.name == "polygon" || part.name == "circle" ||
                            part.name == "rect" || part.name == "qarc";
      if (!is_shape) return false;  // net (the enclosing net applies), attr, shield, window, connect, supply
      require_scale(part.line);
      std::optional<ShapeAt> shape = parser_.read_shape(part, scale_);
      if (wire)
        parser_.fail(part.line, fmt::format("the (wire ...) opened at line {} has a second shape", keyword.line));
      wire = Wire{parser_.layer_index(shape->layer), std::move(shape->shape), net, WiringType::normal};
      return true;
    });
    if (!wire) parser_.fail(keyword.line, "the (wire ...) has no path, polygon, circle or rect");
    wire->type = type;
    routed_.wires.push_back(std::move(*wire));
  }

  void read_via(const NameAt& keyword, int net) {
    const NameAt padstack_name = parser_.read_atom("the via's padstack name");
    const auto found = padstack_by_name_.find(padstack_name.name);
    if (found == padstack_by_name_.end()) {
      parser_.fail(padstack_name.line, fmt::format("unknown padstack {}: the board's library has no such padstack",
                                                   dsn_detail::quoted(padstack_name.name)));
    }
    require_scale(keyword.line);
    const std::size_t first = routed_.vias.size();
    do {
      Via via;
      via.padstack = found->second;
      via.net = net;
      via.position.x = parser_.read_coord("the via's x", scale_);
      const std::size_t x_line = parser_.tokens().line();
      if (!parser_.next_is_atom()) parser_.fail(x_line, "a via position has an x but no y");
      via.position.y = parser_.read_coord("the via's y", scale_);
      routed_.vias.push_back(via);
    } while (parser_.next_is_atom());
    WiringType type = WiringType::normal;
    parser_.for_each_list(keyword, [&](const NameAt& part) {
      if (part.name != "type") return false;  // net (the enclosing net applies), attr, contact layers
      type = parser_.read_wiring_type(part);
      return true;
    });
    for (std::size_t i = first; i < routed_.vias.size(); ++i) routed_.vias[i].type = type;
  }

  dsn_detail::Parser parser_;
  const Board& board_;
  Scale scale_;
  std::unordered_map<std::string, int> net_by_name_;
  std::unordered_map<std::string, int> padstack_by_name_;
  std::unordered_map<std::string, int> component_by_name_;
  std::unordered_map<std::string, std::size_t> library_lines_;
  RoutedCopper routed_;
};

}  // namespace

RoutedCopper read_session(std::string_view text, const std::string& name, const Board& board) {
  return SessionReader(text, name, board).read();
}

RoutedCopper read_session(const std::filesystem::path& path, const Board& board) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "cannot open the file");
  std::ostringstream whole;
  whole << in.rdbuf();
  if (in.bad()) throw InputError(path.string(), 0, "reading the file failed");
  const std::string text = std::move(whole).str();
  return read_session(std::string_view(text), path.string(), board);
}

}  // namespace trellis::route
