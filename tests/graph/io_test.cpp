#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::graph {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- helpers

Graph read_gr(const std::string& text) {
  std::istringstream in(text);
  return read_dimacs(in, "test.gr");
}

Graph read_mtx(const std::string& text) {
  std::istringstream in(text);
  return read_matrix_market(in, "test.mtx");
}

Graph read_el(const std::string& text) {
  std::istringstream in(text);
  return read_edge_list(in, "test.el", false);
}

Graph read_wel(const std::string& text) {
  std::istringstream in(text);
  return read_edge_list(in, "test.wel", true);
}

struct ExpectedCsr {
  std::int32_t nodes;
  std::vector<RowOffset> row_offsets;
  std::vector<ColumnIndex> heads;
  std::vector<Weight> weights;
};

void expect_csr(const Graph& graph, const ExpectedCsr& expected) {
  EXPECT_EQ(graph.csr.rows, expected.nodes);
  EXPECT_EQ(graph.csr.cols, expected.nodes);
  EXPECT_EQ(graph.csr.row_offsets, expected.row_offsets);
  EXPECT_EQ(graph.csr.col_indices, expected.heads);
  EXPECT_EQ(graph.csr.values, expected.weights);
  EXPECT_NO_THROW(graph.validate());
}

// The InputError a read throws; fails the test when it throws none.
InputError input_error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", 0, "");
}

struct BadInput {
  std::string text;
  std::size_t line;
  std::string says;  // a fragment the message must contain
};

void expect_rejected(const std::function<Graph(const std::string&)>& read, const std::string& file,
                     const BadInput& input) {
  const InputError error = input_error_of([&] { read(input.text); });
  EXPECT_EQ(error.file(), file);
  EXPECT_EQ(error.line(), input.line) << error.what();
  EXPECT_NE(error.problem().find(input.says), std::string::npos)
      << "message: " << error.what() << "\nexpected it to contain: " << input.says;
}

// Stands for a pipe: no seeking, so the reader cannot learn the size and
// uses its full-size buffer, which long lines must overflow.
class UnseekableBuffer : public std::streambuf {
 public:
  explicit UnseekableBuffer(std::string text) : text_(std::move(text)) {
    setg(text_.data(), text_.data(), text_.data() + text_.size());
  }

 private:
  std::string text_;
};

// Seeded non-negative finite floats of every kind: subnormals, zero, huge
// values, and any bit pattern in between.
std::vector<Weight> random_weights(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<Weight> weights;
  weights.reserve(count);
  while (weights.size() < count) {
    const auto bits = static_cast<std::uint32_t>(engine()) & 0x7fffffffu;  // sign bit clear
    const float weight = std::bit_cast<float>(bits);
    if (std::isfinite(weight)) weights.push_back(weight);
  }
  return weights;
}

class TemporaryFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ =
        fs::temp_directory_path() / ("trellis-io-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                     "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path write(const std::string& file_name, const std::string& text) const {
    const fs::path path = folder_ / file_name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()));
  }

  fs::path folder_;
};

// ----------------------------------------------------------------- DIMACS

TEST(ReadDimacs, BuildsTheCsrKeepingFileOrderDuplicatesAndSelfLoops) {
  const Graph graph = read_gr(
      "c a small graph\n"
      "p sp 4 6\n"
      "c comments may come anywhere\n"
      "a 3 1 7\n"
      "a 1 2 2.5\n"
      "\n"
      "a 1 4 1\n"
      "a 1 2 0\n"    // duplicate of an earlier arc, kept, after it
      "  a 2 2 3\n"  // self-loop, leading space
      "a 1 3\t4\n"
      "c the end\n");
  expect_csr(graph, {4, {0, 4, 5, 6, 6}, {1, 3, 1, 2, 1, 0}, {2.5f, 1, 0, 4, 3, 7}});
  EXPECT_FALSE(graph.coordinates.has_value());
}

TEST(ReadDimacs, AcceptsCrlfLineEndingsAndAMissingFinalNewline) {
  const Graph graph = read_gr("c windows\r\np sp 2 2\r\n\r\na 1 2 5\r\na 2 1 6");
  expect_csr(graph, {2, {0, 1, 2}, {1, 0}, {5, 6}});
}

TEST(ReadDimacs, SkipsAUtf8ByteOrderMark) {
  expect_csr(read_gr("\xEF\xBB\xBFp sp 2 1\r\na 2 1 3\r\n"), {2, {0, 0, 1}, {0}, {3}});
}

