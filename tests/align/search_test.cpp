// Database search: ranking, top-k, ties, the E-value cutoff, statistics
// without parameters, and every backend giving the reference's hits with
// tracebacks that rescore to the reported score.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "align/best_subjects.hpp"
#include "support/backends.hpp"
#include "support/random_proteins.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/statistics.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

using trellis::testing::set_of;

Scoring blosum62() { return Scoring(builtin_matrix("BLOSUM62"), {11, 1}); }

// BLOSUM62 scores W/W 11 and W against A, G or C negatively, so each
// subject's best local score is 11 times its longest run of W.
const std::vector<std::string> kWDatabase = {
    "GGGG",    // s0: 0
    "AWWWWA",  // s1: 44
    "WWW",     // s2: 33
    "WWWW",    // s3: 44, ties s1
    "",        // s4: 0 (empty)
    "WW",      // s5: 22
    "CWWWC",   // s6: 33, ties s2
};

std::vector<std::size_t> subjects_of(const std::vector<Hit>& hits) {
  std::vector<std::size_t> subjects;
  for (const Hit& hit : hits) subjects.push_back(hit.subject);
  return subjects;
}

std::vector<std::int32_t> scores_of(const std::vector<Hit>& hits) {
  std::vector<std::int32_t> scores;
  for (const Hit& hit : hits) scores.push_back(hit.score);
  return scores;
}

void expect_tracebacks_rescore(const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                               const SequenceSet& database, const Scoring& scoring) {
  for (const auto& query_hits : hits) {
    for (const Hit& hit : query_hits) {
      EXPECT_EQ(hit.alignment.score, hit.score) << "query " << hit.query << " subject " << hit.subject;
      EXPECT_EQ(rescore(hit.alignment, queries.residues(hit.query), database.residues(hit.subject), scoring), hit.score)
          << "query " << hit.query << " subject " << hit.subject;
    }
  }
}

// Without statistics the ranking is by score, then subject index; with
// Karlin-Altschul's E-values (one search space for every subject) by score
// too, but ties go to the later subject, as blastp has them.
TEST(Search, RanksByScoreThenSubjectIndex) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  const auto hits = search(queries, database, blosum62(),
                           {.top = 10, .backend = Backend::reference, .statistics = EvalueStatistics::none});
  const auto karlin_altschul =
      search(queries, database, blosum62(), {.top = 10, .statistics = EvalueStatistics::karlin_altschul});
  EXPECT_EQ(subjects_of(karlin_altschul[0]), (std::vector<std::size_t>{3, 1, 6, 2, 5}));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(subjects_of(hits[0]), (std::vector<std::size_t>{1, 3, 2, 6, 5}));
  EXPECT_EQ(scores_of(hits[0]), (std::vector<std::int32_t>{44, 44, 33, 33, 22}));
  EXPECT_EQ(hits[0][0].alignment.subject_start, 2);
  EXPECT_EQ(hits[0][0].alignment.subject_end, 5);
  expect_tracebacks_rescore(hits, queries, database, blosum62());
}

TEST(Search, KeepsTheBestTop) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  const SearchOptions by_score{.statistics = EvalueStatistics::none};
  SearchOptions top = by_score;
  top.top = 3;
  EXPECT_EQ(subjects_of(search(queries, database, blosum62(), top)[0]), (std::vector<std::size_t>{1, 3, 2}));
  top.top = 1;
  EXPECT_EQ(subjects_of(search(queries, database, blosum62(), top)[0]), (std::vector<std::size_t>{1}));
  // Equal subjects come in database order, whichever of them the cut falls in.
  const SequenceSet same = set_of({"WWWW", "WWWW", "WWWW", "WWWW", "WWWW"});
  top.top = 3;
  EXPECT_EQ(subjects_of(search(queries, same, blosum62(), top)[0]), (std::vector<std::size_t>{0, 1, 2}));
  // With statistics, as blastp: the later ones.
  EXPECT_EQ(subjects_of(search(queries, same, blosum62(), {.top = 3})[0]), (std::vector<std::size_t>{4, 3, 2}));
}

