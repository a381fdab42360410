// NCBI BLAST+ as the judge: blastp (Debian ncbi-blast+, installed by
// scripts/setup) searches the same queries against the same database as
// trellis, `-max_target_seqs 5 -comp_based_stats 0 -seg no -use_sw_tback`,
// and for every hit it reports trellis must report the same bit score, the
// same alignment (or an equal-scoring one ending in the same cell) and the same
// E-value as blastp prints it. Hits blastp's heuristics miss are expected
// (trellis is exact); a hit blastp finds that trellis does not is a failure.
// Skipped where blastp is not installed; the mmseqs2 cases also where the
// example data are missing (TRELLIS_MMSEQS2_EXAMPLES overrides the folder).
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "trellis/align/hit_output.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/statistics.hpp"

namespace trellis::align {
namespace {

namespace fs = std::filesystem;

bool have_blast() {
  return std::system("command -v blastp >/dev/null 2>&1 && command -v makeblastdb >/dev/null 2>&1") == 0;
}

// A folder of its own under the system's temporary folder, removed after.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name)
      : path_(fs::temp_directory_path() / fmt::format("trellis-blast-{}-{}", name, ::getpid())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_fasta(const fs::path& path, const SequenceSet& set) {
  std::ofstream out(path);
  for (std::size_t i = 0; i < set.size(); ++i) {
    out << '>' << set.id(i);
    if (!set.description(i).empty()) out << ' ' << set.description(i);
    out << '\n' << decode_protein(set.residues(i)) << '\n';
  }
}

struct BlastHit {
  std::string query;
  std::string subject;
  std::string evalue;
  std::string bitscore;
  std::int32_t score = 0;
  std::int64_t qstart = 0, qend = 0, sstart = 0, send = 0;
  std::string qseq, sseq;
};

constexpr const char* kBlastColumns = "6 qseqid sseqid evalue bitscore score qstart qend sstart send qseq sseq";

// blastp's hits, the first (best) alignment of each subject only: trellis
// reports one per subject.
std::vector<BlastHit> run_blastp(const fs::path& folder, const SequenceSet& queries, const SequenceSet& database,
                                 const std::string& options, const std::string& environment = "") {
  write_fasta(folder / "db.fasta", database);
  write_fasta(folder / "queries.fasta", queries);
  const std::string makedb =
      fmt::format("cd '{}' && makeblastdb -in db.fasta -dbtype prot -out db >makedb.log 2>&1", folder.string());
  if (std::system(makedb.c_str()) != 0) throw std::runtime_error("makeblastdb failed: " + makedb);
  const std::string blast = fmt::format(
      "cd '{}' && {} blastp -query queries.fasta -db db -outfmt '{}' -max_target_seqs 5 "
      "-comp_based_stats 0 -seg no -use_sw_tback {} >hits.tsv 2>blastp.log",
      folder.string(), environment, kBlastColumns, options);
  if (std::system(blast.c_str()) != 0) throw std::runtime_error("blastp failed: " + blast);

  std::vector<BlastHit> hits;
  std::ifstream in(folder / "hits.tsv");
  std::string previous_pair;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    BlastHit hit;
    fields >> hit.query >> hit.subject >> hit.evalue >> hit.bitscore >> hit.score >> hit.qstart >> hit.qend >>
        hit.sstart >> hit.send >> hit.qseq >> hit.sseq;
    if (!fields) throw std::runtime_error("unreadable blastp line: " + line);
    const std::string pair = hit.query + '\t' + hit.subject;
    if (pair == previous_pair) continue;  // a further alignment of the same subject
    previous_pair = pair;
    hits.push_back(std::move(hit));
  }
  return hits;
}

// The score of an alignment given as its two rows.
std::int64_t score_of_rows(const std::string& query_row, const std::string& subject_row, const Scoring& scoring) {
  std::int64_t score = 0;
  char gap_in = 0;  // 'q' or 's' while inside a gap of that row
  for (std::size_t i = 0; i < query_row.size(); ++i) {
    const char q = query_row[i];
    const char s = subject_row[i];
    if (q == '-' || s == '-') {
      const char here = q == '-' ? 'q' : 's';
      score -= scoring.gaps.extend + (gap_in == here ? 0 : scoring.gaps.open);
      gap_in = here;
    } else {
      score += scoring.matrix.score(encode_residue(q), encode_residue(s));
      gap_in = 0;
    }
  }
  return score;
}

double parse_number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

// Whether trellis's E-value is the one blastp printed: the same text, or
// within 1% of it where blastp prints two significant digits in e notation
// (a value at a rounding edge may print one digit apart), or within half a
// unit of its last printed digit (plus 1%) for the fixed-point forms.
bool same_evalue(double ours, const std::string& printed) {
  if (format_evalue(ours) == printed) return true;
  if (printed == "0.0") return false;
  const double theirs = parse_number(printed);
  if (printed.find('e') != std::string::npos) return std::abs(ours / theirs - 1.0) <= 0.01;
  const std::size_t point = printed.find('.');
  const int decimals = point == std::string::npos ? 0 : static_cast<int>(printed.size() - point - 1);
  return std::abs(ours - theirs) <= 0.5 * std::pow(10.0, -decimals) * 1.01 + 0.01 * theirs;
}

struct Comparison {
  int compared = 0;
  int same_columns = 0;
  int equal_scoring_alternatives = 0;  // same ends, other columns
  int equal_scoring_other_start = 0;   // same end, another start
  int same_evalue_text = 0;
  double worst_evalue_ratio = 1.0;  // furthest from 1 of ours / theirs where blastp prints e notation
  int missing_in_top = 0;           // blastp hits past trellis's best 5 (where blastp missed better ones)
};

// Compares blastp's hits with a trellis search of the same queries (its
// best `kWide`, of which the best 5 are what --top 5 reports).
constexpr std::int32_t kTop = 5;
constexpr std::int32_t kWide = 25;

Comparison compare(const std::vector<BlastHit>& blast_hits, const SequenceSet& queries, const SequenceSet& database,
                   const Scoring& scoring, const std::vector<std::vector<Hit>>& ours) {
  std::map<std::string, std::size_t> query_index;
  for (std::size_t q = 0; q < queries.size(); ++q) query_index[queries.id(q)] = q;
  Comparison result;
  for (const BlastHit& theirs : blast_hits) {
    SCOPED_TRACE(theirs.query + " vs " + theirs.subject);
    const std::size_t q = query_index.at(theirs.query);
    const std::vector<Hit>& list = ours.at(q);
    std::size_t rank = 0;
    while (rank < list.size() && database.id(list[rank].subject) != theirs.subject) ++rank;
    if (rank == list.size()) {
      ADD_FAILURE() << "blastp finds this hit (score " << theirs.score << ", E " << theirs.evalue
                    << "); trellis does not report it among its best " << kWide;
      continue;
    }
    const Hit& hit = list[rank];
    ++result.compared;
    EXPECT_EQ(hit.score, theirs.score);
    EXPECT_EQ(format_bit_score(hit.bit_score), theirs.bitscore);
    if (!hit.evalue) {
      ADD_FAILURE() << "trellis has no E-value for this hit";
      continue;
    }
    EXPECT_TRUE(same_evalue(*hit.evalue, theirs.evalue))
        << "trellis " << *hit.evalue << " (" << format_evalue(hit.evalue) << "), blastp " << theirs.evalue;
    if (format_evalue(hit.evalue) == theirs.evalue) ++result.same_evalue_text;
    if (theirs.evalue.find('e') != std::string::npos) {
      const double ratio = *hit.evalue / parse_number(theirs.evalue);
      if (std::abs(std::log(ratio)) > std::abs(std::log(result.worst_evalue_ratio))) result.worst_evalue_ratio = ratio;
    }

    const Alignment& a = hit.alignment;
    const bool same_ends = a.query_end == theirs.qend && a.subject_end == theirs.send;
    const bool same_starts = a.query_start == theirs.qstart && a.subject_start == theirs.sstart;
    if (same_ends && same_starts && a.query_aligned == theirs.qseq && a.subject_aligned == theirs.sseq) {
      ++result.same_columns;
    } else {
      // Another alignment of the same score ending in the same cell: other
      // columns between the same ends, or (trellis starts at the first cell
      // after a zero, see alignment.hpp) a start further back over a stretch
      // that adds nothing.
      EXPECT_TRUE(same_ends) << "trellis ends at " << a.query_end << " / " << a.subject_end << ", blastp at "
                             << theirs.qend << " / " << theirs.send;
      EXPECT_EQ(score_of_rows(theirs.qseq, theirs.sseq, scoring), hit.score);
      EXPECT_EQ(score_of_rows(a.query_aligned, a.subject_aligned, scoring), hit.score);
      ++(same_starts ? result.equal_scoring_alternatives : result.equal_scoring_other_start);
    }

    // Past trellis's best 5 it ranks behind five subjects (ranked by the
    // same E-values), of which blastp's heuristics missed at least one.
    if (rank >= static_cast<std::size_t>(kTop)) {
      ++result.missing_in_top;
      if (std::getenv("TRELLIS_BLAST_VERBOSE") != nullptr) {
        std::printf("past 5: %s %s rank %zu score %d E %s; trellis 5th %s score %d E %s\n", theirs.query.c_str(),
                    theirs.subject.c_str(), rank, theirs.score, theirs.evalue.c_str(),
                    database.id(list[kTop - 1].subject).c_str(), list[kTop - 1].score,
                    format_evalue(list[kTop - 1].evalue).c_str());
      }
    }
  }
  return result;
}

void print(const std::string& what, const Comparison& c) {
  std::printf(
      "%s: %d hits compared, %d with the same columns, %d equal-scoring alternatives (%d of them starting "
      "elsewhere), %d E-values printed alike, worst E-value ratio %.5f, %d blastp hits past trellis's best 5\n",
      what.c_str(), c.compared, c.same_columns, c.equal_scoring_alternatives + c.equal_scoring_other_start,
      c.equal_scoring_other_start, c.same_evalue_text, c.worst_evalue_ratio, c.missing_in_top);
}

std::vector<std::vector<Hit>> trellis_search(const SequenceSet& queries, const SequenceSet& database,
                                             const Scoring& scoring, EvalueStatistics statistics) {
  SearchOptions options;
  options.top = kWide;
  options.statistics = statistics;
  options.backend = Backend::cpu;
  return search(queries, database, scoring, options);
}

fs::path example_folder() {
  const char* dir = std::getenv("TRELLIS_MMSEQS2_EXAMPLES");
  return dir != nullptr ? fs::path(dir) : fs::path("/usr/share/doc/mmseqs2/example-data");
}

class BlastComparison : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_blast())
      GTEST_SKIP() << "blastp is not installed (Debian package ncbi-blast+; scripts/setup installs it)";
  }
};

