// Net classes and design rules from the .kicad_pro project file (JSON) or,
// for KiCad 5, from the board itself; KiCad's defaults without either.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "trellis/core/error.hpp"
#include "reader.hpp"

namespace trellis::route::kicad_detail {
namespace {

using nlohmann::json;

// KiCad's defaults for a new board, in nanometres.
constexpr Coord kDefaultClearance = 200'000;
constexpr Coord kDefaultTrackWidth = 250'000;
constexpr Coord kDefaultViaDiameter = 800'000;
constexpr Coord kDefaultViaDrill = 400'000;
// KiCad 6's minimum track width where the design rules name none (later
// versions default to none at all; 0.2 mm passes their checks too).
constexpr Coord kDefaultMinimumTrackWidth = 200'000;

struct ClassRules {
  std::string name;
  Coord clearance = kDefaultClearance;
  Coord track_width = kDefaultTrackWidth;
  Coord via_diameter = kDefaultViaDiameter;
  Coord via_drill = kDefaultViaDrill;
  std::vector<std::string> nets;  // KiCad 6 lists members in the class
};

// '*' any run of characters, '?' any one, as KiCad's net class patterns.
bool wildcard_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

class ProjectFile {
 public:
  explicit ProjectFile(const KicadProject& project) : project_(project) {}

  [[noreturn]] void fail(std::size_t line, const std::string& problem) const {
    throw InputError(project_.name, line, problem);
  }

  json parse() const {
    try {
      return json::parse(project_.text);
    } catch (const json::parse_error& error) {
      // The offending byte (error.byte counts from 1) becomes a line; the
      // end of the input is on the last line that holds text.
      const std::string_view text = project_.text;
      const std::size_t at = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
      const auto newlines_before =
          static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
      const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
                         (!text.empty() && text.back() != '\n' ? 1 : 0);
      fail(std::min(newlines_before + 1, lines), fmt::format("the project file is not valid JSON ({})", error.what()));
    } catch (const json::exception& error) {
      // Numbers beyond a double and the like.
      fail(0, fmt::format("the project file cannot be read ({})", error.what()));
    }
  }

  // An optional length in mm at `key`; nullopt when absent or null.
  std::optional<Coord> length(const json& object, const char* key, const std::string& where) const {
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) return std::nullopt;
    if (!found->is_number()) fail(0, fmt::format("{}.{} must be a number of millimetres", where, key));
    const double mm = found->get<double>();
    if (!std::isfinite(mm) || mm < 0 || mm > 1000) {
      fail(0, fmt::format("{}.{} = {} is out of range (0 to 1000 mm)", where, key, mm));
    }
    return std::llround(mm * static_cast<double>(kNanometresPerMillimetre));
  }

  std::string string(const json& value, const std::string& where) const {
    if (!value.is_string()) fail(0, fmt::format("{} must be a string", where));
    return value.get<std::string>();
  }

 private:
  const KicadProject& project_;
};

}  // namespace

