// The session writer: the board's resolution, names quoted as KiCad's
// exporter quotes them, routes grouped by net.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../dsn/parser.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/version.hpp"
#include "trellis/route/session.hpp"

namespace trellis::route {
namespace {

// Boards without a resolution (built in code, or from readers that keep
// none) are written in whole nanometres.
constexpr std::string_view kFallbackUnit = "um";
constexpr double kFallbackStepsPerUnit = 1000;

struct Resolution {
  std::string unit;
  double steps_per_unit = 0;
  double nanometres_per_step = 0;
};

Resolution resolution_of(const Board& board) {
  if (board.resolution_unit.empty() && board.resolution_per_unit == 0) {
    return {std::string(kFallbackUnit), kFallbackStepsPerUnit,
            *dsn_detail::nanometres_per(kFallbackUnit) / kFallbackStepsPerUnit};
  }
  const std::optional<double> per = dsn_detail::nanometres_per(board.resolution_unit);
  if (!per) {
    throw UsageError(fmt::format("the board's resolution unit '{}' is not a Specctra unit ({})", board.resolution_unit,
                                 dsn_detail::kUnits));
  }
  if (!(board.resolution_per_unit > 0) || !std::isfinite(board.resolution_per_unit)) {
    throw UsageError(fmt::format("the board's resolution ({} per {}) is not a positive number",
                                 board.resolution_per_unit, board.resolution_unit));
  }
  return {board.resolution_unit, board.resolution_per_unit, *per / board.resolution_per_unit};
}

// The name as KiCad's exporter writes it: quoted when a reader could take
// it apart (whitespace, parentheses), for a comment ('#' first) or for a
// pin reference (a '-' after the first character), and for the characters
// FreeRouting is known to mind (% { }).
bool needs_quotes(std::string_view name, char quote) {
  if (name.empty() || name.front() == '#') return true;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return true;
    if (c == '(' || c == ')' || c == '%' || c == '{' || c == '}' || c == '"' || c == quote) return true;
    if (c == '-' && i > 0) return true;
  }
  return false;
}

class SessionWriter {
 public:
  SessionWriter(const Board& board, const RoutedCopper& routed, std::ostream& out)
      : board_(board), routed_(routed), out_(out), resolution_(resolution_of(board)) {}

  void write() {
    check_copper_indices(board_, routed_);
    const std::string session_name = without_double_quotes(board_.name.empty() ? "board" : board_.name);
    out_ << "(session " << name(session_name) << "\n";
    out_ << "  (base_design " << name(session_name) << ")\n";
    write_placement();
    out_ << "  (was_is)\n";
    write_routes();
    out_ << ")\n";
  }

 private:
  static std::string without_double_quotes(std::string text) {
    std::erase(text, '"');
    return text;
  }

  std::string name(std::string_view text) const {
    if (!needs_quotes(text, quote_)) return std::string(text);
    std::string result(1, quote_);
    result += text;
    result += quote_;
    return result;
  }

  long long steps(Coord nanometres) const {
    return std::llround(static_cast<double>(nanometres) / resolution_.nanometres_per_step);
  }

  std::string resolution_list() const {
    return fmt::format("(resolution {} {})", resolution_.unit, resolution_.steps_per_unit);
  }

  void write_placement() {
    out_ << "  (placement\n    " << resolution_list() << "\n";
    for (std::size_t image = 0; image < board_.images.size(); ++image) {
      const std::string& image_name = board_.images[image].name;
      if (image_name.find('"') != std::string::npos) continue;
      bool opened = false;
      for (const Component& component : board_.components) {
        if (component.image != static_cast<int>(image)) continue;
        if (component.reference.find('"') != std::string::npos) continue;
        if (!opened) out_ << "    (component " << name(image_name) << "\n";
        opened = true;
        out_ << fmt::format("      (place {} {} {} {} {})\n", name(component.reference), steps(component.position.x),
                            steps(component.position.y), component.side == Side::front ? "front" : "back",
                            component.rotation);
      }
      if (opened) out_ << "    )\n";
    }
    out_ << "  )\n";
  }

  // '"' unless a name written in the routes holds one.
  char choose_quote() const {
    std::vector<std::string_view> names;
    for (const Layer& layer : board_.layers) names.push_back(specctra_name(layer));
    for (const Net& net : board_.nets) names.push_back(net.name);
    for (const Padstack& padstack : board_.padstacks) names.push_back(padstack.name);
    for (const char candidate : std::string_view("\"'$|`!~^")) {
      const bool used = std::any_of(names.begin(), names.end(), [&](std::string_view text) {
        return text.find(candidate) != std::string_view::npos;
      });
      if (!used) return candidate;
    }
    throw UsageError("the board's layer, net and padstack names use every quote character a session can declare");
  }

