// (placement ...): (component IMAGE (place REF X Y front|back ROTATION ...)),
// or (place REF) for a component not placed yet.
#include <fmt/format.h>

#include "parser.hpp"

namespace trellis::route::dsn_detail {

void Parser::read_placement(const NameAt& keyword) {
  Scale in = scale;
  for_each_list(keyword, [&](const NameAt& item) {
    if (item.name == "unit") {
      in = read_unit_list(item);
      return true;
    }
    if (item.name != "component") return not_read(item, {"place_control", "flip_style"}, "(placement ...)");
    const NameAt image = read_atom("the component's image name");
    for_each_list(item, [&](const NameAt& place) {
      if (place.name != "place") return not_read(place, {}, "a (component ...)");
      Component component;
      const NameAt reference = read_atom("the placed component's reference");
      component.reference = reference.name;
      if (!next_is_atom()) {
        // Not placed yet: no copper, and its pins are left out of the nets.
        board.warnings.push_back(
            fmt::format("{}:{}: component {} is not placed (no position): its pins are left out of their nets",
                        tokens().name(), place.line, quoted(reference.name)));
        pending.unplaced_components.push_back(reference);
        for_each_list(place, [](const NameAt&) { return false; });
        return true;
      }
      component.position.x = read_coord("the component's x", in);
      component.position.y = read_coord("the component's y", in);
      const NameAt side = read_atom("the component's side (front or back)");
      if (side.name != "front" && side.name != "back") {
        fail(side.line, fmt::format("expected the side front or back, found {}", quoted(side.name)));
      }
      component.side = side.name == "front" ? Side::front : Side::back;
      component.rotation = read_number("the component's rotation in degrees");
      // Part numbers, lock types and the like: no copper.
      for_each_list(place, [&](const NameAt& detail) {
        return not_read(detail, {"PN", "lock_type", "logical_part", "property", "place_rule", "region", "pin"},
                        "a (place ...)");
      });
      board.components.push_back(std::move(component));
      pending.component_images.push_back(image);
      component_lines.push_back(place.line);
      return true;
    });
    return true;
  });
}

}  // namespace trellis::route::dsn_detail
