// `trellis bench ...`: benchmarks that run every backend and the external
// anchor side by side and print one table.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "align_benchmark.hpp"
#include "commands.hpp"
#include "grid_benchmark.hpp"
#include "route_benchmark.hpp"
#include "spmv_benchmark.hpp"
#include "sssp_benchmark.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"

namespace trellis::cli {
namespace {

// A benchmark's tables go to stdout, or whole to a file.
void emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(output, text);
  }
}

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
  emit(command.format == "json" ? table.to_json() : table.to_markdown(), command.output);
}

struct SsspCommand {
  bench::SsspBenchmarkOptions options;
  std::string format = "markdown";
  std::string output;
};

void run_sssp(const SsspCommand& command, const GlobalOptions& globals) {
  bench::SsspBenchmarkOptions options = command.options;
  options.quiet = globals.quiet;
  Backend backend = globals.requested_backend();
  if (backend != Backend::automatic) options.backends = {backend};
  bench::SsspBenchmarkTables tables = bench::run_sssp_benchmark(options);
  std::string text;
  if (command.format == "json") {
    nlohmann::json all{{"corner_to_corner", nlohmann::json::parse(tables.corner_to_corner.to_json())},
                       {"batched", nlohmann::json::parse(tables.batched.to_json())},
                       {"large", nlohmann::json::parse(tables.large.to_json())}};
    text = all.dump(2) + "\n";
  } else {
    text = "## Corner to corner on the seed's routing lattices\n\n" + tables.corner_to_corner.to_markdown() +
           "\n## Batched queries on a 20,000-node lattice (random source and target, one call)\n\n"
           "The first call of each size grows the engine's scratch to K searches; the next three show what "
           "repeated calls of that size cost.\n\n" +
           tables.batched.to_markdown() + "\n## Large boards, corner to corner\n\n" + tables.large.to_markdown();
  }
  emit(text, command.output);
}

struct GridCommand {
  bench::GridBenchmarkOptions options;
  std::string format = "markdown";
  std::string output;
};

void run_grid(const GridCommand& command, const GlobalOptions& globals) {
  bench::GridBenchmarkOptions options = command.options;
  options.quiet = globals.quiet;
  const Backend backend = globals.requested_backend();
  if (backend != Backend::automatic) {
    throw UsageError("bench grid runs cpu and (where usable) cuda side by side; drop --backend");
  }
  bench::GridBenchmarkTables tables = bench::run_grid_benchmark(options);
  std::string text;
  if (command.format == "json") {
    nlohmann::json kernels = nlohmann::json::array();
    for (const Table& table : tables.kernels) kernels.push_back(nlohmann::json::parse(table.to_json()));
    nlohmann::json all{{"copy_bandwidth_gbs", tables.copy_bandwidth_gbs},
                       {"kernels", kernels},
                       {"matrix_free", nlohmann::json::parse(tables.matrix_free.to_json())},
                       {"assembly", nlohmann::json::parse(tables.assembly.to_json())},
                       {"solvers", nlohmann::json::parse(tables.solvers.to_json())},
                       {"hierarchy", nlohmann::json::parse(tables.hierarchy.to_json())}};
    text = all.dump(2) + "\n";
  } else {
    text = std::isnan(tables.copy_bandwidth_gbs)
               ? std::string()
               : fmt::format(
                     "Device copy bandwidth (read + write, measured): {:.0f} GB/s; \"% of copy BW\" is "
                     "against it.\n\n",
                     tables.copy_bandwidth_gbs);
    text += "## Sparse kernels on the assembled matrices\n\n";
    for (const Table& table : tables.kernels) text += table.to_markdown() + "\n";
    if (tables.kernels.empty()) text += "(no CUDA device: the device kernels did not run)\n\n";
    text += "## Matrix-free apply (the same operator, never assembled)\n\n" + tables.matrix_free.to_markdown() +
            "\n## Assembly: setup once, refill by table\n\n" + tables.assembly.to_markdown() +
            "\n## Solvers: Jacobi CG and multigrid CG (mgcg)\n\n" + tables.solvers.to_markdown();
    if (!tables.hierarchy.rows().empty()) {
      text += "\n## Multigrid hierarchies on the device, by phase (each mgcg row's median run)\n\n" +
              tables.hierarchy.to_markdown();
    }
  }
  emit(text, command.output);
}

