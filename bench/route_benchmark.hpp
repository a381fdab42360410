// `trellis bench route`: the autorouter on real boards and on a synthetic
// backplane.
//
// Boards come from a folder laid out as ../shared/boards is:
//   pcbench/<board>/unrouted.dsn  with ground_truth.json beside it (the human
//                                 routing's via_count and
//                                 approximate_track_length_mm) and
//                                 pcbench/index.json (FreeRouting 1.9.0's
//                                 router time, unrouted nets and violations);
//   dac2020/<board>.unrouted.dsn  (no human routing);
//   kicad/<board>.unrouted.dsn    with <board>.reference-routed.dsn beside it,
//                                 the human routing, measured here (wire
//                                 centre-line length, via count).
// Every board is routed once per backend; the routed copper, together with
// the board's own wiring, goes through the independent design-rule check.
// A board that fails to read or route gets a row with the error in its
// notes; the others still run.
//
// The backplanes: 18 layers, 512 two-pin nets, about 450,000 lattice grid
// nodes (see route_backplane.hpp), and the same with a taller open area
// between the connector rows (560,000), each routed once per backend.
#pragma once

#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/table.hpp"
#include "trellis/route/router.hpp"

namespace trellis::bench {

struct RouteBenchmarkOptions {
  // Folder with pcbench/, dac2020/ and kicad/; empty: ../shared/boards from
  // the current directory (an error when it is missing).
  std::string boards_dir;
  std::vector<Backend> backends;             // empty: cpu, and cuda when usable
  int max_iterations = 50;                   // PathFinder iterations at most, boards and backplane
  int concurrent_nets = 0;                   // RouterOptions::concurrent_nets, boards and backplane
  bool nets_apart = false;                   // RouterOptions::checked_batches off, boards and backplane
  int device_round_min = 0;                  // RouterOptions::device_round_min, boards and backplane
  int batch_size = 64;                       // RouterOptions::batch_size, boards and backplane
  bool concurrency_follows_overuse = false;  // RouterOptions::concurrency_follows_overuse
  int cleanup_passes = route::RouterOptions{}.cleanup_passes;  // boards and backplane
  bool exact_stub_claims = false;                              // RouterOptions::exact_stub_claims, boards and backplane
  // Board filters: case-insensitive substrings of SUITE/BOARD (such as
  // "pcbench/tdstat_TDstatv2"); empty: all boards. The backplane runs either
  // way; filters that all match "backplane" run it alone.
  std::vector<std::string> only;
  bool backplane = true;  // route the synthetic backplane too
  bool quiet = false;
};

struct RouteBenchmarkTables {
  // One row per board and backend, then one summary row per backend.
  Table boards;
  // One row per backend.
  Table backplane;
  // What the columns mean and where the figures come from.
  std::vector<std::string> notes;
};

// Throws UsageError for a missing boards folder, a filter that matches no
// board, or max_iterations < 1; BackendUnavailable for a requested backend
// that cannot run.
RouteBenchmarkTables run_route_benchmark(const RouteBenchmarkOptions& options);

}  // namespace trellis::bench
