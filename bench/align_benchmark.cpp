#include "align_benchmark.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <parasail.h>
#include <parasail/matrices/blosum62.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "median.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/statistics.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::bench {
namespace {

using align::Residue;
using align::SequenceSet;

constexpr const char* kDefaultExamplesDir = "/usr/share/doc/mmseqs2/example-data";
// BLAST's 11/1 in parasail's convention (its open penalty covers the first
// gap position too, see scoring.hpp).
constexpr int kGapOpen = 11;
constexpr int kGapExtend = 1;
constexpr int kParasailOpen = kGapOpen + kGapExtend;
// Rows this small are timed as often as the engine's; larger parasail rows
// run once (they take seconds, and the whole benchmark must stay bounded).
constexpr double kParasailRepeatCells = 1e10;
// Subjects of each peak database checked against another engine.
constexpr std::size_t kPeakCheckedSubjects = 1000;
constexpr std::size_t kPeakCheckedByReference = 50;
// Table cells print NaN as "-".
constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// A small, fast generator (SplitMix64): the databases run to billions of
// residues, and the same seed must give the same residues everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) for bound < 2^32 (multiply-shift; the bias of at
  // most 2^-32 does not matter for a benchmark's shuffles).
  std::uint64_t below(std::uint64_t bound) { return ((next() >> 32) * bound) >> 32; }

 private:
  std::uint64_t state_;
};

std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return SplitMix64(a * 0xD1B54A32D192ED03ULL ^ b).next(); }

std::string letters_of(std::span<const Residue> residues) { return align::decode_protein(residues); }

// The database in parasail's terms: letters, one sequence after another.
struct ParasailDatabase {
  std::string letters;
  std::vector<std::int64_t> offsets;

  explicit ParasailDatabase(const SequenceSet& database)
      : letters(letters_of(database.all_residues())), offsets(database.offsets().begin(), database.offsets().end()) {}
  std::size_t size() const { return offsets.size() - 1; }
};

struct ParasailScores {
  std::vector<std::int32_t> scores;
  std::int64_t rescored = 0;  // subjects whose 16-bit score saturated
};

// parasail's striped 16-bit SW with the query profile built once, over the
// subjects on every OpenMP thread; saturated subjects are rescored in 32 bits.
ParasailScores parasail_scores(const std::string& query, const ParasailDatabase& database) {
  ParasailScores result;
  result.scores.assign(database.size(), 0);
  const int query_length = static_cast<int>(query.size());
  parasail_profile_t* profile = parasail_profile_create_16(query.data(), query_length, &parasail_blosum62);
  if (profile == nullptr) throw Error("parasail could not build the query profile");
  const auto subjects = static_cast<std::int64_t>(database.size());
  std::int64_t rescored = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : rescored)
  for (std::int64_t s = 0; s < subjects; ++s) {
    const char* subject = database.letters.data() + database.offsets[static_cast<std::size_t>(s)];
    const int length = static_cast<int>(database.offsets[static_cast<std::size_t>(s) + 1] -
                                        database.offsets[static_cast<std::size_t>(s)]);
    if (length == 0 || query_length == 0) continue;
    parasail_result_t* scored = parasail_sw_striped_profile_16(profile, subject, length, kParasailOpen, kGapExtend);
    if (parasail_result_is_saturated(scored)) {
      parasail_result_free(scored);
      scored = parasail_sw_striped_32(query.data(), query_length, subject, length, kParasailOpen, kGapExtend,
                                      &parasail_blosum62);
      ++rescored;
    }
    result.scores[static_cast<std::size_t>(s)] = parasail_result_get_score(scored);
    parasail_result_free(scored);
  }
  parasail_profile_free(profile);
  result.rescored = rescored;
  return result;
}

// One query against a resident database: its scores alone, then the whole
// align::search (scores, ranking, E-value cutoff, tracebacks of the reported
// hits).
struct QuerySearch {
  std::vector<std::int32_t> scores;
  std::size_t hits = 0;
  double scoring_ms = 0;  // the scores alone
  double total_ms = 0;    // the whole search
};

