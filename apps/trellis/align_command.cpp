// `trellis align search -q QUERY.fasta -d DB.fasta ...`: exact
// Smith-Waterman protein database search with BLAST-style output;
// `trellis align makedb INPUT.fasta -o DB`: a prepared database for it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "trellis/align/alignment.hpp"
#include "trellis/align/database.hpp"
#include "trellis/align/distributed_search.hpp"
#include "trellis/align/hit_output.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/align/sharded_search.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/process_group.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/core/version.hpp"

namespace trellis::cli {
namespace {

struct SearchCommand {
  std::string query_path;
  std::string database_path;
  std::string matrix = "BLOSUM62";
  std::int32_t gap_open = 0;
  std::int32_t gap_extend = 0;
  CLI::Option* gap_open_option = nullptr;
  CLI::Option* gap_extend_option = nullptr;
  std::int32_t top = align::SearchOptions{}.top;
  double max_evalue = align::SearchOptions{}.max_evalue;
  std::string columns = "std";
  CLI::Option* columns_option = nullptr;
  std::string format = "tsv";
  CLI::Option* format_option = nullptr;
  std::string outfmt;
  CLI::Option* outfmt_option = nullptr;
  std::string statistics = "spouge";
  std::int64_t database_size = 0;
  CLI::Option* database_size_option = nullptr;
  std::string output;
  std::size_t device_memory = align::ScorerOptions{}.device_memory_bytes;
  std::string devices;
  std::size_t host_memory = 0;
};

// --devices: "all" or device indices separated by commas.
std::vector<int> devices_from(const std::string& text) {
  std::vector<int> devices;
  if (text.empty()) return devices;
  if (text == "all") {
    for (const DeviceInfo& device : list_devices()) devices.push_back(device.index);
    if (devices.empty()) throw UsageError("--devices all: no CUDA device is visible");
    return devices;
  }
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    std::size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || index < 0) {
      throw UsageError(fmt::format("--devices takes 'all' or device indices separated by commas, not '{}'", text));
    }
    devices.push_back(index);
  }
  return devices;
}

bool is_builtin_name(std::string_view name) {
  const auto same = [&](std::string_view builtin) {
    const auto same_letter = [](char a, char b) {
      return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
    };
    return builtin.size() == name.size() && std::equal(builtin.begin(), builtin.end(), name.begin(), same_letter);
  };
  const auto names = align::builtin_matrix_names();
  return std::any_of(names.begin(), names.end(), same);
}

// A built-in name, else a matrix file; gap penalties default to BLAST's for
// a built-in matrix and to 11/1 for a file.
align::Scoring scoring_from(const SearchCommand& command) {
  align::ScoringMatrix matrix = [&] {
    if (is_builtin_name(command.matrix)) return align::builtin_matrix(command.matrix);
    if (!std::filesystem::exists(command.matrix)) {
      throw UsageError(fmt::format("--matrix '{}' is neither a built-in matrix ({}) nor a file", command.matrix,
                                   fmt::join(align::builtin_matrix_names(), ", ")));
    }
    return align::read_matrix_file(command.matrix);
  }();
  align::GapPenalties gaps = matrix.is_builtin() ? align::default_gap_penalties(matrix.name()) : align::GapPenalties{};
  if (command.gap_open_option->count() > 0) gaps.open = command.gap_open;
  if (command.gap_extend_option->count() > 0) gaps.extend = command.gap_extend;
  return align::Scoring(std::move(matrix), gaps);
}

void write_hits(std::ostream& out, const SearchCommand& command, const align::TabularFormat& tabular,
                const std::vector<std::vector<align::Hit>>& hits, const align::SequenceSet& queries,
                const align::SequenceSet& database, const align::Scoring& scoring) {
  if (tabular.comments) {
    align::write_tabular_commented(out, hits, queries, database, tabular.columns,
                                   fmt::format("trellis {} align search", kVersion), command.database_path);
  } else if (command.format == "pairwise") {
    align::write_pairwise(out, hits, queries, database, scoring);
  } else if (command.format == "json") {
    align::write_json(out, hits, queries, database);
  } else {
    align::write_tabular(out, hits, queries, database, tabular.columns);
  }
}