// Sequence ids such as UniProt's "tr|F7XRA1|F7XRA1_TREPU" hold the
struct AlignCommand {
  bench::AlignBenchmarkOptions options;
  std::string format = "markdown";
  std::string output;
};

void run_align(const AlignCommand& command, const GlobalOptions& globals) {
  bench::AlignBenchmarkOptions options = command.options;
  options.quiet = globals.quiet;
  options.backend = globals.requested_backend();
  if (options.backend == Backend::reference) {
    throw UsageError(
        "bench align times the cpu, cuda or vulkan engine beside parasail; use --backend auto, cpu, cuda or vulkan");
  }
  const bench::AlignBenchmarkTables tables = bench::run_align_benchmark(options);
  std::string text;
  if (command.format == "json") {
    nlohmann::json all{{"queries", nlohmann::json::parse(tables.queries.to_json())},
                       {"databases", nlohmann::json::parse(tables.databases.to_json())},
                       {"search", nlohmann::json::parse(tables.search.to_json())},
                       {"whole_search", nlohmann::json::parse(tables.whole_search.to_json())},
                       {"streaming", nlohmann::json::parse(tables.streaming.to_json())},
                       {"peak", nlohmann::json::parse(tables.peak.to_json())},
                       {"notes", tables.notes}};
    text = all.dump(2) + "\n";
  } else {
    text = "## Queries (nearest length in QUERY.fasta.gz; DB.fasta.gz where none is within 10%)\n\n" +
           tables.queries.to_markdown() + "\n## Databases\n\n" + tables.databases.to_markdown() +
           "\n## Search, one query at a time against the resident database\n\n" + tables.search.to_markdown() +
           "\n## One search() call per database, all queries\n\n" + tables.whole_search.to_markdown();
    if (!tables.streaming.rows().empty()) {
      text += "\n## The shuffled database streamed through a quarter of its device layout\n\n" +
              tables.streaming.to_markdown();
    }
    if (!tables.peak.rows().empty()) {
      text += "\n## Peak: pseudo-databases of one sequence length\n\n" + tables.peak.to_markdown();
    }
    text += "\n## Notes\n\n";
    for (const std::string& note : tables.notes) text += "- " + note + "\n";
  }
  emit(text, command.output);
}

struct RouteCommand {
  bench::RouteBenchmarkOptions options;
  bool skip_backplane = false;
  std::string format = "markdown";
  std::string output;
};

