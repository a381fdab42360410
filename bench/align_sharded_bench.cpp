// align_sharded_bench: the sharded search on a database larger than one
// search usually meets (docs/align.md, "Sharded search").
//
//   align_sharded_bench make --data DIR --residues N --queries K -o DB.tdb -q QUERIES.fasta
//     a prepared database of the mmseqs2 example proteins (DIR/DB.fasta.gz)
//     repeated, each copy's residues shuffled (lengths and composition kept),
//     until it holds N residues; the first K example queries beside it.
//   [mpirun -n R] align_sharded_bench search -q QUERIES.fasta -d DB.tdb
//       [--host-memory RESIDUES] [--device-memory BYTES] [--devices LIST] [--repeats N] [--backend B]
//     the whole search (scores, ranking, merge, tracebacks) through
//     search_distributed, as `trellis align search` runs it; rank 0 prints one
//     Markdown row: seconds (median), TCUPS and a digest of the hits, so runs
//     of one database in different splits can be checked against each other.
//
// Linked against the align module alone, so a CUDA build of it stays small.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trellis/align/database.hpp"
#include "trellis/align/distributed_search.hpp"
#include "trellis/align/hit_output.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/process_group.hpp"
#include "trellis/core/timer.hpp"

namespace {

using namespace trellis;

std::string option(const std::vector<std::string>& args, const std::string& name, const std::string& fallback) {
  const auto at = std::find(args.begin(), args.end(), name);
  if (at == args.end()) return fallback;
  if (at + 1 == args.end()) throw UsageError(name + " needs a value");
  return *(at + 1);
}

std::int64_t number(const std::string& text) {
  std::size_t used = 0;
  double value = std::stod(text, &used);
  const std::string suffix = text.substr(used);
  if (suffix == "K") value *= 1e3;
  if (suffix == "M") value *= 1e6;
  if (suffix == "G") value *= 1e9;
  return static_cast<std::int64_t>(value);
}

int make(const std::vector<std::string>& args) {
  const std::string data = option(args, "--data", "/usr/share/doc/mmseqs2/example-data");
  const std::int64_t residues = number(option(args, "--residues", "2G"));
  const std::int64_t query_count = number(option(args, "--queries", "8"));
  const std::string output = option(args, "-o", "sharded.tdb");
  const std::string queries_output = option(args, "-q", "sharded-queries.fasta");
  SteadyTimer timer;
  const align::SequenceSet source = align::read_fasta_file(data + "/DB.fasta.gz");
  align::SequenceSet database;
  std::mt19937_64 random(20261203);
  std::vector<align::Residue> shuffled;
  for (std::int64_t copy = 0; database.total_residues() < residues; ++copy) {
    for (std::size_t i = 0; i < source.size() && database.total_residues() < residues; ++i) {
      const auto original = source.residues(i);
      shuffled.assign(original.begin(), original.end());
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      database.add(fmt::format("{}.copy{}", source.id(i), copy), "", shuffled);
    }
  }
  const double made_s = timer.elapsed_ms() / 1000;
  timer.restart();
  align::write_database(database, output);
  const double written_s = timer.elapsed_ms() / 1000;
  const align::SequenceSet all_queries = align::read_fasta_file(data + "/QUERY.fasta.gz");
  std::string fasta;
  for (std::size_t q = 0; q < std::min<std::size_t>(all_queries.size(), static_cast<std::size_t>(query_count)); ++q) {
    fasta += fmt::format(">{}\n{}\n", all_queries.id(q), align::decode_protein(all_queries.residues(q)));
  }
  std::FILE* out = std::fopen(queries_output.c_str(), "w");
  if (out == nullptr || std::fputs(fasta.c_str(), out) < 0 || std::fclose(out) != 0) {
    throw Error("cannot write " + queries_output);
  }
  std::printf("%s\n", fmt::format("| {} | {} | {} | shuffled in {:.1f} s, written in {:.1f} s |", output,
                                  database.size(), database.total_residues(), made_s, written_s)
                          .c_str());
  return 0;
}

int search(const std::vector<std::string>& args) {
  ProcessGroup& group = ProcessGroup::world();
  const std::string queries = option(args, "-q", "sharded-queries.fasta");
  const std::string database = option(args, "-d", "sharded.tdb");
  align::SearchOptions options;
  options.backend = parse_backend(option(args, "--backend", "auto"));
  align::ShardedSearchOptions sharded;
  sharded.residues_at_once = number(option(args, "--host-memory", "0"));
  sharded.scorer.device_memory_bytes = static_cast<std::size_t>(number(option(args, "--device-memory", "0")));
  const std::string devices = option(args, "--devices", "");
  for (std::stringstream items(devices); !devices.empty() && items.good();) {
    std::string item;
    std::getline(items, item, ',');
    sharded.devices.push_back(std::stoi(item));
  }
  const int repeats = static_cast<int>(number(option(args, "--repeats", "1")));
  const align::Scoring scoring(align::builtin_matrix("BLOSUM62"), {11, 1});

  std::vector<double> seconds;
  align::DistributedSearchResult result;
  for (int r = 0; r < repeats; ++r) {
    SteadyTimer timer;
    result = align::search_distributed(group, queries, database, scoring, options, sharded);
    seconds.push_back(timer.elapsed_ms() / 1000);
  }
  if (group.rank() != 0) return 0;
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  std::int64_t query_residues = 0;
  for (std::size_t q = 0; q < result.queries.size(); ++q) query_residues += result.queries.length(q);
  std::ostringstream tabular;
  align::write_tabular(tabular, result.hits, result.queries, result.subjects, align::parse_columns("std"));
  std::size_t hits = 0;
  for (const auto& query_hits : result.hits) hits += query_hits.size();
  const double cells = static_cast<double>(query_residues) * static_cast<double>(result.database.residues);
  std::printf("%s\n", fmt::format("| {} | {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {} | {:016x} |", group.size(),
                                  devices.empty() ? "-" : devices, sharded.residues_at_once,
                                  sharded.scorer.device_memory_bytes, result.queries.size(), query_residues, median,
                                  cells / median / 1e12, hits, std::hash<std::string>{}(tabular.str()))
                          .c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && args[0] == "make") return make(args);
    if (!args.empty() && args[0] == "search") return search(args);
    std::fputs("usage: align_sharded_bench make|search [options] (see the source's header)\n", stderr);
    return 2;
  } catch (const std::exception& error) {
    if (ProcessGroup::world().rank() == 0) std::fprintf(stderr, "align_sharded_bench: error: %s\n", error.what());
    return static_cast<int>(exit_code_for(error));
  }
}