// Many subjects drawn from a few patterns, so that their scores tie in long
// runs: the best `top` by score, then subject index, are those a sort of
// every score gives.
TEST(Search, RanksManyTiedSubjectsAsASortOfEveryScoreDoes) {
  std::mt19937 random(7);
  const std::vector<std::string> patterns = {"W", "WW", "AWA", "GWWG", "WWW", "C", "WAW", "WWWW", "G"};
  std::vector<std::string> subjects;
  for (int i = 0; i < 150000; ++i) subjects.push_back(patterns[random() % patterns.size()]);
  const SequenceSet database = set_of(subjects);
  const SequenceSet queries = set_of({"WWWW"});
  const Scoring scoring = blosum62();
  const std::vector<std::int32_t> scores = local_alignment_scores(queries.residues(0), database, scoring, Backend::cpu);
  std::vector<std::size_t> sorted;
  for (std::size_t s = 0; s < scores.size(); ++s) {
    if (scores[s] > 0) sorted.push_back(s);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  for (const std::int32_t top : {1, 50, 40000, 200000}) {
    SCOPED_TRACE("top " + std::to_string(top));
    SearchOptions options{.top = top, .backend = Backend::cpu, .statistics = EvalueStatistics::none};
    const auto hits = search(queries, database, scoring, options);
    std::vector<std::size_t> expected = sorted;
    expected.resize(std::min(sorted.size(), static_cast<std::size_t>(top)));
    EXPECT_EQ(subjects_of(hits[0]), expected);
  }
}

// The host ranking both scorers and the cuda engine's candidates go through.
TEST(Search, BestSubjectsRankScoresThenIndexAndSkipZeros) {
  const std::vector<std::int32_t> scores = {5, 0, 9, 5, -3, 9, 1, 0, 5};
  using S = ScoredSubject;
  EXPECT_EQ(best_subjects(scores, 0), std::vector<S>{});
  EXPECT_EQ(best_subjects(scores, 1), (std::vector<S>{{2, 9}}));
  EXPECT_EQ(best_subjects(scores, 4), (std::vector<S>{{2, 9}, {5, 9}, {0, 5}, {3, 5}}));
  const std::vector<S> every = {{2, 9}, {5, 9}, {0, 5}, {3, 5}, {8, 5}, {6, 1}};
  EXPECT_EQ(best_subjects(scores, 100), every);
  std::vector<S> candidates;
  for (std::size_t s = scores.size(); s-- > 0;) candidates.push_back({s, scores[s]});
  for (const std::size_t keep : {0, 1, 3, 6, 100}) {
    EXPECT_EQ(best_subjects(candidates, keep), best_subjects(scores, keep)) << "keep " << keep;
  }
}

TEST(Search, StatisticsComeFromThePublishedParameters) {
  const SequenceSet queries = set_of({"WWWW", "GWWG"});
  const SequenceSet database = set_of(kWDatabase);
  const KarlinAltschul parameters = *gapped_parameters("BLOSUM62", {11, 1});
  const auto hits = search(queries, database, blosum62(), {.max_evalue = 1e9});
  const auto karlin_altschul =
      search(queries, database, blosum62(), {.max_evalue = 1e9, .statistics = EvalueStatistics::karlin_altschul});
  ASSERT_EQ(hits.size(), 2u);
  for (std::size_t q = 0; q < hits.size(); ++q) {
    ASSERT_EQ(hits[q].size(), karlin_altschul[q].size());
    for (std::size_t i = 0; i < hits[q].size(); ++i) {
      const Hit& hit = hits[q][i];
      const std::int64_t m = queries.length(q);
      ASSERT_TRUE(hit.evalue.has_value());
      EXPECT_DOUBLE_EQ(*hit.evalue, spouge_evalue(hit.score, parameters, m, database.length(hit.subject),
                                                  database.total_residues()));
      EXPECT_DOUBLE_EQ(hit.bit_score, bit_score(hit.score, parameters));
      if (i > 0) {
        EXPECT_LE(*hits[q][i - 1].evalue, *hit.evalue);
      }
      const Hit& plain = karlin_altschul[q][i];
      EXPECT_DOUBLE_EQ(*plain.evalue,
                       karlin_altschul_evalue(plain.score, parameters,
                                              effective_search_space(parameters, m, database.total_residues(),
                                                                     static_cast<std::int64_t>(database.size()))));
    }
  }
  // "GWWG": its WW pair scores 22 against s1, s2, s3, s5 and s6 (G/A 0,
  // G/W -2, G/C -3), more than GWWG against "GGGG" (6 - 2 - 2 + 6 = 8).
  EXPECT_EQ(scores_of(karlin_altschul[1]), (std::vector<std::int32_t>{22, 22, 22, 22, 22, 8}));
  EXPECT_EQ(subjects_of(karlin_altschul[1]), (std::vector<std::size_t>{6, 5, 3, 2, 1, 0}));
}

// --dbsize: the database's size for the statistics, the hits unchanged.
TEST(Search, DatabaseSizeScalesTheEvalues) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  const auto own = search(queries, database, blosum62(), {.max_evalue = 1e9});
  const auto larger = search(queries, database, blosum62(), {.max_evalue = 1e9, .database_size = 1'000'000});
  ASSERT_EQ(subjects_of(own[0]), subjects_of(larger[0]));
  for (std::size_t i = 0; i < own[0].size(); ++i) {
    // Spouge's scaling is database residues / subject length.
    EXPECT_NEAR(*larger[0][i].evalue / *own[0][i].evalue, 1'000'000.0 / static_cast<double>(database.total_residues()),
                1e-6);
  }
}