void write_output(const SearchCommand& command, const align::TabularFormat& tabular,
                  const std::vector<std::vector<align::Hit>>& hits, const align::SequenceSet& queries,
                  const align::SequenceSet& database, const align::Scoring& scoring) {
  if (command.output.empty()) {
    std::ostringstream text;
    write_hits(text, command, tabular, hits, queries, database, scoring);
    std::fputs(text.str().c_str(), stdout);
  } else {
    AtomicOutputFile out(command.output);
    write_hits(out.stream(), command, tabular, hits, queries, database, scoring);
    out.commit();
  }
}

void report(const std::vector<std::vector<align::Hit>>& hits, const align::SequenceSet& queries,
            const align::DatabaseTotals& database, const align::Scoring& scoring, const std::string& how,
            double search_ms) {
  std::size_t reported = 0;
  std::int64_t query_residues = 0;
  for (const auto& query_hits : hits) reported += query_hits.size();
  for (std::size_t q = 0; q < queries.size(); ++q) query_residues += queries.length(q);
  const double cells = static_cast<double>(query_residues) * static_cast<double>(database.residues);
  std::fprintf(
      stderr, "%s\n",
      fmt::format("{} queries against {} sequences ({} residues; {}), {} {}/{}: {} hits in {:.3f} s "
                  "({:.2f} GCUPS)",
                  queries.size(), database.sequences, database.residues, how, scoring.matrix.name(), scoring.gaps.open,
                  scoring.gaps.extend, reported, search_ms / 1000, search_ms > 0 ? cells / (search_ms * 1e6) : 0.0)
          .c_str());
}

// The search spread over the processes of an MPI job, the devices of
// --devices and pieces of --host-memory (align/distributed_search.hpp); rank
// 0 writes the output, and reports a failure of any rank for all of them.
void run_sharded_search(const SearchCommand& command, const GlobalOptions& globals, const align::TabularFormat& tabular,
                        const align::Scoring& scoring, const align::SearchOptions& options,
                        const align::ShardedSearchOptions& sharded, ProcessGroup& group) {
  SteadyTimer timer;
  align::DistributedSearchResult result;
  try {
    result = align::search_distributed(group, command.query_path, command.database_path, scoring, options, sharded);
  } catch (const std::exception& error) {
    if (group.rank() != 0) throw ExitWithoutMessage{static_cast<int>(exit_code_for(error))};
    throw;
  }
  const double search_ms = timer.elapsed_ms();
  if (group.rank() != 0) return;
  write_output(command, tabular, result.hits, result.queries, result.subjects, scoring);
  if (!globals.quiet) {
    report(result.hits, result.queries, result.database, scoring,
           fmt::format("{} process{}, {} device{}", group.size(), group.size() == 1 ? "" : "es",
                       std::max<std::size_t>(sharded.devices.size(), 1), sharded.devices.size() > 1 ? "s" : ""),
           search_ms);
  }
}

