// The vulkan engine against the reference: seeded random sets over many
// matrices and gap pairs, lengths around the shader's 16-column blocks,
// empty and one-residue sequences, all-X, scores at and past the packed
// pass's 16-bit ceiling (the exact 32-bit rescoring), ties, subjects spread
// over several dispatches by a small scratch budget, and one database
// serving many queries and whole searches. Small sizes: lavapipe runs them
// on the CPU in CI. Skipped without a Vulkan device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "align/vulkan/kernels.hpp"
#include "support/backends.hpp"
#include "support/engine_checks.hpp"
#include "support/random_proteins.hpp"
#include "support/scorings_under_test.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/align/search.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

using trellis::testing::random_letters;
using trellis::testing::reference_scores;
using trellis::testing::scorings_under_test;
using trellis::testing::set_of;

#define TRELLIS_SKIP_UNLESS_VULKAN() TRELLIS_SKIP_UNLESS_AVAILABLE(::trellis::Backend::vulkan)

std::string relative_of(std::mt19937& random, const std::string& source) {
  return trellis::testing::engine_relative_of(random, source);
}

// Scratch budgets in bytes: the default, and one small enough that a few
// hundred subjects take several dispatches (at least one workgroup each).
constexpr std::size_t kDefaultScratch = 0;
constexpr std::size_t kTinyScratch = 1;

std::vector<std::int32_t> vulkan_scores(vulkan::SubjectsOnDevice& device, std::span<const Residue> query,
                                        std::size_t count) {
  std::vector<std::int32_t> scores(count, -7);
  device.scores(query, scores);
  return scores;
}

void expect_equivalent(const std::vector<std::string>& query_texts, const std::vector<std::string>& texts,
                       const Scoring& scoring, std::size_t scratch_bytes = kDefaultScratch) {
  const SequenceSet subjects = set_of(texts);
  vulkan::SubjectsOnDevice device(subjects, scoring, scratch_bytes);
  for (const std::string& query_text : query_texts) {
    const std::vector<Residue> query = encode_protein(query_text);
    EXPECT_EQ(vulkan_scores(device, query, subjects.size()), reference_scores(query, subjects, scoring))
        << scoring.matrix.name() << " " << scoring.gaps.open << "/" << scoring.gaps.extend << ", query length "
        << query.size() << ", scratch " << scratch_bytes;
  }
}

// Every diagonal entry `diagonal`, everything else -1: a run of one residue
// scores diagonal x its length, so 16 bits are passed with short sequences.
Scoring heavy_scoring(std::int32_t diagonal) {
  ScoringMatrix::Scores scores{};
  scores.fill(-1);
  for (int r = 0; r < kAlphabetSize; ++r)
    scores[static_cast<std::size_t>(r) * static_cast<std::size_t>(kAlphabetSize + 1)] = diagonal;
  return Scoring(ScoringMatrix("heavy", scores, false), {11, 1});
}

TEST(VulkanEngine, RandomSetsAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  std::mt19937 random(2024);
  for (const Scoring& scoring : scorings_under_test()) {
    const std::string query_text = random_letters(random, random() % 400);
    std::vector<std::string> texts;
    for (int k = 0; k < 20; ++k) {
      texts.push_back(random() % 3 == 0 ? relative_of(random, query_text) : random_letters(random, random() % 400));
    }
    expect_equivalent({query_text, random_letters(random, random() % 150)}, texts, scoring);
  }
}

TEST(VulkanEngine, LengthsAroundBlockSizesAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  std::mt19937 random(5);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (std::size_t length = 0; length <= 70; ++length) texts.push_back(random_letters(random, length));
  std::vector<std::string> queries;
  for (const std::size_t length : {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 64, 65, 257}) {
    queries.push_back(random_letters(random, length));
  }
  expect_equivalent(queries, texts, scoring);
}

TEST(VulkanEngine, EmptyQueryAndEmptySubjectsScoreZero) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet subjects = set_of({"", "W", "", "MKVLAAGIW", ""});
  vulkan::SubjectsOnDevice device(subjects, scoring);
  EXPECT_EQ(vulkan_scores(device, {}, subjects.size()), std::vector<std::int32_t>(5, 0));
  const std::vector<Residue> query = encode_protein("MKVLAAGIW");
  EXPECT_EQ(vulkan_scores(device, query, subjects.size()), (std::vector<std::int32_t>{0, 11, 0, 47, 0}));
  const SequenceSet all_empty = set_of({"", ""});
  vulkan::SubjectsOnDevice empty_device(all_empty, scoring);
  EXPECT_EQ(vulkan_scores(empty_device, query, 2), std::vector<std::int32_t>(2, 0));
  const SequenceSet none;
  vulkan::SubjectsOnDevice no_subjects(none, scoring);
  EXPECT_TRUE(vulkan_scores(no_subjects, query, 0).empty());
}

TEST(VulkanEngine, OneResidueAndAllXAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  expect_equivalent({"W", "X", "*", "C", std::string(37, 'X'), std::string(300, 'X')},
                    {"W", "A", "X", "*", std::string(300, 'X'), std::string(500, 'X'), "XXXXWXXXX", "C"}, scoring);
}

