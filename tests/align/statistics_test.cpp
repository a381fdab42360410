#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace trellis::align