// With Spouge's E-values a subject's length matters: the ranking is a sort
// of every subject by E-value, then score, then the later index, however many tie and
// wherever `top` cuts. The lengths vary so that the best few times `top`
// by score are often not enough and the search has to look at every score.
TEST(Search, RanksAsASortOfEveryEvalueDoes) {
  std::mt19937 random(11);
  const std::vector<std::string> cores = {"W", "WW", "WWW", "WAW", "GWWG", "WWWW", "C"};
  std::vector<std::string> subjects;
  for (int i = 0; i < 20000; ++i) {
    std::string flank(random() % 60, 'G');
    subjects.push_back(flank + cores[random() % cores.size()] + std::string(random() % 400, 'A'));
  }
  const SequenceSet database = set_of(subjects);
  const SequenceSet queries = set_of({"WWWW", "GWWWAW"});
  const Scoring scoring = blosum62();
  const KarlinAltschul parameters = *gapped_parameters("BLOSUM62", {11, 1});
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::vector<std::int32_t> scores =
        local_alignment_scores(queries.residues(q), database, scoring, Backend::cpu);
    struct Expected {
      double evalue;
      std::int32_t score;
      std::size_t subject;
    };
    std::vector<Expected> every;
    for (std::size_t s = 0; s < scores.size(); ++s) {
      if (scores[s] <= 0) continue;
      every.push_back(
          {spouge_evalue(scores[s], parameters, queries.length(q), database.length(s), database.total_residues()),
           scores[s], s});
    }
    std::sort(every.begin(), every.end(), [](const Expected& a, const Expected& b) {
      if (a.evalue != b.evalue) return a.evalue < b.evalue;  // none of these are below 1e-180
      if (a.score != b.score) return a.score > b.score;
      return a.subject > b.subject;
    });
    for (const std::int32_t top : {1, 7, 300, 30000}) {
      SCOPED_TRACE("query " + std::to_string(q) + " top " + std::to_string(top));
      const auto hits = search(queries, database, scoring, {.top = top, .max_evalue = 1e12, .backend = Backend::cpu});
      std::vector<std::size_t> expected;
      for (const Expected& e : every) {
        if (expected.size() == static_cast<std::size_t>(top)) break;
        expected.push_back(e.subject);
      }
      EXPECT_EQ(subjects_of(hits[q]), expected);
    }
  }
}

