// The DSN reader's state: the tokenizer, the board being filled, the unit in
// force and the names still to resolve. Each section of the (pcb ...) list
// has its own file; resolve.cpp turns names into indices at the end, when
// every section has been read (KiCad writes placement before library).
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer.hpp"
#include "trellis/route/board.hpp"

namespace trellis::route::dsn_detail {

// A name read from the file and the line it was read on.
struct NameAt {
  std::string name;
  std::size_t line = 0;
};

// A shape as written: its layer name still unresolved.
struct ShapeAt {
  NameAt layer;
  Shape shape;
};

// Nanometres in one of the file units Specctra knows (inch, mil, cm, mm,
// um); nullopt for anything else.
std::optional<double> nanometres_per(std::string_view unit);
inline constexpr std::string_view kUnits = "inch, mil, cm, mm or um";

// Nanometres per file unit; 0 while no (resolution) or (unit) was read.
struct Scale {
  double nanometres_per_unit = 0;
};

// What resolution has to look up, in file order.
struct PendingNames {
  std::vector<NameAt> via_padstacks;                     // structure (via ...)
  std::vector<std::vector<NameAt>> image_pin_padstacks;  // per image, per pin
  std::vector<NameAt> component_images;                  // per component
  std::vector<std::vector<NameAt>> net_pins;             // per net
  std::vector<std::size_t> net_lines;
  std::vector<std::vector<NameAt>> class_nets;  // per class
  std::vector<std::vector<NameAt>> class_vias;
  std::vector<NameAt> plane_nets;
  std::vector<NameAt> wire_nets;  // empty name: no net
  std::vector<NameAt> via_nets;
  std::vector<NameAt> via_padstack_names;
  std::vector<NameAt> unplaced_components;  // (place REF) without a position
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& name) : tokens_(text, name) {}

  Board read();

  // ---- token helpers (parser.cpp)
  Tokenizer& tokens() { return tokens_; }
  [[noreturn]] void fail(std::size_t line, std::string_view problem) const { tokens_.fail(line, problem); }
  [[noreturn]] void fail_here(std::string_view problem) { tokens_.fail(tokens_.peek().line, problem); }
  bool next_is_open() { return tokens_.peek().kind == TokenKind::open; }
  bool next_is_close() { return tokens_.peek().kind == TokenKind::close; }
  bool next_is_atom() { return tokens_.peek().kind == TokenKind::atom; }
  void expect_open(std::string_view what);
  void expect_close(std::string_view what);
  NameAt read_atom(std::string_view what);
  // "(keyword": the keyword of a list whose '(' is next.
  NameAt open_list(std::string_view what);
  // Skips the rest of a list whose "(keyword" was read; opened_at is the
  // line of its '(' for the message when the file ends inside it.
  void skip_rest(const NameAt& keyword);
  // For a list this reader does not read, in `where`: a warning naming it
  // and its line unless `ignored` lists it (what changes neither the routing
  // nor the check). Returns false, for for_each_list to skip it.
  bool not_read(const NameAt& keyword, std::initializer_list<std::string_view> ignored, std::string_view where);
  // not_read's warning alone, for a list skipped otherwise.
  void warn_not_read(const NameAt& keyword, std::initializer_list<std::string_view> ignored, std::string_view where);
  // Calls `on_list` for every "(keyword" up to the list's ')', which it
  // consumes; atoms in between are an error naming `where`. on_list
  // returns false to have the list skipped.
  void for_each_list(const NameAt& owner, const std::function<bool(const NameAt& keyword)>& on_list);

  double read_number(std::string_view what);
  double parse_number(const NameAt& atom, std::string_view what) const;
  Coord read_coord(std::string_view what, const Scale& scale);
  Coord to_coord(double value, std::size_t line, const Scale& scale) const;
  Scale read_unit_list(const NameAt& keyword);  // after "(unit"
  // Reads a shape list after its "(keyword"; nullopt (list skipped) when
  // the keyword is not a shape this reader keeps. An arc (qarc) is a path
  // of chords.
  std::optional<ShapeAt> read_shape(const NameAt& keyword, const Scale& scale);
  // read_shape in `where`, with not_read's warning for a list that is not
  // a shape this reader keeps unless `ignored` lists it.
  std::optional<ShapeAt> read_shape_in(const NameAt& keyword, const Scale& in,
                                       std::initializer_list<std::string_view> ignored, std::string_view where);
  // A layer index for a layer name; fails naming the line when unknown.
  int layer_index(const NameAt& layer) const;
  // The layers a name stands for: one layer, or every layer for "*" /
  // "pcb", every signal layer for "signal", every power layer for "power".
  std::vector<int> layers_named(const NameAt& layer) const;
  // (keepout [name] shape ...), also via_keepout and wire_keepout, after
  // the keyword: one Keepout per layer the shape names ("pcb" and "*": all).
  void read_keepout(const NameAt& keyword, const Scale& scale, std::vector<Keepout>& keepouts);
  Rules read_rules(const NameAt& keyword, const Scale& scale);  // after "(rule"
  WiringType read_wiring_type(const NameAt& keyword);           // after "(type"

  // ---- sections (one file each)
  void read_structure(const NameAt& keyword);
  void read_library(const NameAt& keyword);
  void read_placement(const NameAt& keyword);
  void read_network(const NameAt& keyword);
  void read_wiring(const NameAt& keyword);
  void resolve();  // resolve.cpp

  Board board;
  Scale scale;  // the (pcb)-level unit
  PendingNames pending;
  std::unordered_map<std::string, int> layer_by_name;
  std::vector<int> layer_lines;              // per layer: the line declaring it
  std::vector<std::size_t> image_lines;      // where each image and padstack
  std::vector<std::size_t> padstack_lines;   // is defined, for duplicates
  std::vector<std::size_t> component_lines;  // each (place ...)

 private:
  Tokenizer tokens_;
};

}  // namespace trellis::route::dsn_detail
