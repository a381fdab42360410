// `trellis demo`: a short tour of what this build can do on this machine.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "spmv_benchmark.hpp"

namespace trellis::cli {

void add_demo_command(CLI::App& app, const GlobalOptions& globals) {
  auto size = std::make_shared<std::int32_t>(64);
  CLI::App* demo = app.add_subcommand("demo", "Show this machine's backends and run each workload on a small input");
  demo->add_option("--spmv-size", *size, "Grid points per dimension for the SpMV slice")->capture_default_str();
  demo->callback([size, &globals] {
    print_info();
    fmt::print("\nSpMV on a {0}^3 7-point Laplacian (y = A x), every backend against the reference:\n\n", *size);
    bench::SpmvBenchmarkOptions options;
    options.size = *size;
    options.repeats = 20;
    options.quiet = globals.quiet;
    Backend backend = globals.requested_backend();
    if (backend != Backend::automatic) options.backends = {backend};
    fmt::print("{}", bench::run_spmv_benchmark(options).to_markdown());
  });
}

}  // namespace trellis::cli