TEST(Search, DropsHitsAboveTheEvalueCutoff) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  const auto every = search(queries, database, blosum62(), {.max_evalue = 1e9});
  ASSERT_EQ(every[0].size(), 5u);
  const double between = std::sqrt(*every[0][3].evalue * *every[0][4].evalue);
  ASSERT_LT(*every[0][3].evalue, *every[0][4].evalue);
  const auto hits = search(queries, database, blosum62(), {.max_evalue = between});
  std::vector<std::size_t> first_four = subjects_of(every[0]);
  first_four.pop_back();
  EXPECT_EQ(subjects_of(hits[0]), first_four);
  EXPECT_TRUE(search(queries, database, blosum62(), {.max_evalue = 1e-300})[0].empty());
}

// BLOSUM62's numbers in an NCBI matrix file: the same scores, no statistics.
ScoringMatrix blosum62_from_a_file() {
  const ScoringMatrix builtin = builtin_matrix("BLOSUM62");
  std::string text = "# BLOSUM62 copied into a file\n ";
  for (const char letter : kAlphabetLetters) text += std::string(" ") + letter;
  text += '\n';
  for (int row = 0; row < kAlphabetSize; ++row) {
    text += kAlphabetLetters[static_cast<std::size_t>(row)];
    for (int column = 0; column < kAlphabetSize; ++column) {
      text += ' ';
      text += std::to_string(builtin.score(static_cast<Residue>(row), static_cast<Residue>(column)));
    }
    text += '\n';
  }
  return parse_matrix(text, "copy.mat");
}

TEST(Search, WithoutParametersThereAreNoEvaluesAndNoCutoff) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  const Scoring scoring(blosum62_from_a_file(), {11, 1});
  ASSERT_FALSE(gapped_parameters(scoring.matrix, scoring.gaps).has_value());
  const auto hits = search(queries, database, scoring, {.max_evalue = 1e-300});
  EXPECT_EQ(subjects_of(hits[0]), (std::vector<std::size_t>{1, 3, 2, 6, 5}));
  for (const Hit& hit : hits[0]) {
    EXPECT_FALSE(hit.evalue.has_value());
    EXPECT_TRUE(std::isnan(hit.bit_score));
  }
  // A built-in matrix with a gap pair NCBI did not publish is refused, as
  // blastp refuses it, naming the pairs there are; without statistics it runs.
  const Scoring unpublished(builtin_matrix("BLOSUM62"), {5, 5});
  try {
    search(queries, database, unpublished);
    ADD_FAILURE() << "BLOSUM62 5/5 was searched with statistics";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("5/5"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("11/1"), std::string::npos) << error.what();
  }
  const auto without = search(queries, database, unpublished, {.statistics = EvalueStatistics::none});
  ASSERT_FALSE(without[0].empty());
  EXPECT_FALSE(without[0][0].evalue.has_value());
}

TEST(Search, EmptyQueriesAndQuerySets) {
  const SequenceSet database = set_of(kWDatabase);
  EXPECT_TRUE(search(SequenceSet{}, database, blosum62()).empty());
  const auto hits = search(set_of({"", "GGGG"}), database, blosum62());
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_TRUE(hits[0].empty());
  EXPECT_EQ(subjects_of(hits[1]), (std::vector<std::size_t>{0}));  // G/G 6 x 4 = 24 against s0 only
}

TEST(Search, RefusesAnEmptyDatabase) {
  try {
    search(set_of({"WWWW"}), SequenceSet{}, blosum62());
    FAIL() << "an empty database was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("the database holds no sequences"), std::string::npos);
  }
}

TEST(Search, ValidatesOptions) {
  const SequenceSet queries = set_of({"WWWW"});
  const SequenceSet database = set_of(kWDatabase);
  EXPECT_NO_THROW(validate(SearchOptions{}));
  EXPECT_THROW(validate(SearchOptions{.top = 0}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.top = -5}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.max_evalue = 0}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.max_evalue = -1}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.max_evalue = std::numeric_limits<double>::quiet_NaN()}), UsageError);
  EXPECT_THROW(search(queries, database, blosum62(), {.top = 0}), UsageError);
  EXPECT_THROW(search(queries, database, blosum62(), {.max_evalue = -1}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.database_size = 0}), UsageError);
  EXPECT_THROW(validate(SearchOptions{.database_size = -100}), UsageError);
  EXPECT_NO_THROW(validate(SearchOptions{.database_size = 1}));
  EXPECT_THROW(search(queries, database, blosum62(), {.database_size = 0}), UsageError);
}