QuerySearch search_query(align::SubjectScorer& scorer, std::span<const Residue> query, const SequenceSet& database,
                         const align::Scoring& scoring, std::int32_t top, double max_evalue) {
  QuerySearch result;
  SteadyTimer timer;
  result.scores = scorer.scores(query);
  result.scoring_ms = timer.elapsed_ms();
  SequenceSet one_query;
  one_query.add("query", "", query);
  align::SearchOptions options;
  options.top = top;
  options.max_evalue = max_evalue;
  timer.restart();
  const std::vector<std::vector<align::Hit>> hits = align::search(one_query, database, scoring, scorer, options);
  result.total_ms = timer.elapsed_ms();
  for (const align::Hit& hit : hits[0]) {
    if (hit.alignment.score != result.scores[hit.subject]) {
      throw Error(fmt::format("the traceback of subject {} scores {}, its score is {}", hit.subject,
                              hit.alignment.score, result.scores[hit.subject]));
    }
  }
  result.hits = hits[0].size();
  return result;
}

std::int64_t count_differences(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  if (a.size() != b.size()) return static_cast<std::int64_t>(std::max(a.size(), b.size()));
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i] ? 1 : 0;
  return differ;
}

std::string check_text(const std::string& against, std::int64_t differences) {
  return differences == 0 ? fmt::format("{} yes", against) : fmt::format("{} NO ({} differ)", against, differences);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : std::string(separator)) + part;
  return text;
}

double gcups(double cells, double ms) { return cells / (ms * 1e-3) * 1e-9; }

struct ParasailReference {
  double gcups = 0;
  std::string database;
  std::int64_t residues = 0;
};

struct BenchmarkState {
  const AlignBenchmarkOptions& options;
  Backend engine;
  align::Scoring scoring;
  SequenceSet queries;
  // parasail's GCUPS per query on the largest database it ran on, the
  // comparison where a row is too large for it.
  std::vector<std::optional<ParasailReference>> parasail_by_query;
  AlignBenchmarkTables tables;

  void log(const std::string& line) const {
    if (!options.quiet) fmt::print(stderr, "align bench: {}\n", line);
  }
};

