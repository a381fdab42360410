// Zones: rule areas that forbid tracks or vias become keepouts, copper
// zones become planes.
#include <fmt/format.h>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

bool not_allowed(const Node& rules, std::string_view what) {
  const Node* rule = rules.find(what);
  return rule != nullptr && !rule->items.empty() && rule->items[0].text == "not_allowed";
}

}  // namespace

void Reader::read_zones(const Node& root) {
  std::vector<const Node*> zones = root.find_all("zone");
  // Rule areas inside footprints are written in board coordinates too.
  for (const Node* footprint : footprints_of(root)) {
    for (const Node* zone : footprint->find_all("zone")) zones.push_back(zone);
  }
  for (const Node* zone : zones) {
    std::vector<int> layers;
    if (const Node* one = zone->find("layer")) {
      layers = copper_layers(*one);
    } else if (const Node* several = zone->find("layers")) {
      layers = copper_layers(*several);
    } else {
      fail(zone->line, "the zone has neither (layer ...) nor (layers ...)");
    }
    std::vector<Shape> outlines;
    for (const Node* polygon : zone->find_all("polygon")) {
      std::vector<Point> points = read_pts(*this, child(*polygon, "pts"));
      if (points.size() < 3) fail(polygon->line, "a zone's outline needs at least 3 vertices");
      outlines.push_back(Shape{ShapeKind::polygon, 0, std::move(points)});
    }
    if (outlines.empty()) fail(zone->line, "the zone has no (polygon (pts ...)) outline");
    if (layers.empty()) continue;  // a zone on non-copper layers only

    if (const Node* rules = zone->find("keepout")) {
      const bool no_tracks = not_allowed(*rules, "tracks");
      const bool no_vias = not_allowed(*rules, "vias");
      if (!no_tracks && !no_vias) continue;  // pads, pours or footprints only: no routing rule
      const KeepoutKind kind = no_tracks && no_vias ? KeepoutKind::keepout
                               : no_tracks          ? KeepoutKind::wire_keepout
                                                    : KeepoutKind::via_keepout;
      std::string name;
      if (const Node* zone_name = zone->find("name"); zone_name != nullptr && !zone_name->items.empty()) {
        name = zone_name->items[0].text;
      }
      for (const Shape& outline : outlines) {
        if (all_copper(layers)) {
          board.keepouts.push_back(Keepout{kind, name, kAllLayers, outline});
          continue;
        }
        for (const int layer : layers) board.keepouts.push_back(Keepout{kind, name, layer, outline});
      }
      continue;
    }

    Plane plane;
    if (const Node* net_list = zone->find("net")) plane.net = net(*net_list);
    if (plane.net >= 0) plane.net_name = board.nets[static_cast<std::size_t>(plane.net)].name;
    for (const Shape& outline : outlines) {
      for (const int layer : layers) {
        plane.layer = layer;
        plane.shape = outline;
        board.planes.push_back(plane);
      }
    }
  }
}

}  // namespace trellis::route::kicad_detail