// Every 12th query of the 500: 42 queries of all lengths. Under
// AddressSanitizer (the CI's second build) the search runs many times
// slower, so there every 60th: 9 queries.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kQueryStep = 60;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr std::size_t kQueryStep = 60;
#else
constexpr std::size_t kQueryStep = 12;
#endif
#else
constexpr std::size_t kQueryStep = 12;
#endif

SequenceSet spread_queries(const SequenceSet& all, std::size_t step) {
  SequenceSet some;
  for (std::size_t i = 0; i < all.size(); i += step) some.add(all.id(i), all.description(i), all.residues(i));
  return some;
}

TEST_F(BlastComparison, MmseqsExamplesAsBlastpReportsThem) {
  const fs::path folder = example_folder();
  if (!fs::exists(folder / "DB.fasta.gz") || !fs::exists(folder / "QUERY.fasta.gz")) {
    GTEST_SKIP() << "no mmseqs2 example data in " << folder << " (Debian package mmseqs2-examples)";
  }
  const SequenceSet database = read_fasta_file(folder / "DB.fasta.gz");
  const SequenceSet queries = spread_queries(read_fasta_file(folder / "QUERY.fasta.gz"), kQueryStep);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  ScratchFolder scratch("mmseqs");
  const auto blast_hits = run_blastp(scratch.path(), queries, database, "");
  ASSERT_GT(blast_hits.size(), queries.size()) << "blastp should find more than a hit a query";
  const Comparison c = compare(blast_hits, queries, database, scoring,
                               trellis_search(queries, database, scoring, EvalueStatistics::spouge));
  print("mmseqs2 examples, BLOSUM62 11/1", c);
  EXPECT_EQ(c.compared, static_cast<int>(blast_hits.size()));
}

