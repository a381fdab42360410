// Reading atoms, numbers, lengths, points, nets and layers out of the tree.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <system_error>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"
#include "trellis/core/error.hpp"

namespace trellis::route::kicad_detail {
namespace {

// Beyond a kilometre a length is a broken file, not a board; the limit also
// keeps every sum and product of two coordinates far from overflow.
constexpr double kLargestCoordinate = 1e12;  // nanometres

}  // namespace

void Reader::fail(std::size_t line, std::string_view problem) const {
  throw InputError(name_, line, std::string(problem));
}

void Reader::warn(std::size_t line, std::string_view message) {
  board.warnings.push_back(fmt::format("{}:{}: {}", name_, line, message));
}

const Node& Reader::atom(const Node& list, std::size_t index, std::string_view what) const {
  if (index >= list.items.size()) {
    fail(list.end_line,
         fmt::format("the ({} ...) list opened at line {} ends where {} was expected", list.text, list.line, what));
  }
  const Node& item = list.items[index];
  if (item.is_list) {
    fail(item.line,
         fmt::format("expected {} in ({} ...), found a list ({} ...)", what, list.text, dsn_detail::quoted(item.text)));
  }
  return item;
}

const Node& Reader::child(const Node& list, std::string_view keyword) const {
  const Node* found = list.find(keyword);
  if (found == nullptr) {
    fail(list.line, fmt::format("the ({} ...) list has no ({} ...)", list.text, keyword));
  }
  return *found;
}

double Reader::number(const Node& list, std::size_t index, std::string_view what) const {
  const Node& item = atom(list, index, what);
  std::string_view digits = item.text;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  double value = 0;
  const char* last = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), last, value, std::chars_format::general);
  if (digits.empty() || stop != last || error != std::errc() || !std::isfinite(value)) {
    fail(item.line, fmt::format("expected {} (a number), found {}", what, dsn_detail::quoted(item.text)));
  }
  return value;
}

Coord Reader::to_nanometres(double millimetres, std::size_t line) const {
  const double nanometres = millimetres * static_cast<double>(kNanometresPerMillimetre);
  if (!(std::fabs(nanometres) <= kLargestCoordinate)) {
    fail(line, fmt::format("the length {} mm is out of range (at most 1 km)", millimetres));
  }
  return std::llround(nanometres);
}

Coord Reader::length(const Node& list, std::size_t index, std::string_view what) const {
  const double value = number(list, index, what);
  return to_nanometres(value, list.items[index].line);
}

Coord Reader::positive_length(const Node& list, std::size_t index, std::string_view what, bool zero_ok) const {
  const Coord value = length(list, index, what);
  if (value < 0 || (value == 0 && !zero_ok)) {
    fail(list.items[index].line,
         fmt::format("{} must be {}, found {}", what, zero_ok ? "zero or more" : "positive", list.items[index].text));
  }
  return value;
}

Point Reader::raw_point(const Node& list) const {
  return {length(list, 0, fmt::format("the x of ({} ...)", list.text)),
          length(list, 1, fmt::format("the y of ({} ...)", list.text))};
}

Point Reader::point(const Node& list) const {
  const Point p = raw_point(list);
  return {p.x, -p.y};
}

double Reader::angle(const Node& at) const {
  if (at.items.size() < 3 || at.items[2].is_list) return 0;
  const double degrees = number(at, 2, "an angle in degrees");
  if (!(std::fabs(degrees) <= 1e6)) fail(at.items[2].line, fmt::format("the angle {} is out of range", degrees));
  const double turned = std::fmod(degrees, 360.0);
  return turned < 0 ? turned + 360.0 : turned;
}

Coord Reader::stroke_width(const Node& list) const {
  const Node* width = list.find("width");
  if (width == nullptr) {
    if (const Node* stroke = list.find("stroke")) width = stroke->find("width");
  }
  if (width == nullptr) return 0;
  return positive_length(*width, 0, "a line width", true);
}

int Reader::net(const Node& net_list) const {
  const double value = number(net_list, 0, "a net number");
  if (value != std::floor(value) || value < 0 || value > 1e9) {
    fail(net_list.line, fmt::format("the net number {} is not a whole number", net_list.items[0].text));
  }
  const auto found = net_by_number.find(static_cast<long>(value));
  if (found == net_by_number.end()) {
    fail(net_list.line, fmt::format("net {} is not declared by a (net {} \"name\") at the top of the board",
                                    net_list.items[0].text, net_list.items[0].text));
  }
  if (net_list.items.size() > 1 && !net_list.items[1].is_list && found->second >= 0) {
    const std::string& declared = board.nets[static_cast<std::size_t>(found->second)].name;
    if (net_list.items[1].text != declared) {
      fail(net_list.line, fmt::format("net {} is called {} here but {} where it is declared", net_list.items[0].text,
                                      dsn_detail::quoted(net_list.items[1].text), dsn_detail::quoted(declared)));
    }
  }
  return found->second;
}

std::optional<int> Reader::copper_layer(std::string_view name) const {
  const auto found = layer_by_name.find(std::string(name));
  if (found == layer_by_name.end()) return std::nullopt;
  return found->second;
}

std::vector<int> Reader::copper_layers(const Node& layers) const {
  std::vector<int> indices;
  const auto add = [&](int index) {
    for (const int known : indices) {
      if (known == index) return;
    }
    indices.push_back(index);
  };
  const int count = static_cast<int>(board.layers.size());
  for (const Node& item : layers.items) {
    if (item.is_list) continue;
    const std::string& name = item.text;
    if (name == "*.Cu") {
      for (int i = 0; i < count; ++i) add(i);
    } else if (name == "F&B.Cu") {
      add(0);
      add(count - 1);
    } else if (const std::optional<int> index = copper_layer(name)) {
      add(*index);
    } else if (name.ends_with(".Cu")) {
      fail(item.line, fmt::format("unknown copper layer {}: the (layers ...) table does not declare it",
                                  dsn_detail::quoted(name)));
    }
  }
  return indices;
}

bool Reader::all_copper(const std::vector<int>& layers) const { return layers.size() == board.layers.size(); }

bool filled(const Node& graphic, bool when_absent) {
  const Node* fill = graphic.find("fill");
  if (fill == nullptr || fill->items.empty()) return when_absent;
  const std::string& value = fill->items[0].text;
  return value == "solid" || value == "yes";
}

}  // namespace trellis::route::kicad_detail