void bench_database(BenchmarkState& state, const std::string& name, const SequenceSet& database, bool real) {
  const AlignBenchmarkOptions& options = state.options;
  const auto sequences = static_cast<std::int64_t>(database.size());
  const std::int64_t residues = database.total_residues();
  const double max_evalue = align::SearchOptions{}.max_evalue;
  const int repeats = std::max(1, options.repeats);
  const std::string engine_name(to_string(state.engine));

  SteadyTimer setup_timer;
  align::SubjectScorer scorer(database, state.scoring, state.engine);
  const double setup_ms = setup_timer.elapsed_ms();
  const ParasailDatabase parasail_database(database);
  state.log(fmt::format("{}: {} sequences, {} residues, {} layout {:.3f} s", name, sequences, residues, engine_name,
                        setup_ms / 1000));

  for (std::size_t q = 0; q < state.queries.size(); ++q) {
    const std::span<const Residue> query = state.queries.residues(q);
    const double cells = static_cast<double>(query.size()) * static_cast<double>(residues);

    search_query(scorer, query, database, state.scoring, options.top, max_evalue);  // warm-up
    std::vector<double> total_ms, scoring_ms;
    QuerySearch last;
    for (int r = 0; r < repeats; ++r) {
      last = search_query(scorer, query, database, state.scoring, options.top, max_evalue);
      total_ms.push_back(last.total_ms);
      scoring_ms.push_back(last.scoring_ms);
    }
    const double engine_ms = median(total_ms);
    const double engine_scoring_ms = median(scoring_ms);

    std::vector<std::string> checks;
    // The cpu engine checks the device on every subject for the first query.
    if (real && q == 0 && state.engine != Backend::cpu) {
      const std::vector<std::int32_t> cpu = align::local_alignment_scores(query, database, state.scoring, Backend::cpu);
      checks.push_back(check_text("cpu", count_differences(last.scores, cpu)));
    }

    std::optional<double> parasail_ms;
    std::int64_t rescored = 0;
    if (cells <= options.parasail_max_cells) {
      const std::string query_letters = letters_of(query);
      const int parasail_repeats = cells <= kParasailRepeatCells ? repeats : 1;
      if (parasail_repeats > 1) parasail_scores(query_letters, parasail_database);  // warm-up
      std::vector<double> times;
      ParasailScores scored;
      for (int r = 0; r < parasail_repeats; ++r) {
        SteadyTimer timer;
        scored = parasail_scores(query_letters, parasail_database);
        times.push_back(timer.elapsed_ms());
      }
      parasail_ms = median(times);
      rescored = scored.rescored;
      checks.push_back(check_text("parasail", count_differences(last.scores, scored.scores)));
      std::optional<ParasailReference>& reference = state.parasail_by_query[q];
      if (!reference || reference->residues <= residues) {
        reference = ParasailReference{gcups(cells, *parasail_ms), name, residues};
      }
    }

    const double engine_gcups = gcups(cells, engine_ms);
    std::string versus = "-";
    if (parasail_ms) {
      versus = fmt::format("{:.1f}x", engine_gcups / gcups(cells, *parasail_ms));
    } else if (const auto& reference = state.parasail_by_query[q]) {
      versus = fmt::format("{:.1f}x (parasail on {})", engine_gcups / reference->gcups, reference->database);
    }
    const std::string query_id = state.queries.id(q);
    const auto length = static_cast<std::int64_t>(query.size());
    state.tables.search.add_row({name, sequences, residues, query_id, length, engine_name, number(engine_ms / 1000, 4),
                                 number(engine_gcups, 1), number(engine_scoring_ms / 1000, 4),
                                 number(gcups(cells, engine_scoring_ms), 1), versus,
                                 checks.empty() ? std::string("not checked") : join(checks, ", ")});
    const std::string parasail_name = fmt::format("parasail ({} threads)", omp_get_max_threads());
    if (parasail_ms) {
      state.tables.search.add_row({name, sequences, residues, query_id, length, parasail_name,
                                   number(*parasail_ms / 1000, 4), number(gcups(cells, *parasail_ms), 1),
                                   number(kNotMeasured, 4), number(kNotMeasured, 1), std::string("1.0x"),
                                   fmt::format("{} rescored in 32 bits", rescored)});
    } else {
      state.tables.search.add_row({name, sequences, residues, query_id, length, parasail_name,
                                   fmt::format("skipped ({:.3g} cells)", cells), number(kNotMeasured, 1),
                                   number(kNotMeasured, 4), number(kNotMeasured, 1), std::string("-"),
                                   std::string("-")});
    }
    state.log(fmt::format("{} x {} ({}): {} {:.1f} GCUPS{}", name, query_id, length, engine_name, engine_gcups,
                          parasail_ms ? fmt::format(", parasail {:.1f} GCUPS", gcups(cells, *parasail_ms)) : ""));
  }

  // One align::search() call over every query: layout, upload and all.
  align::SearchOptions search_options;
  search_options.top = options.top;
  search_options.max_evalue = max_evalue;
  search_options.backend = state.engine;
  SteadyTimer timer;
  const auto hits = align::search(state.queries, database, state.scoring, search_options);
  const double whole_ms = timer.elapsed_ms();
  std::int64_t reported = 0;
  for (const auto& per_query : hits) reported += static_cast<std::int64_t>(per_query.size());
  const double cells = static_cast<double>(state.queries.total_residues()) * static_cast<double>(residues);
  state.tables.whole_search.add_row({name, sequences, residues, static_cast<std::int64_t>(state.queries.size()),
                                     engine_name, number(whole_ms / 1000, 3), number(gcups(cells, whole_ms), 1),
                                     reported});
}