void run_search(const SearchCommand& command, const GlobalOptions& globals) {
  // Everything the command line alone can refuse is refused before any file is read.
  if (command.columns_option->count() > 0 && command.format != "tsv") {
    throw UsageError(fmt::format("--columns only applies to --format tsv, not {}", command.format));
  }
  if (command.outfmt_option->count() > 0 &&
      (command.format_option->count() > 0 || command.columns_option->count() > 0)) {
    throw UsageError("--outfmt chooses the format and columns itself: give it without --format and --columns");
  }
  align::TabularFormat tabular;
  if (command.outfmt_option->count() > 0) {
    tabular = align::parse_outfmt(command.outfmt);
  } else {
    tabular.columns = align::parse_columns(command.columns);
  }
  align::SearchOptions options;
  options.top = command.top;
  options.max_evalue = command.max_evalue;
  options.backend = globals.requested_backend();
  options.statistics = command.statistics == "karlin-altschul" ? align::EvalueStatistics::karlin_altschul
                       : command.statistics == "none"          ? align::EvalueStatistics::none
                                                               : align::EvalueStatistics::spouge;
  if (command.database_size_option->count() > 0) options.database_size = command.database_size;
  align::validate(options);
  const align::Scoring scoring = scoring_from(command);

  align::ShardedSearchOptions sharded;
  sharded.devices = devices_from(command.devices);
  sharded.residues_at_once = static_cast<std::int64_t>(command.host_memory);
  sharded.scorer.device_memory_bytes = command.device_memory;
  ProcessGroup& group = ProcessGroup::world();
  if (group.size() > 1 || !sharded.devices.empty() || command.host_memory > 0) {
    run_sharded_search(command, globals, tabular, scoring, options, sharded, group);
    return;
  }

  SteadyTimer timer;
  const align::SequenceSet queries = align::read_sequences(command.query_path);
  const align::SequenceSet database = align::read_sequences(command.database_path);
  const double read_ms = timer.elapsed_ms();
  timer.restart();
  // The scorer is made here rather than inside search so that it gets
  // --device-memory; an empty database is refused before the device is touched.
  if (database.empty()) throw UsageError("the database holds no sequences");
  align::ScorerOptions scorer_options;
  scorer_options.device_memory_bytes = command.device_memory;
  align::SubjectScorer scorer(database, scoring, options.backend, scorer_options);
  const std::vector<std::vector<align::Hit>> hits = align::search(queries, database, scoring, scorer, options);
  const double search_ms = timer.elapsed_ms();
  write_output(command, tabular, hits, queries, database, scoring);
  if (!globals.quiet) {
    report(hits, queries, {database.total_residues(), static_cast<std::int64_t>(database.size())}, scoring,
           fmt::format("read in {:.1f} ms", read_ms), search_ms);
  }
}

struct MakedbCommand {
  std::string input_path;
  std::string output_path;
};

void run_makedb(const MakedbCommand& command, const GlobalOptions& globals) {
  SteadyTimer timer;
  const align::SequenceSet sequences = align::read_fasta_file(command.input_path);
  // The reader refuses a file without records; an empty set is refused here
  // too so that no database without sequences is ever written.
  if (sequences.empty()) throw InputError(command.input_path, 0, "no sequences to put in a database");
  align::write_database(sequences, command.output_path);
  const double elapsed_ms = timer.elapsed_ms();

  std::int64_t shortest = sequences.length(0);
  std::int64_t longest = sequences.length(0);
  for (std::size_t i = 1; i < sequences.size(); ++i) {
    shortest = std::min(shortest, sequences.length(i));
    longest = std::max(longest, sequences.length(i));
  }
  std::fputs(fmt::format("{}: {} sequence{}, {} residues, lengths {} to {}, {} bytes\n", command.output_path,
                         sequences.size(), sequences.size() == 1 ? "" : "s", sequences.total_residues(), shortest,
                         longest, std::filesystem::file_size(command.output_path))
                 .c_str(),
             stdout);
  if (!globals.quiet) std::fprintf(stderr, "%s\n", fmt::format("made in {:.1f} ms", elapsed_ms).c_str());
}

}  // namespace

