// (library ...): images (footprints) with pins and keepouts, padstacks.
#include <fmt/format.h>

#include <unordered_set>

#include "parser.hpp"

namespace trellis::route::dsn_detail {
namespace {

// (pin PADSTACK [(rotate R)] ID X Y): everything after the padstack name.
struct PinFields {
  std::vector<NameAt> atoms;
  double rotation = 0;
};

}  // namespace

void Parser::read_library(const NameAt& keyword) {
  Scale in = scale;
  for_each_list(keyword, [&](const NameAt& item) {
    if (item.name == "unit") {
      in = read_unit_list(item);
      return true;
    }
    if (item.name == "image") {
      Image image;
      image.name = read_atom("the image's name").name;
      std::vector<NameAt> pin_padstacks;
      std::unordered_set<std::string> pin_names;
      Scale image_scale = in;
      for_each_list(item, [&](const NameAt& part) {
        if (part.name == "unit") {
          image_scale = read_unit_list(part);
        } else if (part.name == "pin") {
          const NameAt padstack = read_atom("the pin's padstack name");
          PinFields fields;
          while (!next_is_close()) {
            if (next_is_open()) {
              const NameAt option = open_list("a list in (pin ...)");
              if (option.name == "rotate") {
                fields.rotation = read_number("the pin's rotation in degrees");
                expect_close("(rotate ...)");
              } else {
                warn_not_read(option, {}, "a (pin ...)");
                skip_rest(option);
              }
            } else {
              fields.atoms.push_back(read_atom("the pin's name and position"));
            }
          }
          expect_close(fmt::format("the (pin ...) opened at line {}", part.line));
          if (fields.atoms.size() != 3) {
            fail(part.line, fmt::format("expected (pin PADSTACK [(rotate R)] NAME X Y), found {} fields after the "
                                        "padstack name",
                                        fields.atoms.size()));
          }
          const NameAt& pin_name = fields.atoms[0];
          if (!pin_names.insert(pin_name.name).second) {
            fail(pin_name.line,
                 fmt::format("the image {} has two pins named {}", quoted(image.name), quoted(pin_name.name)));
          }
          const Point offset{to_coord(parse_number(fields.atoms[1], "the pin's x"), fields.atoms[1].line, image_scale),
                             to_coord(parse_number(fields.atoms[2], "the pin's y"), fields.atoms[2].line, image_scale)};
          image.pins.push_back({pin_name.name, 0, offset, fields.rotation, {}});
          pin_padstacks.push_back(padstack);
        } else if (part.name == "keepout" || part.name == "via_keepout" || part.name == "wire_keepout") {
          read_keepout(part, image_scale, image.keepouts);
        } else {
          return not_read(part, {"outline", "side", "property"}, "an (image ...)");
        }
        return true;
      });
      board.images.push_back(std::move(image));
      pending.image_pin_padstacks.push_back(std::move(pin_padstacks));
      image_lines.push_back(item.line);
      return true;
    }
    if (item.name == "padstack") {
      Padstack padstack;
      padstack.name = read_atom("the padstack's name").name;
      Scale padstack_scale = in;
      for_each_list(item, [&](const NameAt& part) {
        if (part.name == "unit") {
          padstack_scale = read_unit_list(part);
        } else if (part.name == "shape") {
          for_each_list(part, [&](const NameAt& shape_keyword) {
            const std::optional<ShapeAt> shape =
                read_shape_in(shape_keyword, padstack_scale, {}, "a padstack's (shape ...)");
            if (!shape) return true;
            for (const int layer : layers_named(shape->layer)) padstack.shapes.push_back({layer, shape->shape});
            return true;
          });
        } else if (part.name == "attach") {
          const NameAt value = read_atom("on or off in (attach ...)");
          if (value.name != "on" && value.name != "off") {
            fail(value.line, fmt::format("expected on or off in (attach ...), found {}", quoted(value.name)));
          }
          padstack.attach_allowed = value.name == "on";
          for_each_list(part, [&](const NameAt& use) { return not_read(use, {"use_via"}, "(attach ...)"); });
        } else {
          return not_read(part, {"rotate", "absolute"}, "a (padstack ...)");
        }
        return true;
      });
      board.padstacks.push_back(std::move(padstack));
      padstack_lines.push_back(item.line);
      return true;
    }
    return not_read(item, {"directory"}, "(library ...)");
  });
}

}  // namespace trellis::route::dsn_detail
