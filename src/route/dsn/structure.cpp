// (structure ...): layers, outline, keepouts, planes, via padstacks, rules.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "parser.hpp"

namespace trellis::route::dsn_detail {
namespace {

std::optional<LayerType> layer_type_named(std::string_view name) {
  if (name == "signal") return LayerType::signal;
  if (name == "power") return LayerType::power;
  if (name == "mixed") return LayerType::mixed;
  if (name == "jumper") return LayerType::jumper;
  return std::nullopt;
}

// Specctra's direction types; only horizontal and vertical prefer one.
std::optional<LayerDirection> layer_direction_named(std::string_view name) {
  if (name == "horizontal" || name == "hori") return LayerDirection::horizontal;
  if (name == "vertical" || name == "vert") return LayerDirection::vertical;
  if (name == "orthogonal" || name == "diagonal" || name == "positive_diagonal" || name == "negative_diagonal" ||
      name == "off") {
    return LayerDirection::any;
  }
  return std::nullopt;
}

// An outline written in pieces, paths and arcs whose ends meet (a board
// with round corners), as one path from the first piece on; pieces that
// join nothing follow it as written.
std::vector<Shape> joined_outline(std::vector<Shape> pieces) {
  const auto open_path = [](const Shape& s) {
    return s.kind == ShapeKind::path && s.points.size() >= 2 && s.points.front() != s.points.back();
  };
  if (pieces.empty() || !open_path(pieces.front())) return pieces;
  std::vector<Shape> rest(std::make_move_iterator(pieces.begin() + 1), std::make_move_iterator(pieces.end()));
  Shape outline = std::move(pieces.front());
  for (bool joined = true; joined && outline.points.front() != outline.points.back();) {
    joined = false;
    for (auto piece = rest.begin(); piece != rest.end(); ++piece) {
      if (!open_path(*piece)) continue;
      std::vector<Point>& points = piece->points;
      if (points.back() == outline.points.back()) std::reverse(points.begin(), points.end());
      if (points.front() != outline.points.back()) continue;
      outline.points.insert(outline.points.end(), points.begin() + 1, points.end());
      outline.width = std::max(outline.width, piece->width);
      rest.erase(piece);
      joined = true;
      break;
    }
  }
  rest.insert(rest.begin(), std::move(outline));
  return rest;
}

}  // namespace

void Parser::read_structure(const NameAt& keyword) {
  Scale in = scale;
  for_each_list(keyword, [&](const NameAt& item) {
    const std::string& name = item.name;
    if (name == "unit") {
      in = read_unit_list(item);
    } else if (name == "layer") {
      const NameAt layer_name = read_atom("the layer's name");
      if (layer_by_name.contains(layer_name.name)) {
        fail(layer_name.line, fmt::format("the layer {} is declared twice", quoted(layer_name.name)));
      }
      Layer layer{layer_name.name, LayerType::signal, static_cast<int>(board.layers.size())};
      for_each_list(item, [&](const NameAt& property) {
        if (property.name == "direction") {
          const NameAt direction = read_atom("a layer direction (horizontal, vertical, ...)");
          const std::optional<LayerDirection> known = layer_direction_named(direction.name);
          if (!known) {
            fail(direction.line, fmt::format("unknown layer direction {}: expected horizontal, vertical, orthogonal, "
                                             "diagonal, positive_diagonal, negative_diagonal or off",
                                             quoted(direction.name)));
          }
          layer.direction = *known;
          expect_close("(direction ...)");
          return true;
        }
        if (property.name != "type") return not_read(property, {"property"}, "a (layer ...)");
        const NameAt type = read_atom("a layer type (signal, power, mixed or jumper)");
        const std::optional<LayerType> known = layer_type_named(type.name);
        if (!known) {
          fail(type.line,
               fmt::format("unknown layer type {}: expected signal, power, mixed or jumper", quoted(type.name)));
        }
        layer.type = *known;
        expect_close("(type ...)");
        return true;
      });
      layer_by_name.emplace(layer.name, layer.index);
      layer_lines.push_back(layer_name.line);
      board.layers.push_back(std::move(layer));
    } else if (name == "boundary") {
      std::vector<Shape> pieces;
      for_each_list(item, [&](const NameAt& shape_keyword) {
        if (std::optional<ShapeAt> shape = read_shape_in(shape_keyword, in, {}, "(boundary ...)")) {
          pieces.push_back(std::move(shape->shape));
        }
        return true;
      });
      for (Shape& piece : joined_outline(std::move(pieces))) board.boundary.push_back(std::move(piece));
    } else if (name == "keepout" || name == "via_keepout" || name == "wire_keepout") {
      read_keepout(item, in, board.keepouts);
    } else if (name == "plane") {
      const NameAt net = read_atom("the plane's net name");
      for_each_list(item, [&](const NameAt& shape_keyword) {
        // A plane is an area: an arc's stroke is not one.
        if (shape_keyword.name == "qarc") return not_read(shape_keyword, {}, "a (plane ...)");
        const std::optional<ShapeAt> shape = read_shape_in(shape_keyword, in, {"window"}, "a (plane ...)");
        if (!shape) return true;
        for (const int layer : layers_named(shape->layer)) {
          board.planes.push_back({net.name, -1, layer, shape->shape});
          pending.plane_nets.push_back(net);
        }
        return true;
      });
    } else if (name == "via") {
      while (next_is_atom()) pending.via_padstacks.push_back(read_atom("a via padstack name"));
      for_each_list(item, [&](const NameAt& option) { return not_read(option, {"spare"}, "(via ...)"); });
    } else if (name == "rule") {
      board.rules = read_rules(item, in);
    } else {
      // Routing grids and the autorouter's own settings: the lattice is this
      // router's own.
      return not_read(item,
                      {"grid", "control", "autoroute_settings", "place_boundary", "snap_angle", "layer_noise_weight",
                       "place_rule", "flip_style"},
                      "(structure ...)");
    }
    return true;
  });
}

}  // namespace trellis::route::dsn_detail
