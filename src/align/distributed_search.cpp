// search_distributed (distributed_search.hpp): each process ranks its part,
// every process learns whether any failed before anything is merged, rank 0
// merges, reads the reported subjects and traces them back.
#include "trellis/align/distributed_search.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "trellis/align/database.hpp"
#include "trellis/align/database_parts.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {

namespace {

// A ranked hit as it travels: the same binary on every rank, so plain bytes.
struct WireHit {
  std::uint64_t query;
  std::uint64_t subject;
  double evalue;
  std::int32_t score;
  std::int32_t unused;
};
static_assert(std::is_trivially_copyable_v<WireHit>);

std::vector<std::byte> encode(const RankedHits& hits) {
  std::vector<WireHit> wire;
  for (std::size_t q = 0; q < hits.size(); ++q) {
    for (const RankedHit& h : hits[q]) wire.push_back({q, h.subject, h.evalue, h.score, 0});
  }
  std::vector<std::byte> bytes(wire.size() * sizeof(WireHit));
  if (!bytes.empty()) std::memcpy(bytes.data(), wire.data(), bytes.size());
  return bytes;
}

RankedHits decode(const std::vector<std::byte>& bytes, std::size_t query_count) {
  if (bytes.size() % sizeof(WireHit) != 0) throw Error("a process sent a damaged list of hits");
  std::vector<WireHit> wire(bytes.size() / sizeof(WireHit));
  if (!bytes.empty()) std::memcpy(wire.data(), bytes.data(), bytes.size());
  RankedHits hits(query_count);
  for (const WireHit& w : wire) {
    if (w.query >= query_count) throw Error("a process sent a hit for a query that does not exist");
    hits[w.query].push_back({w.subject, w.score, w.evalue});
  }
  return hits;
}

// Runs `step` on every process; when any failed, every process throws the
// lowest failing rank's error (a process alone rethrows its own).
template <typename Step>
void on_every_process(ProcessGroup& group, Step&& step) {
  std::optional<ProcessFailure> mine;
  std::exception_ptr own;
  try {
    step();
  } catch (const std::exception& error) {
    own = std::current_exception();
    mine = ProcessFailure{group.rank(), static_cast<int>(exit_code_for(error)), error.what()};
  }
  const std::optional<ProcessFailure> failure = group.first_failure(mine);
  if (!failure) return;
  if (group.size() == 1) std::rethrow_exception(own);
  const std::string message = fmt::format("rank {} of {}: {}", failure->rank, group.size(), failure->message);
  if (failure->exit_code == static_cast<int>(ExitCode::usage_or_input)) throw UsageError(message);
  throw Error(message);
}

bool is_prepared(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string start(kDatabaseMagic.size(), '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  return in && start == kDatabaseMagic;
}

}  // namespace

DistributedSearchResult search_distributed(ProcessGroup& group, const std::filesystem::path& queries_path,
                                           const std::filesystem::path& database_path, const Scoring& scoring,
                                           const SearchOptions& options, const ShardedSearchOptions& sharded) {
  DistributedSearchResult result;
  std::unique_ptr<DatabaseParts> parts;
  std::unique_ptr<SequenceSet> whole;  // a FASTA database, read whole by every process
  RankedHits mine;
  on_every_process(group, [&] {
    validate(options);
    validate_statistics(scoring, options.statistics);
    result.queries = read_sequences(queries_path);
    ShardSource source;
    if (is_prepared(database_path)) {
      parts = std::make_unique<DatabaseParts>(database_path);
      source = parts->source();
    } else {
      whole = std::make_unique<SequenceSet>(read_fasta_file(database_path));
      source = source_of(*whole);
    }
    result.database = source.totals;
    if (source.totals.sequences == 0) throw UsageError("the database holds no sequences");
    ShardedSearchOptions part_options = sharded;
    if (part_options.devices.empty() && group.size() > 1 && resolve(options.backend) == Backend::cuda) {
      const auto devices = list_devices();
      if (!devices.empty()) part_options.devices = {group.local_rank() % static_cast<int>(devices.size())};
    }
    const auto bounds = residue_balanced_bounds(source.offsets, static_cast<std::size_t>(group.size()));
    const auto rank = static_cast<std::size_t>(group.rank());
    mine = rank_database_part(result.queries, source, bounds[rank], bounds[rank + 1], scoring, options, part_options);
  });

  const std::vector<std::vector<std::byte>> sent = group.gather(encode(mine));
  if (group.rank() != 0) {
    result.queries = SequenceSet{};
    return result;
  }
  std::vector<RankedHits> received;
  for (const auto& bytes : sent) received.push_back(decode(bytes, result.queries.size()));
  const RankedHits merged = merge_ranked_hits(received, static_cast<std::size_t>(options.top), options.statistics);

  std::vector<std::size_t> reported;
  for (const auto& query_hits : merged) {
    for (const RankedHit& h : query_hits) reported.push_back(static_cast<std::size_t>(h.subject));
  }
  std::sort(reported.begin(), reported.end());
  reported.erase(std::unique(reported.begin(), reported.end()), reported.end());
  if (parts) {
    result.subjects = parts->read_indices(reported);
  } else {
    for (const std::size_t s : reported) result.subjects.add(whole->id(s), whole->description(s), whole->residues(s));
  }
  const auto subject_at = [&reported](std::uint64_t subject) {
    return static_cast<std::size_t>(std::lower_bound(reported.begin(), reported.end(), subject) - reported.begin());
  };
  result.hits = traced_hits(merged, result.queries, result.subjects, subject_at, scoring, options.statistics);
  return result;
}

}  // namespace trellis::align
