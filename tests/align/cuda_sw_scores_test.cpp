// The cuda engine against the reference, in every compiled kernel shape and
// in the shape it picks itself: random sets over many matrices and gap
// pairs (including penalties the 16-bit lanes clamp), lengths around the
// lane and pass sizes, empty and one-residue sequences, all-X, scores past
// 16 bits (the 32-bit rescoring), queries of several passes, odd subject
// counts, and one resident database serving many queries; the same cases
// with the database streamed from host memory in chunks under a small
// device-memory budget. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "align/best_subjects.hpp"
#include "align/kernels.hpp"
#include "support/backends.hpp"
#include "support/engine_checks.hpp"
#include "support/random_proteins.hpp"
#include "support/scorings_under_test.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

using cuda::KernelShape;
using trellis::testing::random_letters;
using trellis::testing::scorings_under_test;
using trellis::testing::set_of;

std::string relative_of(std::mt19937& random, const std::string& source) {
  return trellis::testing::engine_relative_of(random, source);
}

using trellis::testing::reference_scores;

// Every compiled shape, then the engine's own choice (nullopt).
std::vector<std::optional<KernelShape>> shapes_under_test() {
  std::vector<std::optional<KernelShape>> shapes(cuda::kernel_shapes().begin(), cuda::kernel_shapes().end());
  shapes.push_back(std::nullopt);
  return shapes;
}

std::string shape_name(const std::optional<KernelShape>& shape) {
  if (!shape) return "chosen shape";
  return std::to_string(shape->lanes) + " lanes x " + std::to_string(shape->rows_per_lane) + " rows, " +
         (shape->form == cuda::KernelForm::wide ? "wide" : "compact");
}

std::vector<std::int32_t> cuda_scores(cuda::ResidentSubjects& resident, std::span<const Residue> query,
                                      std::size_t count, std::optional<KernelShape> shape) {
  std::vector<std::int32_t> scores(count, -7);
  resident.scores(query, scores, shape);
  return scores;
}

// Scores `queries` against `texts` under `scoring` in every shape and
// compares each with the reference; device_memory_bytes as the engine takes
// it (0: automatic).
void expect_equivalent(const std::vector<std::string>& query_texts, const std::vector<std::string>& texts,
                       const Scoring& scoring, std::size_t device_memory_bytes = 0) {
  const SequenceSet subjects = set_of(texts);
  cuda::ResidentSubjects resident(subjects, scoring, device_memory_bytes);
  for (const std::string& query_text : query_texts) {
    const std::vector<Residue> query = encode_protein(query_text);
    const std::vector<std::int32_t> expected = reference_scores(query, subjects, scoring);
    for (const auto& shape : shapes_under_test()) {
      EXPECT_EQ(cuda_scores(resident, query, subjects.size(), shape), expected)
          << shape_name(shape) << ", " << scoring.matrix.name() << " " << scoring.gaps.open << "/"
          << scoring.gaps.extend << ", query length " << query.size() << ", budget " << device_memory_bytes
          << " bytes, " << resident.chunks() << " chunks";
    }
  }
}

TEST(CudaEngine, RandomSetsAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(2024);
  for (const Scoring& scoring : scorings_under_test()) {
    const std::string query_text = random_letters(random, random() % 1001);
    std::vector<std::string> texts;
    for (int k = 0; k < 25; ++k) {
      texts.push_back(random() % 3 == 0 ? relative_of(random, query_text) : random_letters(random, random() % 1001));
    }
    expect_equivalent({query_text, random_letters(random, random() % 300)}, texts, scoring);
  }
}

TEST(CudaEngine, LengthsAroundLaneAndPassSizesAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(5);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (std::size_t length = 0; length <= 70; ++length) texts.push_back(random_letters(random, length));
  std::vector<std::string> queries;
  for (const std::size_t length : {1,   2,   3,   4,   5,   7,   8,   9,   31,  32,  33,  63,  64,  65,  127, 128, 129,
                                   191, 192, 193, 255, 256, 257, 383, 384, 385, 511, 512, 513, 639, 640, 641, 1281}) {
    queries.push_back(random_letters(random, length));
  }
  expect_equivalent(queries, texts, scoring);
}

