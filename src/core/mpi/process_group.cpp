// ProcessGroup over MPI_COMM_WORLD. MPI starts only in a process a launcher
// started (its environment says so), so the binary runs alone without mpirun
// and without MPI's singleton start-up.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "trellis/core/error.hpp"
#include "trellis/core/process_group.hpp"

namespace trellis {

namespace {

bool started_by_launcher() {
  // Open MPI's mpirun, PMIx launchers and the older PMI ones (MPICH, Slurm).
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// Finalises MPI at exit when this process initialised it.
struct MpiSession {
  MpiSession() {
    if (!started_by_launcher()) return;
    int provided = 0;
    // Threads of this process never call MPI: a device thread only scores.
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    initialised = true;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    MPI_Comm host = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    check(MPI_Comm_rank(host, &local_rank), "MPI_Comm_rank");
    MPI_Comm_free(&host);
  }
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (initialised && finalized == 0) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  bool initialised = false;
  int rank = 0;
  int size = 1;
  int local_rank = 0;
};

MpiSession& session() {
  static MpiSession mpi;
  return mpi;
}

int as_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error("a message of " + std::to_string(bytes) + " bytes is more than one MPI call sends");
  }
  return static_cast<int>(bytes);
}

}  // namespace

bool mpi_compiled() noexcept { return true; }

ProcessGroup& ProcessGroup::world() {
  static ProcessGroup group(session().rank, session().size, session().local_rank);
  return group;
}

std::optional<ProcessFailure> ProcessGroup::first_failure(const std::optional<ProcessFailure>& mine) {
  if (!session().initialised) return mine;
  // The lowest failing rank (size_ when none), then its exit code and text.
  const int candidate = mine ? rank_ : size_;
  int failing = size_;
  check(MPI_Allreduce(&candidate, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (failing == size_) return std::nullopt;
  ProcessFailure failure;
  failure.rank = failing;
  std::int32_t header[2] = {0, 0};  // exit code, message bytes
  if (rank_ == failing) {
    failure = *mine;
    failure.rank = failing;
    header[0] = failure.exit_code;
    header[1] = as_count(failure.message.size());
  }
  check(MPI_Bcast(header, 2, MPI_INT32_T, failing, MPI_COMM_WORLD), "MPI_Bcast");
  failure.exit_code = header[0];
  failure.message.resize(static_cast<std::size_t>(header[1]));
  check(MPI_Bcast(failure.message.data(), header[1], MPI_CHAR, failing, MPI_COMM_WORLD), "MPI_Bcast");
  return failure;
}

std::vector<std::vector<std::byte>> ProcessGroup::gather(std::span<const std::byte> mine) {
  if (!session().initialised) return {std::vector<std::byte>(mine.begin(), mine.end())};
  const int bytes = as_count(mine.size());
  std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  check(MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> displacements(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = as_count(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  std::vector<std::byte> all(total);
  check(MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::vector<std::byte>> parts;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto begin = all.begin() + displacements[r];
    parts.emplace_back(begin, begin + counts[r]);
  }
  return parts;
}

}  // namespace trellis
