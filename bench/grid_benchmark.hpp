// `trellis bench grid`: the grid module on a 3-D 7-point problem (size^3
// cells) and a 2-D 5-point one (size_2d^2 cells), both -div(k grad u) with a variable k
// and Dirichlet boundaries, assembled by the form machinery:
//   kernels  - our CSR SpMV, cuSPARSE, DIA, SpMM (bench/structured_benchmark),
//              and the matrix-free apply (constant and variable k);
//   assembly - pattern/table setup, refill on cpu and on cuda (gather and
//              atomic), each with bytes moved;
//   solvers  - each from the mesh and form to a relative residual of 1e-8
//              with its setup, hierarchy, iterations and their sum (the
//              time to solution): Jacobi CG on cuda (assembled and
//              matrix-free), multigrid CG (mgcg) on the cpu cores (variable
//              k) and on cuda (variable k, assembled and matrix-free, coarse
//              operators R A P; constant k matrix-free, coarse operators by
//              axes; the median of three runs); cpu CG timed per iteration
//              over a fixed number of iterations.
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/core/table.hpp"

namespace trellis::bench {

struct GridBenchmarkOptions {
  std::int32_t size = 256;              // cells per axis of the 3-D problem
  std::int32_t size_2d = 4096;          // cells per axis of the 2-D problem
  int repeats = 20;                     // timed device runs; host refills run ceil(repeats / 5)
  std::int32_t cpu_cg_iterations = 50;  // cpu CG runs this many iterations (timed per iteration)
  bool quiet = false;
};

struct GridBenchmarkTables {
  double copy_bandwidth_gbs = 0;  // measured on the device ("% of copy BW" divides by it); NaN without one
  std::vector<Table> kernels;     // one per problem
  Table matrix_free;
  Table assembly;
  Table solvers;
  Table hierarchy;  // each device mgcg row's hierarchy by phase (its median run)
};

// The problems have size^3 and size_2d^2 cells ((size + 1)^3 nodes), as
// `trellis grid poisson --n size` has, so that the multigrid can halve every
// axis down to its coarsest level. Without a usable CUDA device only the cpu
// rows run.
GridBenchmarkTables run_grid_benchmark(const GridBenchmarkOptions& options);

}  // namespace trellis::bench
