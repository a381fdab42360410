// Every way a DSN file can be wrong gives an InputError naming the file,
// the line and the problem.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/route/dsn.hpp"

namespace trellis::route {
namespace {

struct BadDsn {
  const char* what;
  std::string text;
  std::size_t line;
  const char* says;  // a fragment the message must contain
};

// A valid board's lines, with one line replaced or added by each case.
std::string board_with(const std::string& structure_extra, const std::string& placement, const std::string& network,
                       const std::string& wiring = "") {
  return "(pcb bad\n"                          // 1
         "  (resolution um 10) (unit um)\n"    // 2
         "  (structure (layer A) (layer B)\n"  // 3
         "    (boundary (rect pcb 0 0 1000 1000))" +
         structure_extra +
         ")\n"                                                  // 4
         "  (library (image I (pin P 1 0 0) (pin P 2 10 0))\n"  // 5
         "    (padstack P (shape (circle A 5))))\n"             // 6
         "  (placement (component I\n"                          // 7
         "    " +
         placement +
         "))\n"          // 8
         "  (network\n"  // 9
         "    " +
         network +
         ")\n"  // 10
         "  (wiring " +
         wiring + "))\n";  // 11
}

const std::string kPlace = "(place C1 100 100 front 0)";
const std::string kNet = "(net N (pins C1-1 C1-2))";

std::vector<BadDsn> bad_inputs() {
  return {
      {"empty", "", 0, "empty"},
      {"not a design", "(session s)\n", 1, "expected (pcb"},
      {"truncated", "(pcb x\n (structure\n  (layer A\n", 3, "ends inside the (layer ...) list opened at line 3"},
      {"truncated in a shape", "(pcb x (unit mm)\n (structure (boundary (path pcb 0 1 2", 2, "ends"},
      {"unclosed quote", "(pcb x\n (host \"abc)\n)\n", 2, "never closed"},
      {"text after the end", "(pcb x)\n(pcb y)\n", 2, "end of the file"},
      {"unknown unit", "(pcb x\n (resolution furlong 10))\n", 2, "unknown unit 'furlong'"},
      {"unknown unit in (unit)", "(pcb x\n (unit parsec))\n", 2, "unknown unit"},
      {"length before a unit", "(pcb x\n (structure\n  (boundary (rect pcb 0 0 1 1))))\n", 3, "unit is unknown"},
      {"not a number", "(pcb x (unit mm)\n (structure (rule\n (width wide))))\n", 3, "a number"},
      {"infinite number", "(pcb x (unit mm)\n (structure (rule (width inf))))\n", 2, "a number"},
      {"huge coordinate", "(pcb x (unit inch)\n (structure (rule (width 1e30))))\n", 2, "out of range"},
      {"stray atom", "(pcb x (unit mm)\n (structure oops))\n", 2, "expected '(' or ')'"},
      {"odd vertex count", board_with("\n (keepout (polygon A 0 1 2 3 4 5 6 7))", kPlace, kNet), 5, "no y"},
      {"unknown layer", board_with("\n (keepout (rect Z 0 0 1 1))", kPlace, kNet), 5, "unknown layer 'Z'"},
      {"unknown layer type", "(pcb x (structure\n (layer A (type copper))))", 2, "layer type"},
      {"unknown layer direction", "(pcb x (structure (layer A\n (direction sideways))))", 2, "layer direction"},
      {"duplicate layer", "(pcb x (structure (layer A)\n (layer A)))", 2, "declared twice"},
      {"bad side", board_with("", "(place C1 100 100 top 0)", kNet), 8, "front or back"},
      {"unknown image", board_with("", kPlace + ")\n (component J (place Q1 5 5 front 0)", kNet), 9,
       "image the library does not define: 'J'"},
      {"missing component", board_with("", kPlace, "(net N (pins C1-1 C9-2))"), 10, "no component"},
      {"missing pin", board_with("", kPlace, "(net N (pins C1-1 C1-7))"), 10, "no such pin"},
      {"pin reference without a dash", board_with("", kPlace, "(net N (pins C1))"), 10, "COMPONENT-PIN"},
      {"duplicate component", board_with("", kPlace + "\n (place C1 1 1 front 0)", kNet), 9, "defined twice"},
      {"duplicate net", board_with("", kPlace, kNet + "\n" + kNet), 11, "defined twice (first at line 10)"},
      {"connected pad off the board", board_with("", "(place C1 2000 100 front 0)", kNet), 8,
       "outside the board outline"},
      {"wire on an unknown net", board_with("", kPlace, kNet, "\n(wire (path A 1 0 0 1 1) (net M))"), 12,
       "unknown net 'M'"},
      {"wire on an unknown layer", board_with("", kPlace, kNet, "\n(wire (path Q 1 0 0 1 1) (net N))"), 12,
       "unknown layer 'Q'"},
      {"unknown wiring type", board_with("", kPlace, kNet, "\n(wire (path A 1 0 0 1 1) (type maybe))"), 12,
       "unknown wiring type"},
      {"via with an unknown padstack", board_with("", kPlace, kNet, "\n(via V 1 1)"), 12, "unknown padstack 'V'"},
      {"pin without a position", "(pcb x (unit mm) (library\n (image I (pin P 1 0))))", 2, "found 2 fields"},
      {"unknown via padstack", "(pcb x (unit mm) (structure\n (via nowhere)))", 2, "nowhere"},
  };
}

TEST(DsnErrors, EveryProblemNamesFileLineAndWhatWasExpected) {
  for (const BadDsn& bad : bad_inputs()) {
    SCOPED_TRACE(bad.what);
    try {
      read_dsn(std::string_view(bad.text), "bad.dsn");
      ADD_FAILURE() << "read without an error";
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "bad.dsn");
      EXPECT_EQ(error.line(), bad.line) << error.what();
      EXPECT_NE(error.problem().find(bad.says), std::string::npos) << error.what();
    }
  }
}

TEST(DsnErrors, TheValidBaseReads) {
  const Board board = read_dsn(std::string_view(board_with("", kPlace, kNet)), "good.dsn");
  EXPECT_EQ(board.nets.size(), 1u);
}

TEST(DsnErrors, AMissingFileIsAnInputError) {
  try {
    read_dsn_file("/nonexistent/board.dsn");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "/nonexistent/board.dsn");
    EXPECT_EQ(error.line(), 0u);
  }
}

// Cutting a valid file anywhere gives an InputError, never a crash or a
// board read from part of the file.
TEST(DsnErrors, EveryTruncationIsAnError) {
  const std::string good = board_with("", kPlace, kNet, "(wire (path A 1 0 0 1 1) (net N))");
  read_dsn(std::string_view(good), "good.dsn");
  const std::size_t end = good.rfind(')');
  for (std::size_t length = 0; length < end; ++length) {
    EXPECT_THROW(read_dsn(std::string_view(good).substr(0, length), "cut.dsn"), InputError) << length;
  }
}

// A file cut after a newline ends on its last line: the error names that
// line, not the empty one after the final newline.
TEST(DsnErrors, AnErrorAtTheEndNamesTheLastLine) {
  const std::string cut = "(pcb small\n  (structure\n    (keepout \"\" (polygon F.Cu 0  1000 1\n";
  try {
    read_dsn(std::string_view(cut), "cut.dsn");
    ADD_FAILURE() << "the cut file was read";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 3u) << error.what();
  }
}

}  // namespace
}  // namespace trellis::route
