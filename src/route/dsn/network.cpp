// (network ...): nets with their pins and rules, classes of nets.
#include <fmt/format.h>

#include "parser.hpp"

namespace trellis::route::dsn_detail {

void Parser::read_network(const NameAt& keyword) {
  Scale in = scale;
  for_each_list(keyword, [&](const NameAt& item) {
    if (item.name == "unit") {
      in = read_unit_list(item);
      return true;
    }
    if (item.name == "net") {
      Net net;
      net.name = read_atom("the net's name").name;
      std::vector<NameAt> pins;
      for_each_list(item, [&](const NameAt& part) {
        if (part.name == "pins") {
          while (next_is_atom()) pins.push_back(read_atom("a pin reference COMPONENT-PIN"));
          expect_close(fmt::format("the (pins ...) opened at line {}", part.line));
        } else if (part.name == "rule") {
          net.rules = read_rules(part, in);
        } else {
          return not_read(part,
                          {"net_number", "type", "order", "comp_order", "property", "expose", "noexpose", "source",
                           "load", "terminator", "supply"},
                          "a (net ...)");
        }
        return true;
      });
      board.nets.push_back(std::move(net));
      pending.net_pins.push_back(std::move(pins));
      pending.net_lines.push_back(item.line);
      return true;
    }
    if (item.name == "class") {
      NetClass net_class;
      net_class.name = read_atom("the class's name").name;
      std::vector<NameAt> nets;
      std::vector<NameAt> vias;
      while (!next_is_close()) {
        if (next_is_atom()) {
          nets.push_back(read_atom("a net name"));
          continue;
        }
        const NameAt part = open_list(fmt::format("a list in the (class ...) opened at line {}", item.line));
        if (part.name == "circuit") {
          for_each_list(part, [&](const NameAt& circuit_item) {
            if (circuit_item.name != "use_via") return not_read(circuit_item, {}, "a (circuit ...)");
            while (next_is_atom()) vias.push_back(read_atom("a via padstack name"));
            for_each_list(circuit_item, [&](const NameAt& option) { return not_read(option, {}, "(use_via ...)"); });
            return true;
          });
        } else if (part.name == "rule") {
          net_class.rules = read_rules(part, in);
        } else {
          not_read(part, {"topology"}, "a (class ...)");
          skip_rest(part);
        }
      }
      expect_close(fmt::format("the (class ...) opened at line {}", item.line));
      board.classes.push_back(std::move(net_class));
      pending.class_nets.push_back(std::move(nets));
      pending.class_vias.push_back(std::move(vias));
      return true;
    }
    return not_read(item, {}, "(network ...)");
  });
}

}  // namespace trellis::route::dsn_detail
