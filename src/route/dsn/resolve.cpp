// Turns the names the sections wrote into indices, once the whole file is
// read, and checks what a router relies on: every reference resolves and
// every pin sits on the board.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "parser.hpp"

namespace trellis::route::dsn_detail {
namespace {

// Name -> index for a list of named things; duplicates are reported at
// the second definition's line.
template <typename Item>
std::unordered_map<std::string, int> index_by_name(const Parser& parser, const std::vector<Item>& items,
                                                   const std::vector<std::size_t>& lines, std::string Item::*name,
                                                   std::string_view what) {
  std::unordered_map<std::string, int> index;
  index.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto [at, inserted] = index.emplace(items[i].*name, static_cast<int>(i));
    if (!inserted) {
      parser.fail(lines[i], fmt::format("the {} {} is defined twice (first at line {})", what, quoted(items[i].*name),
                                        lines[static_cast<std::size_t>(at->second)]));
    }
  }
  return index;
}

int find_named(const Parser& parser, const std::unordered_map<std::string, int>& index, const NameAt& name,
               std::string_view problem) {
  const auto found = index.find(name.name);
  if (found == index.end()) parser.fail(name.line, fmt::format("{} {}", problem, quoted(name.name)));
  return found->second;
}

std::string millimetres(Point p) {
  return fmt::format("({:.4f}, {:.4f}) mm", static_cast<double>(p.x) / kNanometresPerMillimetre,
                     static_cast<double>(p.y) / kNanometresPerMillimetre);
}

}  // namespace