// Random sequences with related ones planted among them, for matrices and
// gap pairs other than BLOSUM62's default.
struct RandomCase {
  SequenceSet queries;
  SequenceSet database;
};

RandomCase random_case(std::uint32_t seed) {
  std::mt19937 random(seed);
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  // Robinson-Robinson-like frequencies: hydrophobic and small residues common, W and C rare.
  const std::vector<double> weights = {7.8, 1.9, 5.4, 6.3, 3.9, 7.4, 2.2, 5.1, 5.7, 9.0,
                                       2.2, 4.5, 5.2, 4.3, 5.1, 7.1, 5.8, 6.4, 1.3, 3.2};
  std::discrete_distribution<int> residue(weights.begin(), weights.end());
  const auto random_sequence = [&](int length) {
    std::string s;
    for (int i = 0; i < length; ++i) s += letters[static_cast<std::size_t>(residue(random))];
    return s;
  };
  // A relative: each residue kept with probability `keep`, otherwise
  // substituted, and now and then a short insertion or deletion.
  const auto relative = [&](const std::string& parent, double keep) {
    std::string child;
    std::uniform_real_distribution<double> u(0, 1);
    for (const char c : parent) {
      const double roll = u(random);
      if (roll < 0.02) continue;  // deletion
      if (roll < 0.04) child += random_sequence(1 + static_cast<int>(u(random) * 4));
      child += u(random) < keep ? c : letters[static_cast<std::size_t>(residue(random))];
    }
    return child;
  };
  std::uniform_int_distribution<int> length(30, 700);
  RandomCase result;
  std::vector<std::string> parents;
  for (int q = 0; q < 12; ++q) {
    parents.push_back(random_sequence(length(random)));
    result.queries.add(fmt::format("query{}", q), "", encode_protein(parents.back()));
  }
  for (int s = 0; s < 600; ++s) {
    std::string subject;
    if (s % 10 == 0) {
      // A relative of a query, some close, some distant, some inside random flanks.
      const std::string& parent = parents[static_cast<std::size_t>(s / 10) % parents.size()];
      const double keep = 0.25 + 0.1 * static_cast<double>((s / 10) % 7);
      subject = random_sequence(length(random) / 10) + relative(parent, keep) + random_sequence(length(random) / 10);
    } else {
      subject = random_sequence(length(random));
    }
    result.database.add(fmt::format("subject{}", s), fmt::format("random {}", s), encode_protein(subject));
  }
  return result;
}

