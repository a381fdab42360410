// cpu::sw_traceback against the oracle, reference::sw_traceback: every field
// of the Alignment, on seeded random and related pairs under every scoring
// under test, on inputs full of ties, on long related pairs, and the same
// UsageError for the same inputs.
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "align/cpu/traceback.hpp"
#include "align/kernels.hpp"
#include "support/random_proteins.hpp"
#include "support/scorings_under_test.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

using testing::random_letters;
using testing::relative_of;

// Light, heavy, and gap-rich mutation, so that alignments hold gaps of both
// kinds and of many lengths.
constexpr testing::MutationRates kCloseRelative{3, 6, 20, 4};
constexpr testing::MutationRates kDistantRelative{8, 16, 50, 10};

void expect_equal_alignments(const Alignment& actual, const Alignment& expected) {
  EXPECT_EQ(actual.score, expected.score);
  EXPECT_EQ(actual.query_start, expected.query_start);
  EXPECT_EQ(actual.query_end, expected.query_end);
  EXPECT_EQ(actual.subject_start, expected.subject_start);
  EXPECT_EQ(actual.subject_end, expected.subject_end);
  EXPECT_EQ(actual.length, expected.length);
  EXPECT_EQ(actual.identities, expected.identities);
  EXPECT_EQ(actual.mismatches, expected.mismatches);
  EXPECT_EQ(actual.gap_opens, expected.gap_opens);
  EXPECT_EQ(actual.gaps, expected.gaps);
  EXPECT_EQ(actual.query_aligned, expected.query_aligned);
  EXPECT_EQ(actual.subject_aligned, expected.subject_aligned);
  EXPECT_EQ(actual.cigar, expected.cigar);
}

// cpu::sw_traceback and every instruction set this machine runs, with and
// without the pair's score given (which stops the direction pass early).
void expect_same_alignment(const std::string& query_text, const std::string& subject_text, const Scoring& scoring) {
  const std::vector<Residue> query = encode_protein(query_text);
  const std::vector<Residue> subject = encode_protein(subject_text);
  const Alignment expected = reference::sw_traceback(query, subject, scoring);
  SCOPED_TRACE(::testing::Message() << scoring.matrix.name() << " " << scoring.gaps.open << "/" << scoring.gaps.extend
                                    << " query " << query_text.size() << " '" << query_text.substr(0, 60)
                                    << "' subject " << subject_text.size() << " '" << subject_text.substr(0, 60)
                                    << "'");
  expect_equal_alignments(cpu::sw_traceback(query, subject, scoring), expected);
  expect_equal_alignments(cpu::sw_traceback(query, subject, scoring, expected.score), expected);
  for (const cpu::TracebackPath path : cpu::supported_traceback_paths()) {
    SCOPED_TRACE(cpu::to_string(path));
    if (path != cpu::TracebackPath::reference) {
      expect_equal_alignments(cpu::sw_traceback_with(path, query, subject, scoring), expected);
    }
    expect_equal_alignments(cpu::sw_traceback_with(path, query, subject, scoring, expected.score), expected);
  }
}

// A pair of random length 0..max_length: unrelated, or the subject a
// relative of the query with random flanks.
std::pair<std::string, std::string> random_pair(std::mt19937& random, std::size_t max_length) {
  std::string query = random_letters(random, random() % (max_length + 1));
  switch (random() % 3) {
    case 0:
      return {query, random_letters(random, random() % (max_length + 1))};
    case 1:
      return {query, relative_of(random, query, kCloseRelative)};
    default: {
      std::string subject = random_letters(random, random() % 40) + relative_of(random, query, kDistantRelative) +
                            random_letters(random, random() % 40);
      return {std::move(query), std::move(subject)};
    }
  }
}