  // KiCad's session import looks layers up by the names its DSN export
  // gave them.
  static const std::string& specctra_name(const Layer& layer) {
    return layer.specctra_name.empty() ? layer.name : layer.specctra_name;
  }
  std::string layer_name(int layer) const {
    return name(specctra_name(board_.layers[static_cast<std::size_t>(layer)]));
  }

  std::string points(const std::vector<Point>& list) const {
    std::string text;
    for (const Point& p : list) text += fmt::format(" {} {}", steps(p.x), steps(p.y));
    return text;
  }

  // A shape as the DSN grammar writes it, on one layer.
  std::string shape_list(int layer, const Shape& shape) const {
    switch (shape.kind) {
      case ShapeKind::circle: {
        const Point centre = shape.points.empty() ? Point{} : shape.points.front();
        std::string text = fmt::format("(circle {} {}", layer_name(layer), steps(shape.width));
        if (centre != Point{}) text += points({centre});
        return text + ")";
      }
      case ShapeKind::rect:
        return fmt::format("(rect {}{})", layer_name(layer), points(shape.points));
      case ShapeKind::polygon:
        return fmt::format("(polygon {} {}{})", layer_name(layer), steps(shape.width), points(shape.points));
      case ShapeKind::path:
        break;
    }
    return fmt::format("(path {} {}{})", layer_name(layer), steps(shape.width), points(shape.points));
  }

  static std::string type_list(WiringType type) {
    switch (type) {
      case WiringType::normal:
        return "";
      case WiringType::route:
        return " (type route)";
      case WiringType::fix:
        return " (type fix)";
      case WiringType::protect:
        return " (type protect)";
    }
    return "";
  }

  void write_library() {
    std::set<int> used;
    for (const Via& via : routed_.vias) used.insert(via.padstack);
    out_ << "    (library_out\n";
    for (const int index : used) {
      const Padstack& padstack = board_.padstacks[static_cast<std::size_t>(index)];
      out_ << "      (padstack " << name(padstack.name) << "\n";
      for (const LayerShape& shape : padstack.shapes) {
        out_ << "        (shape " << shape_list(shape.layer, shape.shape) << ")\n";
      }
      if (!padstack.attach_allowed) out_ << "        (attach off)\n";
      out_ << "      )\n";
    }
    out_ << "    )\n";
  }

  void write_net(const std::string& net_name, int net) {
    bool opened = false;
    const auto open = [&] {
      if (!opened) out_ << "      (net " << name(net_name) << "\n";
      opened = true;
    };
    for (const Wire& wire : routed_.wires) {
      if (wire.net != net) continue;
      open();
      out_ << "        (wire " << shape_list(wire.layer, wire.shape) << type_list(wire.type) << ")\n";
    }
    for (const Via& via : routed_.vias) {
      if (via.net != net) continue;
      open();
      out_ << "        (via " << name(board_.padstacks[static_cast<std::size_t>(via.padstack)].name)
           << points({via.position}) << type_list(via.type) << ")\n";
    }
    if (opened) out_ << "      )\n";
  }

  void write_routes() {
    out_ << "  (routes\n    " << resolution_list() << "\n";
    quote_ = choose_quote();
    // The character after string_quote is read literally, never as a quote.
    out_ << "    (parser\n      (string_quote " << quote_ << ")\n";
    out_ << "      (host_cad " << quote_ << "trellis" << quote_ << ")\n";
    out_ << "      (host_version " << quote_ << kVersion << quote_ << ")\n    )\n";
    write_library();
    out_ << "    (network_out\n";
    for (std::size_t net = 0; net < board_.nets.size(); ++net) write_net(board_.nets[net].name, static_cast<int>(net));
    write_net("", -1);
    out_ << "    )\n  )\n";
  }

  const Board& board_;
  const RoutedCopper& routed_;
  std::ostream& out_;
  Resolution resolution_;
  char quote_ = '"';
};

}  // namespace

void write_session(const Board& board, const RoutedCopper& routed, std::ostream& out) {
  SessionWriter(board, routed, out).write();
}

void write_session(const Board& board, const RoutedCopper& routed, const std::filesystem::path& path) {
  AtomicOutputFile file(path);
  write_session(board, routed, file.stream());
  file.commit();
}

}  // namespace trellis::route
