// Zones: rule areas that forbid tracks or vias become keepouts, those that
// forbid pours only pour keepouts, copper zones become planes with the
// rules their fill follows.
#include <fmt/format.h>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

bool not_allowed(const Node& rules, std::string_view what) {
  const Node* rule = rules.find(what);
  return rule != nullptr && !rule->items.empty() && rule->items[0].text == "not_allowed";
}

// An optional (KEYWORD VALUE) length, `otherwise` when absent.
Coord length_or(const Reader& reader, const Node& list, std::string_view keyword, Coord otherwise) {
  const Node* item = list.find(keyword);
  return item == nullptr || item->items.empty() ? otherwise : reader.positive_length(*item, 0, keyword, true);
}

// (connect_pads [yes|no|thru_hole_only] (clearance C)), (min_thickness T),
// (priority P) and (fill [yes] [(mode hatch)] (thermal_gap G)
// (thermal_bridge_width W) [(smoothing fillet|chamfer) (radius R)]).
PourRules pour_rules(const Reader& reader, const Node& zone) {
  PourRules rules;
  if (const Node* connect = zone.find("connect_pads")) {
    for (const Node& item : connect->items) {
      if (item.is_list) continue;
      if (item.text == "yes") rules.pads = PadConnection::solid;
      if (item.text == "no") rules.pads = PadConnection::none;
      if (item.text == "thru_hole_only") rules.pads = PadConnection::thru_hole_only;
    }
    rules.clearance = length_or(reader, *connect, "clearance", 0);
  }
  rules.min_thickness = length_or(reader, zone, "min_thickness", 0);
  if (const Node* priority = zone.find("priority"); priority != nullptr && !priority->items.empty()) {
    rules.priority = static_cast<int>(reader.number(*priority, 0, "the zone priority"));
  }
  if (const Node* fill = zone.find("fill")) {
    if (const Node* mode = fill->find("mode"); mode != nullptr && !mode->items.empty()) {
      rules.hatched = mode->items[0].text != "solid" && mode->items[0].text != "polygon";
    }
    rules.thermal_gap = length_or(reader, *fill, "thermal_gap", 0);
    rules.thermal_bridge_width = length_or(reader, *fill, "thermal_bridge_width", 0);
    if (const Node* smoothing = fill->find("smoothing");
        smoothing != nullptr && !smoothing->items.empty() && smoothing->items[0].text != "none") {
      rules.corner_radius = length_or(reader, *fill, "radius", 0);
    }
  }
  return rules;
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
      if (!no_tracks && !no_vias) {  // pads, pours or footprints only: no routing rule
        if (!not_allowed(*rules, "copperpour")) continue;
        for (const Shape& outline : outlines) {
          const auto add = [&](int layer) {
            board.pour_keepouts.push_back({KeepoutKind::keepout, {}, layer, outline});
          };
          if (all_copper(layers)) {
            add(kAllLayers);
          } else {
            for (const int layer : layers) add(layer);
          }
        }
        continue;
      }
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
    plane.pour = pour_rules(*this, *zone);
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
