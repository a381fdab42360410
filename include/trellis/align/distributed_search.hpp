// One database search spread over the processes of an MPI job (or run by
// this process alone), each process searching a part of the database
// balanced by residues, the parts' hits merged exactly at rank 0
// (sharded_search.hpp): the same hits, scores, E-values and order as
// search() over the whole database in one process.
//
// Every process reads the queries and its own part of the database: from a
// prepared database by offset (database_parts.hpp), from FASTA by reading it
// whole. A failure in any process (an unreadable or damaged part, a device
// error) makes every process throw, after all have stopped: the failing
// rank's error, named with its rank, as a UsageError where it was a usage or
// input error, else as an Error. No hits come back then.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "trellis/align/scoring.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sequence.hpp"
#include "trellis/align/sharded_search.hpp"
#include "trellis/core/process_group.hpp"

namespace trellis::align {

// What search_distributed returns to each process.
struct DistributedSearchResult {
  // Rank 0 only (empty elsewhere): the queries, per query its hits in rank
  // order, and the reported subjects, which a hit's subject indexes.
  SequenceSet queries;
  std::vector<std::vector<Hit>> hits;  // rank 0 only: per query its hits in rank order
  SequenceSet subjects;                // rank 0 only: the subjects the hits index
  DatabaseTotals database;             // every rank: the whole database's residues and sequences
};

// Collective over `group`. `sharded` applies to each process's part; on cuda
// with no devices given, each process takes the device of its rank on its
// host (local rank modulo the devices visible).
DistributedSearchResult search_distributed(ProcessGroup& group, const std::filesystem::path& queries_path,
                                           const std::filesystem::path& database_path, const Scoring& scoring,
                                           const SearchOptions& options, const ShardedSearchOptions& sharded);

}  // namespace trellis::align
