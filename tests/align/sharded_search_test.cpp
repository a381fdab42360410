// Sharded search: shards searched apart and merged (merge_ranked_hits) give
// search()'s hits exactly, ties included, on random databases with many
// equal scores, from memory and from a prepared file read in parts, split
// over pieces and over device threads; the merge and the residue split on
// their own; a damaged part is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/random_proteins.hpp"
#include "trellis/align/database.hpp"
#include "trellis/align/database_parts.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sharded_search.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

namespace fs = std::filesystem;
using trellis::testing::random_letters;
using trellis::testing::relative_of;
using trellis::testing::set_of;

Scoring blosum62() { return Scoring(builtin_matrix("BLOSUM62"), {11, 1}); }

// A database where many subjects tie: each of a few families holds exact
// copies (equal scores and lengths, so equal E-values) and close relatives.
SequenceSet database_with_ties(unsigned seed, std::size_t families) {
  std::mt19937 random(seed);
  std::vector<std::string> texts;
  for (std::size_t f = 0; f < families; ++f) {
    const std::string source = random_letters(random, 20 + random() % 120);
    const std::size_t copies = 1 + random() % 4;
    for (std::size_t c = 0; c < copies; ++c) texts.push_back(source);
    for (std::size_t r = 0; r < 3; ++r) texts.push_back(relative_of(random, source, {5, 10, 25, 3}));
    texts.push_back(random_letters(random, random() % 60));  // unrelated, sometimes empty
  }
  std::shuffle(texts.begin(), texts.end(), random);
  return set_of(texts);
}

SequenceSet queries_from(const SequenceSet& database, unsigned seed, std::size_t count) {
  std::mt19937 random(seed);
  std::vector<std::string> texts;
  for (std::size_t q = 0; q < count; ++q) {
    const std::size_t s = random() % database.size();
    texts.push_back(decode_protein(database.residues(s)) + "W");
  }
  return set_of(texts);
}

void expect_same_hits(const std::vector<std::vector<Hit>>& expected, const std::vector<std::vector<Hit>>& actual,
                      const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t q = 0; q < expected.size(); ++q) {
    ASSERT_EQ(expected[q].size(), actual[q].size()) << what << ", query " << q;
    for (std::size_t i = 0; i < expected[q].size(); ++i) {
      const Hit& e = expected[q][i];
      const Hit& a = actual[q][i];
      EXPECT_EQ(e.subject, a.subject) << what << ", query " << q << " hit " << i;
      EXPECT_EQ(e.score, a.score) << what << ", query " << q << " hit " << i;
      EXPECT_EQ(e.evalue, a.evalue) << what << ", query " << q << " hit " << i;
      EXPECT_EQ(e.alignment.cigar, a.alignment.cigar) << what << ", query " << q << " hit " << i;
      EXPECT_EQ(e.alignment.subject_start, a.alignment.subject_start) << what << ", query " << q << " hit " << i;
    }
  }
}

std::vector<std::vector<Hit>> hits_of(const RankedHits& ranked, const SequenceSet& queries, const SequenceSet& database,
                                      const Scoring& scoring, EvalueStatistics statistics) {
  return traced_hits(
      ranked, queries, database, [](std::uint64_t s) { return static_cast<std::size_t>(s); }, scoring, statistics);
}

struct Case {
  EvalueStatistics statistics;
  std::int32_t top;
  double max_evalue;
};

const std::vector<Case> kCases = {{EvalueStatistics::spouge, 1, 10.0},  {EvalueStatistics::spouge, 7, 10.0},
                                  {EvalueStatistics::spouge, 30, 1e-3}, {EvalueStatistics::karlin_altschul, 5, 10.0},
                                  {EvalueStatistics::none, 1, 10.0},    {EvalueStatistics::none, 9, 10.0}};

SearchOptions options_for(const Case& c) {
  SearchOptions options;
  options.backend = Backend::cpu;
  options.statistics = c.statistics;
  options.top = c.top;
  options.max_evalue = c.max_evalue;
  return options;
}