struct MatrixCase {
  const char* matrix;
  GapPenalties gaps;
};

class BlastComparisonRandom : public BlastComparison, public ::testing::WithParamInterface<MatrixCase> {};

TEST_P(BlastComparisonRandom, RandomSequencesAsBlastpReportsThem) {
  const MatrixCase& param = GetParam();
  const RandomCase data = random_case(20261203u + static_cast<std::uint32_t>(param.gaps.open));
  const Scoring scoring(builtin_matrix(param.matrix), param.gaps);
  ScratchFolder scratch(fmt::format("{}-{}-{}", param.matrix, param.gaps.open, param.gaps.extend));
  const auto blast_hits = run_blastp(
      scratch.path(), data.queries, data.database,
      fmt::format("-matrix {} -gapopen {} -gapextend {} -evalue 10", param.matrix, param.gaps.open, param.gaps.extend));
  ASSERT_GT(blast_hits.size(), 12u);
  const Comparison c = compare(blast_hits, data.queries, data.database, scoring,
                               trellis_search(data.queries, data.database, scoring, EvalueStatistics::spouge));
  print(fmt::format("random, {} {}/{}", param.matrix, param.gaps.open, param.gaps.extend), c);
  EXPECT_EQ(c.compared, static_cast<int>(blast_hits.size()));
}

INSTANTIATE_TEST_SUITE_P(Matrices, BlastComparisonRandom,
                         ::testing::Values(MatrixCase{"BLOSUM62", {11, 1}}, MatrixCase{"BLOSUM45", {14, 2}},
                                           MatrixCase{"BLOSUM50", {13, 2}}, MatrixCase{"BLOSUM80", {10, 1}},
                                           MatrixCase{"PAM30", {9, 1}}, MatrixCase{"PAM70", {10, 1}},
                                           MatrixCase{"PAM250", {14, 2}}, MatrixCase{"BLOSUM62", {9, 2}}),
                         [](const ::testing::TestParamInfo<MatrixCase>& param_info) {
                           return fmt::format("{}_{}_{}", param_info.param.matrix, param_info.param.gaps.open,
                                              param_info.param.gaps.extend);
                         });

// The plain Karlin-Altschul E-value over BLAST's length-adjusted search
// space is what blastp prints with OLD_FSC set.
TEST_F(BlastComparison, KarlinAltschulAsBlastpWithOldFsc) {
  const RandomCase data = random_case(7);
  const Scoring scoring(builtin_matrix("BLOSUM62"), {11, 1});
  ScratchFolder scratch("old-fsc");
  const auto blast_hits = run_blastp(scratch.path(), data.queries, data.database, "", "OLD_FSC=1");
  ASSERT_GT(blast_hits.size(), 12u);
  const Comparison c = compare(blast_hits, data.queries, data.database, scoring,
                               trellis_search(data.queries, data.database, scoring, EvalueStatistics::karlin_altschul));
  print("random, BLOSUM62 11/1, OLD_FSC", c);
  EXPECT_EQ(c.compared, static_cast<int>(blast_hits.size()));
}

}  // namespace
}  // namespace trellis::align