TEST(ReadDimacs, KeepsIsolatedNodesAndAcceptsNoArcs) { expect_csr(read_gr("p sp 3 0\n"), {3, {0, 0, 0, 0}, {}, {}}); }

TEST(ReadDimacs, ReadsIntegerRealAndExponentWeights) {
  const Graph graph = read_gr(
      "p sp 1 8\n"
      "a 1 1 0\n"
      "a 1 1 12\n"
      "a 1 1 0.1\n"
      "a 1 1 .5\n"
      "a 1 1 7.\n"
      "a 1 1 2.5e-3\n"
      "a 1 1 1E+6\n"
      "a 1 1 -0\n");
  const std::vector<Weight> expected{0, 12, 0.1f, 0.5f, 7, 2.5e-3f, 1e6f, -0.0f};
  ASSERT_EQ(graph.csr.values.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(graph.csr.values[k]), std::bit_cast<std::uint32_t>(expected[k])) << k;
  }
}

TEST(ReadDimacs, RoundsWeightsAtTheEdgesOfTheFloatRange) {
  const float largest = std::numeric_limits<float>::max();
  const Graph graph = read_gr(
      "p sp 1 4\n"
      "a 1 1 3.4028235e38\n"   // the largest float, as printed
      "a 1 1 3.40282356e38\n"  // above it, but still rounds to it
      "a 1 1 1e-50\n"          // below the smallest subnormal: 0
      "a 1 1 1e-400\n");       // below even double's range: 0
  expect_csr(graph, {1, {0, 4}, {0, 0, 0, 0}, {largest, largest, 0, 0}});
}

TEST(ReadDimacs, ReportsEveryMalformedInputWithItsLine) {
  const std::vector<BadInput> inputs = {
      {"", 0, "empty"},
      {"c nothing but comments\n\n", 2, "without a problem line 'p sp N M'"},
      {"c first\na 1 2 3\np sp 2 1\n", 2, "arc before the problem line"},
      {"p sp 2 1\nc\np sp 2 1\na 1 2 3\n", 3, "second problem line; the first is on line 1"},
      {"p sp 2\n", 1, "problem line 'p sp N M' (4 fields), found 3"},
      {"p sp 2 1 9\n", 1, "(4 fields), found 5"},
      {"p max 2 1\n", 1, "problem type 'max'"},
      {"p sp two 1\n", 1, "node count N to be an integer, found 'two'"},
      {"p sp 0 0\n", 1, "at least one node"},
      {"p sp -5 1\n", 1, "at least one node"},
      {"p sp 3000000000 1\n", 1, "32-bit node ids"},
      {"p sp 2 -1\n", 1, "arc count M is -1"},
      {"p sp 2 99999999999999999999\n", 1, "does not fit in 64 bits"},
      {"p sp 2 1\na 1 2\n", 2, "arc 'a U V W' (4 fields), found 3"},
      {"p sp 2 1\na 1 2 3 4\n", 2, "(4 fields), found 5"},
      {"p sp 2 1\na 1 x 3\n", 2, "head node V to be an integer, found 'x'"},
      {"p sp 2 1\na 1 2x 3\n", 2, "found '2x'"},
      {"p sp 2 1\na 1.0 2 3\n", 2, "tail node U to be an integer"},
      {"p sp 2 1\na 1 2 3.5kg\n", 2, "weight W to be a number, found '3.5kg'"},
      {"p sp 2 1\na 1 2 0x10\n", 2, "found '0x10'"},
      {"p sp 2 1\na 0 2 3\n", 2, "tail node U 0 is outside 1..2"},
      {"p sp 2 1\na 1 3 3\n", 2, "head node V 3 is outside 1..2"},
      {"p sp 2 1\na -1 2 3\n", 2, "outside 1..2"},
      {"p sp 2 1\na 99999999999999999999 2 3\n", 2, "does not fit in 64 bits"},
      {"p sp 2 1\na 1 2 -1\n", 2, "weight W '-1' is negative"},
      {"p sp 2 1\na 1 2 -0.5\n", 2, "is negative"},
      {"p sp 2 1\na 1 2 -1e-400\n", 2, "is negative"},
      {"p sp 2 1\na 1 2 nan\n", 2, "'nan' is not a finite number"},
      {"p sp 2 1\na 1 2 inf\n", 2, "not a finite number"},
      {"p sp 2 1\na 1 2 -infinity\n", 2, "not a finite number"},
      {"p sp 2 1\na 1 2 1e39\n", 2, "'1e39' is too large for a 32-bit float"},
      {"p sp 2 1\na 1 2 3.4028236e38\n", 2, "too large for a 32-bit float"},
      {"p sp 2 1\na 1 2 1e400\n", 2, "too large for a 32-bit float"},
      {"c header next\np sp 3 3\na 1 2 1\na 2 3 1\n", 2, "declares 3 arcs but the file has 2"},
      {"p sp 3 1\na 1 2 1\na 2 3 1\n", 1, "declares 1 arcs but the file has 2"},
      {"p sp 2 2\na 1 2 1\na 2 1", 3, "(4 fields), found 3 fields (this last line has no line ending"},
      {"p sp 2 2\na 1 2 1\na 2 1 1.5e", 3, "found '1.5e' (this last line has no line ending"},
      {"p sp 2 1\nx 1 2 3\n", 2, "expected a comment 'c ...', the problem line 'p sp N M' or an arc"},
      {"p sp 2 1\n\x01\x7f\n", 2, "found '\\x01\\x7f'"},
  };
  for (const BadInput& input : inputs) {
    SCOPED_TRACE(::testing::PrintToString(input.text));
    expect_rejected(read_gr, "test.gr", input);
  }
}

