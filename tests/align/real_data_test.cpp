// The mmseqs2 example data (Debian package mmseqs2-examples, installed by
// scripts/setup): UniProt queries against the 20,000-protein database. The
// cpu engine's scores equal the reference's for every pair tried, and the
// reported hits' tracebacks rescore to their scores. Skipped where the
// package is missing (TRELLIS_MMSEQS2_EXAMPLES overrides the folder).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "trellis/align/alignment.hpp"
#include "trellis/align/search.hpp"

namespace trellis::align {
namespace {

std::filesystem::path example_folder() {
  const char* dir = std::getenv("TRELLIS_MMSEQS2_EXAMPLES");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::path("/usr/share/doc/mmseqs2/example-data");
}

// The first `count` sequences of a set.
SequenceSet first(const SequenceSet& all, std::size_t count) {
  SequenceSet some;
  for (std::size_t i = 0; i < count && i < all.size(); ++i) some.add(all.id(i), all.description(i), all.residues(i));
  return some;
}

class MmseqsExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path folder = example_folder();
    if (!std::filesystem::exists(folder / "DB.fasta.gz") || !std::filesystem::exists(folder / "QUERY.fasta.gz")) {
      GTEST_SKIP() << "no mmseqs2 example data in " << folder << " (Debian package mmseqs2-examples)";
    }
    database_ = read_fasta_file(folder / "DB.fasta.gz");
    queries_ = read_fasta_file(folder / "QUERY.fasta.gz");
  }
  SequenceSet database_;
  SequenceSet queries_;
};

TEST_F(MmseqsExamples, FilesReadCompletely) {
  EXPECT_EQ(database_.size(), 20000u);
  EXPECT_EQ(queries_.size(), 500u);
}

TEST_F(MmseqsExamples, CpuScoresEqualReferenceScores) {
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet subjects = first(database_, 1500);
  for (std::size_t q = 0; q < 6; ++q) {
    const auto query = queries_.residues(q * 83);  // spread over the query file
    const auto expected = local_alignment_scores(query, subjects, scoring, Backend::reference);
    const auto got = local_alignment_scores(query, subjects, scoring, Backend::cpu);
    ASSERT_EQ(got, expected) << "query " << queries_.id(q * 83);
  }
}

TEST_F(MmseqsExamples, HitsRescoreToTheirScores) {
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  const SequenceSet some_queries = first(queries_, 4);
  SearchOptions options;
  options.top = 5;
  options.backend = Backend::cpu;
  const auto hits = search(some_queries, database_, scoring, options);
  ASSERT_EQ(hits.size(), 4u);
  for (std::size_t q = 0; q < hits.size(); ++q) {
    ASSERT_FALSE(hits[q].empty()) << "every example query finds at least itself or a relative";
    for (const Hit& hit : hits[q]) {
      EXPECT_EQ(rescore(hit.alignment, some_queries.residues(q), database_.residues(hit.subject), scoring), hit.score);
      ASSERT_TRUE(hit.evalue.has_value());
      EXPECT_LE(*hit.evalue, options.max_evalue);
    }
    for (std::size_t i = 1; i < hits[q].size(); ++i) EXPECT_GE(hits[q][i - 1].score, hits[q][i].score);
  }
}

}  // namespace
}  // namespace trellis::align
