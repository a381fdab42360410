// `trellis bench ...`: benchmarks that run every backend and the external
// anchor side by side and print one table.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "spmv_benchmark.hpp"
#include "trellis/core/atomic_file.hpp"

namespace trellis::cli {
namespace {

struct SpmvCommand {
  bench::SpmvBenchmarkOptions options;
  std::string precision = "both";
  std::string format = "markdown";
  std::string output;
};

void run_spmv(const SpmvCommand& command, const GlobalOptions& globals) {
  bench::SpmvBenchmarkOptions options = command.options;
  options.quiet = globals.quiet;
  if (command.precision != "both") options.precisions = {command.precision};
  Backend backend = globals.requested_backend();
  if (backend != Backend::automatic) options.backends = {backend};
  Table table = bench::run_spmv_benchmark(options);
  std::string text = command.format == "json" ? table.to_json() : table.to_markdown();
  if (command.output.empty()) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(command.output, text);
  }
}

}  // namespace

void add_bench_command(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks: every backend and the external anchor side by side");
  bench->require_subcommand(1);

  auto spmv = std::make_shared<SpmvCommand>();
  CLI::App* cmd = bench->add_subcommand(
      "spmv",
      "CSR SpMV y = A x on a 3-D 7-point Laplacian: reference, cpu, cuda and cuSPARSE; median time, GFLOP/s, "
      "GB/s and the error against reference. With --backend other than auto, only that backend (and the "
      "reference result it is checked against).");
  cmd->add_option("--size", spmv->options.size, "Grid points per dimension (size^3 unknowns)")
      ->capture_default_str();
  cmd->add_option("--precision", spmv->precision, "double, float or both")
      ->check(CLI::IsMember({"double", "float", "both"}))
      ->capture_default_str();
  cmd->add_option("--repeats", spmv->options.repeats,
                  "Timed runs on the device after 3 warm-ups; host backends run ceil(repeats/10) times")
      ->capture_default_str();
  cmd->add_option("--format", spmv->format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", spmv->output, "Write the table to this file (written whole or not at all)");
  cmd->callback([spmv, &globals] { run_spmv(*spmv, globals); });
}

}  // namespace trellis::cli