TEST(VulkanEngine, ScoresAtAndPast16BitsAreRescoredExactly) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  // A/A scores 255 and 255 x 257 = 65,535, the packed pass's ceiling: runs
  // of 256, 257 and 258 residues score just under, at and just over it.
  const Scoring scoring = heavy_scoring(255);
  std::vector<std::string> texts;
  for (const std::size_t length : {23, 256, 257, 258, 400, 0, 255, 30}) texts.emplace_back(length, 'A');
  const SequenceSet subjects = set_of(texts);
  for (const std::size_t scratch : {kDefaultScratch, kTinyScratch}) {
    vulkan::SubjectsOnDevice device(subjects, scoring, scratch);
    const std::vector<Residue> query = encode_protein(std::string(400, 'A'));
    EXPECT_EQ(vulkan_scores(device, query, subjects.size()),
              (std::vector<std::int32_t>{5865, 65280, 65535, 65790, 102000, 0, 65025, 7650}))
        << "scratch " << scratch;
  }
  // Mixed residues and gaps of both kinds past 16 bits, against the reference.
  std::mt19937 random(16);
  const std::string query_text = random_letters(random, 600);
  std::vector<std::string> relatives;
  for (int k = 0; k < 24; ++k) {
    relatives.push_back(k % 4 == 3 ? random_letters(random, random() % 600) : relative_of(random, query_text));
  }
  for (const std::int32_t diagonal : {150, 400}) {
    const Scoring heavy = heavy_scoring(diagonal);
    const SequenceSet relative_set = set_of(relatives);
    const std::vector<Residue> query = encode_protein(query_text);
    const std::vector<std::int32_t> want = reference_scores(query, relative_set, heavy);
    ASSERT_LT(*std::min_element(want.begin(), want.end()), 65535);
    if (diagonal == 400) {
      ASSERT_GT(*std::max_element(want.begin(), want.end()), 65535);
    }
    expect_equivalent({query_text}, relatives, heavy);
    expect_equivalent({query_text}, relatives, heavy, kTinyScratch);
  }
}

TEST(VulkanEngine, SubjectsOverSeveralDispatchesAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  // 700 subjects, with ties (copies) and empty ones, in workgroups of 256:
  // the tiny budget gives each dispatch one workgroup.
  std::mt19937 random(41);
  const Scoring scoring(builtin_matrix("BLOSUM50"), {13, 2});
  std::vector<std::string> texts;
  for (int k = 0; k < 700; ++k) {
    switch (random() % 5) {
      case 0:
        texts.emplace_back();
        break;
      case 1:
        if (!texts.empty()) {
          const std::string copy = texts[random() % texts.size()];
          texts.push_back(copy);
          break;
        }
        [[fallthrough]];
      default:
        texts.push_back(random_letters(random, random() % 90));
    }
  }
  const std::vector<std::string> queries{random_letters(random, 70), texts[3] + texts[9], "W"};
  expect_equivalent(queries, texts, scoring, kTinyScratch);
  expect_equivalent(queries, texts, scoring);
}

TEST(VulkanEngine, OneDatabaseServesManyQueriesAndSearches) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  std::mt19937 random(99);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (int k = 0; k < 150; ++k) texts.push_back(random_letters(random, random() % 300));
  const SequenceSet subjects = set_of(texts);
  SubjectScorer scorer(subjects, scoring, Backend::vulkan);
  EXPECT_EQ(scorer.backend(), Backend::vulkan);
  SequenceSet queries;
  for (int q = 0; q < 8; ++q) {
    const std::string query_text =
        q % 2 == 0 ? relative_of(random, texts[random() % texts.size()]) : random_letters(random, 1 + random() % 400);
    const std::vector<Residue> query = encode_protein(query_text);
    EXPECT_EQ(scorer.scores(query), reference_scores(query, subjects, scoring)) << "query " << q;
    queries.add("q" + std::to_string(q), "", query);
  }
  SearchOptions options;
  options.top = 5;
  options.backend = Backend::cpu;
  const auto want = search(queries, subjects, scoring, options);
  options.backend = Backend::vulkan;
  const auto got = search(queries, subjects, scoring, options);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t q = 0; q < want.size(); ++q) {
    ASSERT_EQ(got[q].size(), want[q].size()) << "query " << q;
    for (std::size_t h = 0; h < want[q].size(); ++h) {
      EXPECT_EQ(got[q][h].subject, want[q][h].subject) << "query " << q << ", hit " << h;
      EXPECT_EQ(got[q][h].score, want[q][h].score) << "query " << q << ", hit " << h;
    }
  }
}

TEST(VulkanEngine, RejectsScoresThatCouldLeave32BitsAndWrongSizes) {
  TRELLIS_SKIP_UNLESS_VULKAN();
  const Scoring heavy = heavy_scoring(1000);
  SequenceSet subjects;
  subjects.add("short", "", encode_protein("ACD"));
  subjects.add("long", "", std::vector<Residue>(1'100'000, 0));
  vulkan::SubjectsOnDevice device(subjects, heavy);
  const std::vector<Residue> query(1'100'000, 0);
  std::vector<std::int32_t> out(subjects.size());
  EXPECT_THROW(device.scores(query, out), UsageError);
  std::vector<std::int32_t> too_few(1);
  EXPECT_THROW(device.scores(encode_protein("ACD"), too_few), UsageError);
}

}  // namespace
}  // namespace trellis::align
