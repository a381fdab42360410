// Footprints: components, their images and pins, and the pins' nets.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "../dsn/tokenizer.hpp"
#include "pad_shapes.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

double normalised(double degrees) {
  const double turned = std::fmod(degrees, 360.0);
  return turned < 0 ? turned + 360.0 : turned;
}

void append_shape_key(std::string& key, const Shape& shape) {
  key += fmt::format("{}:{}", static_cast<int>(shape.kind), shape.width);
  for (const Point& p : shape.points) key += fmt::format(",{},{}", p.x, p.y);
  key += ';';
}

std::string image_key(const Image& image) {
  std::string key = image.name + '|';
  for (const ImagePin& pin : image.pins) {
    key += fmt::format("{}|{}|{},{}|{}|{}|", pin.name, pin.padstack, pin.offset.x, pin.offset.y, pin.rotation,
                       pin.clearance.value_or(-1));
    key += fmt::format("{}|{}|", pin.zone_connection ? static_cast<int>(*pin.zone_connection) : -1,
                       pin.thermal_gap.value_or(-1));
  }
  for (const Keepout& keepout : image.keepouts) append_shape_key(key, keepout.shape);
  return key;
}

// A padstack's name in the style of KiCad's Specctra export: shape, size
// in um and the layers it spans.
std::string padstack_name(const std::vector<Shape>& shapes, const std::vector<int>& layers) {
  const Box box = bounding_box(shapes.front());
  const auto um = [](Coord nm) { return fmt::format("{:g}", static_cast<double>(nm) / 1000.0); };
  const char* kind = shapes.size() > 1                          ? "Custom"
                     : shapes.front().kind == ShapeKind::circle ? "Round"
                     : shapes.front().kind == ShapeKind::rect   ? "Rect"
                     : shapes.front().kind == ShapeKind::path   ? "Oval"
                                                                : "Polygon";
  std::string span =
      layers.size() == 1 ? std::to_string(layers.front()) : fmt::format("{}-{}", layers.front(), layers.back());
  return fmt::format("{}[{}]Pad_{}x{}_um", kind, span, um(box.max.x - box.min.x), um(box.max.y - box.min.y));
}

}  // namespace

std::vector<const Node*> footprints_of(const Node& root) {
  std::vector<const Node*> found;
  for (const Node& item : root.items) {
    if (item.is_list && (item.text == "footprint" || item.text == "module")) found.push_back(&item);
  }
  return found;
}

std::string reference_of(const Reader& reader, const Node& footprint) {
  for (const Node* text : footprint.find_all("fp_text")) {
    if (!text->items.empty() && text->items[0].text == "reference") {
      return reader.atom(*text, 1, "the reference text").text;
    }
  }
  // KiCad 8 and later: (property "Reference" "R1" ...).
  for (const Node* property : footprint.find_all("property")) {
    if (!property->items.empty() && property->items[0].text == "Reference") {
      return reader.atom(*property, 1, "the reference").text;
    }
  }
  return "";
}

std::optional<PadConnection> Reader::zone_connection(const Node& pad, const Node& footprint) const {
  // KiCad's (zone_connect N): 0 none, 1 thermal, 2 solid, 3 thermal for
  // through-hole pads only; the pad's, else its footprint's.
  for (const Node* item : {&pad, &footprint}) {
    const Node* connect = item->find("zone_connect");
    if (connect == nullptr || connect->items.empty()) continue;
    switch (static_cast<int>(number(*connect, 0, "a zone connection"))) {
      case 0:
        return PadConnection::none;
      case 1:
        return PadConnection::thermal;
      case 2:
        return PadConnection::solid;
      case 3:
        return PadConnection::thru_hole_only;
      default:
        return PadConnection::none;  // unknown: relied on for nothing
    }
  }
  return std::nullopt;
}

std::optional<Coord> Reader::thermal_gap(const Node& pad, const Node& footprint) const {
  for (const Node* item : {&pad, &footprint}) {
    if (const Node* gap = item->find("thermal_gap"); gap != nullptr && !gap->items.empty()) {
      if (const Coord value = positive_length(*gap, 0, "a thermal gap", true); value > 0) return value;
    }
  }
  return std::nullopt;
}

