// `trellis demo`: a short tour of what this build can do on this machine.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "route_report.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/table.hpp"
#include "spmv_benchmark.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/sssp.hpp"
#include "trellis/align/hit_output.hpp"
#include "trellis/align/search.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/kicad.hpp"
#include "trellis/route/render.hpp"
#include "trellis/route/router.hpp"
#include "trellis/route/session.hpp"

namespace trellis::cli {

namespace {

// pic_programmer from kicad-demos with its tracks taken out, routed again and
// checked; the board without tracks (and its project), the routed board, a
// picture and the report go into `out_dir`.
void route_demo_board(const std::filesystem::path& out_dir, Backend backend) {
  namespace fs = std::filesystem;
  const fs::path demo = "/usr/share/kicad/demos/pic_programmer";
  const fs::path board_file = demo / "pic_programmer.kicad_pcb";
  if (!fs::exists(board_file)) {
    fmt::print("\nAutorouting skipped: no {} (Debian package kicad-demos)\n", board_file.string());
    return;
  }
  const route::Board human = route::read_kicad_pcb(board_file);
  route::Coord human_wire = 0;
  for (const route::Wire& wire : human.wires) {
    const std::vector<route::Point>& p = wire.shape.points;
    for (std::size_t i = 1; i < p.size(); ++i) {
      const double dx = static_cast<double>(p[i].x - p[i - 1].x);
      const double dy = static_cast<double>(p[i].y - p[i - 1].y);
      human_wire += static_cast<route::Coord>(std::hypot(dx, dy));
    }
  }
  fs::create_directories(out_dir);
  const fs::path unrouted = out_dir / "pic_programmer.kicad_pcb";
  const fs::path routed_file = out_dir / "pic_programmer.routed.kicad_pcb";
  route::write_kicad_pcb_without_tracks(board_file, unrouted);
  // The project beside each board, so that KiCad and trellis read them with its rules.
  for (const fs::path& beside : {unrouted, routed_file}) {
    fs::copy_file(demo / "pic_programmer.kicad_pro", fs::path(beside).replace_extension(".kicad_pro"),
                  fs::copy_options::overwrite_existing);
  }
  const route::Board board = route::read_kicad_pcb(unrouted);
  route::RouterOptions options;
  options.backend = backend;
  const route::RouteResult routed = route::route_board(board, options);
  const route::RoutedCopper copper = route::with_board_wiring(board, routed.copper);
  const route::DrcReport drc = route::check_design_rules(board, copper);
  route::write_routed_kicad_pcb(unrouted, board, routed.copper, routed_file);
  route::write_svg(board, copper, out_dir / "pic_programmer.svg");
  write_file_atomically(out_dir / "pic_programmer.report.json", route_report_json(board, routed, drc).dump(2) + "\n");
  fmt::print(
      "\nAutorouting {} (kicad-demos) with its tracks taken out, {} backend: {} of {} nets routed in {} "
      "iterations, {:.3f} s; {:.1f} mm of wire (the human routing: {:.1f} mm), {} vias; design-rule check: "
      "{} violations, {} unconnected nets. Written to {}: pic_programmer.kicad_pcb (without tracks), "
      "pic_programmer.routed.kicad_pcb, pic_programmer.svg, pic_programmer.report.json\n",
      board_file.filename().string(), to_string(routed.backend), routed.nets_to_route - routed.unrouted_nets.size(),
      routed.nets_to_route, routed.iterations.size(), routed.seconds, static_cast<double>(routed.wire_length) * 1e-6,
      static_cast<double>(human_wire) * 1e-6, routed.via_count, drc.routing.size(), drc.unconnected.size(),
      out_dir.string());
}

}  // namespace

void add_demo_command(CLI::App& app, const GlobalOptions& globals) {
  auto size = std::make_shared<std::int32_t>(64);
  auto out_dir = std::make_shared<std::string>("trellis-demo");
  CLI::App* demo = app.add_subcommand("demo", "Show this machine's backends and run each workload on a small input");
  demo->add_option("--spmv-size", *size, "Grid points per dimension for the SpMV slice")->capture_default_str();
  demo->add_option("--out-dir", *out_dir, "Folder for the routed demo board, its picture and report")
      ->capture_default_str();
  demo->callback([size, out_dir, &globals] {
    print_info();
    fmt::print("\nSpMV on a {0}^3 7-point Laplacian (y = A x), every backend against the reference:\n\n", *size);
    bench::SpmvBenchmarkOptions options;
    options.size = *size;
    options.repeats = 20;
    options.quiet = globals.quiet;
    Backend backend = globals.requested_backend();
    if (backend != Backend::automatic) options.backends = {backend};
    fmt::print("{}", bench::run_spmv_benchmark(options).to_markdown());

    // The seed's largest routing lattice, corner to corner.
    const graph::LatticePreset& preset = graph::lattice_preset("seed-401k");
    const graph::LatticeSpec& spec = preset.spec;
    const graph::Graph lattice = graph::routing_lattice(spec);
    graph::SsspQuery query{{graph::lattice_node(spec, 0, 0, 0)},
                           graph::lattice_node(spec, spec.width - 1, spec.height - 1, spec.layers - 1),
                           {}};
    graph::SsspOptions sssp_options;
    sssp_options.backend = backend;
    graph::ShortestPaths engine(lattice, sssp_options);
    engine.run(query);  // warm-up
    graph::SsspResult result = engine.run(query);
    fmt::print(
        "\nShortest path corner to corner on {} ({} nodes, {} edges): {} {} took {:.3f} ms; "
        "distance {}, {} nodes on the path, {} edge relaxations\n",
        preset.name, lattice.node_count(), lattice.edge_count(), to_string(result.backend),
        graph::to_string(result.algorithm), result.solve_ms, result.distance[query.target],
        graph::path_to(result, query.target).size(), result.edges_relaxed);

    // Bramble's test problem on refined meshes: second order in the discrete H1 norm.
    grid::ProblemOptions poisson;
    poisson.dim = 3;
    poisson.cells = 8;
    poisson.levels = 4;
    poisson.backend = backend;
    const grid::ConvergenceStudy study = grid::poisson_study(poisson);
    fmt::print("\n-Lap u = f on [0,1]^3 with u = exp(x+y+z), uniform meshes, {} backend, CG with Jacobi:\n\n{}",
               to_string(study.backend), convergence_table(study).to_markdown());
    fmt::print("\nfitted order: normh {:.2f}, H1 {:.2f}\n", study.fitted_order_h, study.fitted_order_h1);

    route_demo_board(*out_dir, backend);

    // Ten UniProt queries against the mmseqs2 example database (20,000 proteins).
    const std::filesystem::path examples = "/usr/share/doc/mmseqs2/example-data";
    if (!std::filesystem::exists(examples / "DB.fasta.gz")) {
      fmt::print("\nSmith-Waterman search skipped: no {} (Debian package mmseqs2-examples)\n",
                 (examples / "DB.fasta.gz").string());
      return;
    }
    const align::SequenceSet database = align::read_fasta_file(examples / "DB.fasta.gz");
    const align::SequenceSet all_queries = align::read_fasta_file(examples / "QUERY.fasta.gz");
    align::SequenceSet queries;
    std::int64_t query_residues = 0;
    for (std::size_t q = 0; q < 10 && q < all_queries.size(); ++q) {
      queries.add(all_queries.id(q), all_queries.description(q), all_queries.residues(q));
      query_residues += all_queries.length(q);
    }
    const align::Scoring scoring(align::builtin_matrix("BLOSUM62"), {11, 1});
    align::SearchOptions search_options;
    search_options.top = 1;
    search_options.backend = backend;
    SteadyTimer timer;
    const auto hits = align::search(queries, database, scoring, search_options);
    const double ms = timer.elapsed_ms();
    fmt::print(
        "\nSmith-Waterman search, BLOSUM62 11/1: 10 queries against the mmseqs2 example database ({} "
        "sequences, {} residues) on the {} backend, best hit per query (BLAST tabular):\n\n",
        database.size(), database.total_residues(), to_string(resolve(backend)));
    std::fflush(stdout);
    align::write_tabular(std::cout, hits, queries, database, align::standard_columns());
    std::cout.flush();
    fmt::print("\n{:.0f} ms, {:.1f} GCUPS\n", ms,
               static_cast<double>(query_residues) * static_cast<double>(database.total_residues()) / (ms * 1e6));
  });
}

}  // namespace trellis::cli