TEST(CpuTraceback, EqualsReferenceOnRandomAndRelatedPairs) {
  std::mt19937 random(20240611);
  for (const Scoring& scoring : testing::scorings_under_test()) {
    for (int trial = 0; trial < 300; ++trial) {
      const auto [query, subject] = random_pair(random, 600);
      expect_same_alignment(query, subject, scoring);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Every subject length around the vector width and its multiples, where
// blocks are short and padding columns fill the last lanes.
TEST(CpuTraceback, EqualsReferenceOnShortPairsOfEveryLength) {
  std::mt19937 random(7);
  const std::vector<Scoring> scorings = testing::scorings_under_test();
  for (std::size_t m = 1; m <= 24; ++m) {
    for (std::size_t n = 1; n <= 40; ++n) {
      const Scoring& scoring = scorings[random() % scorings.size()];
      const std::string query = random_letters(random, m);
      const std::string subject =
          random() % 2 == 0 ? random_letters(random, n) : relative_of(random, query + query, kCloseRelative);
      expect_same_alignment(query, subject.substr(0, n), scoring);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Inputs where many cells and many paths share the best score: the tie
// rules alone decide the end cell, every source and every gap length.
TEST(CpuTraceback, EqualsReferenceOnTies) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"X", "X"},
      {"W", "W"},
      {"W", "A"},
      {"WWWW", "WW"},
      {"WW", "WWWW"},
      {"WWWWWWWWWWWWWWWWWWWWWWWW", "WWWWWWWWW"},
      {std::string(300, 'X'), std::string(257, 'X')},
      {std::string(64, 'X'), std::string(65, 'X')},
      {"ACACACACACACACACAC", "CACACACACA"},
      {"WAW", "WW"},
      {"WAAW", "WW"},
      {"WW", "WAAAW"},
      {"WCW", "WDW"},
      {"HEAGAWGHEE", "PAWHEAE"},
      {"AAAAAAAAWAAAAAAAA", "AAAAAAAAAAAAAAAAAW"},
      {"MKVLAAGIMKVLAAGI", "MKVLAAGI"},
      {"MKVLAAGI", "MKVLAAGIMKVLAAGIMKVLAAGI"},
      {"WYWYWYWY", "YWYWYWYW"},
      {"*", "*"},
      {"W*W", "W**W"},
      {"BZXBZX", "ZXBZXB"},
  };
  for (const Scoring& scoring : testing::scorings_under_test()) {
    for (const auto& [query, subject] : pairs) expect_same_alignment(query, subject, scoring);
  }
  // Random sequences over two or three letters: ties everywhere.
  std::mt19937 random(99);
  const std::vector<std::string> alphabets = {"WA", "XX", "AAC", "WY", "LIV"};
  for (const Scoring& scoring : testing::scorings_under_test()) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::string& letters = alphabets[random() % alphabets.size()];
      auto draw = [&](std::size_t length) {
        std::string text(length, 'A');
        for (char& c : text) c = letters[random() % letters.size()];
        return text;
      };
      expect_same_alignment(draw(1 + random() % 200), draw(1 + random() % 200), scoring);
    }
  }
}

TEST(CpuTraceback, EqualsReferenceOnLongRelatedPairs) {
  std::mt19937 random(3);
  const std::vector<Scoring> scorings = testing::scorings_under_test();
  for (const std::size_t scoring_index : {0U, 4U, 8U}) {
    const std::string core = random_letters(random, 2000);
    const std::string subject =
        random_letters(random, 500) + relative_of(random, core, kCloseRelative) + random_letters(random, 500);
    expect_same_alignment(core, subject, scorings[scoring_index]);
  }
}

// A score above the pair's best is never reached: the pass runs to the end
// and the mismatch is an Error, on every path.
TEST(CpuTraceback, AGivenScoreTheAlignmentDoesNotReachIsAnError) {
  const Scoring scoring = testing::scorings_under_test().front();
  const std::vector<Residue> query = encode_protein("MKVLAAGIVGLLLAQWERTY");
  const std::vector<Residue> subject = encode_protein("PPMKVLAAGIVGALLAQWPP");
  const std::int32_t best = reference::sw_traceback(query, subject, scoring).score;
  ASSERT_GT(best, 0);
  for (const cpu::TracebackPath path : cpu::supported_traceback_paths()) {
    SCOPED_TRACE(cpu::to_string(path));
    EXPECT_EQ(cpu::sw_traceback_with(path, query, subject, scoring, best).score, best);
    EXPECT_THROW(cpu::sw_traceback_with(path, query, subject, scoring, best + 1), Error);
  }
}

TEST(CpuTraceback, RunsTheWidestSupportedPath) {
  const std::vector<cpu::TracebackPath> paths = cpu::supported_traceback_paths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), cpu::TracebackPath::reference);
  for (const cpu::TracebackPath path : paths) std::cout << "[ path     ] " << cpu::to_string(path) << "\n";
}

TEST(CpuTraceback, EmptySequencesGiveTheEmptyAlignment) {
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  expect_same_alignment("", "", scoring);
  expect_same_alignment("ACDE", "", scoring);
  expect_same_alignment("", "ACDE", scoring);
}

// The same exception, with the same message, for the same input.
void expect_same_usage_error(std::size_t query_length, std::size_t subject_length, const Scoring& scoring) {
  const std::vector<Residue> query(query_length, Residue{0});
  const std::vector<Residue> subject(subject_length, Residue{0});
  std::string expected;
  try {
    reference::sw_traceback(query, subject, scoring);
    FAIL() << "the reference accepted " << query_length << " x " << subject_length;
  } catch (const UsageError& error) {
    expected = error.what();
  }
  for (const cpu::TracebackPath path : cpu::supported_traceback_paths()) {
    try {
      cpu::sw_traceback_with(path, query, subject, scoring);
      ADD_FAILURE() << to_string(path) << " accepted " << query_length << " x " << subject_length;
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()), expected) << to_string(path);
    }
  }
  try {
    cpu::sw_traceback(query, subject, scoring);
    FAIL() << "cpu::sw_traceback accepted " << query_length << " x " << subject_length;
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()), expected);
  }
}

TEST(CpuTraceback, RejectsWhatTheReferenceRejects) {
  const Scoring blosum62(builtin_matrix("BLOSUM62"), {11, 1});
  // Past kMaxTracebackCells, both ways round.
  expect_same_usage_error(40'000, 30'000, blosum62);
  expect_same_usage_error(32'769, 32'769, blosum62);
  // Scores that could leave 32 bits come first.
  ScoringMatrix::Scores high{};
  high.fill(kMaxMatrixMagnitude);
  const Scoring highest(ScoringMatrix("high", high, false), {1, 1});
  expect_same_usage_error(1'100'000, 1'100'000, highest);
}

}  // namespace
}  // namespace trellis::align
