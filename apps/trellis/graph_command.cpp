// `trellis graph ...`: make graphs (routing lattices, presets, random graphs)
// and summarise graph files.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/table.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/io.hpp"

namespace trellis::cli {
namespace {

using graph::Graph;
using graph::GraphStats;
using graph::LatticeSpec;

struct GenCommand {
  std::string preset;
  LatticeSpec lattice;
  int rmat_scale = 0;
  int edge_factor = 16;
  graph::NodeId geometric_nodes = 0;
  double radius = 0;
  std::uint64_t seed = 1;
  std::string output;
  bool list_presets = false;

  // Which options were given, to tell the generators apart.
  CLI::Option* preset_option = nullptr;
  std::vector<CLI::Option*> lattice_size_options;      // --width --height --layers
  std::vector<CLI::Option*> lattice_modifier_options;  // costs, directions, vias, obstacles
  CLI::Option* rmat_option = nullptr;
  CLI::Option* edge_factor_option = nullptr;
  CLI::Option* geometric_option = nullptr;
  CLI::Option* radius_option = nullptr;
  CLI::Option* seed_option = nullptr;
  CLI::Option* output_option = nullptr;
};

bool given(const CLI::Option* option) { return option->count() > 0; }

std::string given_names(const std::vector<CLI::Option*>& options) {
  std::string names;
  for (const CLI::Option* option : options) {
    if (given(option)) names += (names.empty() ? "" : " ") + option->get_name();
  }
  return names;
}

void print_presets() {
  Table table({"name", "layers", "width", "height", "nodes", "edges", "description"});
  for (const graph::LatticePreset& preset : graph::lattice_presets()) {
    const LatticeSpec& spec = preset.spec;
    table.add_row({preset.name, std::int64_t{spec.layers}, std::int64_t{spec.width}, std::int64_t{spec.height},
                   spec.node_count(), graph::lattice_edge_count(spec), preset.description});
  }
  fmt::print("{}", table.to_markdown());
}

// Applies the lattice options the user gave on top of spec (a preset's or
// the defaults), so a preset can take obstacles or other costs.
LatticeSpec lattice_from_options(const GenCommand& command, LatticeSpec spec) {
  const LatticeSpec& given_spec = command.lattice;
  for (const CLI::Option* option : command.lattice_size_options) {
    if (!given(option)) continue;
    const std::string& name = option->get_name();
    if (name == "--width") spec.width = given_spec.width;
    if (name == "--height") spec.height = given_spec.height;
    if (name == "--layers") spec.layers = given_spec.layers;
  }
  for (const CLI::Option* option : command.lattice_modifier_options) {
    if (!given(option)) continue;
    const std::string& name = option->get_name();
    if (name == "--track-cost") spec.track_cost = given_spec.track_cost;
    if (name == "--via-cost") spec.via_cost = given_spec.via_cost;
    if (name == "--both-directions") spec.both_directions = true;
    if (name == "--any-layer-vias") spec.any_layer_vias = true;
    if (name == "--obstacles") spec.obstacle_fraction = given_spec.obstacle_fraction;
  }
  if (given(command.seed_option)) spec.seed = command.seed;
  return spec;
}

void run_gen(const GenCommand& command) {
  const bool lattice_sized = !given_names(command.lattice_size_options).empty();
  std::vector<std::string> generators;
  if (given(command.preset_option)) generators.push_back("--preset");
  if (lattice_sized) generators.push_back("--width/--height/--layers");
  if (given(command.rmat_option)) generators.push_back("--rmat");
  if (given(command.geometric_option)) generators.push_back("--geometric");

  if (command.list_presets) {
    if (!generators.empty() || given(command.output_option)) {
      throw UsageError("--list-presets only prints the presets; give it no generator and no -o");
    }
    print_presets();
    return;
  }
  if (generators.empty()) {
    throw UsageError(
        "graph gen needs a generator: --preset NAME, --width W --height H --layers L, --rmat SCALE or "
        "--geometric N --radius R (--list-presets shows the presets)");
  }
  if (generators.size() > 1) {
    throw UsageError(fmt::format("graph gen takes one generator, not {} and {}", generators[0], generators[1]));
  }
  const std::string modifiers = given_names(command.lattice_modifier_options);
  const bool is_lattice = given(command.preset_option) || lattice_sized;
  if (!modifiers.empty() && !is_lattice) {
    throw UsageError(fmt::format("{} only applies to lattices (--preset or --width/--height/--layers), not {}",
                                 modifiers, generators[0]));
  }
  if (given(command.edge_factor_option) && !given(command.rmat_option)) {
    throw UsageError("--edge-factor only applies to --rmat");
  }
  if (given(command.radius_option) && !given(command.geometric_option)) {
    throw UsageError("--radius only applies to --geometric");
  }
  if (given(command.geometric_option) && !given(command.radius_option)) {
    throw UsageError("--geometric N needs --radius R (points closer than R are joined)");
  }
  if (lattice_sized) {
    for (const CLI::Option* option : command.lattice_size_options) {
      if (!given(option)) {
        throw UsageError(
            fmt::format("a lattice needs --width, --height and --layers; {} is missing", option->get_name()));
      }
    }
  }
  if (!given(command.output_option)) throw UsageError("graph gen needs -o FILE.gr, the file to write");
  const std::filesystem::path output = command.output;
  if (output.extension() != ".gr") {
    throw UsageError(fmt::format("graph gen writes DIMACS: -o must name a .gr file (got '{}')", command.output));
  }

  SteadyTimer timer;
  Graph generated;
  std::string what;
  if (given(command.preset_option)) {
    const graph::LatticePreset& preset = graph::lattice_preset(command.preset);
    generated = graph::routing_lattice(lattice_from_options(command, preset.spec));
    what = fmt::format("preset {}", preset.name);
  } else if (lattice_sized) {
    const LatticeSpec spec = lattice_from_options(command, LatticeSpec{});
    generated = graph::routing_lattice(spec);
    what = fmt::format("{} x {} x {} lattice", spec.width, spec.height, spec.layers);
  } else if (given(command.rmat_option)) {
    generated = graph::rmat_graph(command.rmat_scale, command.edge_factor, command.seed);
    what = fmt::format("R-MAT scale {}, edge factor {}", command.rmat_scale, command.edge_factor);
  } else {
    generated = graph::random_geometric_graph(command.geometric_nodes, command.radius, command.seed);
    what = fmt::format("random geometric graph, radius {}", command.radius);
  }
  const double generate_ms = timer.elapsed_ms();
  timer.restart();
  graph::write_dimacs_file(generated, output);
  const double write_ms = timer.elapsed_ms();
  fmt::print("{}: {} nodes, {} edges (generated in {:.2f} s), written to {} in {:.2f} s\n", what,
             generated.node_count(), generated.edge_count(), generate_ms / 1000, command.output, write_ms / 1000);
}

std::string format_name(graph::GraphFormat format) {
  switch (format) {
    case graph::GraphFormat::dimacs:
      return "DIMACS";
    case graph::GraphFormat::matrix_market:
      return "Matrix Market";
    case graph::GraphFormat::edge_list:
      return "edge list";
    case graph::GraphFormat::weighted_edge_list:
      return "weighted edge list";
  }
  return "unknown";
}

// Histogram rows for people: every degree when there are few, else
// power-of-two bins (0, 1, 2-3, 4-7, ...) so a hub does not print 10^5 lines.
struct DegreeBin {
  std::int64_t low;
  std::int64_t high;
  std::int64_t nodes;
};

std::vector<DegreeBin> degree_bins(const std::vector<std::int64_t>& histogram) {
  constexpr std::size_t kMostSingleDegrees = 33;
  std::vector<DegreeBin> bins;
  if (histogram.size() <= kMostSingleDegrees) {
    for (std::size_t d = 0; d < histogram.size(); ++d) {
      if (histogram[d] > 0) bins.push_back({std::int64_t(d), std::int64_t(d), histogram[d]});
    }
    return bins;
  }
  for (std::int64_t low = 0; low < std::int64_t(histogram.size()); low = low == 0 ? 1 : low * 2) {
    const std::int64_t high = std::min<std::int64_t>(low == 0 ? 0 : low * 2 - 1, std::int64_t(histogram.size()) - 1);
    std::int64_t nodes = 0;
    for (std::int64_t d = low; d <= high; ++d) nodes += histogram[static_cast<std::size_t>(d)];
    if (nodes > 0) bins.push_back({low, high, nodes});
  }
  return bins;
}

void print_stats_text(const std::string& file, graph::GraphFormat format, const GraphStats& stats) {
  fmt::print("file:              {} ({})\n", file, format_name(format));
  fmt::print("nodes:             {}\n", stats.nodes);
  fmt::print("edges:             {}\n", stats.edges);
  fmt::print("self-loops:        {}\n", stats.self_loops);
  fmt::print("zero-weight edges: {}\n", stats.zero_weight_edges);
  fmt::print("isolated nodes:    {}\n", stats.isolated_nodes);
  fmt::print("out-degree:        min {}, mean {:.3f}, max {}\n", stats.min_out_degree, stats.mean_out_degree,
             stats.max_out_degree);
  fmt::print("weight:            min {}, max {}\n", stats.min_weight, stats.max_weight);
  if (stats.nodes == 0) return;
  fmt::print("out-degree histogram:\n");
  Table table({"out-degree", "nodes", "share"});
  for (const DegreeBin& bin : degree_bins(stats.out_degree_histogram)) {
    const std::string degrees =
        bin.low == bin.high ? fmt::format("{}", bin.low) : fmt::format("{}-{}", bin.low, bin.high);
    table.add_row({degrees, bin.nodes, number(100.0 * double(bin.nodes) / double(stats.nodes), 2)});
  }
  fmt::print("{}", table.to_markdown());
}

void print_stats_json(const std::string& file, graph::GraphFormat format, const GraphStats& stats) {
  nlohmann::json histogram = nlohmann::json::array();
  for (std::size_t d = 0; d < stats.out_degree_histogram.size(); ++d) {
    if (stats.out_degree_histogram[d] > 0) {
      histogram.push_back({{"degree", d}, {"nodes", stats.out_degree_histogram[d]}});
    }
  }
  const nlohmann::json report = {
      {"file", file},
      {"format", format_name(format)},
      {"nodes", stats.nodes},
      {"edges", stats.edges},
      {"self_loops", stats.self_loops},
      {"zero_weight_edges", stats.zero_weight_edges},
      {"isolated_nodes", stats.isolated_nodes},
      {"out_degree",
       {{"min", stats.min_out_degree},
        {"mean", stats.mean_out_degree},
        {"max", stats.max_out_degree},
        {"histogram", histogram}}},
      {"weight", {{"min", stats.min_weight}, {"max", stats.max_weight}}},
  };
  fmt::print("{}\n", report.dump(2));
}

}  // namespace

void add_graph_command(CLI::App& app, const GlobalOptions&) {
  CLI::App* graph_app = app.add_subcommand("graph",
                                           "Make graphs (routing lattices, presets, random graphs) and "
                                           "summarise graph files");
  graph_app->require_subcommand(1);

  auto gen = std::make_shared<GenCommand>();
  CLI::App* gen_app = graph_app->add_subcommand(
      "gen",
      "Generate a graph and write it as DIMACS .gr. Choose one generator: --preset NAME, a lattice "
      "(--width W --height H --layers L), --rmat SCALE or --geometric N --radius R. The lattice options "
      "(--track-cost, --via-cost, --both-directions, --any-layer-vias, --obstacles) also modify a preset.");
  gen->preset_option =
      gen_app->add_option("--preset", gen->preset, "A named lattice (see --list-presets)")->type_name("NAME");
  gen->lattice_size_options = {
      gen_app->add_option("--width", gen->lattice.width, "Lattice nodes along x")->type_name("W"),
      gen_app->add_option("--height", gen->lattice.height, "Lattice nodes along y")->type_name("H"),
      gen_app
          ->add_option("--layers", gen->lattice.layers,
                       "Lattice layers (even layers route horizontally, odd ones vertically)")
          ->type_name("L"),
  };
  gen->lattice_modifier_options = {
      gen_app->add_option("--track-cost", gen->lattice.track_cost, "Weight of one step along a layer")
          ->capture_default_str(),
      gen_app->add_option("--via-cost", gen->lattice.via_cost, "Weight of a via, per layer crossed")
          ->capture_default_str(),
      gen_app->add_flag("--both-directions", gen->lattice.both_directions,
                        "Tracks in both directions on every layer, not only the preferred one"),
      gen_app->add_flag("--any-layer-vias", gen->lattice.any_layer_vias,
                        "Vias between any two layers (blind and buried), not only adjacent ones"),
      gen_app
          ->add_option("--obstacles", gen->lattice.obstacle_fraction,
                       "Fraction of nodes, in [0, 1), removed with their edges ((0,0) and "
                       "(width-1,height-1) stay free on every layer)")
          ->type_name("F"),
  };
  gen->rmat_option =
      gen_app->add_option("--rmat", gen->rmat_scale, "R-MAT graph with 2^SCALE nodes")->type_name("SCALE");
  gen->edge_factor_option =
      gen_app->add_option("--edge-factor", gen->edge_factor, "R-MAT edges per node")->capture_default_str();
  gen->geometric_option =
      gen_app->add_option("--geometric", gen->geometric_nodes, "Random geometric graph of N points in the unit square")
          ->type_name("N");
  gen->radius_option =
      gen_app->add_option("--radius", gen->radius, "Join geometric points closer than R")->type_name("R");
  gen->seed_option =
      gen_app->add_option("--seed", gen->seed, "Seed for obstacles and random graphs")->capture_default_str();
  gen->output_option = gen_app->add_option("-o,--output", gen->output, "The .gr file to write (whole or not at all)")
                           ->type_name("FILE.gr");
  gen_app->add_flag("--list-presets", gen->list_presets, "Print the presets (name, size, nodes, edges) and exit");
  gen_app->callback([gen] { run_gen(*gen); });

  auto stats_file = std::make_shared<std::string>();
  auto stats_json = std::make_shared<bool>(false);
  CLI::App* stats_app = graph_app->add_subcommand(
      "stats",
      "Summarise a graph file (.gr, .mtx, .el, .wel): nodes, edges, self-loops, zero weights, isolated "
      "nodes, out-degrees and their histogram, weights");
  stats_app->add_option("FILE", *stats_file, "The graph file")->required();
  stats_app->add_flag("--json", *stats_json, "Print JSON for scripts");
  stats_app->callback([stats_file, stats_json] {
    const graph::GraphFile file = graph::read_graph_file(*stats_file);
    const GraphStats stats = graph::graph_stats(file.graph);
    if (*stats_json) {
      print_stats_json(*stats_file, file.format, stats);
    } else {
      print_stats_text(*stats_file, file.format, stats);
    }
  });
}

}  // namespace trellis::cli