TEST(ReadDimacs, ReadsLinesLongerThanItsBufferFromAStreamThatCannotSeek) {
  // Two comment lines of 4.5 MiB each push arcs across every buffer refill
  // and make one line outgrow the buffer.
  const std::string long_comment = "c " + std::string((std::size_t{9} << 19), 'x') + "\n";
  std::string text = "p sp 3 4\n" + long_comment + "a 1 2 1\na 2 3 2\n" + long_comment + "a 3 1 3\r\na 1 3 4";
  UnseekableBuffer buffer(std::move(text));
  std::istream in(&buffer);
  expect_csr(read_dimacs(in, "pipe"), {3, {0, 2, 3, 4}, {1, 2, 2, 0}, {1, 4, 2, 3}});
}

// --------------------------------------------------------- Matrix Market

TEST(ReadMatrixMarket, ReadsAGeneralRealMatrixAsEdges) {
  const Graph graph = read_mtx(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "%\n"
      "3 3 5\n"
      "2 1 1.5\n"
      "1 3 2\n"
      "\n"
      "1 2 0.25\n"
      "3 3 4e2\n"
      "1 3 7\n");
  expect_csr(graph, {3, {0, 3, 4, 5}, {2, 1, 2, 0, 2}, {2, 0.25f, 7, 1.5f, 400}});
}

TEST(ReadMatrixMarket, ExpandsSymmetricEntriesOnceForTheDiagonal) {
  const Graph graph = read_mtx(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "2 1 5\n"
      "3 3 9\n"
      "3 1 6\n"
      "3 2 7\n");
  // Row 0 gets the mirrors of (2,1) and (3,1) in file order.
  expect_csr(graph, {3, {0, 2, 4, 7}, {1, 2, 0, 2, 2, 0, 1}, {5, 6, 5, 7, 9, 6, 7}});
}

TEST(ReadMatrixMarket, GivesPatternEntriesWeightOne) {
  const Graph graph = read_mtx(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "2 2 2\n"
      "2 1\n"
      "1 1\n");
  expect_csr(graph, {2, {0, 2, 3}, {1, 0, 0}, {1, 1, 1}});
}

TEST(ReadMatrixMarket, ReadsIntegerValues) {
  const Graph graph = read_mtx(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 2 2\n"
      "1 2 16777217\n"  // rounds to float
      "2 1 0\n");
  expect_csr(graph, {2, {0, 1, 2}, {1, 0}, {16777216.0f, 0}});
}

TEST(ReadMatrixMarket, ReadsTheBannerCaseInsensitivelyAndCrlf) {
  const Graph graph = read_mtx(
      "%%matrixmarket MATRIX Coordinate Real GENERAL\r\n"
      "% comment\r\n"
      "2 2 1\r\n"
      "2 1 3\r\n");
  expect_csr(graph, {2, {0, 0, 1}, {0}, {3}});
}

