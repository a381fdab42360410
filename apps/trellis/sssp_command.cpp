// `trellis sssp GRAPH --source S [--target T] ...`: shortest paths from the
// command line. Node ids follow the file format's numbering (1-based for .gr
// and .mtx, 0-based for .el and .wel), on the command line and in the output.
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/graph/io.hpp"
#include "trellis/graph/sssp.hpp"

namespace trellis::cli {
namespace {

using graph::NodeId;
using graph::Weight;

struct SsspCommand {
  std::string graph_path;
  std::vector<std::int64_t> sources;
  std::int64_t target = 0;
  CLI::Option* target_option = nullptr;
  std::string algorithm = "auto";
  float delta = 0;
  std::string output;
  bool path = false;
  bool binary = false;
};

// Shortest decimal form that reads back to the same float; "inf" if unreached.
std::string format_distance(Weight d) {
  if (d == graph::kUnreachable) return "inf";
  char buffer[32];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, d);
  return std::string(buffer, end);
}

NodeId internal_id(std::int64_t external, int base, NodeId nodes, const char* what) {
  const std::int64_t id = external - base;
  if (id < 0 || id >= nodes) {
    throw UsageError(fmt::format("{} {} is not a node of this graph (ids {}..{})", what, external, base,
                                 static_cast<std::int64_t>(nodes) - 1 + base));
  }
  return static_cast<NodeId>(id);
}

void write_text(std::ostream& out, const graph::SsspResult& result, int base, const SsspCommand& command,
                NodeId target) {
  if (command.target_option->count() > 0) {
    out << (target + base) << ' ' << format_distance(result.distance[target]) << '\n';
    if (command.path) {
      std::vector<NodeId> path = graph::path_to(result, target);
      out << "path";
      for (NodeId v : path) out << ' ' << (v + base);
      out << '\n';
    }
    return;
  }
  std::string line;
  for (std::size_t v = 0; v < result.distance.size(); ++v) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{} {}\n", static_cast<std::int64_t>(v) + base,
                   format_distance(result.distance[v]));
    out << line;
  }
}

void run(const SsspCommand& command, const GlobalOptions& globals) {
  if (command.path && command.target_option->count() == 0) throw UsageError("--path needs --target");
  if (command.binary && command.output.empty()) throw UsageError("--binary needs --out FILE");
  graph::SsspOptions options;
  options.backend = globals.requested_backend();
  options.algorithm = graph::parse_sssp_algorithm(command.algorithm);
  options.delta = command.delta;
  options.parents = command.path;

  SteadyTimer load_timer;
  graph::GraphFile file = graph::read_graph_file(command.graph_path);
  const double load_ms = load_timer.elapsed_ms();
  const int base = graph::id_base(file.format);
  const NodeId nodes = file.graph.node_count();
  graph::SsspQuery query;
  for (std::int64_t s : command.sources) query.sources.push_back(internal_id(s, base, nodes, "source"));
  NodeId target = -1;
  if (command.target_option->count() > 0) target = internal_id(command.target, base, nodes, "target");
  query.target = target;

  graph::ShortestPaths engine(file.graph, options);
  graph::SsspResult result = engine.run(query);

  if (command.binary) {
    AtomicOutputFile out(command.output, /*binary=*/true);
    out.stream().write(reinterpret_cast<const char*>(result.distance.data()),
                       static_cast<std::streamsize>(result.distance.size() * sizeof(Weight)));
    out.commit();
  } else if (command.output.empty()) {
    std::ostringstream text;
    write_text(text, result, base, command, target);
    std::fputs(text.str().c_str(), stdout);
  } else {
    AtomicOutputFile out(command.output);
    write_text(out.stream(), result, base, command, target);
    out.commit();
  }

  if (!globals.quiet) {
    std::fprintf(stderr, "%s\n",
                 fmt::format("{} nodes, {} edges (read in {:.1f} ms); {} on {}: {:.3f} ms, {} edge relaxations, "
                             "{} nodes reached",
                             nodes, file.graph.edge_count(), load_ms, graph::to_string(result.algorithm),
                             to_string(result.backend), result.solve_ms, result.edges_relaxed, result.reached)
                     .c_str());
    if (target >= 0 && result.distance[target] == graph::kUnreachable) {
      std::fprintf(stderr, "target %lld is unreachable from the source(s)\n", static_cast<long long>(command.target));
    }
  }
}

}  // namespace

void add_sssp_command(CLI::App& app, const GlobalOptions& globals) {
  auto command = std::make_shared<SsspCommand>();
  CLI::App* sssp = app.add_subcommand(
      "sssp",
      "Shortest paths from one or more sources (.gr, .mtx, .el, .wel). Prints one line 'id distance' per node "
      "('inf' when unreachable), or with --target the target's line (and its path with --path). Ids follow the "
      "file format: 1-based for .gr and .mtx, 0-based for .el and .wel.");
  sssp->add_option("graph", command->graph_path, "Graph file")->required();
  sssp->add_option("-s,--source", command->sources, "Source node (repeat --source for a multi-source search)")
      ->required()
      ->allow_extra_args(false);  // one id per --source, so the graph may follow it
  command->target_option =
      sssp->add_option("-t,--target", command->target, "Stop once this node is settled and report it");
  sssp->add_option("--algorithm", command->algorithm,
                   "auto, dijkstra (reference), delta-stepping (cpu, cuda), bellman-ford (cuda, vulkan) or spfa (cuda)")
      ->capture_default_str();
  sssp->add_option("--delta", command->delta, "Delta-stepping bucket width (0: from the weights)")
      ->capture_default_str();
  sssp->add_option("-o,--out", command->output, "Write the result here (whole or not at all) instead of stdout");
  sssp->add_flag("--path", command->path, "With --target: also print the path, by the parity rule");
  sssp->add_flag("--binary", command->binary,
                 "With --out: write the distances as raw little-endian float32, one per node in id order "
                 "(inf when unreachable)");
  sssp->callback([command, &globals] { run(*command, globals); });
}

}  // namespace trellis::cli
