// The processes of an MPI job (`mpirun -n N trellis ...`), or this process
// alone: in a build without MPI, and in a process that no MPI launcher
// started (the binary runs the same without mpirun).
//
// MPI is initialised on the first call of world() in a process an MPI
// launcher started, and finalised when the process exits. The calls below
// marked collective must be made by every process of the group, in the same
// order.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace trellis {

// Whether this build can join MPI jobs.
bool mpi_compiled() noexcept;

// A process's failure as the others learn of it.
struct ProcessFailure {
  int rank = 0;         // the failing process's rank
  int exit_code = 1;    // the exit code its error maps to (core/error.hpp)
  std::string message;  // the error's message
};

// The processes of an MPI job, or this process alone (rank 0 of 1).
class ProcessGroup {
 public:
  // The group of the job this process belongs to.
  static ProcessGroup& world();

  // This process's rank, 0 to size() - 1.
  int rank() const noexcept { return rank_; }
  // Number of processes in the group (1 without MPI).
  int size() const noexcept { return size_; }
  // This process's rank among those of the group on its host (to pick a
  // device per process).
  int local_rank() const noexcept { return local_rank_; }

  // Collective: each process passes its failure or none; every process gets
  // the failure of the lowest failing rank, or none when all succeeded.
  std::optional<ProcessFailure> first_failure(const std::optional<ProcessFailure>& mine);

  // Collective: every process's bytes, at rank 0 in rank order; the other
  // processes get nothing back.
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> mine);

 private:
  ProcessGroup(int rank, int size, int local_rank) : rank_(rank), size_(size), local_rank_(local_rank) {}
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
};

}  // namespace trellis