TEST(ReadMatrixMarket, ReportsUnsupportedAndMalformedFilesWithTheirLine) {
  const std::string real_general = "%%MatrixMarket matrix coordinate real general\n";
  const std::vector<BadInput> inputs = {
      {"", 0, "empty"},
      {"3 3 1\n1 1 1\n", 1, "expected the Matrix Market banner"},
      {"%%MatrixMarket matrix coordinate real\n2 2 0\n", 1, "(5 fields), found 4"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "unsupported Matrix Market format 'array'"},
      {"%%MatrixMarket matrix coordinate complex general\n", 1, "unsupported Matrix Market field 'complex'"},
      {"%%MatrixMarket matrix coordinate real hermitian\n", 1, "unsupported Matrix Market symmetry 'hermitian'"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n", 1, "unsupported Matrix Market symmetry"},
      {"%%MatrixMarket vector coordinate real general\n", 1, "unsupported Matrix Market object 'vector'"},
      {real_general + "% only comments\n", 2, "ended before the size line"},
      {real_general + "%\n3 4 1\n1 1 1\n", 3, "unsupported 3x4 matrix; a graph needs a square matrix"},
      {real_general + "0 0 0\n", 2, "at least one node"},
      {real_general + "3000000000 3000000000 0\n", 2, "32-bit node ids"},
      {real_general + "2 2\n", 2, "size line 'rows columns entries' (3 fields), found 2"},
      {real_general + "2 2 -1\n", 2, "entry count is -1"},
      {real_general + "2 2 x\n", 2, "entry count to be an integer"},
      {real_general + "%\n2 2 3\n1 1 1\n2 2 1\n", 3, "declares 3 entries but the file has 2"},
      {real_general + "2 2 1\n1 1 1\n2 2 1\n", 2, "declares 1 entries but the file has 2"},
      {real_general + "2 2 2\n1 1 1\n0 1 1\n", 4, "row index 0 is outside 1..2"},
      {real_general + "2 2 2\n1 1 1\n1 3 1\n", 4, "column index 3 is outside 1..2"},
      {real_general + "2 2 1\n1 1 abc\n", 3, "value to be a number, found 'abc'"},
      {real_general + "2 2 1\n1 1 -2\n", 3, "is negative"},
      {real_general + "2 2 1\n1 1 nan\n", 3, "not a finite number"},
      {real_general + "2 2 1\n1 1 1e39\n", 3, "too large for a 32-bit float"},
      {real_general + "2 2 1\n1 1\n", 3, "'i j value' (3 fields), found 2"},
      {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", 3, "'i j' (2 fields), found 3"},
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
       "'integer' matrix's value to be an integer, found '1.5'"},
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 -3\n", 3, "value -3 is negative"},
      {real_general + "2 2 2\n1 1 1\n2 2 1e", 4, "this last line has no line ending"},
  };
  for (const BadInput& input : inputs) {
    SCOPED_TRACE(::testing::PrintToString(input.text));
    expect_rejected(read_mtx, "test.mtx", input);
  }
}

// ------------------------------------------------------------ edge lists

TEST(ReadEdgeList, CountsNodesAsTheLargestIdPlusOne) {
  const Graph graph = read_el(
      "# SNAP-style comment\n"
      "0 1\n"
      "3 0\n"
      "\n"
      "0 5\n"  // node 5 appears only as a head; nodes 2 and 4 have no edges
      "0 1\n"
      "3 3\n");
  expect_csr(graph, {6, {0, 3, 3, 3, 5, 5, 5}, {1, 5, 1, 0, 3}, {1, 1, 1, 1, 1}});
}

TEST(ReadEdgeList, AcceptsAMissingFinalNewline) {
  expect_csr(read_el("0 1\n2 3"), {4, {0, 1, 1, 2, 2}, {1, 3}, {1, 1}});
}

TEST(ReadEdgeList, ReadsWeightedEdgesWithCrlf) {
  const Graph graph = read_wel("1 0 2.5\r\n0 1 3\r\n# comment\r\n1 1 0\r\n");
  expect_csr(graph, {2, {0, 1, 3}, {1, 0, 1}, {3, 2.5f, 0}});
}

TEST(ReadEdgeList, ReportsMalformedLinesWithTheirLine) {
  const std::vector<BadInput> unweighted = {
      {"", 0, "no edges"},
      {"# only\n# comments\n", 2, "no edges"},
      {"0 1\n1\n", 2, "'U V' (2 fields), found 1"},
      {"0 1\n1 2 3\n", 2, "weighted edge lists are read from .wel files"},
      {"0 -1\n", 1, "node id V -1 is negative"},
      {"0 2147483647\n", 1, "node id V 2147483647 is too large"},
      {"9223372036854775807 0\n", 1, "32-bit node ids allow at most 2147483647 nodes"},
      {"0 1\n0 x1\n", 2, "node id V to be an integer, found 'x1'"},
      {"0 1\n2", 2, "found 1 fields (this last line has no line ending"},
  };
  for (const BadInput& input : unweighted) {
    SCOPED_TRACE(::testing::PrintToString(input.text));
    expect_rejected(read_el, "test.el", input);
  }

  const std::vector<BadInput> weighted = {
      {"", 0, "no edges"},
      {"0 1 1\n0 1\n", 2, "'U V W' (3 fields), found 2"},
      {"0 1 -4\n", 1, "weight W '-4' is negative"},
      {"0 1 inf\n", 1, "not a finite number"},
      {"0 1 1e39\n", 1, "too large for a 32-bit float"},
      {"0 1 1\n1 0 2,5\n", 2, "weight W to be a number, found '2,5'"},
  };
  for (const BadInput& input : weighted) {
    SCOPED_TRACE(::testing::PrintToString(input.text));
    expect_rejected(read_wel, "test.wel", input);
  }
}

// --------------------------------------------------------------- writing

TEST(WriteDimacs, WritesTheHeaderAndOneArcPerEdgeOneBased) {
  const std::vector<NodeId> tails{1, 0, 1};
  const std::vector<NodeId> heads{0, 1, 1};
  const std::vector<Weight> weights{0.1f, 2, 1e-45f};
  std::ostringstream out;
  write_dimacs(graph_from_edges(2, tails, heads, weights), out);
  EXPECT_EQ(out.str(), "p sp 2 3\na 1 2 2\na 2 1 0.1\na 2 2 1e-45\n");
}

TEST(WriteDimacs, WritesAnExactFormWhereTheShortestOneWouldNotReadBack) {
  const float awkward = std::bit_cast<float>(0x15ae43fdu);
  std::ostringstream out;
  write_dimacs(graph_from_edges(1, std::vector<NodeId>{0}, std::vector<NodeId>{0}, std::vector<Weight>{awkward}), out);
  EXPECT_EQ(out.str().find("7.038531e-26"), std::string::npos) << out.str();
  EXPECT_EQ(std::bit_cast<std::uint32_t>(read_gr(out.str()).csr.values.at(0)), 0x15ae43fdu) << out.str();
}

TEST(WriteDimacs, RoundTripsRandomWeightsBitForBit) {
  constexpr NodeId kNodes = 300;
  constexpr std::size_t kEdges = 5000;
  std::mt19937_64 engine(20261129);
  std::vector<NodeId> tails(kEdges), heads(kEdges);
  for (std::size_t k = 0; k < kEdges; ++k) {
    tails[k] = static_cast<NodeId>(engine() % kNodes);
    heads[k] = static_cast<NodeId>(engine() % kNodes);
  }
  std::vector<Weight> weights = random_weights(kEdges, 7);
  // The awkward values, certainly present.
  const std::vector<Weight> awkward{0.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::min(), 0.1f, 1.0f / 3.0f, 16777217.0f,
                                    // its shortest form, 7.038531e-26, reads back as a neighbour through double
                                    std::bit_cast<float>(0x15ae43fdu)};
  std::copy(awkward.begin(), awkward.end(), weights.begin());
  const Graph original = graph_from_edges(kNodes, tails, heads, weights);

  std::stringstream file;
  write_dimacs(original, file);
  const Graph copy = read_dimacs(file, "round trip");

  EXPECT_EQ(copy.csr.rows, original.csr.rows);
  EXPECT_EQ(copy.csr.row_offsets, original.csr.row_offsets);
  EXPECT_EQ(copy.csr.col_indices, original.csr.col_indices);
  ASSERT_EQ(copy.csr.values.size(), original.csr.values.size());
  EXPECT_EQ(std::memcmp(copy.csr.values.data(), original.csr.values.data(), copy.csr.values.size() * sizeof(Weight)),
            0);
}

class GraphFileTest : public TemporaryFolder {};

TEST_F(GraphFileTest, WrittenFilesReadBackThroughTheirExtension) {
  const std::vector<NodeId> tails{0, 2, 2};
  const std::vector<NodeId> heads{1, 0, 2};
  const std::vector<Weight> weights{1.25f, 3e38f, 0};
  const Graph original = graph_from_edges(4, tails, heads, weights);
  const fs::path path = folder_ / "out.gr";
  write_dimacs_file(original, path);
  const GraphFile file = read_graph_file(path);
  EXPECT_EQ(file.format, GraphFormat::dimacs);
  expect_csr(file.graph, {4, {0, 1, 1, 3, 3}, {1, 0, 2}, {1.25f, 3e38f, 0}});
  EXPECT_EQ(files_in_folder(), 1u);
}

TEST_F(GraphFileTest, AFailedWriteLeavesTheOldFileUntouched) {
  const fs::path path = write("out.gr", "old contents\n");
  Graph bad = graph_from_edges(2, std::vector<NodeId>{0}, std::vector<NodeId>{1}, std::vector<Weight>{1});
  bad.csr.values[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(write_dimacs_file(bad, path), Error);
  EXPECT_EQ(contents(path), "old contents\n");
  EXPECT_EQ(files_in_folder(), 1u);  // no temporary left behind
}

TEST_F(GraphFileTest, ReadsEveryFormatByExtension) {
  const GraphFile mtx =
      read_graph_file(write("m.MTX", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"));
  EXPECT_EQ(mtx.format, GraphFormat::matrix_market);
  expect_csr(mtx.graph, {2, {0, 1, 1}, {1}, {1}});

  const GraphFile el = read_graph_file(write("g.el", "1 0\n"));
  EXPECT_EQ(el.format, GraphFormat::edge_list);
  expect_csr(el.graph, {2, {0, 0, 1}, {0}, {1}});

  const GraphFile wel = read_graph_file(write("g.wel", "1 0 4.5\n"));
  EXPECT_EQ(wel.format, GraphFormat::weighted_edge_list);
  expect_csr(wel.graph, {2, {0, 0, 1}, {0}, {4.5f}});
}

TEST_F(GraphFileTest, MessagesNameTheFileByItsPath) {
  const fs::path path = write("bad.gr", "p sp 2 1\na 1 2 -3\n");
  const InputError error = input_error_of([&] { read_graph_file(path); });
  EXPECT_EQ(error.file(), path.string());
  EXPECT_EQ(error.line(), 2u);
}

TEST_F(GraphFileTest, AMissingFileOrAFolderIsAnInputError) {
  const fs::path missing = folder_ / "missing.gr";
  const InputError not_found = input_error_of([&] { read_graph_file(missing); });
  EXPECT_EQ(not_found.file(), missing.string());
  EXPECT_EQ(not_found.line(), 0u);
  EXPECT_NE(not_found.problem().find("cannot open"), std::string::npos) << not_found.what();

  fs::create_directory(folder_ / "folder.gr");
  const InputError folder = input_error_of([&] { read_graph_file(folder_ / "folder.gr"); });
  EXPECT_NE(folder.problem().find("directory"), std::string::npos) << folder.what();
}

TEST(GraphFormat, ComesFromTheExtensionIgnoringCase) {
  EXPECT_EQ(format_from_path("a/b/road.gr"), GraphFormat::dimacs);
  EXPECT_EQ(format_from_path("road.GR"), GraphFormat::dimacs);
  EXPECT_EQ(format_from_path("m.mtx"), GraphFormat::matrix_market);
  EXPECT_EQ(format_from_path("g.el"), GraphFormat::edge_list);
  EXPECT_EQ(format_from_path("g.wel"), GraphFormat::weighted_edge_list);
  EXPECT_THROW(format_from_path("g.txt"), UsageError);
  EXPECT_THROW(format_from_path("graph"), UsageError);
  EXPECT_THROW(format_from_path("road.gr.gz"), UsageError);
  EXPECT_THROW(read_graph_file("g.csv"), UsageError);
}

TEST(GraphFormat, IdBaseIsOneForDimacsAndMatrixMarketZeroForEdgeLists) {
  EXPECT_EQ(id_base(GraphFormat::dimacs), 1);
  EXPECT_EQ(id_base(GraphFormat::matrix_market), 1);
  EXPECT_EQ(id_base(GraphFormat::edge_list), 0);
  EXPECT_EQ(id_base(GraphFormat::weighted_edge_list), 0);
}

}  // namespace
}  // namespace trellis::graph
