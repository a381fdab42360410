// `trellis bench align`: Smith-Waterman protein database search in GCUPS
// (query length x database residues / time) beside parasail on all host
// cores, on
//   - the first 750 / 5,000 / 20,000 sequences of the mmseqs2 example
//     database (DB.fasta.gz, UniProt proteins);
//   - a database of real sequences with their residues shuffled (lengths and
//     composition kept), repeated until it holds shuffled_residues;
// with queries from QUERY.fasta.gz nearest to the target lengths; and a peak
// table on a pseudo-database of one million sequences of one length with
// random residues of the real composition (CUDASW++ 4.0's method).
//
// Engine rows time a search one query at a time against a resident
// database: scores, the top-k ranking with E-values, and the tracebacks of
// the reported hits (what align::search does per query, without rebuilding
// the device layout for each query). A second table times one whole
// align::search() call per database, layout and upload included.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trellis/align/sequence.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/table.hpp"

namespace trellis::bench {

struct AlignBenchmarkOptions {
  // Folder holding DB.fasta.gz and QUERY.fasta.gz; empty: $TRELLIS_MMSEQS2_EXAMPLES,
  // else /usr/share/doc/mmseqs2/example-data.
  std::string data_dir;
  std::vector<std::int64_t> database_sizes{750, 5000, 20000};  // first N sequences of DB.fasta.gz
  std::vector<std::int64_t> query_lengths{144, 350, 464, 1000, 2005, 5478};
  std::int64_t shuffled_residues = 200'000'000;  // 0: no shuffled database
  std::int64_t peak_count = 1'000'000;           // 0: no peak table
  std::vector<std::int64_t> peak_lengths{128, 256, 512, 1024, 2048};
  std::int64_t peak_query_length = 0;  // 0: as long as the subjects
  std::uint32_t seed = 1;
  int repeats = 3;                       // timed engine runs after one warm-up
  double parasail_max_cells = 2e12;      // larger rows skip parasail (every default row runs it)
  std::int32_t top = 10;                 // hits ranked and traced back per query
  Backend backend = Backend::automatic;  // the engine: cuda where usable, else cpu
  bool quiet = false;
};

struct AlignBenchmarkTables {
  Table queries{{"target length", "query", "length", "taken from"}};
  Table databases{{"database", "sequences", "residues", "made from"}};
  Table search{{"database", "sequences", "residues", "query", "length", "engine", "seconds", "GCUPS", "scores s",
                "GCUPS scores only", "vs parasail", "matches"}};
  Table whole_search{{"database", "sequences", "residues", "queries", "engine", "seconds", "GCUPS", "hits"}};
  Table streaming{{"database", "device budget", "query", "length", "resident s", "resident GCUPS", "streamed s",
                   "streamed GCUPS", "same scores"}};
  Table peak{
      {"subject length", "sequences", "residues", "query length", "engine", "seconds", "GCUPS", "TCUPS", "matches"}};
  std::vector<std::string> notes;
};

// Throws UsageError naming the folder when the data are missing.
AlignBenchmarkTables run_align_benchmark(const AlignBenchmarkOptions& options);

// --- data preparation (exposed for tests) ---

// The folder with DB.fasta.gz and QUERY.fasta.gz: `option` when not empty,
// else $TRELLIS_MMSEQS2_EXAMPLES when set, else the Debian path. Throws
// UsageError naming the path when either file is missing.
std::filesystem::path mmseqs2_examples_dir(const std::string& option);

// The first `count` sequences (all of them when the set is smaller).
align::SequenceSet first_sequences(const align::SequenceSet& set, std::int64_t count);

struct ChosenQuery {
  bool from_queries = true;  // else from the database
  std::size_t index = 0;     // into the set it came from
};

// The sequence of `queries` whose length is nearest to target_length (the
// first of equals); when none lies within 10% of it, the nearest of
// `database` instead.
ChosenQuery choose_query(const align::SequenceSet& queries, const align::SequenceSet& database,
                         std::int64_t target_length);

// Copies of `source`'s sequences in order, each with its residues shuffled
// (Fisher-Yates, seeded), cycling through `source` until at least
// min_residues are held. Copy r of sequence "id" is named "id.shuffledR".
align::SequenceSet shuffled_database(const align::SequenceSet& source, std::int64_t min_residues, std::uint32_t seed);

// Fraction of each residue code among all residues of the set.
std::array<double, align::kAlphabetSize> residue_composition(const align::SequenceSet& set);

// `count` sequences of `length` random residues drawn with `composition`
// (16-bit resolution), the same for a seed on any number of threads.
align::SequenceSet random_database(std::int64_t count, std::int64_t length,
                                   const std::array<double, align::kAlphabetSize>& composition, std::uint64_t seed);

}  // namespace trellis::bench