TEST(CudaEngine, EmptyQueryAndEmptySubjectsScoreZero) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet subjects = set_of({"", "W", "", "MKVLAAGIW", ""});
  cuda::ResidentSubjects resident(subjects, scoring);
  EXPECT_EQ(cuda_scores(resident, {}, subjects.size(), std::nullopt), std::vector<std::int32_t>(5, 0));
  const std::vector<Residue> query = encode_protein("MKVLAAGIW");
  for (const auto& shape : shapes_under_test()) {
    EXPECT_EQ(cuda_scores(resident, query, subjects.size(), shape), (std::vector<std::int32_t>{0, 11, 0, 47, 0}))
        << shape_name(shape);
  }
  const SequenceSet all_empty = set_of({"", ""});
  cuda::ResidentSubjects empty_resident(all_empty, scoring);
  EXPECT_EQ(cuda_scores(empty_resident, query, 2, std::nullopt), std::vector<std::int32_t>(2, 0));
  const SequenceSet none;
  cuda::ResidentSubjects no_subjects(none, scoring);
  EXPECT_TRUE(cuda_scores(no_subjects, query, 0, std::nullopt).empty());
}

TEST(CudaEngine, OneResidueAndAllXAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  expect_equivalent({"W", "X", "*", "C", std::string(37, 'X'), std::string(700, 'X')},
                    {"W", "A", "X", "*", std::string(300, 'X'), std::string(1000, 'X'), "XXXXWXXXX", "C"}, scoring);
}

TEST(CudaEngine, ScoresPast16BitsAreRescoredExactly) {
  TRELLIS_SKIP_UNLESS_CUDA();
  // W/W scores 11 under BLOSUM62: 2,979 residues pass 32,767. Pairs mix a
  // subject that overflows with one that does not.
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (const std::size_t length : {23, 2978, 2979, 3000, 5000, 2977, 30}) texts.emplace_back(length, 'W');
  const SequenceSet subjects = set_of(texts);
  cuda::ResidentSubjects resident(subjects, scoring);
  const std::vector<Residue> query = encode_protein(std::string(5000, 'W'));
  for (const auto& shape : shapes_under_test()) {
    EXPECT_EQ(cuda_scores(resident, query, subjects.size(), shape),
              (std::vector<std::int32_t>{253, 32758, 32769, 33000, 55000, 32747, 330}))
        << shape_name(shape);
  }
}

TEST(CudaEngine, LongQueryAgainstShortSubjectsAndTheReverse) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(11);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const std::string long_text = random_letters(random, 6000);
  std::vector<std::string> short_texts;
  for (int k = 0; k < 31; ++k) {
    const std::size_t start = random() % 5800;
    short_texts.push_back(k % 2 == 0 ? relative_of(random, long_text.substr(start, random() % 200))
                                     : random_letters(random, random() % 200));
  }
  expect_equivalent({long_text}, short_texts, scoring);
  expect_equivalent({short_texts[0], short_texts[1], short_texts[4]},
                    {long_text, relative_of(random, long_text), random_letters(random, 7000)}, scoring);
}

TEST(CudaEngine, OneResidentDatabaseServesManyQueries) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(99);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (int k = 0; k < 301; ++k) texts.push_back(random_letters(random, random() % 700));
  const SequenceSet subjects = set_of(texts);
  SubjectScorer scorer(subjects, scoring, Backend::cuda);
  EXPECT_EQ(scorer.backend(), Backend::cuda);
  for (int q = 0; q < 12; ++q) {
    std::string query_text =
        q % 3 == 0 ? relative_of(random, texts[random() % texts.size()]) : random_letters(random, 1 + random() % 2500);
    const std::vector<Residue> query = encode_protein(query_text);
    EXPECT_EQ(scorer.scores(query), reference_scores(query, subjects, scoring)) << "query " << q;
  }
}