void bench_peak(BenchmarkState& state, const std::array<double, align::kAlphabetSize>& composition) {
  const AlignBenchmarkOptions& options = state.options;
  const int repeats = std::max(1, options.repeats);
  const std::string engine_name(to_string(state.engine));
  for (const std::int64_t length : options.peak_lengths) {
    if (length < 1) throw UsageError(fmt::format("peak lengths must be at least 1 (got {})", length));
    const std::int64_t query_length = options.peak_query_length > 0 ? options.peak_query_length : length;
    const SequenceSet database =
        random_database(options.peak_count, length, composition, mix(options.seed, static_cast<std::uint64_t>(length)));
    const SequenceSet query_set = random_database(
        1, query_length, composition, mix(~std::uint64_t{options.seed}, static_cast<std::uint64_t>(length)));
    const std::span<const Residue> query = query_set.residues(0);
    align::SubjectScorer scorer(database, state.scoring, state.engine);

    // Timed: every subject scored and the best `top` selected, as a search
    // selects them (on cuda, on the device).
    const auto keep = static_cast<std::size_t>(options.top);
    (void)scorer.best(query, keep);  // warm-up
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
      SteadyTimer timer;
      const std::vector<align::ScoredSubject> best = scorer.best(query, keep);
      times.push_back(timer.elapsed_ms());
      if (best.size() > keep) throw Error("the top-k selection kept too many subjects");
    }
    const double ms = median(times);
    const std::vector<std::int32_t> scores = scorer.scores(query);

    // A sample of the subjects against another engine (all of them would
    // take the cpu minutes at a billion residues).
    const Backend checker = state.engine == Backend::cpu ? Backend::reference : Backend::cpu;
    const std::size_t sample =
        std::min(database.size(), checker == Backend::cpu ? kPeakCheckedSubjects : kPeakCheckedByReference);
    const std::vector<std::int32_t> expected = align::local_alignment_scores(
        query, first_sequences(database, static_cast<std::int64_t>(sample)), state.scoring, checker);
    const std::vector<std::int32_t> measured(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(sample));
    const std::string check =
        check_text(fmt::format("{}, first {}:", to_string(checker), sample), count_differences(measured, expected));

    const double cells = static_cast<double>(query_length) * static_cast<double>(database.total_residues());
    state.tables.peak.add_row({length, static_cast<std::int64_t>(database.size()), database.total_residues(),
                               query_length, engine_name, number(ms / 1000, 4), number(gcups(cells, ms), 1),
                               number(gcups(cells, ms) / 1000, 3), check});
    state.log(fmt::format("peak {} x {}: {} {:.1f} GCUPS", options.peak_count, length, engine_name, gcups(cells, ms)));
  }
}

}  // namespace

std::filesystem::path mmseqs2_examples_dir(const std::string& option) {
  std::filesystem::path dir = option;
  std::string how = "--data";
  if (dir.empty()) {
    const char* environment = std::getenv("TRELLIS_MMSEQS2_EXAMPLES");
    if (environment != nullptr && *environment != '\0') {
      dir = environment;
      how = "$TRELLIS_MMSEQS2_EXAMPLES";
    } else {
      dir = kDefaultExamplesDir;
      how = "the default (Debian mmseqs2-examples)";
    }
  }
  for (const char* file : {"DB.fasta.gz", "QUERY.fasta.gz"}) {
    if (!std::filesystem::is_regular_file(dir / file)) {
      throw UsageError(fmt::format(
          "the mmseqs2 example data are missing: no {} in {} (from {}); install mmseqs2-examples, or point --data "
          "or TRELLIS_MMSEQS2_EXAMPLES at a folder holding DB.fasta.gz and QUERY.fasta.gz",
          file, dir.string(), how));
    }
  }
  return dir;
}

SequenceSet first_sequences(const SequenceSet& set, std::int64_t count) {
  SequenceSet first;
  const std::size_t n = std::min(set.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, count)));
  for (std::size_t i = 0; i < n; ++i) first.add(set.id(i), set.description(i), set.residues(i));
  return first;
}

