#include "align_benchmark.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "median.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::bench {
namespace {

using align::Residue;

// The 20 standard amino acids (codes 0..19 of sequence.hpp's alphabet).
std::vector<Residue> random_protein(std::mt19937& random, std::int64_t length) {
  std::vector<Residue> residues(static_cast<std::size_t>(length));
  for (Residue& r : residues) r = static_cast<Residue>(random() % 20);
  return residues;
}

align::SequenceSet random_database(std::mt19937& random, std::int64_t count) {
  std::lognormal_distribution<double> length_of(std::log(300.0), 0.55);
  align::SequenceSet database;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto length = std::clamp<std::int64_t>(std::llround(length_of(random)), 10, 4000);
    database.add(fmt::format("s{}", i), "", random_protein(random, length));
  }
  return database;
}

}  // namespace

Table run_align_benchmark(const AlignBenchmarkOptions& options) {
  std::mt19937 random(options.seed);
  const std::vector<Residue> query = random_protein(random, options.query_length);
  const align::SequenceSet database = random_database(random, options.subject_count);
  const align::Scoring scoring(align::builtin_matrix("BLOSUM62"), {11, 1});
  const double cells = static_cast<double>(query.size()) * static_cast<double>(database.total_residues());

  Table table({"engine", "threads", "seconds", "GCUPS", "matches reference"});
  SteadyTimer timer;
  const std::vector<std::int32_t> expected = align::local_alignment_scores(query, database, scoring, Backend::reference);
  const double reference_seconds = timer.elapsed_ms() / 1000.0;
  table.add_row({std::string("reference"), std::int64_t{1}, number(reference_seconds, 3),
                 number(cells / reference_seconds / 1e9, 2), std::string("yes")});

  const int all_threads = omp_get_max_threads();
  for (const int requested : options.thread_counts) {
    const int threads = requested > 0 ? requested : all_threads;
    omp_set_num_threads(threads);
    bool matches = align::local_alignment_scores(query, database, scoring, Backend::cpu) == expected;  // warm-up
    std::vector<double> seconds;
    for (int r = 0; r < std::max(1, options.repeats); ++r) {
      timer.restart();
      matches = align::local_alignment_scores(query, database, scoring, Backend::cpu) == expected && matches;
      seconds.push_back(timer.elapsed_ms() / 1000.0);
    }
    const double typical = median(seconds);
    table.add_row({std::string("cpu"), std::int64_t{threads}, number(typical, 4), number(cells / typical / 1e9, 2),
                   std::string(matches ? "yes" : "NO")});
    if (!options.quiet) fmt::print(stderr, "cpu, {} threads: {:.2f} GCUPS\n", threads, cells / typical / 1e9);
  }
  omp_set_num_threads(all_threads);
  return table;
}

}  // namespace trellis::bench