TEST(ShardedSearch, ShardsMergedGiveTheWholeSearchWithTies) {
  const Scoring scoring = blosum62();
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const SequenceSet database = database_with_ties(seed, 40);
    const SequenceSet queries = queries_from(database, seed + 100, 6);
    for (const Case& c : kCases) {
      const SearchOptions options = options_for(c);
      const auto whole = search(queries, database, scoring, options);
      for (std::size_t shards = 1; shards <= 5; ++shards) {
        const auto bounds = residue_balanced_bounds(database.offsets(), shards);
        std::vector<RankedHits> parts;
        for (std::size_t k = 0; k < shards; ++k) {
          const DatabaseShard shard = shard_of(database, bounds[k], bounds[k + 1]);
          SubjectScorer scorer(shard.sequences, scoring, Backend::cpu);
          parts.push_back(rank_shard(queries, shard.sequences, shard.database_index,
                                     {database.total_residues(), static_cast<std::int64_t>(database.size())}, scoring,
                                     scorer, options));
        }
        const RankedHits merged = merge_ranked_hits(parts, static_cast<std::size_t>(c.top), c.statistics);
        expect_same_hits(whole, hits_of(merged, queries, database, scoring, c.statistics),
                         "seed " + std::to_string(seed) + ", top " + std::to_string(c.top) + ", " +
                             std::to_string(shards) + " shards");
      }
    }
  }
}

class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_(fs::temp_directory_path() / (name + std::to_string(std::random_device{}()))) {}
  ~TempFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

TEST(ShardedSearch, PreparedFileInPiecesAndDeviceSharesGivesTheWholeSearch) {
  const Scoring scoring = blosum62();
  const SequenceSet database = database_with_ties(7, 60);
  const SequenceSet queries = queries_from(database, 8, 5);
  const TempFile file("trellis_sharded_search_test_");
  write_database(database, file.path());
  const DatabaseParts parts(file.path());
  ASSERT_EQ(parts.size(), database.size());
  const ShardSource source = parts.source();
  for (const Case& c : kCases) {
    const SearchOptions options = options_for(c);
    const auto whole = search(queries, database, scoring, options);
    for (const std::int64_t at_once : {std::int64_t{0}, std::int64_t{500}, std::int64_t{97}}) {
      for (const std::size_t devices : {std::size_t{1}, std::size_t{3}}) {
        ShardedSearchOptions sharded;
        sharded.residues_at_once = at_once;
        for (std::size_t d = 0; d < devices; ++d) sharded.devices.push_back(static_cast<int>(d));
        const RankedHits ranked = rank_database_part(queries, source, 0, parts.size(), scoring, options, sharded);
        expect_same_hits(whole, hits_of(ranked, queries, database, scoring, c.statistics),
                         "top " + std::to_string(c.top) + ", " + std::to_string(at_once) + " residues at once, " +
                             std::to_string(devices) + " devices");
      }
    }
  }
  // The reported subjects read back by index are the database's.
  const std::vector<std::size_t> wanted = {5, 0, parts.size() - 1, 5};
  const SequenceSet subjects = parts.read_indices(wanted);
  ASSERT_EQ(subjects.size(), wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    EXPECT_EQ(subjects.id(i), database.id(wanted[i]));
    EXPECT_EQ(decode_protein(subjects.residues(i)), decode_protein(database.residues(wanted[i])));
  }
}

TEST(ShardedSearch, SeveralCudaDevicesGiveTheWholeSearch) {
  const auto devices = list_devices();
  if (devices.size() < 2) GTEST_SKIP() << "needs two or more CUDA devices (" << devices.size() << " visible)";
  const Scoring scoring = blosum62();
  const SequenceSet database = database_with_ties(11, 200);
  const SequenceSet queries = queries_from(database, 12, 8);
  const ShardSource source = source_of(database);
  for (const Case& c : kCases) {
    SearchOptions options = options_for(c);
    options.backend = Backend::cuda;
    const auto whole = search(queries, database, scoring, options);
    ShardedSearchOptions sharded;
    for (const DeviceInfo& device : devices) sharded.devices.push_back(device.index);
    const RankedHits ranked = rank_database_part(queries, source, 0, database.size(), scoring, options, sharded);
    expect_same_hits(whole, hits_of(ranked, queries, database, scoring, c.statistics),
                     std::to_string(devices.size()) + " devices");
  }
}