void Parser::resolve() {
  const auto padstack_index = index_by_name(*this, board.padstacks, padstack_lines, &Padstack::name, "padstack");
  const auto image_index = index_by_name(*this, board.images, image_lines, &Image::name, "image");
  const auto component_index =
      index_by_name(*this, board.components, component_lines, &Component::reference, "component");
  const auto net_index = index_by_name(*this, board.nets, pending.net_lines, &Net::name, "net");

  for (const NameAt& via : pending.via_padstacks) {
    board.via_padstacks.push_back(
        find_named(*this, padstack_index, via, "the structure's via names a padstack the library does not define:"));
  }
  for (std::size_t i = 0; i < board.images.size(); ++i) {
    Image& image = board.images[i];
    for (std::size_t p = 0; p < image.pins.size(); ++p) {
      image.pins[p].padstack =
          find_named(*this, padstack_index, pending.image_pin_padstacks[i][p],
                     fmt::format("a pin of image {} names an unknown padstack", quoted(image.name)));
    }
  }
  for (std::size_t c = 0; c < board.components.size(); ++c) {
    board.components[c].image =
        find_named(*this, image_index, pending.component_images[c],
                   fmt::format("component {} is placed with an image the library does not define:",
                               quoted(board.components[c].reference)));
  }

  // Pin names per image, built for the images nets actually use.
  std::vector<std::unordered_map<std::string, int>> pin_index(board.images.size());
  const auto pin_of = [&](int image, const std::string& pin) -> int {
    auto& pins = pin_index[static_cast<std::size_t>(image)];
    const Image& defined = board.images[static_cast<std::size_t>(image)];
    if (pins.empty() && !defined.pins.empty()) {
      for (std::size_t p = 0; p < defined.pins.size(); ++p) pins.emplace(defined.pins[p].name, static_cast<int>(p));
    }
    const auto found = pins.find(pin);
    return found == pins.end() ? -1 : found->second;
  };
  std::unordered_set<std::string> unplaced;
  for (const NameAt& component : pending.unplaced_components) unplaced.insert(component.name);
  // COMPONENT-PIN with COMPONENT one not placed yet.
  const auto names_unplaced = [&](const std::string& reference) {
    for (std::size_t dash = reference.find('-'); dash != std::string::npos; dash = reference.find('-', dash + 1)) {
      if (unplaced.contains(reference.substr(0, dash))) return true;
    }
    return false;
  };
  for (std::size_t n = 0; n < board.nets.size(); ++n) {
    for (const NameAt& reference : pending.net_pins[n]) {
      // COMPONENT-PIN: the first '-' that leaves a placed component and one
      // of its pins (names on both sides may contain '-').
      std::optional<PinRef> resolved;
      bool component_found = false;
      for (std::size_t dash = reference.name.find('-'); dash != std::string::npos && !resolved;
           dash = reference.name.find('-', dash + 1)) {
        const auto component = component_index.find(reference.name.substr(0, dash));
        if (component == component_index.end()) continue;
        component_found = true;
        const int image = board.components[static_cast<std::size_t>(component->second)].image;
        const int pin = pin_of(image, reference.name.substr(dash + 1));
        if (pin >= 0) resolved = PinRef{component->second, pin};
      }
      if (!resolved && !component_found && names_unplaced(reference.name)) continue;  // warned of at (place ...)
      if (!resolved) {
        fail(reference.line,
             fmt::format("net {} names the pin {}, but {}", quoted(board.nets[n].name), quoted(reference.name),
                         reference.name.find('-') == std::string::npos
                             ? "a pin reference is COMPONENT-PIN"
                             : (component_found ? "that component's image has no such pin"
                                                : "no component with that reference is placed")));
      }
      board.nets[n].pins.push_back(*resolved);
    }
  }
  for (std::size_t k = 0; k < board.classes.size(); ++k) {
    NetClass& net_class = board.classes[k];
    // KiCad lists every member of a net class, also nets without pins that
    // it leaves out of the network: those have nothing to route.
    for (const NameAt& net : pending.class_nets[k]) {
      const auto found = net_index.find(net.name);
      if (found != net_index.end()) net_class.nets.push_back(found->second);
    }
    for (const NameAt& via : pending.class_vias[k]) {
      net_class.vias.push_back(find_named(
          *this, padstack_index, via, fmt::format("class {} uses an unknown via padstack", quoted(net_class.name))));
    }
  }
  for (std::size_t p = 0; p < board.planes.size(); ++p) {
    // A pour may name a net without pins; it then belongs to no listed net.
    const auto found = net_index.find(pending.plane_nets[p].name);
    board.planes[p].net = found == net_index.end() ? -1 : found->second;
  }
  for (std::size_t w = 0; w < board.wires.size(); ++w) {
    const NameAt& net = pending.wire_nets[w];
    if (!net.name.empty()) board.wires[w].net = find_named(*this, net_index, net, "a wire names an unknown net");
  }
  for (std::size_t v = 0; v < board.vias.size(); ++v) {
    board.vias[v].padstack =
        find_named(*this, padstack_index, pending.via_padstack_names[v], "a via names an unknown padstack");
    const NameAt& net = pending.via_nets[v];
    if (!net.name.empty()) board.vias[v].net = find_named(*this, net_index, net, "a via names an unknown net");
  }

  // A connected pin whose centre is off the board cannot be reached by any
  // route: an error. Unconnected ones (fiducials and tooling holes on a
  // panel's frame) are only noted.
  std::vector<std::vector<bool>> connected(board.components.size());
  for (std::size_t c = 0; c < board.components.size(); ++c) {
    connected[c].assign(board.images[static_cast<std::size_t>(board.components[c].image)].pins.size(), false);
  }
  for (const Net& net : board.nets) {
    for (const PinRef& pin : net.pins) {
      connected[static_cast<std::size_t>(pin.component)][static_cast<std::size_t>(pin.pin)] = true;
    }
  }
  for (std::size_t c = 0; c < board.components.size(); ++c) {
    const Image& image = board.images[static_cast<std::size_t>(board.components[c].image)];
    for (std::size_t p = 0; p < image.pins.size(); ++p) {
      const Point at = pin_position(board, {static_cast<int>(c), static_cast<int>(p)});
      if (inside_boundary(board, at)) continue;
      const std::string problem = fmt::format("pin {}-{} at {} lies outside the board outline",
                                              board.components[c].reference, image.pins[p].name, millimetres(at));
      if (connected[c][p]) fail(component_lines[c], problem + " but belongs to a net");
      board.warnings.push_back(
          fmt::format("{}:{}: {} (it belongs to no net; kept)", tokens().name(), component_lines[c], problem));
    }
  }
}

}  // namespace trellis::route::dsn_detail
