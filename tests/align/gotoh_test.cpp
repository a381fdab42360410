#include <gtest/gtest.h>
#include <parasail.h>
#include <parasail/matrices/blosum45.h>
#include <parasail/matrices/blosum62.h>
#include <parasail/matrices/pam30.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

// Protein text with mostly standard residues and some ambiguous letters.
std::string random_protein(std::mt19937& random, std::size_t length) {
  static const std::string common = "ACDEFGHIKLMNPQRSTVWY";
  static const std::string rare = "BZXJUO*";
  std::string text(length, 'A');
  for (char& c : text) c = random() % 16 == 0 ? rare[random() % rare.size()] : common[random() % common.size()];
  return text;
}

// A relative of `source`: substitutions, insertions and deletions, so that
// the best local alignments contain gaps of both kinds.
std::string mutated(std::mt19937& random, const std::string& source) {
  std::string text;
  for (const char c : source) {
    const unsigned roll = random() % 100;
    if (roll < 4) continue;                                          // deletion
    if (roll < 8) text += random_protein(random, 1 + random() % 6);  // insertion
    text += roll < 25 ? random_protein(random, 1)[0] : c;            // substitution or copy
  }
  return random_protein(random, random() % 20) + text + random_protein(random, random() % 20);
}

struct Pair {
  std::vector<Residue> query;
  std::vector<Residue> subject;
};

Pair random_pair(std::mt19937& random, std::size_t max_length) {
  const std::string query = random_protein(random, random() % (max_length + 1));
  const std::string subject =
      random() % 2 == 0 ? mutated(random, query) : random_protein(random, random() % (max_length + 1));
  return {encode_protein(query), encode_protein(subject)};
}

// parasail charges `open` for the first gap position, ours open + extend.
int parasail_sw_score(const Pair& pair, const parasail_matrix_t* matrix, const GapPenalties& gaps) {
  const std::string query = decode_protein(pair.query);
  const std::string subject = decode_protein(pair.subject);
  parasail_result_t* result =
      parasail_sw(query.data(), static_cast<int>(query.size()), subject.data(), static_cast<int>(subject.size()),
                  gaps.open + gaps.extend, gaps.extend, matrix);
  const int score = parasail_result_get_score(result);
  parasail_result_free(result);
  return score;
}

// A parasail matrix holding our values (for BLOSUM80: parasail ships the
// third-bit matrix, BLAST and we use the half-bit one).
struct OwnedParasailMatrix {
  explicit OwnedParasailMatrix(const ScoringMatrix& matrix) : pointer(parasail_matrix_copy(&parasail_blosum62)) {
    // parasail_blosum62's alphabet is ours, in our order.
    for (int a = 0; a < kAlphabetSize; ++a) {
      for (int b = 0; b < kAlphabetSize; ++b) {
        parasail_matrix_set_value(pointer, a, b, matrix.score(static_cast<Residue>(a), static_cast<Residue>(b)));
      }
    }
  }
  ~OwnedParasailMatrix() { parasail_matrix_free(pointer); }
  OwnedParasailMatrix(const OwnedParasailMatrix&) = delete;
  OwnedParasailMatrix& operator=(const OwnedParasailMatrix&) = delete;
  parasail_matrix_t* pointer;
};

const parasail_matrix_t* blast_blosum80() {
  static const OwnedParasailMatrix matrix(builtin_matrix("BLOSUM80"));
  return matrix.pointer;
}

struct ParasailCase {
  const char* matrix;
  GapPenalties gaps;
  const parasail_matrix_t* parasail;
  int pairs;
  std::size_t max_length;
};

class ReferenceAgreesWithParasail : public ::testing::TestWithParam<ParasailCase> {};

