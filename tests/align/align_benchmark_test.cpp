// `trellis bench align`'s data preparation, and the whole benchmark on tiny
// inputs (cpu engine beside parasail).
#include "align_benchmark.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <variant>

#include "trellis/core/error.hpp"

namespace trellis::bench {
namespace {

using align::Residue;
using align::SequenceSet;

SequenceSet sequences_of_lengths(const std::vector<std::int64_t>& lengths, std::uint32_t seed = 3) {
  std::mt19937 random(seed);
  SequenceSet set;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::vector<Residue> residues(static_cast<std::size_t>(lengths[i]));
    for (Residue& r : residues) r = static_cast<Residue>(random() % 20);
    set.add(fmt::format("s{}", i), "", residues);
  }
  return set;
}

std::filesystem::path temporary_folder(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("trellis_align_bench_" + name + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// FASTA text under a .gz name: the reader detects gzip from the content.
void write_fasta(const std::filesystem::path& path, const SequenceSet& set) {
  std::ofstream out(path);
  for (std::size_t i = 0; i < set.size(); ++i) {
    out << '>' << set.id(i) << '\n' << align::decode_protein(set.residues(i)) << '\n';
  }
}

TEST(AlignBenchmarkData, ChoosesTheNearestQueryWithinTenPercent) {
  const SequenceSet queries = sequences_of_lengths({100, 340, 360, 1500});
  const SequenceSet database = sequences_of_lengths({50, 980, 5000});
  // 350 is 10 from both 340 and 360: the first wins.
  const ChosenQuery tie = choose_query(queries, database, 350);
  EXPECT_TRUE(tie.from_queries);
  EXPECT_EQ(tie.index, 1u);
  // 1,000: the nearest query (1,500) is 50% off; the database has 980.
  const ChosenQuery far = choose_query(queries, database, 1000);
  EXPECT_FALSE(far.from_queries);
  EXPECT_EQ(far.index, 1u);
  // Exactly 10% off still counts as near.
  const ChosenQuery edge = choose_query(queries, database, 110);
  EXPECT_TRUE(edge.from_queries);
  EXPECT_EQ(edge.index, 0u);
  // No query sets at all: the database answers.
  EXPECT_FALSE(choose_query(SequenceSet{}, database, 60).from_queries);
  EXPECT_THROW(choose_query(SequenceSet{}, SequenceSet{}, 60), UsageError);
}

TEST(AlignBenchmarkData, ShuffledDatabaseKeepsLengthsAndComposition) {
  const SequenceSet source = sequences_of_lengths({30, 1, 70, 0, 45});
  const SequenceSet shuffled = shuffled_database(source, 400, 7);
  ASSERT_GE(shuffled.total_residues(), 400);
  // It stops at the first sequence that reaches the bound.
  EXPECT_LT(shuffled.total_residues() - shuffled.length(shuffled.size() - 1), 400);
  bool any_moved = false;
  for (std::size_t i = 0; i < shuffled.size(); ++i) {
    const std::size_t from = i % source.size();
    ASSERT_EQ(shuffled.length(i), source.length(from)) << i;
    EXPECT_EQ(shuffled.id(i), source.id(from) + ".shuffled" + std::to_string(i / source.size()));
    std::vector<Residue> a(shuffled.residues(i).begin(), shuffled.residues(i).end());
    std::vector<Residue> b(source.residues(from).begin(), source.residues(from).end());
    any_moved = any_moved || a != b;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << i;
  }
  EXPECT_TRUE(any_moved);

  const SequenceSet again = shuffled_database(source, 400, 7);
  EXPECT_TRUE(std::equal(again.all_residues().begin(), again.all_residues().end(), shuffled.all_residues().begin(),
                         shuffled.all_residues().end()));
  const SequenceSet other = shuffled_database(source, 400, 8);
  EXPECT_FALSE(std::equal(other.all_residues().begin(), other.all_residues().end(), shuffled.all_residues().begin(),
                          shuffled.all_residues().end()));
  EXPECT_TRUE(shuffled_database(source, 0, 7).empty());
  EXPECT_THROW(shuffled_database(sequences_of_lengths({0, 0}), 10, 7), UsageError);
}

TEST(AlignBenchmarkData, RandomDatabaseFollowsTheCompositionOnAnyThreadCount) {
  std::array<double, align::kAlphabetSize> composition{};
  composition[0] = 0.5;    // A
  composition[4] = 0.25;   // C
  composition[19] = 0.25;  // V
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const SequenceSet one_thread = random_database(2000, 37, composition, 11);
  omp_set_num_threads(std::max(2, threads));
  const SequenceSet many_threads = random_database(2000, 37, composition, 11);
  omp_set_num_threads(threads);

  ASSERT_EQ(one_thread.size(), 2000u);
  for (std::size_t i = 0; i < one_thread.size(); ++i) ASSERT_EQ(one_thread.length(i), 37);
  EXPECT_TRUE(std::equal(one_thread.all_residues().begin(), one_thread.all_residues().end(),
                         many_threads.all_residues().begin(), many_threads.all_residues().end()));
  const std::array<double, align::kAlphabetSize> measured = residue_composition(one_thread);
  for (int r = 0; r < align::kAlphabetSize; ++r) {
    EXPECT_NEAR(measured[static_cast<std::size_t>(r)], composition[static_cast<std::size_t>(r)], 0.01) << r;
  }
  EXPECT_EQ(random_database(0, 10, composition, 1).size(), 0u);
  EXPECT_THROW(random_database(3, 10, std::array<double, align::kAlphabetSize>{}, 1), UsageError);
}

TEST(AlignBenchmarkData, FirstSequencesAndMissingData) {
  const SequenceSet set = sequences_of_lengths({4, 5, 6});
  EXPECT_EQ(first_sequences(set, 2).total_residues(), 9);
  EXPECT_EQ(first_sequences(set, 10).size(), 3u);

  const auto dir = temporary_folder("missing");
  try {
    mmseqs2_examples_dir(dir.string());
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(dir.string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("DB.fasta.gz"), std::string::npos) << error.what();
  }
  write_fasta(dir / "DB.fasta.gz", set);
  write_fasta(dir / "QUERY.fasta.gz", set);
  EXPECT_EQ(mmseqs2_examples_dir(dir.string()), dir);
  std::filesystem::remove_all(dir);
}

std::string text_of(const Table::Cell& cell) {
  return std::holds_alternative<std::string>(cell) ? std::get<std::string>(cell) : std::string();
}

TEST(AlignBenchmark, TinyRunOnCpuMatchesParasail) {
  const auto dir = temporary_folder("tiny");
  write_fasta(dir / "DB.fasta.gz", sequences_of_lengths({120, 80, 300, 45, 210, 95, 60}, 5));
  write_fasta(dir / "QUERY.fasta.gz", sequences_of_lengths({50, 140}, 6));

  AlignBenchmarkOptions options;
  options.data_dir = dir.string();
  options.database_sizes = {3, 100};
  options.query_lengths = {48, 150, 290};  // 290: from the database
  options.shuffled_residues = 2000;
  options.peak_count = 30;
  options.peak_lengths = {16, 40};
  options.repeats = 1;
  options.backend = Backend::cpu;
  options.quiet = true;
  const AlignBenchmarkTables tables = run_align_benchmark(options);
  std::filesystem::remove_all(dir);

  ASSERT_EQ(tables.queries.rows().size(), 3u);
  EXPECT_EQ(text_of(tables.queries.rows()[2][3]), "DB.fasta.gz");
  EXPECT_EQ(tables.databases.rows().size(), 3u);  // mmseqs2-3, mmseqs2-7, shuffled
  // An engine row and a parasail row per database and query.
  ASSERT_EQ(tables.search.rows().size(), 3u * 3u * 2u);
  for (std::size_t row = 0; row < tables.search.rows().size(); row += 2) {
    EXPECT_EQ(text_of(tables.search.rows()[row][5]), "cpu");
    EXPECT_EQ(text_of(tables.search.rows()[row][11]), "parasail yes") << row;
  }
  EXPECT_EQ(tables.whole_search.rows().size(), 3u);
  ASSERT_EQ(tables.peak.rows().size(), 2u);
  for (const auto& row : tables.peak.rows()) EXPECT_EQ(text_of(row[8]), "reference, first 30: yes");
}

TEST(AlignBenchmark, ParasailIsSkippedAboveTheCellLimit) {
  const auto dir = temporary_folder("skip");
  write_fasta(dir / "DB.fasta.gz", sequences_of_lengths({120, 80, 300}, 5));
  write_fasta(dir / "QUERY.fasta.gz", sequences_of_lengths({50}, 6));
  AlignBenchmarkOptions options;
  options.data_dir = dir.string();
  options.database_sizes = {1, 3};
  options.query_lengths = {50};
  options.shuffled_residues = 0;
  options.peak_count = 0;
  options.repeats = 1;
  options.parasail_max_cells = 50.0 * 200;  // mmseqs2-1 (120 residues) runs, mmseqs2-3 (500) does not
  options.backend = Backend::cpu;
  options.quiet = true;
  const AlignBenchmarkTables tables = run_align_benchmark(options);
  std::filesystem::remove_all(dir);

  ASSERT_EQ(tables.search.rows().size(), 4u);
  EXPECT_EQ(text_of(tables.search.rows()[3][6]).rfind("skipped (", 0), 0u);
  EXPECT_NE(text_of(tables.search.rows()[2][10]).find("parasail on mmseqs2-1"), std::string::npos);
  EXPECT_TRUE(tables.peak.rows().empty());
}

}  // namespace
}  // namespace trellis::bench
