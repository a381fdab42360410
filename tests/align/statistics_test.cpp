#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string_view>

#include "trellis/align/statistics.hpp"

namespace trellis::align {
namespace {

TEST(Statistics, Blosum62WithBlastDefaultsHasThePublishedParameters) {
  const auto parameters = gapped_parameters(builtin_matrix("BLOSUM62"), {11, 1});
  ASSERT_TRUE(parameters.has_value());
  EXPECT_DOUBLE_EQ(parameters->lambda, 0.267);
  EXPECT_DOUBLE_EQ(parameters->k, 0.041);
  EXPECT_DOUBLE_EQ(parameters->h, 0.14);
  EXPECT_DOUBLE_EQ(parameters->alpha, 1.9);
  EXPECT_DOUBLE_EQ(parameters->beta, -30);
}

TEST(Statistics, BitScoreAndEvalueByHand) {
  const KarlinAltschul parameters = *gapped_parameters("BLOSUM62", {11, 1});
  // (0.267 * 100 - ln 0.041) / ln 2 = (26.7 + 3.194183) / 0.693147
  EXPECT_NEAR(bit_score(100, parameters), 43.128190, 1e-6);
  // 0.041 * 350 * 1e7 * exp(-26.7)
  EXPECT_NEAR(evalue(100, parameters, 350, 10'000'000), 3.6407364e-4, 1e-11);
  // The same E-value through bits: m n 2^-S'.
  EXPECT_NEAR(evalue(100, parameters, 350, 10'000'000), 350 * 1e7 * std::exp2(-bit_score(100, parameters)), 1e-12);
}

TEST(Statistics, CombinationsWithoutPublishedParametersHaveNone) {
  EXPECT_FALSE(gapped_parameters(builtin_matrix("BLOSUM62"), {5, 5}).has_value());
  EXPECT_FALSE(gapped_parameters(builtin_matrix("PAM30"), {11, 1}).has_value());
  // Numbers from a file never get statistics, whatever the file is called.
  EXPECT_FALSE(gapped_parameters(ScoringMatrix("BLOSUM62", builtin_matrix("BLOSUM62").scores(), false), {11, 1}));
  const auto pam30 = gapped_parameters(builtin_matrix("PAM30"), {9, 1});
  ASSERT_TRUE(pam30.has_value());
  EXPECT_DOUBLE_EQ(pam30->lambda, 0.294);
  EXPECT_DOUBLE_EQ(pam30->k, 0.11);
}

TEST(Statistics, EveryBuiltinHasParametersForItsDefaultGaps) {
  for (const std::string_view name : builtin_matrix_names()) {
    EXPECT_TRUE(gapped_parameters(builtin_matrix(name), default_gap_penalties(name)).has_value()) << name;
  }
}

// What blastp 2.12 printed for the first mmseqs2 example query (57 residues)
// against the example database (20,000 sequences, 9,055,569 residues),
// BLOSUM62 11/1: "Effective search space used: 228300363"; hits of score
// 308 (subject of 57 residues), 258 (68) and 55 (1827) with E-values
// 1.32e-39, 7.58e-32 and 1.1; with OLD_FSC set, 1.81e-29 for the first.
constexpr std::int64_t kExampleResidues = 9'055'569;
constexpr std::int64_t kExampleSequences = 20'000;

TEST(Statistics, LengthAdjustmentAndSearchSpaceAsBlastPrintsThem) {
  const KarlinAltschul p = *gapped_parameters("BLOSUM62", {11, 1});
  // (57 - 30) * (9055569 - 20000 * 30) = 228300363
  EXPECT_EQ(length_adjustment(p, 57, kExampleResidues, kExampleSequences), 30);
  EXPECT_EQ(effective_search_space(p, 57, kExampleResidues, kExampleSequences), 228'300'363);
  EXPECT_NEAR(karlin_altschul_evalue(308, p, 228'300'363) / 1.81e-29, 1.0, 0.005);
  // A search space too small for any adjustment keeps the lengths.
  EXPECT_EQ(length_adjustment(p, 5, 5, 1), 0);
  EXPECT_EQ(effective_search_space(p, 5, 5, 1), 25);
}

TEST(Statistics, SpougeEvaluesAsBlastPrintsThem) {
  const KarlinAltschul p = *gapped_parameters("BLOSUM62", {11, 1});
  EXPECT_NEAR(spouge_evalue(308, p, 57, 57, kExampleResidues) / 1.32e-39, 1.0, 0.005);
  EXPECT_NEAR(spouge_evalue(258, p, 57, 68, kExampleResidues) / 7.58e-32, 1.0, 0.005);
  EXPECT_NEAR(spouge_evalue(55, p, 57, 1827, kExampleResidues), 1.1, 0.05);
  // The pair alone is the database's value without the residues / n factor.
  EXPECT_DOUBLE_EQ(spouge_evalue(308, p, 57, 57, 0) * kExampleResidues / 57,
                   spouge_evalue(308, p, 57, 57, kExampleResidues));
  // Far below the textbook K m N exp(-lambda S): the lengths left after
  // the alignment's own are what count.
  EXPECT_LT(spouge_evalue(308, p, 57, 57, kExampleResidues), 0.01 * evalue(308, p, 57, kExampleResidues));
}

// The search ranks by E-value from the best subjects by score; that is
// exact only because, for every subject length, the E-value falls as the
// score rises.
TEST(Statistics, SpougeEvalueFallsWithTheScoreForEveryPublishedRow) {
  for (const std::string_view name : builtin_matrix_names()) {
    for (const GapPenalties& gaps : published_gap_penalties(name)) {
      const KarlinAltschul p = *gapped_parameters(name, gaps);
      for (const std::int64_t m : {1, 7, 57, 400, 5000}) {
        for (const std::int64_t n : {1, 9, 68, 1827, 35000}) {
          double previous = spouge_evalue(0, p, m, n, kExampleResidues);
          for (std::int64_t score = 1; score < 1500; ++score) {
            const double e = spouge_evalue(score, p, m, n, kExampleResidues);
            ASSERT_LE(e, previous) << name << " " << gaps.open << "/" << gaps.extend << " m " << m << " n " << n
                                   << " score " << score;
            previous = e;
          }
        }
      }
    }
  }
}

TEST(Statistics, PublishedPairsAreBlastsOwn) {
  // blastp accepts these for PAM30 (it lists them when refusing another).
  const auto pam30 = published_gap_penalties("PAM30");
  ASSERT_EQ(pam30.size(), 10u);
  EXPECT_EQ(pam30.front().open, 7);
  EXPECT_EQ(pam30.back().open, 13);
  EXPECT_EQ(pam30.back().extend, 3);
  EXPECT_TRUE(published_gap_penalties("BLOSUM90").empty());
  const auto spouge = gapped_parameters("BLOSUM62", {11, 1});
  ASSERT_TRUE(spouge.has_value());
  EXPECT_DOUBLE_EQ(spouge->alpha_v, 42.6028);
  EXPECT_DOUBLE_EQ(spouge->sigma, 43.6362);
  EXPECT_DOUBLE_EQ(spouge->ungapped_alpha, 0.7916);
  EXPECT_DOUBLE_EQ(spouge->ungapped_alpha_v, 4.96466);
  EXPECT_DOUBLE_EQ(spouge->gap_open_extend, 12);
}

}  // namespace
}  // namespace trellis::align