void run_route(const RouteCommand& command, const GlobalOptions& globals) {
  bench::RouteBenchmarkOptions options = command.options;
  options.quiet = globals.quiet;
  options.backplane = !command.skip_backplane;
  const Backend backend = globals.requested_backend();
  if (backend != Backend::automatic) options.backends = {backend};
  const bench::RouteBenchmarkTables tables = bench::run_route_benchmark(options);
  std::string text;
  if (command.format == "json") {
    nlohmann::json all{{"boards", nlohmann::json::parse(tables.boards.to_json())},
                       {"backplane", nlohmann::json::parse(tables.backplane.to_json())},
                       {"notes", tables.notes}};
    text = all.dump(2) + "\n";
  } else {
    // With --only backplane the boards table is empty and left out.
    if (!tables.boards.rows().empty()) {
      text += "## Boards: PathFinder beside the human routing and FreeRouting 1.9.0\n\n" + tables.boards.to_markdown() +
              "\n";
    }
    if (options.backplane) {
      text += "## Synthetic backplanes (described in the notes)\n\n" + tables.backplane.to_markdown() + "\n";
    }
    text += "## Notes\n\n";
    for (const std::string& note : tables.notes) text += "- " + note + "\n";
  }
  emit(text, command.output);
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
      "reference result it is checked against); --backend vulkan times the product on resident data "
      "(grid::VulkanSpmv), one submission each.");
  cmd->add_option("--size", spmv->options.size, "Grid points per dimension (size^3 unknowns)")->capture_default_str();
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

  auto sssp = std::make_shared<SsspCommand>();
  CLI::App* sssp_cmd = bench->add_subcommand(
      "sssp",
      "Shortest paths corner to corner on routing lattices for every backend and algorithm (time, edges "
      "relaxed, GTEPS as graph edges over time, bitwise check against Dijkstra), batched queries per second, "
      "and the large boards. Times are the search itself (CUDA events on the device, graph resident).");
  sssp_cmd
      ->add_option("--presets", sssp->options.presets,
                   "Lattice presets for the first table (see trellis graph gen --list-presets)")
      ->delimiter(',')
      ->capture_default_str();
  sssp_cmd->add_option("--batch-sizes", sssp->options.batch_sizes, "K values for the batched table")
      ->delimiter(',')
      ->capture_default_str();
  sssp_cmd->add_option("--large", sssp->options.large_presets, "Presets for the large-board table")
      ->delimiter(',')
      ->capture_default_str();
  sssp_cmd
      ->add_option("--repeats", sssp->options.repeats,
                   "Timed device runs per row after a warm-up; host backends run ceil(repeats/10) times")
      ->capture_default_str();
  sssp_cmd->add_option("--format", sssp->format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  sssp_cmd->add_option("-o,--output", sssp->output, "Write the tables to this file (whole or not at all)");
  sssp_cmd->callback([sssp, &globals] { run_sssp(*sssp, globals); });

  auto grid = std::make_shared<GridCommand>();
  CLI::App* grid_cmd = bench->add_subcommand(
      "grid",
      "Finite differences: -div(k grad u) with variable k on a 3-D 7-point and a 2-D 5-point grid, assembled by "
      "forms. Sparse kernels (our CSR, cuSPARSE, DIA, SpMM), the matrix-free apply, assembly setup and refill "
      "(cpu, cuda gather and atomic) and Jacobi CG, with bytes moved against the copy bandwidth.");
  grid_cmd->add_option("--size", grid->options.size, "Cells per axis of the 3-D problem")->capture_default_str();
  grid_cmd->add_option("--size-2d", grid->options.size_2d, "Cells per axis of the 2-D problem")->capture_default_str();
  grid_cmd
      ->add_option("--repeats", grid->options.repeats,
                   "Timed device runs after 2 warm-ups; host refills run ceil(repeats/5) times")
      ->capture_default_str();
  grid_cmd
      ->add_option("--cpu-cg-iterations", grid->options.cpu_cg_iterations,
                   "Iterations of the timed cpu CG (compared per iteration)")
      ->capture_default_str();
  grid_cmd->add_option("--format", grid->format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  grid_cmd->add_option("-o,--output", grid->output, "Write the tables to this file (whole or not at all)");
  grid_cmd->callback([grid, &globals] { run_grid(*grid, globals); });

  auto align = std::make_shared<AlignCommand>();
  CLI::App* align_cmd = bench->add_subcommand(
      "align",
      "Smith-Waterman protein database search (BLOSUM62, gaps 11/1) in GCUPS beside parasail on all host cores: "
      "the first 750 / 5,000 / 20,000 sequences of the mmseqs2 example database and a shuffled database of real "
      "sequences, queries of about 144 to 5,478 residues (whole search per query: scores, top-k, tracebacks), "
      "and a peak table on pseudo-databases of one million sequences of one length. The engine is cuda where "
      "usable, else cpu (--backend picks).");
  align_cmd->add_option("--data", align->options.data_dir,
                        "Folder with DB.fasta.gz and QUERY.fasta.gz (default: $TRELLIS_MMSEQS2_EXAMPLES, else "
                        "/usr/share/doc/mmseqs2/example-data)");
  align_cmd->add_option("--databases", align->options.database_sizes, "Sizes of the mmseqs2 databases (first N)")
      ->delimiter(',')
      ->capture_default_str();
  align_cmd->add_option("--queries", align->options.query_lengths, "Target query lengths")
      ->delimiter(',')
      ->capture_default_str();
  align_cmd
      ->add_option("--shuffled-residues", align->options.shuffled_residues,
                   "Residues of the shuffled database at least (0: none)")
      ->capture_default_str();
  align_cmd->add_option("--peak-count", align->options.peak_count, "Sequences per peak database (0: no peak table)")
      ->capture_default_str();
  align_cmd->add_option("--peak-length", align->options.peak_lengths, "Sequence lengths of the peak databases")
      ->delimiter(',')
      ->capture_default_str();
  align_cmd
      ->add_option("--peak-query-length", align->options.peak_query_length,
                   "Query length for the peak table (0: as long as the subjects)")
      ->capture_default_str();
  align_cmd->add_option("--seed", align->options.seed, "Seed of the shuffled and random databases")
      ->capture_default_str();
  align_cmd->add_option("--repeats", align->options.repeats, "Timed engine runs per row after one warm-up")
      ->capture_default_str();
  align_cmd
      ->add_option("--parasail-max-cells", align->options.parasail_max_cells,
                   "Rows with more cells (query x database residues) skip parasail")
      ->capture_default_str();
  align_cmd->add_option("--top", align->options.top, "Hits ranked and traced back per query")->capture_default_str();
  align_cmd->add_option("--format", align->format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  align_cmd->add_option("-o,--output", align->output, "Write the tables to this file (whole or not at all)");
  align_cmd->callback([align, &globals] { run_align(*align, globals); });

  auto route = std::make_shared<RouteCommand>();
  CLI::App* route_cmd = bench->add_subcommand(
      "route",
      "The autorouter on the PCBench, DAC 2020 and KiCad boards (one row per board and backend: nets routed, "
      "design-rule violations and unconnected nets by the independent check, wire length and vias beside the human "
      "routing, router time beside FreeRouting 1.9.0) and on two synthetic 18-layer, 512-net backplanes. Without "
      "--backend: cpu, and cuda where usable.");
  route_cmd->add_option("--boards", route->options.boards_dir,
                        "Folder with pcbench/, dac2020/ and kicad/ (default: ../shared/boards from the current "
                        "directory)");
  route_cmd
      ->add_option("--only", route->options.only,
                   "Route only boards whose SUITE/NAME (pcbench/..., dac2020/..., kicad/...) contains one of "
                   "these, case-insensitive; the backplanes run either way, alone with --only backplane, and "
                   "one alone with its whole name (e.g. backplane-18L-512nets-taller)")
      ->delimiter(',');
  route_cmd->add_option("--max-iterations", route->options.max_iterations, "PathFinder iterations at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  route_cmd
      ->add_option("--concurrent-nets", route->options.concurrent_nets,
                   "After the first iteration, route this many nets at once against the same copper whatever "
                   "their reaches, unchecked (0: off)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  route_cmd
      ->add_option("--batch-size", route->options.batch_size,
                   "Nets searched together at most (the router's --batch-size)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  route_cmd
      ->add_option("--device-round-min", route->options.device_round_min,
                   "With --backend cuda: rounds of fewer searches run on the host's cores (the router's "
                   "--device-round-min; 0: more than the host's threads)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  route_cmd->add_flag("--nets-apart", route->options.nets_apart,
                      "After the first iteration, batch only nets whose reaches do not overlap (the routes of one "
                      "net after another), not checked batches");
  route_cmd->add_flag("--concurrency-follows-overuse", route->options.concurrency_follows_overuse,
                      "With --concurrent-nets N: one concurrent net for every 8 nodes overused, at most N");
  route_cmd
      ->add_option("--cleanup-passes", route->options.cleanup_passes,
                   "After the negotiation, passes routing each complete net again alone round the others' "
                   "copper, kept where cheaper; 0: none")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  route_cmd->add_flag("--exact-stub-claims", route->options.exact_stub_claims,
                      "Stubs claim only the grid nodes and edges their clearance asks, on every lattice (the "
                      "router's --exact-stub-claims)");
  route_cmd->add_flag("--skip-backplane", route->skip_backplane, "Leave out the synthetic backplanes");
  route_cmd->add_option("--format", route->format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  route_cmd->add_option("-o,--output", route->output, "Write the tables to this file (whole or not at all)");
  route_cmd->callback([route, &globals] { run_route(*route, globals); });
}

}  // namespace trellis::cli
