// The (layers ...) table: the copper layers in stack order.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "../dsn/tokenizer.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

// Where a copper layer sits in the stack: F.Cu, In1.Cu ... In30.Cu, B.Cu.
// KiCad 6-8 number them 0..31 in that order, KiCad 9 numbers F.Cu 0, B.Cu 2
// and the inner layers 4, 6, ...; the names say the order either way.
std::optional<int> stack_rank(std::string_view name) {
  if (name == "F.Cu") return 0;
  if (name == "B.Cu") return 1000;
  if (!name.starts_with("In") || !name.ends_with(".Cu")) return std::nullopt;
  const std::string_view digits = name.substr(2, name.size() - 5);
  int inner = 0;
  const auto [stop, error] = std::from_chars(digits.data(), digits.data() + digits.size(), inner);
  if (digits.empty() || error != std::errc() || stop != digits.data() + digits.size() || inner < 1 || inner > 30) {
    return std::nullopt;
  }
  return inner;
}

}  // namespace

void Reader::read_layers(const Node& root) {
  const Node& table = child(root, "layers");
  struct Declared {
    int rank;
    Layer layer;
    std::size_t line;
  };
  std::vector<Declared> copper;
  for (const Node& entry : table.items) {
    // (ID "NAME" TYPE ["USER NAME"]): the list's keyword is the id.
    if (!entry.is_list) fail(entry.line, "expected (ID \"NAME\" TYPE) in (layers ...)");
    const std::string& written = atom(entry, 0, "the layer's name").text;
    const std::string& type = atom(entry, 1, "the layer's type").text;
    // KiCad 5 writes a renamed copper layer under its new name; ids 0 to
    // 31 are the copper layers there.
    std::string name = written;
    if (!written.ends_with(".Cu") && version < kFirstCanonicalLayerNames) {
      char* end = nullptr;
      const long id = std::strtol(entry.text.c_str(), &end, 10);
      if (end != entry.text.c_str() && *end == '\0' && id >= 0 && id <= 31) {
        name = id == 0 ? "F.Cu" : id == 31 ? "B.Cu" : fmt::format("In{}.Cu", id);
      }
    }
    if (!name.ends_with(".Cu")) continue;  // silkscreen, mask, edge cuts, user layers
    const std::optional<int> rank = stack_rank(name);
    if (!rank)
      fail(entry.line,
           fmt::format("unknown copper layer {}: expected F.Cu, In1.Cu ... In30.Cu or B.Cu", dsn_detail::quoted(name)));
    Layer layer;
    layer.name = name;
    if (written != name) {
      layer.specctra_name = written;
    } else if (entry.items.size() > 2 && !entry.items[2].is_list && entry.items[2].text != name) {
      layer.specctra_name = entry.items[2].text;  // KiCad 6's user name
    }
    if (type == "signal") {
      layer.type = LayerType::signal;
    } else if (type == "power") {
      layer.type = LayerType::power;
    } else if (type == "mixed") {
      layer.type = LayerType::mixed;
    } else if (type == "jumper") {
      layer.type = LayerType::jumper;
    } else {
      fail(entry.line, fmt::format("unknown type {} of copper layer {}: expected signal, power, mixed or jumper",
                                   dsn_detail::quoted(type), dsn_detail::quoted(name)));
    }
    for (const Declared& known : copper) {
      if (known.layer.name == name) {
        fail(entry.line,
             fmt::format("copper layer {} is declared twice (first at line {})", dsn_detail::quoted(name), known.line));
      }
    }
    copper.push_back({*rank, std::move(layer), entry.line});
  }
  if (copper.empty()) fail(table.line, "the (layers ...) table declares no copper layer");
  std::stable_sort(copper.begin(), copper.end(), [](const Declared& a, const Declared& b) { return a.rank < b.rank; });
  for (Declared& declared : copper) {
    declared.layer.index = static_cast<int>(board.layers.size());
    layer_by_name.emplace(declared.layer.name, declared.layer.index);
    // KiCad 5's tracks name a renamed layer by its new name.
    if (version < kFirstCanonicalLayerNames && !declared.layer.specctra_name.empty()) {
      layer_by_name.emplace(declared.layer.specctra_name, declared.layer.index);
    }
    board.layers.push_back(std::move(declared.layer));
  }
}

}  // namespace trellis::route::kicad_detail