TEST_P(ReferenceAgreesWithParasail, OnSeededRandomPairs) {
  const ParasailCase& c = GetParam();
  const Scoring scoring(builtin_matrix(c.matrix), c.gaps);
  const parasail_matrix_t* parasail_matrix = c.parasail != nullptr ? c.parasail : blast_blosum80();
  std::mt19937 random(20261129);
  int with_empty = 0;
  int positive = 0;
  for (int k = 0; k < c.pairs; ++k) {
    const Pair pair = random_pair(random, c.max_length);
    const std::int32_t ours = local_alignment_score(pair.query, pair.subject, scoring);
    if (pair.query.empty() || pair.subject.empty()) {
      EXPECT_EQ(ours, 0);
      ++with_empty;
      continue;
    }
    positive += ours > 0 ? 1 : 0;
    ASSERT_EQ(ours, parasail_sw_score(pair, parasail_matrix, c.gaps))
        << c.matrix << " pair " << k << "\nquery   " << decode_protein(pair.query) << "\nsubject "
        << decode_protein(pair.subject);
  }
  EXPECT_GT(with_empty, 0);
  EXPECT_GT(positive, c.pairs * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(Matrices, ReferenceAgreesWithParasail,
                         ::testing::Values(ParasailCase{"BLOSUM62", {11, 1}, &parasail_blosum62, 10000, 400},
                                           ParasailCase{"BLOSUM45", {14, 2}, &parasail_blosum45, 10000, 160},
                                           ParasailCase{"PAM30", {9, 1}, &parasail_pam30, 10000, 160},
                                           ParasailCase{"BLOSUM80", {10, 1}, nullptr, 10000, 160},
                                           ParasailCase{"BLOSUM62", {0, 0}, &parasail_blosum62, 2000, 160}),
                         [](const ::testing::TestParamInfo<ParasailCase>& param_info) {
                           return std::string(param_info.param.matrix) + "_" +
                                  std::to_string(param_info.param.gaps.open) + "_" +
                                  std::to_string(param_info.param.gaps.extend);
                         });

// Everything a traceback reports must agree with itself and the sequences.
void expect_consistent(const Alignment& a, const Pair& pair, const Scoring& scoring) {
  ASSERT_EQ(rescore(a, pair.query, pair.subject, scoring), a.score);
  ASSERT_EQ(static_cast<std::int64_t>(a.query_aligned.size()), a.length);
  ASSERT_EQ(static_cast<std::int64_t>(a.subject_aligned.size()), a.length);
  EXPECT_EQ(a.identities + a.mismatches + a.gaps, a.length);
  std::string query_letters;
  std::string subject_letters;
  std::int64_t identities = 0;
  for (std::int64_t k = 0; k < a.length; ++k) {
    const char q = a.query_aligned[static_cast<std::size_t>(k)];
    const char s = a.subject_aligned[static_cast<std::size_t>(k)];
    ASSERT_FALSE(q == '-' && s == '-');
    if (q != '-') query_letters += q;
    if (s != '-') subject_letters += s;
    identities += q == s ? 1 : 0;
  }
  EXPECT_EQ(identities, a.identities);
  const std::string query = decode_protein(pair.query);
  const std::string subject = decode_protein(pair.subject);
  EXPECT_EQ(query_letters, query.substr(static_cast<std::size_t>(a.query_start - 1),
                                        static_cast<std::size_t>(a.query_end - a.query_start + 1)));
  EXPECT_EQ(subject_letters, subject.substr(static_cast<std::size_t>(a.subject_start - 1),
                                            static_cast<std::size_t>(a.subject_end - a.subject_start + 1)));
  // A local alignment starts and ends with a residue pair.
  EXPECT_NE(a.query_aligned.front(), '-');
  EXPECT_NE(a.subject_aligned.front(), '-');
  EXPECT_NE(a.query_aligned.back(), '-');
  EXPECT_NE(a.subject_aligned.back(), '-');
}

TEST(Traceback, RescoresToTheScoreOnRandomPairs) {
  std::mt19937 random(5);
  for (const auto& [name, gaps] :
       {std::pair{"BLOSUM62", GapPenalties{11, 1}}, std::pair{"PAM30", GapPenalties{9, 1}},
        std::pair{"BLOSUM45", GapPenalties{14, 2}}, std::pair{"BLOSUM62", GapPenalties{2, 3}}}) {
    const Scoring scoring(builtin_matrix(name), gaps);
    std::int64_t gapped = 0;
    for (int k = 0; k < 1500; ++k) {
      const Pair pair = random_pair(random, 200);
      const Alignment a = local_alignment(pair.query, pair.subject, scoring);
      ASSERT_EQ(a.score, local_alignment_score(pair.query, pair.subject, scoring)) << name << " pair " << k;
      if (a.score == 0) {
        EXPECT_EQ(a.length, 0);
        EXPECT_EQ(a.query_start, 0);
        EXPECT_TRUE(a.cigar.empty());
        continue;
      }
      expect_consistent(a, pair, scoring);
      if (::testing::Test::HasFatalFailure()) return;
      gapped += a.gap_opens > 0 ? 1 : 0;
    }
    EXPECT_GT(gapped, 100) << name;  // the random relatives do exercise gaps
  }
}

Scoring blosum62() { return Scoring(builtin_matrix("BLOSUM62"), {11, 1}); }

TEST(Traceback, KnownGapInTheSubject) {
  const Pair pair{encode_protein("WWWWCCCCHHHHPGDYYYYFFFFMMMM"), encode_protein("WWWWCCCCHHHHYYYYFFFFMMMM")};
  const Alignment a = local_alignment(pair.query, pair.subject, blosum62());
  // 4*(11+9+8) + 4*(7+6+5) - (11 + 3*1)
  EXPECT_EQ(a.score, 170);
  EXPECT_EQ(a.cigar, "12M3I12M");
  EXPECT_EQ(a.query_start, 1);
  EXPECT_EQ(a.query_end, 27);
  EXPECT_EQ(a.subject_start, 1);
  EXPECT_EQ(a.subject_end, 24);
  EXPECT_EQ(a.length, 27);
  EXPECT_EQ(a.identities, 24);
  EXPECT_EQ(a.mismatches, 0);
  EXPECT_EQ(a.gap_opens, 1);
  EXPECT_EQ(a.gaps, 3);
  EXPECT_EQ(a.query_aligned, "WWWWCCCCHHHHPGDYYYYFFFFMMMM");
  EXPECT_EQ(a.subject_aligned, "WWWWCCCCHHHH---YYYYFFFFMMMM");
  EXPECT_NEAR(a.percent_identity(), 100.0 * 24 / 27, 1e-12);
}

TEST(Traceback, KnownGapInTheQuery) {
  const Pair pair{encode_protein("WWWWCCCCHHHHYYYYFFFFMMMM"), encode_protein("WWWWCCCCHHHHPGDYYYYFFFFMMMM")};
  const Alignment a = local_alignment(pair.query, pair.subject, blosum62());
  EXPECT_EQ(a.score, 170);
  EXPECT_EQ(a.cigar, "12M3D12M");
  EXPECT_EQ(a.query_end, 24);
  EXPECT_EQ(a.subject_end, 27);
  EXPECT_EQ(a.query_aligned, "WWWWCCCCHHHH---YYYYFFFFMMMM");
}

TEST(Traceback, LocalCoreWithMismatchAndFlanksLeftOut) {
  // Core MKWCHY against MKWAHY (C-A scores 0) inside flanks that only lose.
  const Pair pair{encode_protein("GGGMKWCHYGGG"), encode_protein("WWWMKWAHYWWW")};
  const Alignment a = local_alignment(pair.query, pair.subject, blosum62());
  EXPECT_EQ(a.score, 5 + 5 + 11 + 0 + 8 + 7);
  EXPECT_EQ(a.cigar, "6M");
  EXPECT_EQ(a.query_start, 4);
  EXPECT_EQ(a.query_end, 9);
  EXPECT_EQ(a.subject_start, 4);
  EXPECT_EQ(a.subject_end, 9);
  EXPECT_EQ(a.identities, 5);
  EXPECT_EQ(a.mismatches, 1);
}

TEST(Traceback, TiesEndAtTheFirstQueryPosition) {
  const Pair pair{encode_protein("WGW"), encode_protein("W")};
  const Alignment a = local_alignment(pair.query, pair.subject, blosum62());
  EXPECT_EQ(a.score, 11);
  EXPECT_EQ(a.query_start, 1);
  EXPECT_EQ(a.query_end, 1);
}

TEST(Alignment, EmptyAndHopelessPairsScoreZero) {
  const std::vector<Residue> none;
  const std::vector<Residue> w = encode_protein("W");
  EXPECT_EQ(local_alignment_score(none, none, blosum62()), 0);
  EXPECT_EQ(local_alignment_score(w, none, blosum62()), 0);
  EXPECT_EQ(local_alignment_score(none, w, blosum62()), 0);
  EXPECT_EQ(local_alignment(none, w, blosum62()).length, 0);
  EXPECT_EQ(local_alignment_score(w, encode_protein("G"), blosum62()), 0);
  EXPECT_EQ(local_alignment(w, encode_protein("G"), blosum62()).cigar, "");
  EXPECT_EQ(local_alignment_score(encode_protein("XXXX"), encode_protein("XXXX"), blosum62()), 0);  // X-X is -1
}

TEST(Alignment, LongIdenticalSequencesScoreTheirDiagonal) {
  std::mt19937 random(11);
  const std::vector<Residue> sequence = encode_protein(random_protein(random, 5000));
  const Scoring scoring = blosum62();
  // Sum of the positive diagonal entries; a stop or X on the diagonal may
  // cut the best alignment, so use the maximum-sum segment.
  std::int64_t best = 0;
  std::int64_t running = 0;
  for (const Residue r : sequence) {
    running = std::max<std::int64_t>(0, running + scoring.matrix.score(r, r));
    best = std::max(best, running);
  }
  EXPECT_EQ(local_alignment_score(sequence, sequence, scoring), best);

  std::vector<Residue> standard = encode_protein(std::string(5000, 'A'));
  const std::string common = "ACDEFGHIKLMNPQRSTVWY";
  for (Residue& r : standard) r = encode_residue(common[random() % common.size()]);
  std::int64_t diagonal = 0;
  for (const Residue r : standard) diagonal += scoring.matrix.score(r, r);
  EXPECT_EQ(local_alignment_score(standard, standard, scoring), diagonal);
  const Alignment a = local_alignment(standard, standard, scoring);
  EXPECT_EQ(a.score, diagonal);
  EXPECT_EQ(a.cigar, "5000M");
  EXPECT_EQ(a.identities, 5000);
}

TEST(Alignment, AsymmetricMatricesKeepQueryRowsWhicheverSequenceIsShorter) {
  // Row = query residue: A->R scores 6, R->A scores -6.
  ScoringMatrix::Scores scores = builtin_matrix("BLOSUM62").scores();
  scores[0 * kAlphabetSize + 1] = 6;
  scores[1 * kAlphabetSize + 0] = -6;
  const Scoring scoring(ScoringMatrix("skewed", scores, false), {11, 1});
  // Short query (query rows stored) and long query (subject rows stored).
  EXPECT_EQ(local_alignment_score(encode_protein("AAAA"), encode_protein("RRRRRRRRRRRR"), scoring), 24);
  EXPECT_EQ(local_alignment_score(encode_protein("AAAAAAAAAAAA"), encode_protein("RRRR"), scoring), 24);
  EXPECT_EQ(local_alignment_score(encode_protein("RRRR"), encode_protein("AAAAAAAAAAAA"), scoring), 0);
  EXPECT_EQ(local_alignment_score(encode_protein("RRRRRRRRRRRR"), encode_protein("AAAA"), scoring), 0);
  std::mt19937 random(3);
  for (int k = 0; k < 500; ++k) {
    const Pair pair = random_pair(random, 120);
    EXPECT_EQ(local_alignment_score(pair.query, pair.subject, scoring),
              local_alignment(pair.query, pair.subject, scoring).score);
  }
}

TEST(Alignment, ScoresOfASetMatchOneByOne) {
  std::mt19937 random(9);
  SequenceSet subjects;
  for (int k = 0; k < 50; ++k) {
    std::string id = "s";
    id += std::to_string(k);
    subjects.add(std::move(id), "", encode_protein(random_protein(random, random() % 300)));
  }
  const std::vector<Residue> query = encode_protein(random_protein(random, 250));
  const std::vector<std::int32_t> scores = local_alignment_scores(query, subjects, blosum62());
  ASSERT_EQ(scores.size(), subjects.size());
  for (std::size_t k = 0; k < subjects.size(); ++k) {
    EXPECT_EQ(scores[k], local_alignment_score(query, subjects.residues(k), blosum62()));
  }
}

TEST(Alignment, LimitsFailClearlyInsteadOfOverflowing) {
  ScoringMatrix::Scores scores{};
  scores.fill(-1);
  for (int r = 0; r < kAlphabetSize; ++r)
    scores[static_cast<std::size_t>(r) * static_cast<std::size_t>(kAlphabetSize + 1)] = 1000;
  const Scoring heavy(ScoringMatrix("heavy", scores, false), {11, 1});
  const std::vector<Residue> long_run(1'100'000, 0);
  EXPECT_THROW(local_alignment_score(long_run, long_run, heavy), UsageError);
  const std::vector<Residue> forty_thousand(40'000, 0);
  EXPECT_THROW(local_alignment(forty_thousand, forty_thousand, blosum62()), UsageError);
}

TEST(Rescore, RejectsAlignmentsThatDoNotFit) {
  const std::vector<Residue> q = encode_protein("MKV");
  Alignment a;
  a.score = 1;
  a.query_start = 1;
  a.subject_start = 1;
  a.cigar = "4M";
  EXPECT_THROW(rescore(a, q, q, blosum62()), UsageError);
  a.cigar = "2Q";
  EXPECT_THROW(rescore(a, q, q, blosum62()), UsageError);
  a.cigar = "1M1I1M";
  EXPECT_EQ(rescore(a, q, encode_protein("MV"), blosum62()), 5 - 12 + 4);
}

}  // namespace
}  // namespace trellis::align
