// (library ...): images (footprints) with pins and keepouts, padstacks.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <unordered_set>

#include "parser.hpp"

namespace trellis::route::dsn_detail {
namespace {

// (pin PADSTACK [(rotate R)] ID X Y): everything after the padstack name.
struct PinFields {
  std::vector<NameAt> atoms;
  double rotation = 0;
};

// A row of pins in one (pin ...): (array BEGIN END STEP X0 Y0 XSTEP YSTEP
// [(prefix P)] [(suffix S)]) names pins P BEGIN S, P BEGIN+STEP S, ... up to
// END, the k-th at (X0 + k XSTEP, Y0 + k YSTEP).
struct PinArray {
  long begin = 0, end = 0, step = 1;
  double x0 = 0, y0 = 0, x_step = 0, y_step = 0;
  std::string prefix, suffix;
  std::size_t line = 0;
};

// More pins than an image of a real part holds: a broken array.
constexpr long kMostArrayPins = 1 << 20;

// After "(array": the array, validated.
PinArray read_pin_array(Parser& parser, const NameAt& keyword) {
  PinArray array;
  array.line = keyword.line;
  const auto index = [&](std::string_view what, long least) {
    const NameAt atom = parser.read_atom(what);
    const double value = parser.parse_number(atom, what);
    if (value != std::floor(value) || value < static_cast<double>(least) ||
        value > static_cast<double>(kMostArrayPins)) {
      parser.fail(atom.line, fmt::format("{} must be a whole number from {} to {}, found {}", what, least,
                                         kMostArrayPins, quoted(atom.name)));
    }
    return static_cast<long>(value);
  };
  array.begin = index("the pin array's first index", 0);
  array.end = index("the pin array's last index", 0);
  array.step = index("the pin array's index step", 1);
  if (array.end < array.begin || (array.end - array.begin) % array.step != 0) {
    parser.fail(keyword.line, fmt::format("a pin array from {} to {} in steps of {} does not reach its last index",
                                          array.begin, array.end, array.step));
  }
  if ((array.end - array.begin) / array.step + 1 > kMostArrayPins) {
    parser.fail(keyword.line, fmt::format("a pin array of more than {} pins", kMostArrayPins));
  }
  array.x0 = parser.read_number("the pin array's first x");
  array.y0 = parser.read_number("the pin array's first y");
  array.x_step = parser.read_number("the pin array's x step");
  array.y_step = parser.read_number("the pin array's y step");
  while (parser.next_is_open()) {
    const NameAt affix = parser.open_list("(prefix ...) or (suffix ...) in (array ...)");
    if (affix.name != "prefix" && affix.name != "suffix") {
      parser.fail(affix.line,
                  fmt::format("expected (prefix ID) or (suffix ID) in (array ...), found {}", quoted(affix.name)));
    }
    (affix.name == "prefix" ? array.prefix : array.suffix) = parser.read_atom("the pin names' " + affix.name).name;
    parser.expect_close(fmt::format("the ({} ...)", affix.name));
  }
  parser.expect_close(fmt::format("the (array ...) opened at line {}", keyword.line));
  return array;
}

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
          std::optional<PinArray> array;
          while (!next_is_close()) {
            if (next_is_open()) {
              const NameAt option = open_list("a list in (pin ...)");
              if (option.name == "rotate") {
                fields.rotation = read_number("the pin's rotation in degrees");
                expect_close("(rotate ...)");
              } else if (option.name == "array") {
                array = read_pin_array(*this, option);
              } else {
                warn_not_read(option, {}, "a (pin ...)");
                skip_rest(option);
              }
            } else {
              fields.atoms.push_back(read_atom("the pin's name and position"));
            }
          }
          expect_close(fmt::format("the (pin ...) opened at line {}", part.line));
          if (array) {
            if (!fields.atoms.empty()) {
              fail(part.line, "a (pin ...) with an (array ...) takes no name or position of its own");
            }
            const long count = (array->end - array->begin) / array->step + 1;
            for (long k = 0; k < count; ++k) {
              const std::string name =
                  fmt::format("{}{}{}", array->prefix, array->begin + k * array->step, array->suffix);
              if (!pin_names.insert(name).second) {
                fail(array->line, fmt::format("the image {} has two pins named {}", quoted(image.name), quoted(name)));
              }
              const double x = array->x0 + static_cast<double>(k) * array->x_step;
              const double y = array->y0 + static_cast<double>(k) * array->y_step;
              image.pins.push_back({name,
                                    0,
                                    {to_coord(x, array->line, image_scale), to_coord(y, array->line, image_scale)},
                                    fields.rotation,
                                    {}});
              pin_padstacks.push_back(padstack);
            }
            return true;
          }
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
