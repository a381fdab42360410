// The cpu engine against the reference, for every instruction set this
// machine runs: random sets over many matrices and gap pairs, and the
// awkward cases (empty and one-residue sequences, all-X, scores past 8 and
// 16 bits, very long queries and subjects), with 1 and many threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "align/cpu/engine.hpp"
#include "align/kernels.hpp"
#include "support/engine_checks.hpp"
#include "support/random_proteins.hpp"
#include "support/scorings_under_test.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::cpu {
// Failure messages show "avx2", not the enum's bytes.
inline void PrintTo(InstructionSet set, std::ostream* out) { *out << to_string(set); }
}  // namespace trellis::align::cpu

namespace trellis::align {
namespace {

using cpu::InstructionSet;

using trellis::testing::random_letters;
using trellis::testing::scorings_under_test;
using trellis::testing::set_of;

std::string relative_of(std::mt19937& random, const std::string& source) {
  return trellis::testing::engine_relative_of(random, source);
}

using trellis::testing::reference_scores;

std::vector<std::int32_t> cpu_scores(InstructionSet set, std::span<const Residue> query, const SequenceSet& subjects,
                                     const Scoring& scoring) {
  std::vector<std::int32_t> scores(subjects.size(), -7);
  cpu::sw_scores_with(set, query, subjects, scoring, scores);
  return scores;
}

class CpuEngine : public ::testing::TestWithParam<InstructionSet> {};

TEST_P(CpuEngine, RandomSetsAreEquivalentToRef) {
  std::mt19937 random(2024);
  for (const Scoring& scoring : scorings_under_test()) {
    for (int round = 0; round < 2; ++round) {
      const std::string query_text = random_letters(random, random() % 1001);
      std::vector<std::string> texts;
      for (int k = 0; k < 24; ++k) {
        texts.push_back(random() % 3 == 0 ? relative_of(random, query_text) : random_letters(random, random() % 1001));
      }
      const std::vector<Residue> query = encode_protein(query_text);
      const SequenceSet subjects = set_of(texts);
      EXPECT_EQ(cpu_scores(GetParam(), query, subjects, scoring), reference_scores(query, subjects, scoring))
          << scoring.matrix.name() << " " << scoring.gaps.open << "/" << scoring.gaps.extend << " query length "
          << query.size();
    }
  }
}

TEST_P(CpuEngine, ShortSequencesOfEveryLengthAreEquivalentToRef) {
  // Lengths around the lane counts exercise the padding and the stripes' wrap.
  std::mt19937 random(5);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (std::size_t length = 0; length <= 70; ++length) texts.push_back(random_letters(random, length));
  const SequenceSet subjects = set_of(texts);
  for (std::size_t length = 0; length <= 70; ++length) {
    const std::vector<Residue> query = encode_protein(random_letters(random, length));
    EXPECT_EQ(cpu_scores(GetParam(), query, subjects, scoring), reference_scores(query, subjects, scoring))
        << "query length " << length;
  }
}

TEST_P(CpuEngine, EmptyQueryAndEmptySubjectsScoreZero) {
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet subjects = set_of({"", "W", "", "MKVLAAGIW"});
  EXPECT_EQ(cpu_scores(GetParam(), {}, subjects, scoring), std::vector<std::int32_t>(4, 0));
  const std::vector<Residue> query = encode_protein("MKVLAAGIW");
  EXPECT_EQ(cpu_scores(GetParam(), query, subjects, scoring), (std::vector<std::int32_t>{0, 11, 0, 47}));
  EXPECT_TRUE(cpu_scores(GetParam(), query, SequenceSet(), scoring).empty());
}

TEST_P(CpuEngine, OneResidueAndAllXAreEquivalentToRef) {
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet subjects =
      set_of({"W", "A", "X", "*", std::string(300, 'X'), std::string(1000, 'X'), "XXXXWXXXX", "C"});
  for (const std::string query_text : {"W", "X", "*", "C", "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}) {
    const std::vector<Residue> query = encode_protein(query_text);
    EXPECT_EQ(cpu_scores(GetParam(), query, subjects, scoring), reference_scores(query, subjects, scoring))
        << query_text;
  }
  const std::vector<Residue> all_x = encode_protein(std::string(700, 'X'));
  EXPECT_EQ(cpu_scores(GetParam(), all_x, subjects, scoring), reference_scores(all_x, subjects, scoring));
}

TEST_P(CpuEngine, IdenticalRunsOverflowing8And16BitsAreExact) {
  // W/W scores 11 under BLOSUM62: 30 residues pass 255, 2,979 pass 32,767.
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (const std::size_t length : {23, 24, 30, 2978, 2979, 3000, 5000}) texts.emplace_back(length, 'W');
  const SequenceSet subjects = set_of(texts);
  const std::vector<Residue> query = encode_protein(std::string(5000, 'W'));
  EXPECT_EQ(cpu_scores(GetParam(), query, subjects, scoring),
            (std::vector<std::int32_t>{253, 264, 330, 32758, 32769, 33000, 55000}));
}

TEST_P(CpuEngine, LongQueryAgainstShortSubjectsAndTheReverse) {
  std::mt19937 random(11);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const std::string long_text = random_letters(random, 6000);
  std::vector<std::string> short_texts;
  for (int k = 0; k < 30; ++k) {
    const std::size_t start = random() % 5800;
    short_texts.push_back(k % 2 == 0 ? relative_of(random, long_text.substr(start, random() % 200))
                                     : random_letters(random, random() % 200));
  }
  const std::vector<Residue> long_query = encode_protein(long_text);
  const SequenceSet short_subjects = set_of(short_texts);
  EXPECT_EQ(cpu_scores(GetParam(), long_query, short_subjects, scoring),
            reference_scores(long_query, short_subjects, scoring));

  const SequenceSet long_subjects = set_of({long_text, relative_of(random, long_text), random_letters(random, 7000)});
  for (const std::string& text : {short_texts[0], short_texts[1], short_texts[4]}) {
    const std::vector<Residue> short_query = encode_protein(text);
    EXPECT_EQ(cpu_scores(GetParam(), short_query, long_subjects, scoring),
              reference_scores(short_query, long_subjects, scoring));
  }
}

TEST_P(CpuEngine, OneThreadAndManyThreadsGiveTheSameScores) {
  std::mt19937 random(99);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const std::string query_text = random_letters(random, 350);
  std::vector<std::string> texts;
  for (int k = 0; k < 100; ++k) {
    texts.push_back(k % 4 == 0 ? relative_of(random, query_text) : random_letters(random, random() % 600));
  }
  texts.emplace_back(3000, 'W');  // one subject takes the 32-bit path
  const std::vector<Residue> query = encode_protein(query_text + std::string(3000, 'W'));
  const SequenceSet subjects = set_of(texts);
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::vector<std::int32_t> one_thread = cpu_scores(GetParam(), query, subjects, scoring);
  omp_set_num_threads(8);
  const std::vector<std::int32_t> eight_threads = cpu_scores(GetParam(), query, subjects, scoring);
  omp_set_num_threads(threads_before);
  EXPECT_EQ(one_thread, eight_threads);
  EXPECT_EQ(one_thread, reference_scores(query, subjects, scoring));
}

TEST_P(CpuEngine, RejectsScoresThatCouldLeave32BitsBeforeWorking) {
  ScoringMatrix::Scores scores{};
  scores.fill(-1);
  for (int r = 0; r < kAlphabetSize; ++r)
    scores[static_cast<std::size_t>(r) * static_cast<std::size_t>(kAlphabetSize + 1)] = 1000;
  const Scoring heavy(ScoringMatrix("heavy", scores, false), {11, 1});
  SequenceSet subjects;
  subjects.add("short", "", encode_protein("ACD"));
  subjects.add("long", "", std::vector<Residue>(1'100'000, 0));
  const std::vector<Residue> query(1'100'000, 0);
  std::vector<std::int32_t> out(subjects.size());
  EXPECT_THROW(cpu::sw_scores_with(GetParam(), query, subjects, heavy, out), UsageError);
}

std::string instruction_set_name(const ::testing::TestParamInfo<InstructionSet>& info) {
  return std::string(cpu::to_string(info.param));
}

INSTANTIATE_TEST_SUITE_P(EverySupportedSet, CpuEngine, ::testing::ValuesIn(cpu::supported_instruction_sets()),
                         instruction_set_name);

TEST(CpuEngineWidest, FortyThousandIdenticalResiduesScoreExactly) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "1.6 G cells of exact 32-bit rescue: run in the optimised build, not under the sanitizers";
#endif
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  SequenceSet subjects;
  subjects.add("w", "", encode_protein(std::string(40'000, 'W')));
  const std::vector<Residue> query = encode_protein(std::string(40'000, 'W'));
  std::vector<std::int32_t> scores(1);
  cpu::sw_scores(query, subjects, scoring, scores);
  EXPECT_EQ(scores[0], 440'000);
}

TEST(DatabaseScores, EveryHostBackendAndAutomaticAgree) {
  std::mt19937 random(3);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  std::vector<std::string> texts;
  for (int k = 0; k < 40; ++k) texts.push_back(random_letters(random, random() % 400));
  const SequenceSet subjects = set_of(texts);
  const std::vector<Residue> query = encode_protein(random_letters(random, 300));
  const std::vector<std::int32_t> expected = reference_scores(query, subjects, scoring);
  EXPECT_EQ(local_alignment_scores(query, subjects, scoring, Backend::reference), expected);
  EXPECT_EQ(local_alignment_scores(query, subjects, scoring, Backend::cpu), expected);
  EXPECT_EQ(local_alignment_scores(query, subjects, scoring), expected);  // automatic: cuda where usable, else cpu
  SubjectScorer scorer(subjects, scoring, Backend::cpu);
  EXPECT_EQ(scorer.backend(), Backend::cpu);
  EXPECT_EQ(scorer.scores(query), expected);
}

}  // namespace
}  // namespace trellis::align