// Budgets in bytes. One byte leaves no room for columns: every pair takes a
// chunk of its own. About 20 KB holds a few pairs of up to 1,000 residues a
// chunk, so longer pairs overflow a chunk's share and take one alone.
constexpr std::size_t kOnePairPerChunk = 1;
constexpr std::size_t kFewPairsPerChunk = 20'000;

TEST(CudaEngine, AutomaticBudgetKeepsASmallDatabaseResident) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(3);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (int k = 0; k < 41; ++k) texts.push_back(random_letters(random, random() % 900));
  const SequenceSet subjects = set_of(texts);
  cuda::ResidentSubjects automatic(subjects, scoring);
  EXPECT_FALSE(automatic.streamed());
  EXPECT_EQ(automatic.chunks(), 1u);
  cuda::ResidentSubjects ample(subjects, scoring, std::size_t{1} << 30);
  EXPECT_FALSE(ample.streamed());
  const SequenceSet none;
  EXPECT_EQ(cuda::ResidentSubjects(none, scoring, kOnePairPerChunk).chunks(), 0u);
}

TEST(CudaEngine, StreamedChunksAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(77);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  // An odd count (the last pair holds one subject), empty subjects (chunks
  // without columns at the end), relatives of the query, and subjects longer
  // than a chunk's share of kFewPairsPerChunk.
  const std::string query_text = random_letters(random, 1500);
  std::vector<std::string> texts{
      "", "", "", random_letters(random, 4000), relative_of(random, query_text), random_letters(random, 2500)};
  for (int k = 0; k < 55; ++k) {
    texts.push_back(k % 4 == 0 ? relative_of(random, query_text.substr(random() % 1000, 400))
                               : random_letters(random, random() % 1001));
  }
  ASSERT_EQ(texts.size() % 2, 1u);
  const SequenceSet subjects = set_of(texts);
  const std::size_t pairs = (texts.size() + 1) / 2;
  // Every pair with columns takes a chunk of its own; the pairs of empty
  // subjects (sorted last) hold no columns and share one.
  const auto non_empty = static_cast<std::size_t>(
      std::count_if(texts.begin(), texts.end(), [](const std::string& t) { return !t.empty(); }));
  const std::size_t pairs_with_columns = (non_empty + 1) / 2;
  const std::size_t one_pair_chunks = pairs_with_columns + (pairs > pairs_with_columns ? 1 : 0);
  {
    cuda::ResidentSubjects one_each(subjects, scoring, kOnePairPerChunk);
    EXPECT_TRUE(one_each.streamed());
    EXPECT_EQ(one_each.chunks(), one_pair_chunks);
    cuda::ResidentSubjects few_each(subjects, scoring, kFewPairsPerChunk);
    EXPECT_TRUE(few_each.streamed());
    EXPECT_GT(few_each.chunks(), 5u);
    EXPECT_LT(few_each.chunks(), pairs);
  }
  // One pass in every shape (up to 32 rows), one or several (300), several
  // in every shape (1,500 rows; 4,000 columns).
  const std::vector<std::string> queries{"W", random_letters(random, 32), query_text.substr(200, 300), query_text};
  for (const std::size_t budget : {kOnePairPerChunk, kFewPairsPerChunk}) {
    expect_equivalent(queries, texts, scoring, budget);
  }
}