// Relatives of the queries with substitutions and indels, and unrelated
// sequences, so that hits have gaps and many scores tie or are zero.
constexpr trellis::testing::MutationRates kRelative{4, 8, 25, 6};

using trellis::testing::random_letters;

std::string relative_of(std::mt19937& random, const std::string& source) {
  return trellis::testing::relative_of(random, source, kRelative);
}

class SearchBackends : public ::testing::TestWithParam<Backend> {};

TEST_P(SearchBackends, HitsAreEquivalentToRef) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  std::mt19937 random(20261129);
  std::vector<std::string> query_texts;
  for (int q = 0; q < 4; ++q) query_texts.push_back(random_letters(random, 20 + random() % 200));
  query_texts.push_back("");
  std::vector<std::string> subject_texts;
  for (int s = 0; s < 300; ++s) {
    const unsigned kind = random() % 4;
    if (kind == 0) {
      subject_texts.push_back(relative_of(random, query_texts[random() % 4]));
    } else if (kind == 1 && s > 0) {
      subject_texts.push_back(subject_texts[random() % subject_texts.size()]);  // exact ties
    } else {
      subject_texts.push_back(random_letters(random, random() % 300));
    }
  }
  const SequenceSet queries = set_of(query_texts);
  const SequenceSet database = set_of(subject_texts);
  for (const Scoring& scoring :
       {blosum62(), Scoring(builtin_matrix("PAM30"), {9, 1}), Scoring(builtin_matrix("BLOSUM45"), {3, 3})}) {
    for (const std::int32_t top : {1, 7, 1000}) {
      SCOPED_TRACE(scoring.matrix.name() + " top " + std::to_string(top));
      // BLOSUM45 3/3 has no published statistics: ranked by score.
      const EvalueStatistics statistics =
          gapped_parameters(scoring.matrix, scoring.gaps) ? EvalueStatistics::spouge : EvalueStatistics::none;
      const auto expected =
          search(queries, database, scoring, {.top = top, .backend = Backend::reference, .statistics = statistics});
      const auto actual =
          search(queries, database, scoring, {.top = top, .backend = GetParam(), .statistics = statistics});
      ASSERT_EQ(actual.size(), expected.size());
      for (std::size_t q = 0; q < expected.size(); ++q) {
        ASSERT_EQ(subjects_of(actual[q]), subjects_of(expected[q])) << "query " << q;
        ASSERT_EQ(scores_of(actual[q]), scores_of(expected[q])) << "query " << q;
        for (std::size_t h = 0; h < expected[q].size(); ++h) {
          EXPECT_EQ(actual[q][h].evalue, expected[q][h].evalue);
          EXPECT_EQ(actual[q][h].alignment.cigar, expected[q][h].alignment.cigar);
          EXPECT_EQ(actual[q][h].alignment.subject_start, expected[q][h].alignment.subject_start);
        }
        for (std::size_t h = 1; h < expected[q].size(); ++h) {
          const Hit& before = expected[q][h - 1];
          const Hit& after = expected[q][h];
          if (statistics == EvalueStatistics::none) {
            EXPECT_TRUE(before.score > after.score || (before.score == after.score && before.subject < after.subject));
          } else {  // none of these E-values is below 1e-180, where they would count as equal
            EXPECT_TRUE(
                *before.evalue < *after.evalue ||
                (*before.evalue == *after.evalue &&
                 (before.score > after.score || (before.score == after.score && before.subject > after.subject))));
          }
        }
        if (top == 1000) {
          EXPECT_LE(expected[q].size(), database.size());
        }
      }
      EXPECT_TRUE(expected[4].empty());  // the empty query
      expect_tracebacks_rescore(actual, queries, database, scoring);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchBackends, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

}  // namespace
}  // namespace trellis::align