ChosenQuery choose_query(const SequenceSet& queries, const SequenceSet& database, std::int64_t target_length) {
  const auto nearest = [target_length](const SequenceSet& set) {
    std::optional<std::size_t> best;
    std::int64_t best_distance = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < set.size(); ++i) {
      const std::int64_t distance = std::abs(set.length(i) - target_length);
      if (distance < best_distance) {
        best = i;
        best_distance = distance;
      }
    }
    return std::pair{best, best_distance};
  };
  const auto [query, query_distance] = nearest(queries);
  // Within 10%: 10 * distance <= target, in integers.
  if (query && 10 * query_distance <= target_length) return ChosenQuery{true, *query};
  const auto [subject, subject_distance] = nearest(database);
  if (subject && (!query || subject_distance < query_distance)) return ChosenQuery{false, *subject};
  if (query) return ChosenQuery{true, *query};
  throw UsageError("there are no sequences to choose a query from");
}

SequenceSet shuffled_database(const SequenceSet& source, std::int64_t min_residues, std::uint32_t seed) {
  SequenceSet database;
  if (min_residues <= 0) return database;
  if (source.total_residues() == 0) throw UsageError("cannot shuffle a database without residues");
  SplitMix64 random(mix(seed, 0x5348554646ULL));
  std::vector<Residue> shuffled;
  for (std::int64_t round = 0; database.total_residues() < min_residues; ++round) {
    for (std::size_t i = 0; i < source.size() && database.total_residues() < min_residues; ++i) {
      const std::span<const Residue> residues = source.residues(i);
      shuffled.assign(residues.begin(), residues.end());
      for (std::size_t j = shuffled.size(); j > 1; --j) std::swap(shuffled[j - 1], shuffled[random.below(j)]);
      database.add(fmt::format("{}.shuffled{}", source.id(i), round), "", shuffled);
    }
  }
  return database;
}

std::array<double, align::kAlphabetSize> residue_composition(const SequenceSet& set) {
  std::array<std::int64_t, align::kAlphabetSize> counts{};
  for (const Residue r : set.all_residues()) {
    if (r < align::kAlphabetSize) ++counts[r];
  }
  std::array<double, align::kAlphabetSize> fractions{};
  const double total = static_cast<double>(std::max<std::int64_t>(1, set.total_residues()));
  for (int r = 0; r < align::kAlphabetSize; ++r)
    fractions[static_cast<std::size_t>(r)] = static_cast<double>(counts[static_cast<std::size_t>(r)]) / total;
  return fractions;
}

SequenceSet random_database(std::int64_t count, std::int64_t length,
                            const std::array<double, align::kAlphabetSize>& composition, std::uint64_t seed) {
  if (count < 0 || length < 0) throw UsageError("a random database needs a count and length of at least 0");
  double total = 0;
  for (const double fraction : composition) total += std::max(0.0, fraction);
  if (!(total > 0)) throw UsageError("the residue composition is empty");
  // A residue per 16 random bits: entry k is the residue whose share of the
  // cumulative distribution holds (k + 0.5) / 65536.
  constexpr std::size_t kTable = 1 << 16;
  std::vector<Residue> table(kTable);
  {
    std::size_t residue = 0;
    double cumulative = std::max(0.0, composition[0]) / total;
    for (std::size_t k = 0; k < kTable; ++k) {
      const double point = (static_cast<double>(k) + 0.5) / static_cast<double>(kTable);
      while (point >= cumulative && residue + 1 < composition.size()) {
        ++residue;
        cumulative += std::max(0.0, composition[residue]) / total;
      }
      table[k] = static_cast<Residue>(residue);
    }
  }
  std::vector<Residue> residues(static_cast<std::size_t>(count * length));
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < count; ++s) {
    SplitMix64 random(mix(seed, static_cast<std::uint64_t>(s)));
    Residue* sequence = residues.data() + s * length;
    for (std::int64_t j = 0; j < length; j += 4) {
      const std::uint64_t bits = random.next();
      for (std::int64_t k = 0; k < 4 && j + k < length; ++k) sequence[j + k] = table[(bits >> (16 * k)) & 0xFFFF];
    }
  }
  SequenceSet database;
  for (std::int64_t s = 0; s < count; ++s) {
    database.add(fmt::format("random{}", s), "",
                 std::span<const Residue>(residues).subspan(static_cast<std::size_t>(s * length),
                                                            static_cast<std::size_t>(length)));
  }
  return database;
}