std::optional<Coord> Reader::local_clearance(const Node& item) const {
  const Node* clearance = item.find("clearance");
  if (clearance == nullptr) return std::nullopt;
  const Coord value = positive_length(*clearance, 0, "a clearance override", true);
  // KiCad writes 0 for "none".
  if (value == 0) return std::nullopt;
  return value;
}

int Reader::padstack_for(std::string name, std::vector<LayerShape> shapes) {
  std::string key;
  for (const LayerShape& shape : shapes) {
    key += std::to_string(shape.layer) + '@';
    append_shape_key(key, shape.shape);
  }
  const auto found = padstack_by_key_.find(key);
  if (found != padstack_by_key_.end()) return found->second;
  // Different copper under the same name gets a suffix.
  std::string unique = name;
  for (int k = 1; std::any_of(board.padstacks.begin(), board.padstacks.end(),
                              [&](const Padstack& known) { return known.name == unique; });
       ++k) {
    unique = fmt::format("{}::{}", name, k);
  }
  const int index = static_cast<int>(board.padstacks.size());
  board.padstacks.push_back(Padstack{std::move(unique), std::move(shapes), true});
  padstack_by_key_.emplace(std::move(key), index);
  return index;
}

void Reader::read_footprints(const Node& root) {
  std::unordered_map<std::string, int> image_by_key;
  std::unordered_map<std::string, int> variants_by_name;
  std::unordered_map<std::string, std::size_t> line_by_reference;
  const int layer_count = static_cast<int>(board.layers.size());

  for (const Node* footprint : footprints_of(root)) {
    const std::string& library_name = atom(*footprint, 0, "the footprint's library name").text;
    const Node& side_layer = child(*footprint, "layer");
    const std::string& side_name = atom(side_layer, 0, "the footprint's side (F.Cu or B.Cu)").text;
    if (side_name != "F.Cu" && side_name != "B.Cu") {
      fail(side_layer.line, fmt::format("a footprint lies on F.Cu or B.Cu, found {}", dsn_detail::quoted(side_name)));
    }
    const bool back = side_name == "B.Cu";
    const Node& at = child(*footprint, "at");
    const Point origin = point(at);
    const double angle = this->angle(at);

    Component component;
    component.reference = reference_of(*this, *footprint);
    component.position = origin;
    component.side = back ? Side::back : Side::front;
    // Back side: the image is the unflipped footprint, mirrored x -> -x and
    // turned half a turn more when placed (see kicad.hpp).
    component.rotation = back ? normalised(angle + 180) : angle;
    component.clearance = local_clearance(*footprint);

    Image image;
    image.name = library_name;
    std::unordered_map<std::string, int> seen_numbers;
    std::vector<std::pair<int, int>> pin_nets;  // (pin, net)
    std::vector<std::size_t> pin_lines;
    std::vector<std::pair<std::string, int>> pad_numbers;  // (number, pin) of the copper pads
    for (const Node* pad : footprint->find_all("pad")) {
      const std::string& number = atom(*pad, 0, "the pad's number").text;
      const std::string& type = atom(*pad, 1, "the pad's type").text;
      if (type != "thru_hole" && type != "smd" && type != "connect" && type != "np_thru_hole") {
        fail(pad->items[1].line, fmt::format("unknown pad type {}: expected thru_hole, smd, connect or np_thru_hole",
                                             dsn_detail::quoted(type)));
      }
      const Node& pad_at = child(*pad, "at");
      const Point written = raw_point(pad_at);
      const double relative = normalised(this->angle(pad_at) - angle);
      const Point offset = back ? written : Point{written.x, -written.y};
      const double rotation = back ? normalised(-relative) : relative;
      const Node* layer_list = pad->find("layers");
      const std::vector<int> layers = layer_list != nullptr ? copper_layers(*layer_list) : std::vector<int>{};
      std::vector<Shape> copper = pad_copper(*this, *pad);  // validated even where unused

      if (type == "np_thru_hole" || layers.empty()) {
        // A hole without copper (or a pad on mask or paste only): no pin,
        // but nothing may be routed through the hole.
        if (std::optional<Shape> hole = pad_hole(*this, *pad)) {
          Shape in_image = back ? *hole : mirrored_y(*hole);
          for (Point& p : in_image.points) {
            const Point turned = rotate(p, rotation);
            p = {turned.x + offset.x, turned.y + offset.y};
          }
          image.keepouts.push_back(Keepout{KeepoutKind::keepout, "hole", kAllLayers, std::move(in_image)});
        }
        continue;
      }

      std::vector<LayerShape> shapes;
      std::vector<int> image_layers;
      for (const int layer : layers) image_layers.push_back(back ? layer_count - 1 - layer : layer);
      std::sort(image_layers.begin(), image_layers.end());
      for (const int layer : image_layers) {
        for (const Shape& shape : copper) shapes.push_back({layer, back ? shape : mirrored_y(shape)});
      }
      const int padstack = padstack_for(padstack_name(copper, image_layers), std::move(shapes));

      // Pin names as KiCad's Specctra export writes them: a repeated or
      // empty number gets "@k".
      const int seen = ++seen_numbers[number];
      std::string name = number;
      if (number.empty()) {
        name = fmt::format("@{}", seen);
      } else if (seen > 1) {
        name = fmt::format("{}@{}", number, seen - 1);
      }
      const int pin = static_cast<int>(image.pins.size());
      pad_numbers.emplace_back(number, pin);
      image.pins.push_back(ImagePin{std::move(name), padstack, offset, rotation, local_clearance(*pad),
                                    zone_connection(*pad, *footprint), thermal_gap(*pad, *footprint)});
      if (const Node* net_list = pad->find("net")) {
        const int net_index = net(*net_list);
        if (net_index >= 0) {
          pin_nets.emplace_back(pin, net_index);
          pin_lines.push_back(pad->line);
        }
      }
    }

    // Identical footprints share one image; different ones under one
    // library name are told apart by "::k", as KiCad's export does.
    const std::string key = image_key(image);
    auto found = image_by_key.find(key);
    if (found == image_by_key.end()) {
      const int variant = variants_by_name[library_name]++;
      if (variant > 0) image.name = fmt::format("{}::{}", library_name, variant);
      found = image_by_key.emplace(key, static_cast<int>(board.images.size())).first;
      board.images.push_back(std::move(image));
    }
    component.image = found->second;

    if (!component.reference.empty()) {
      const auto [known, inserted] = line_by_reference.emplace(component.reference, footprint->line);
      if (!inserted) {
        warn(footprint->line, fmt::format("two footprints are called {} (the other at line {})",
                                          dsn_detail::quoted(component.reference), known->second));
      }
    }
    const int component_index = static_cast<int>(board.components.size());
    if (std::vector<std::vector<int>> groups = net_tie_groups(*footprint, pad_numbers); !groups.empty()) {
      pending_ties.push_back({component_index, std::move(groups)});
    }
    board.components.push_back(std::move(component));
    for (std::size_t i = 0; i < pin_nets.size(); ++i) {
      const PinRef ref{component_index, pin_nets[i].first};
      board.nets[static_cast<std::size_t>(pin_nets[i].second)].pins.push_back(ref);
      connected_pads.push_back({ref, pin_lines[i]});
    }
  }
}

void Reader::check_pins_on_board() {
  if (board.boundary.empty()) return;
  for (const PadAt& pad : connected_pads) {
    if (inside_boundary(board, pin_position(board, pad.pin))) continue;
    const Component& component = board.components[static_cast<std::size_t>(pad.pin.component)];
    const Image& image = board.images[static_cast<std::size_t>(component.image)];
    warn(pad.line, fmt::format("pad {} of {} lies outside the board outline",
                               dsn_detail::quoted(image.pins[static_cast<std::size_t>(pad.pin.pin)].name),
                               dsn_detail::quoted(component.reference)));
  }
}

}  // namespace trellis::route::kicad_detail
