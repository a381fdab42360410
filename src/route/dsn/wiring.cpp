// (wiring ...): wires and vias already on the board.
#include <fmt/format.h>

#include "parser.hpp"

namespace trellis::route::dsn_detail {

void Parser::read_wiring(const NameAt& keyword) {
  Scale in = scale;
  for_each_list(keyword, [&](const NameAt& item) {
    if (item.name == "unit") {
      in = read_unit_list(item);
      return true;
    }
    if (item.name == "wire") {
      std::optional<Wire> wire;
      NameAt net;
      WiringType type = WiringType::normal;
      for_each_list(item, [&](const NameAt& part) {
        if (part.name == "net") {
          net = read_atom("the wire's net name");
          expect_close("(net ...)");
        } else if (part.name == "type") {
          type = read_wiring_type(part);
        } else if (std::optional<ShapeAt> shape = read_shape_in(
                       part, in, {"turret", "attr", "shield", "window", "connect", "supply"}, "a (wire ...)")) {
          if (wire) fail(part.line, fmt::format("the (wire ...) opened at line {} has a second shape", item.line));
          wire = Wire{layer_index(shape->layer), std::move(shape->shape), -1, WiringType::normal};
        }
        return true;  // read_shape_in skipped what is not a shape, with a warning
      });
      if (!wire) return true;  // a shape a router does not keep: warned of above
      wire->type = type;
      if (net.line == 0) net.line = item.line;
      board.wires.push_back(std::move(*wire));
      pending.wire_nets.push_back(std::move(net));
      return true;
    }
    if (item.name == "via") {
      Via via;
      NameAt padstack = read_atom("the via's padstack name");
      via.position.x = read_coord("the via's x", in);
      via.position.y = read_coord("the via's y", in);
      NameAt net{"", item.line};
      for_each_list(item, [&](const NameAt& part) {
        if (part.name == "net") {
          net = read_atom("the via's net name");
          expect_close("(net ...)");
        } else if (part.name == "type") {
          via.type = read_wiring_type(part);
        } else {
          return not_read(part, {"attr", "supply", "contact"}, "a (via ...)");
        }
        return true;
      });
      board.vias.push_back(via);
      pending.via_padstack_names.push_back(std::move(padstack));
      pending.via_nets.push_back(std::move(net));
      return true;
    }
    return not_read(item, {}, "(wiring ...)");
  });
}

}  // namespace trellis::route::dsn_detail