// The same database scored resident and streamed from host memory through a
// device budget of a quarter of its layout (about 12 bytes a column pair:
// residues, and the boundary row of multi-pass queries), for every query:
// what the copies cost when they overlap the kernels.
void bench_streaming(BenchmarkState& state, const std::string& name, const SequenceSet& database) {
  const int repeats = std::max(1, state.options.repeats);
  const std::size_t budget = static_cast<std::size_t>(database.total_residues()) / 2 * 12 / 4;
  align::SubjectScorer resident(database, state.scoring, state.engine);
  align::SubjectScorer streamed(database, state.scoring, state.engine, {.device_memory_bytes = budget});
  const auto time_scores = [&](align::SubjectScorer& scorer, std::span<const Residue> query) {
    scorer.scores(query);  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      SteadyTimer timer;
      scorer.scores(query);
      ms.push_back(timer.elapsed_ms());
    }
    return median(ms);
  };
  for (std::size_t q = 0; q < state.queries.size(); ++q) {
    const std::span<const Residue> query = state.queries.residues(q);
    const double cells = static_cast<double>(query.size()) * static_cast<double>(database.total_residues());
    const double resident_ms = time_scores(resident, query);
    const double streamed_ms = time_scores(streamed, query);
    const bool matches = resident.scores(query) == streamed.scores(query);
    state.tables.streaming.add_row(
        {name, fmt::format("{:.2f} GB", static_cast<double>(budget) / 1e9), state.queries.id(q),
         static_cast<std::int64_t>(query.size()), number(resident_ms / 1000, 4), number(cells / resident_ms / 1e6, 1),
         number(streamed_ms / 1000, 4), number(cells / streamed_ms / 1e6, 1), std::string(matches ? "yes" : "NO")});
    if (!matches) throw Error(fmt::format("{}: streamed scores differ from resident ones", name));
  }
}

