// Each subcommand lives in its own file and registers itself on the app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "trellis/core/backend.hpp"

namespace trellis::cli {

// Options that every subcommand sees (given before or after the subcommand).
struct GlobalOptions {
  std::string backend = "auto";
  bool quiet = false;

  Backend requested_backend() const { return parse_backend(backend); }
};

// Thrown by a process of an MPI job whose failure another process reports:
// main exits with `code` and prints nothing, so the error is printed once.
struct ExitWithoutMessage {
  int code = 1;
};

void add_info_command(CLI::App& app, const GlobalOptions& globals);
void add_bench_command(CLI::App& app, const GlobalOptions& globals);
void add_demo_command(CLI::App& app, const GlobalOptions& globals);
void add_graph_command(CLI::App& app, const GlobalOptions& globals);
void add_sssp_command(CLI::App& app, const GlobalOptions& globals);
void add_drc_command(CLI::App& app, const GlobalOptions& globals);
void add_kicad_plugin_command(CLI::App& app, const GlobalOptions& globals);
void add_route_command(CLI::App& app, const GlobalOptions& globals);
void add_grid_command(CLI::App& app, const GlobalOptions& globals);
void add_align_command(CLI::App& app, const GlobalOptions& globals);

// Shared by `info` and `demo`.
void print_info();

}  // namespace trellis::cli

namespace trellis::grid {
struct ConvergenceStudy;
}

namespace trellis {
class Table;
}

namespace trellis::cli {

// A grid convergence study as a table (shared by `grid` and `demo`).
Table convergence_table(const grid::ConvergenceStudy& study);

}  // namespace trellis::cli