TEST(ShardedSearch, MergeKeepsTheBestInRankOrder) {
  // Query 0: equal E-values and scores go to the later subject; query 1 has
  // no hits in one part.
  const RankedHits a = {{{4, 50, 1e-9}, {2, 40, 1e-5}}, {}};
  const RankedHits b = {{{9, 50, 1e-9}, {3, 40, 1e-5}, {1, 30, 0.5}}, {{7, 20, 2.0}}};
  const RankedHits parts[] = {a, b};
  const RankedHits merged = merge_ranked_hits(parts, 3, EvalueStatistics::spouge);
  const RankedHits expected = {{{9, 50, 1e-9}, {4, 50, 1e-9}, {3, 40, 1e-5}}, {{7, 20, 2.0}}};
  EXPECT_EQ(merged, expected);
  // E-values below 1e-180 count as equal: the higher score first.
  const RankedHits tiny[] = {{{{1, 90, 1e-200}}}, {{{2, 95, 1e-190}}}};
  EXPECT_EQ(merge_ranked_hits(tiny, 2, EvalueStatistics::spouge)[0].front().subject, 2u);
  // Without statistics: score, then the earlier subject.
  const RankedHits plain = merge_ranked_hits(parts, 2, EvalueStatistics::none);
  const RankedHits plain_expected = {{{4, 50, 1e-9}, {9, 50, 1e-9}}, {{7, 20, 2.0}}};
  EXPECT_EQ(plain, plain_expected);
  const RankedHits unequal[] = {a, RankedHits(3)};
  EXPECT_THROW(merge_ranked_hits(unequal, 3, EvalueStatistics::spouge), UsageError);
}

TEST(ShardedSearch, ResidueBalancedBounds) {
  const std::vector<std::int64_t> offsets = {0, 10, 20, 30, 40, 100};
  EXPECT_EQ(residue_balanced_bounds(offsets, 1), (std::vector<std::size_t>{0, 5}));
  EXPECT_EQ(residue_balanced_bounds(offsets, 2), (std::vector<std::size_t>{0, 5, 5}));
  EXPECT_EQ(residue_balanced_bounds(offsets, 4), (std::vector<std::size_t>{0, 3, 5, 5, 5}));
  const std::vector<std::int64_t> even = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(residue_balanced_bounds(even, 4), (std::vector<std::size_t>{0, 2, 4, 6, 8}));
  const std::vector<std::int64_t> one = {0, 7};
  EXPECT_EQ(residue_balanced_bounds(one, 3), (std::vector<std::size_t>{0, 1, 1, 1}));
  EXPECT_THROW(residue_balanced_bounds(offsets, 0), UsageError);
}

TEST(ShardedSearch, DamagedPartIsAnInputError) {
  const SequenceSet database = set_of({"ACDEFGHIK", "WWWWW", "MKV", "PPPPPPPPPPPPPPPP"});
  const TempFile file("trellis_sharded_damaged_");
  write_database(database, file.path());
  {
    // The residues section starts right after the header; stored sequence 0
    // is the shortest ("MKV"): damage its first residue.
    std::fstream out(file.path(), std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(kDatabaseHeaderBytes));
    out.put(static_cast<char>(99));
  }
  const DatabaseParts parts(file.path());
  EXPECT_THROW(parts.read_stored(0, 1), InputError);
  EXPECT_NO_THROW(parts.read_stored(1, 4));
  EXPECT_THROW(parts.read_stored(3, 5), UsageError);
  EXPECT_THROW(read_database(file.path()), InputError);  // the whole-file reader checks the CRC too
  EXPECT_THROW(DatabaseParts(file.path().string() + ".missing"), InputError);
}

}  // namespace
}  // namespace trellis::align