AlignBenchmarkTables run_align_benchmark(const AlignBenchmarkOptions& options) {
  if (options.top < 1) throw UsageError(fmt::format("--top must be at least 1 (got {})", options.top));
  if (options.peak_count < 0) throw UsageError("--peak-count must be at least 0");
  const std::filesystem::path dir = mmseqs2_examples_dir(options.data_dir);
  const Backend engine = options.backend == Backend::automatic ? (cuda_usable() ? Backend::cuda : Backend::cpu)
                                                               : resolve_with_vulkan(options.backend);
  BenchmarkState state{options, engine, align::Scoring(align::builtin_matrix("BLOSUM62"), {kGapOpen, kGapExtend}),
                       {},      {},     {}};

  const SequenceSet full_database = align::read_fasta_file(dir / "DB.fasta.gz");
  const SequenceSet query_file = align::read_fasta_file(dir / "QUERY.fasta.gz");
  for (const std::int64_t target : options.query_lengths) {
    if (target < 1) throw UsageError(fmt::format("query lengths must be at least 1 (got {})", target));
    const ChosenQuery chosen = choose_query(query_file, full_database, target);
    const SequenceSet& from = chosen.from_queries ? query_file : full_database;
    state.queries.add(from.id(chosen.index), from.description(chosen.index), from.residues(chosen.index));
    state.tables.queries.add_row({target, from.id(chosen.index), from.length(chosen.index),
                                  std::string(chosen.from_queries ? "QUERY.fasta.gz" : "DB.fasta.gz")});
  }
  state.parasail_by_query.resize(state.queries.size());

  int major = 0, minor = 0, patch = 0;
  parasail_version(&major, &minor, &patch);
  std::vector<std::string>& notes = state.tables.notes;
  notes.push_back(fmt::format(
      "Engine: {}{}. Scoring BLOSUM62, gaps 11/1 (BLAST: a gap of k costs 11 + k). Host: {} OpenMP threads.",
      to_string(engine),
      engine == Backend::cuda     ? " (SubjectScorer: the database stays in device memory between queries)"
      : engine == Backend::vulkan ? " (SubjectScorer: the database stays in Vulkan buffers between queries)"
                                  : " (no usable CUDA device or --backend cpu: the cpu engine stands in)",
      omp_get_max_threads()));
  notes.push_back(fmt::format(
      "Engine seconds: median of {} runs after a warm-up of one query's whole align::search against the resident "
      "database: every score, the top {} ranking with E-values (cutoff {}), and the tracebacks of the reported hits "
      "(scalar, on the host, the hits spread over the OpenMP threads); `scores s` is every score brought to the host "
      "(SubjectScorer::scores), where a search on cuda brings only the subjects that can rank among its best, so the "
      "whole search can take less. "
      "GCUPS = query length x database residues / time.",
      std::max(1, options.repeats), options.top, align::SearchOptions{}.max_evalue));
  notes.push_back(fmt::format(
      "parasail {}.{}.{}: sw_striped_profile_16 (profile built once per query), subjects in an OpenMP loop with "
      "dynamic scheduling, gap open 12 extend 1 (= 11/1 here), parasail_blosum62; subjects whose 16-bit score "
      "saturates are rescored with sw_striped_32. Seconds: median of {} runs after a warm-up up to {:.3g} cells, "
      "above that one run; skipped above {:.3g} cells (--parasail-max-cells), where `vs parasail` uses its GCUPS "
      "with the same query on the largest database it ran on.",
      major, minor, patch, std::max(1, options.repeats), kParasailRepeatCells, options.parasail_max_cells));
  notes.push_back(
      "matches: the engine's score for every subject against the cpu engine (first query, mmseqs2 databases) and "
      "against parasail (wherever parasail ran).");
  notes.push_back(
      "One search() call: align::search over all the queries above in one call, timed once, the database's layout "
      "and upload included; GCUPS over the sum of the query lengths.");

  for (const std::int64_t size : options.database_sizes) {
    if (size < 1) throw UsageError(fmt::format("database sizes must be at least 1 (got {})", size));
    const SequenceSet database = first_sequences(full_database, size);
    const std::string name = fmt::format("mmseqs2-{}", database.size());
    state.tables.databases.add_row({name, static_cast<std::int64_t>(database.size()), database.total_residues(),
                                    fmt::format("the first {} sequences of DB.fasta.gz", database.size())});
    bench_database(state, name, database, true);
  }

  if (options.shuffled_residues > 0) {
    SteadyTimer timer;
    const SequenceSet database = shuffled_database(full_database, options.shuffled_residues, options.seed);
    const std::string name = fmt::format("shuffled-{:.3g}M", static_cast<double>(database.total_residues()) / 1e6);
    state.tables.databases.add_row(
        {name, static_cast<std::int64_t>(database.size()), database.total_residues(),
         fmt::format("DB.fasta.gz repeated, residues shuffled within each sequence (Fisher-Yates, seed {})",
                     options.seed)});
    state.log(fmt::format("{} made in {:.1f} s", name, timer.elapsed_ms() / 1000));
    bench_database(state, name, database, false);
    if (state.engine == Backend::cuda) bench_streaming(state, name, database);
  }

  if (options.peak_count > 0 && !options.peak_lengths.empty()) {
    notes.push_back(fmt::format(
        "Peak (CUDASW++ 4.0's method): pseudo-databases of {} sequences of one length, random residues drawn with "
        "DB.fasta.gz's composition (seed {}), one random query of the same composition{}. Seconds: median of {} "
        "runs after a warm-up of the scores of every subject plus the top-{} selection as a search makes it (on cuda "
        "on the device; no tracebacks, no E-values). "
        "matches: the first subjects' scores against another engine.",
        options.peak_count, options.seed,
        options.peak_query_length > 0 ? fmt::format(" of {} residues", options.peak_query_length)
                                      : " as long as the subjects",
        std::max(1, options.repeats), options.top));
    bench_peak(state, residue_composition(full_database));
  }
  return std::move(state.tables);
}

}  // namespace trellis::bench