void Reader::read_rules(const Node& board_root, const std::optional<KicadProject>& project) {
  std::vector<ClassRules> classes(1);
  classes.front().name = "Default";
  std::vector<std::pair<std::string, std::string>> assignments;  // (net pattern, class)
  std::vector<bool> is_pattern;
  const auto add_class = [&](ClassRules rules) {
    const auto same =
        std::find_if(classes.begin(), classes.end(), [&](const ClassRules& known) { return known.name == rules.name; });
    if (same != classes.end()) {
      *same = std::move(rules);  // the file's Default replaces the built-in one
    } else {
      classes.push_back(std::move(rules));
    }
  };

  // KiCad 5 keeps its net classes in the board: (net_class NAME "DESCRIPTION"
  // (clearance C) (trace_width W) (via_dia D) (via_drill d) ... (add_net NET) ...).
  for (const Node* list : board_root.find_all("net_class")) {
    ClassRules rules;
    rules.name = atom(*list, 0, "the net class's name").text;
    const auto optional_length = [&](const char* keyword, Coord& value) {
      if (const Node* found = list->find(keyword)) value = positive_length(*found, 0, keyword, true);
    };
    optional_length("clearance", rules.clearance);
    optional_length("trace_width", rules.track_width);
    optional_length("via_dia", rules.via_diameter);
    optional_length("via_drill", rules.via_drill);
    for (const Node* member : list->find_all("add_net")) rules.nets.push_back(atom(*member, 0, "a net name").text);
    add_class(std::move(rules));
  }

  // The board's minimum track width: what a wire may narrow to where it
  // leaves a pad (KiCad 5: (setup (trace_min W)); later: the project's
  // board.design_settings.rules.min_track_width). 0 means no minimum.
  Coord minimum_width = kDefaultMinimumTrackWidth;
  if (const Node* setup = board_root.find("setup")) {
    if (const Node* trace_min = setup->find("trace_min")) {
      minimum_width = positive_length(*trace_min, 0, "trace_min", true);
    }
  }

  if (project) {
    const ProjectFile file(*project);
    const json root = file.parse();
    if (!root.is_object()) file.fail(1, "the project file's top level must be a JSON object");
    if (const auto board_settings = root.find("board"); board_settings != root.end() && board_settings->is_object()) {
      if (const auto design = board_settings->find("design_settings");
          design != board_settings->end() && design->is_object()) {
        if (const auto rules = design->find("rules"); rules != design->end() && rules->is_object()) {
          minimum_width = file.length(*rules, "min_track_width", "board.design_settings.rules").value_or(minimum_width);
        }
      }
    }
    const auto settings = root.find("net_settings");
    if (settings != root.end() && !settings->is_null()) {
      if (!settings->is_object()) file.fail(0, "net_settings must be an object");
      if (const auto list = settings->find("classes"); list != settings->end()) {
        if (!list->is_array()) file.fail(0, "net_settings.classes must be an array");
        for (std::size_t i = 0; i < list->size(); ++i) {
          const json& entry = (*list)[i];
          const std::string where = fmt::format("net_settings.classes[{}]", i);
          if (!entry.is_object()) file.fail(0, fmt::format("{} must be an object", where));
          const auto name = entry.find("name");
          if (name == entry.end()) file.fail(0, fmt::format("{} has no name", where));
          ClassRules rules;
          rules.name = file.string(*name, where + ".name");
          rules.clearance = file.length(entry, "clearance", where).value_or(rules.clearance);
          rules.track_width = file.length(entry, "track_width", where).value_or(rules.track_width);
          rules.via_diameter = file.length(entry, "via_diameter", where).value_or(rules.via_diameter);
          rules.via_drill = file.length(entry, "via_drill", where).value_or(rules.via_drill);
          if (const auto nets = entry.find("nets"); nets != entry.end() && !nets->is_null()) {
            if (!nets->is_array()) file.fail(0, fmt::format("{}.nets must be an array", where));
            for (const json& member : *nets) rules.nets.push_back(file.string(member, where + ".nets[]"));
          }
          add_class(std::move(rules));
        }
      }
      // KiCad 7 and later: assignments by net name ("net": "class", or a
      // list of classes from KiCad 8) and by wildcard pattern.
      if (const auto named = settings->find("netclass_assignments"); named != settings->end() && !named->is_null()) {
        if (!named->is_object()) file.fail(0, "net_settings.netclass_assignments must be an object");
        for (const auto& [net_name, value] : named->items()) {
          const std::string where = "net_settings.netclass_assignments." + net_name;
          const json& first = value.is_array() && !value.empty() ? value.front() : value;
          assignments.emplace_back(net_name, file.string(first, where));
          is_pattern.push_back(false);
        }
      }
      if (const auto patterns = settings->find("netclass_patterns");
          patterns != settings->end() && !patterns->is_null()) {
        if (!patterns->is_array()) file.fail(0, "net_settings.netclass_patterns must be an array");
        for (const json& entry : *patterns) {
          if (!entry.is_object() || !entry.contains("pattern") || !entry.contains("netclass")) {
            file.fail(0, "net_settings.netclass_patterns entries need a pattern and a netclass");
          }
          assignments.emplace_back(file.string(entry["pattern"], "a netclass pattern"),
                                   file.string(entry["netclass"], "a pattern's netclass"));
          is_pattern.push_back(true);
        }
      }
    }
  }

  // Each class's members: its own list, then assignments, then patterns;
  // the first that names a net wins, and the rest go to Default.
  std::vector<int> class_of(board.nets.size(), -1);
  const auto class_index = [&](const std::string& name) {
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].name == name) return static_cast<int>(c);
    }
    return -1;
  };
  std::unordered_map<std::string, int> net_by_name;
  for (std::size_t n = 0; n < board.nets.size(); ++n) net_by_name.emplace(board.nets[n].name, static_cast<int>(n));
  for (std::size_t c = 0; c < classes.size(); ++c) {
    for (const std::string& member : classes[c].nets) {
      const auto net = net_by_name.find(member);
      if (net != net_by_name.end() && class_of[static_cast<std::size_t>(net->second)] < 0) {
        class_of[static_cast<std::size_t>(net->second)] = static_cast<int>(c);
      }
    }
  }
  for (const bool patterns : {false, true}) {
    for (std::size_t a = 0; a < assignments.size(); ++a) {
      if (is_pattern[a] != patterns) continue;
      const int c = class_index(assignments[a].second);
      if (c < 0) continue;  // a class the file does not define: KiCad falls back to Default too
      for (std::size_t n = 0; n < board.nets.size(); ++n) {
        if (class_of[n] >= 0) continue;
        const bool match = patterns ? wildcard_match(assignments[a].first, board.nets[n].name)
                                    : assignments[a].first == board.nets[n].name;
        if (match) class_of[n] = c;
      }
    }
  }

  const int top = static_cast<int>(board.layers.size()) - 1;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const ClassRules& rules = classes[c];
    NetClass net_class;
    net_class.name = rules.name;
    net_class.rules.width = rules.track_width;
    net_class.rules.clearance = rules.clearance;
    if (rules.via_diameter > rules.via_drill && rules.via_diameter > 0) {
      const int padstack = via_padstack(rules.via_diameter, rules.via_drill, 0, top);
      net_class.vias.push_back(padstack);
      if (std::find(board.via_padstacks.begin(), board.via_padstacks.end(), padstack) == board.via_padstacks.end()) {
        board.via_padstacks.push_back(padstack);
      }
    }
    for (std::size_t n = 0; n < board.nets.size(); ++n) {
      if (class_of[n] == static_cast<int>(c) || (c == 0 && class_of[n] < 0))
        net_class.nets.push_back(static_cast<int>(n));
    }
    board.classes.push_back(std::move(net_class));
  }
  board.rules.width = classes.front().track_width;
  board.rules.clearance = classes.front().clearance;
  board.rules.neck_down_width = minimum_width > 0 ? minimum_width : kDefaultMinimumTrackWidth;
}

}  // namespace trellis::route::kicad_detail
