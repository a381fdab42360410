// Existing tracks: segments and arcs as wires, vias with padstacks of their size.
#include <fmt/format.h>

#include <algorithm>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

// KiCad 6 writes "(segment locked ...)", KiCad 7 and later "(locked yes)".
WiringType wiring_type(const Node& track) {
  if (track.has_atom("locked")) return WiringType::protect;
  if (const Node* locked = track.find("locked"); locked != nullptr && !locked->items.empty()) {
    if (locked->items[0].text == "yes") return WiringType::protect;
  }
  return WiringType::normal;
}

}  // namespace

int Reader::via_padstack(Coord diameter, Coord drill, int first, int last) {
  std::vector<LayerShape> shapes;
  for (int layer = first; layer <= last; ++layer)
    shapes.push_back({layer, Shape{ShapeKind::circle, diameter, {{0, 0}}}});
  const auto um = [](Coord nm) { return fmt::format("{:g}", static_cast<double>(nm) / 1000.0); };
  std::string name = fmt::format("Via[{}-{}]_{}:{}_um", first, last, um(diameter), um(drill));
  // The drill is in the name only: two vias of one diameter but different
  // drills have the same copper yet stay apart.
  const auto known = std::find_if(board.padstacks.begin(), board.padstacks.end(),
                                  [&](const Padstack& padstack) { return padstack.name == name; });
  if (known != board.padstacks.end()) return static_cast<int>(known - board.padstacks.begin());
  const int index = static_cast<int>(board.padstacks.size());
  board.padstacks.push_back(Padstack{std::move(name), std::move(shapes), true});
  return index;
}

void Reader::read_tracks(const Node& root) {
  const auto layer_of = [&](const Node& track) {
    const Node& layer = child(track, "layer");
    const std::string& name = atom(layer, 0, "the track's layer").text;
    const std::optional<int> index = copper_layer(name);
    if (!index)
      fail(layer.line,
           fmt::format("a track on {}, which is not a copper layer of the board", dsn_detail::quoted(name)));
    return *index;
  };
  const auto net_of = [&](const Node& item) {
    const Node* net_list = item.find("net");
    return net_list == nullptr ? -1 : net(*net_list);
  };

  for (const Node& item : root.items) {
    if (!item.is_list) continue;
    if (item.text == "segment" || item.text == "arc") {
      Wire wire;
      wire.layer = layer_of(item);
      wire.net = net_of(item);
      wire.type = wiring_type(item);
      const Node& width = child(item, "width");
      wire.shape.kind = ShapeKind::path;
      wire.shape.width = positive_length(width, 0, "the track's width");
      const Point start = point(child(item, "start"));
      const Point end = point(child(item, "end"));
      wire.shape.points =
          item.text == "segment" ? std::vector<Point>{start, end} : arc_points(start, point(child(item, "mid")), end);
      board.wires.push_back(std::move(wire));
    } else if (item.text == "via") {
      const Coord diameter = positive_length(child(item, "size"), 0, "the via's diameter");
      const Node* drill_list = item.find("drill");
      const Coord drill = drill_list == nullptr ? 0 : positive_length(*drill_list, 0, "the via's drill", true);
      if (drill >= diameter) fail(item.line, "the via's drill is as wide as the via: no copper is left");
      std::vector<int> layers = copper_layers(child(item, "layers"));
      if (layers.empty()) fail(item.line, "the via names no copper layer");
      // (layers A B) names the two ends of a blind or buried via; it spans
      // every layer between them.
      const auto [lowest, highest] = std::minmax_element(layers.begin(), layers.end());
      Via via;
      via.padstack = via_padstack(diameter, drill, *lowest, *highest);
      via.position = point(child(item, "at"));
      via.net = net_of(item);
      via.type = wiring_type(item);
      board.vias.push_back(via);
    }
  }
}

}  // namespace trellis::route::kicad_detail