// best() gathers on the device the subjects whose scores can rank among the
// best and ranks them on the host: the same as ranking every score, with
// zero scores left out, ties cut by index, scores past the last bin
// (4,095) ranked exactly, and scores past 16 bits rescored first.
TEST(CudaEngine, BestSubjectsAreTheRankedScores) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(29);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const std::string query_text = std::string(3100, 'W') + random_letters(random, 400);
  std::vector<std::string> texts = {std::string(3000, 'W'), std::string(2990, 'W'), ""};
  for (int s = 0; s < 400; ++s) {
    switch (random() % 6) {
      case 0:
        texts.push_back(std::string(1 + random() % 3000, 'W'));
        break;  // up to past 16 bits
      case 1:
        texts.emplace_back();
        break;   // zero
      case 2: {  // ties
        const std::string copy = texts[random() % texts.size()];
        texts.push_back(copy);
        break;
      }
      case 3:
        texts.push_back(std::string(372 + random() % 3, 'W'));
        break;  // ties around bin 4,095
      default:
        texts.push_back(relative_of(random, query_text.substr(random() % 3400, 1 + random() % 100)));
    }
  }
  const SequenceSet subjects = set_of(texts);
  const std::vector<Residue> query = encode_protein(query_text);
  const std::vector<std::int32_t> want_scores = reference_scores(query, subjects, scoring);
  ASSERT_TRUE(std::count(want_scores.begin(), want_scores.end(), 0) > 0);
  ASSERT_TRUE(*std::max_element(want_scores.begin(), want_scores.end()) > 32767);
  cuda::ResidentSubjects resident(subjects, scoring);
  cuda::ResidentSubjects streamed(subjects, scoring, kFewPairsPerChunk);
  for (const std::size_t keep : {0, 1, 2, 7, 40, 200, 402, 403, 1000}) {
    const std::vector<ScoredSubject> want = best_subjects(want_scores, keep);
    for (const auto& shape : shapes_under_test()) {
      EXPECT_EQ(resident.best(query, keep, shape), want) << shape_name(shape) << ", keep " << keep;
      EXPECT_EQ(streamed.best(query, keep, shape), want) << shape_name(shape) << ", keep " << keep << ", streamed";
    }
  }
  EXPECT_TRUE(resident.best(std::span<const Residue>{}, 5).empty());
}

// best() over many queries runs several on the device at once where the
// layout is resident: each query's list is the one best() gives it alone,
// empty queries included, on both layouts.
TEST(CudaEngine, BestOfManyQueriesIsTheBestOfEach) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(31);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (int s = 0; s < 300; ++s) texts.push_back(random_letters(random, random() % 900));
  for (int s = 0; s < 20; ++s) {  // ties
    const std::string copy = texts[random() % texts.size()];
    texts.push_back(copy);
  }
  texts.push_back(std::string(3000, 'W'));  // past 16 bits against the W query
  const SequenceSet subjects = set_of(texts);
  std::vector<std::vector<Residue>> encoded;
  for (int q = 0; q < 11; ++q) {
    const std::string& source = texts[random() % 300];
    encoded.push_back(encode_protein(q == 3 ? std::string() : relative_of(random, source + source)));
  }
  encoded.push_back(encode_protein(std::string(3100, 'W')));
  const std::vector<std::span<const Residue>> queries(encoded.begin(), encoded.end());
  cuda::ResidentSubjects resident(subjects, scoring);
  cuda::ResidentSubjects streamed(subjects, scoring, kFewPairsPerChunk);
  for (const std::size_t keep : {1, 10, 500}) {
    for (cuda::ResidentSubjects* layout : {&resident, &streamed}) {
      const std::vector<std::vector<ScoredSubject>> together = layout->best(queries, keep);
      ASSERT_EQ(together.size(), queries.size());
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const std::vector<std::int32_t> want = reference_scores(queries[q], subjects, scoring);
        EXPECT_EQ(together[q], best_subjects(want, keep))
            << "query " << q << ", keep " << keep << (layout == &streamed ? ", streamed" : "");
      }
    }
  }
  EXPECT_TRUE(resident.best(std::span<const std::span<const Residue>>{}, 3).empty());
}