void add_align_command(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* align_app =
      app.add_subcommand("align", "Protein sequence alignment: Smith-Waterman database search, prepared databases");
  align_app->require_subcommand(1);

  auto command = std::make_shared<SearchCommand>();
  CLI::App* search = align_app->add_subcommand(
      "search",
      "Exact Smith-Waterman-Gotoh search of protein queries against a protein database (FASTA or FASTA.gz). "
      "Reports per query the best hits as blastp ranks them (by E-value, then score, then the later database "
      "sequence) with "
      "bit scores and E-values as BLAST+ computes them (NCBI's published parameters for built-in matrices and "
      "their gap pairs; a built-in matrix with another pair is refused unless --statistics none; a matrix file "
      "has no E-values). "
      "Gaps in BLAST's convention: a gap of length k costs open + k * extend.");
  search->add_option("-q,--query", command->query_path, "Query sequences (FASTA, FASTA.gz or a prepared database)")
      ->required();
  search
      ->add_option("-d,--db", command->database_path,
                   "Database sequences (FASTA, FASTA.gz or a prepared database from trellis align makedb)")
      ->required();
  search
      ->add_option("--matrix", command->matrix,
                   "A built-in matrix (BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM30, PAM70, PAM250) or an "
                   "NCBI-format matrix file")
      ->capture_default_str();
  command->gap_open_option = search->add_option(
      "--gap-open", command->gap_open, "Gap open penalty (default: BLAST's for the matrix, 11 for a matrix file)");
  command->gap_extend_option = search->add_option(
      "--gap-extend", command->gap_extend, "Gap extend penalty (default: BLAST's for the matrix, 1 for a matrix file)");
  search->add_option("--top", command->top, "Most hits reported per query")->capture_default_str();
  search
      ->add_option("--evalue", command->max_evalue,
                   "Report hits with an E-value up to this (ignored without statistics)")
      ->capture_default_str();
  search
      ->add_option("--statistics", command->statistics,
                   "E-values: spouge (blastp's own: Spouge's finite-size correction, per subject length), "
                   "karlin-altschul (K m'n' exp(-lambda S) over BLAST's length-adjusted search space, as blastp "
                   "with OLD_FSC set), or none (rank by score, no E-values)")
      ->check(CLI::IsMember({"spouge", "karlin-altschul", "none"}))
      ->capture_default_str();
  command->database_size_option =
      search->add_option("--dbsize", command->database_size,
                         "Database size in residues for the E-values, as blastp's -dbsize (default: the database's)");
  command->columns_option =
      search
          ->add_option(
              "--columns", command->columns,
              "Tabular columns by BLAST's names, comma- or space-separated: std (qaccver saccver pident "
              "length mismatch gapopen qstart qend sstart send evalue bitscore), qseqid, sseqid, score, qlen, slen, "
              "nident, positive, ppos, gaps, qcovs, qcovhsp, qseq, sseq, stitle")
          ->capture_default_str();
  command->format_option = search->add_option("--format", command->format, "tsv (BLAST's outfmt 6), pairwise or json")
                               ->check(CLI::IsMember({"tsv", "pairwise", "json"}))
                               ->capture_default_str();
  command->outfmt_option =
      search->add_option("--outfmt", command->outfmt,
                         "BLAST+'s tabular -outfmt: \"6\" or \"7\" (with comment lines), optionally followed by "
                         "column names as for --columns, e.g. \"6 std qlen slen\"; instead of --format and --columns");
  search->add_option("-o,--out", command->output, "Write the hits here (whole or not at all) instead of stdout");
  search
      ->add_option("--device-memory", command->device_memory,
                   "cuda: device memory the database may take, in bytes (suffixes K, M, G: powers of 1024; "
                   "default 0 = 80% of the free memory); a larger database streams from host memory for every query")
      ->transform(CLI::AsSizeValue(false));
  search->add_option("--devices", command->devices,
                     "cuda: the devices to spread the database over, \"all\" or indices such as 0,1 (each holds a "
                     "part balanced by residues; the hits are merged exactly); under mpirun each process takes one "
                     "device of its host unless given");
  search
      ->add_option("--host-memory", command->host_memory,
                   "Database residues held in memory at once, in bytes (suffixes K, M, G); a larger database (or "
                   "part of one) is read from a prepared database and searched in pieces, with the same hits "
                   "(default 0: all at once)")
      ->transform(CLI::AsSizeValue(false));
  search->callback([command, &globals] { run_search(*command, globals); });

  auto makedb_command = std::make_shared<MakedbCommand>();
  CLI::App* makedb = align_app->add_subcommand(
      "makedb",
      "Prepare a protein database for trellis align search: the sequences of a FASTA or FASTA.gz file in one "
      "checksummed binary file, sorted by length, that loads without parsing. Searches on it report the same hits "
      "as on the FASTA.");
  makedb->add_option("input", makedb_command->input_path, "Sequences (FASTA or FASTA.gz)")->required();
  makedb->add_option("-o,--out", makedb_command->output_path, "The database to write (whole or not at all)")
      ->required();
  makedb->callback([makedb_command, &globals] { run_makedb(*makedb_command, globals); });
}

}  // namespace trellis::cli