TEST(CudaEngine, StreamedScoresPast16BitsAreRescoredExactly) {
  TRELLIS_SKIP_UNLESS_CUDA();
  // As ScoresPast16BitsAreRescoredExactly, streamed: the overflowing
  // subjects' pairs are chunks of their own, and their 32-bit rescoring
  // streams too (its budget is as small).
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (const std::size_t length : {23, 2978, 2979, 3000, 5000, 2977, 30, 4100, 0}) texts.emplace_back(length, 'W');
  const SequenceSet subjects = set_of(texts);
  // 60 KB: about 5,000 columns a chunk, so the longest pair is alone and
  // the shortest three share one.
  for (const std::size_t budget : {kOnePairPerChunk, kFewPairsPerChunk, std::size_t{60'000}}) {
    cuda::ResidentSubjects streamed(subjects, scoring, budget);
    EXPECT_TRUE(streamed.streamed());
    for (const std::size_t query_length : {5000, 3000}) {
      // W/W scores 11: the best alignment is the shorter run.
      const std::vector<Residue> query = encode_protein(std::string(query_length, 'W'));
      std::vector<std::int32_t> want(texts.size());
      for (std::size_t s = 0; s < texts.size(); ++s) {
        want[s] = static_cast<std::int32_t>(11 * std::min(query_length, texts[s].size()));
      }
      for (const auto& shape : shapes_under_test()) {
        EXPECT_EQ(cuda_scores(streamed, query, subjects.size(), shape), want)
            << shape_name(shape) << ", budget " << budget << ", query length " << query_length;
      }
    }
  }
  expect_equivalent({std::string(3100, 'W') + "AAAA" + std::string(200, 'W')}, texts, scoring, kOnePairPerChunk);
}

TEST(CudaEngine, StreamedScorerServesManyQueries) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::mt19937 random(123);
  const Scoring scoring(builtin_matrix("BLOSUM50"), {13, 2});
  std::vector<std::string> texts;
  for (int k = 0; k < 203; ++k) texts.push_back(random_letters(random, random() % 1200));
  const SequenceSet subjects = set_of(texts);
  ScorerOptions options;
  options.device_memory_bytes = 64'000;
  SubjectScorer streamed(subjects, scoring, Backend::cuda, options);
  SubjectScorer resident(subjects, scoring, Backend::cuda);
  for (int q = 0; q < 10; ++q) {
    const std::string query_text =
        q % 3 == 0 ? relative_of(random, texts[random() % texts.size()]) : random_letters(random, 1 + random() % 2000);
    const std::vector<Residue> query = encode_protein(query_text);
    const std::vector<std::int32_t> expected = reference_scores(query, subjects, scoring);
    EXPECT_EQ(streamed.scores(query), expected) << "query " << q;
    EXPECT_EQ(resident.scores(query), expected) << "query " << q;
  }
}

TEST(CudaEngine, RejectsScoresThatCouldLeave32BitsAndUnknownShapes) {
  TRELLIS_SKIP_UNLESS_CUDA();
  ScoringMatrix::Scores scores{};
  scores.fill(-1);
  for (int r = 0; r < kAlphabetSize; ++r)
    scores[static_cast<std::size_t>(r) * static_cast<std::size_t>(kAlphabetSize + 1)] = 1000;
  const Scoring heavy(ScoringMatrix("heavy", scores, false), {11, 1});
  SequenceSet subjects;
  subjects.add("short", "", encode_protein("ACD"));
  subjects.add("long", "", std::vector<Residue>(1'100'000, 0));
  cuda::ResidentSubjects resident(subjects, heavy);
  const std::vector<Residue> query(1'100'000, 0);
  std::vector<std::int32_t> out(subjects.size());
  EXPECT_THROW(resident.scores(query, out), UsageError);
  EXPECT_THROW(resident.scores(encode_protein("ACD"), out, KernelShape{7, 3}), UsageError);
  std::vector<std::int32_t> too_few(1);
  EXPECT_THROW(resident.scores(encode_protein("ACD"), too_few), UsageError);
}

}  // namespace
}  // namespace trellis::align
