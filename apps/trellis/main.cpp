// trellis: irregular lattice workloads on GPUs, with a CPU path for every kernel.
// Exit codes: 0 ok, 1 runtime failure, 2 usage or input error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/version.hpp"

int main(int argc, char** argv) {
  using trellis::ExitCode;
  trellis::cli::GlobalOptions globals;
  CLI::App app{"trellis: shortest paths, PCB routing, Smith-Waterman search and finite differences on GPUs", "trellis"};
  app.set_version_flag("--version", std::string("trellis ") + trellis::kVersion);
  app.add_option("--backend", globals.backend,
                 "Backend to run: auto (cuda if a device is usable, else cpu), "
                 "reference, cpu, cuda or vulkan (the kernels docs/vulkan.md lists)")
      ->check(CLI::IsMember({"auto", "automatic", "reference", "ref", "cpu", "cuda", "vulkan"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", globals.quiet, "No progress output on stderr");
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand

  trellis::cli::add_info_command(app, globals);
  trellis::cli::add_bench_command(app, globals);
  trellis::cli::add_demo_command(app, globals);
  trellis::cli::add_graph_command(app, globals);
  trellis::cli::add_sssp_command(app, globals);
  trellis::cli::add_drc_command(app, globals);
  trellis::cli::add_route_command(app, globals);
  trellis::cli::add_grid_command(app, globals);
  trellis::cli::add_align_command(app, globals);
  trellis::cli::add_kicad_plugin_command(app, globals);

  // CLI11 would only say "a subcommand is required"; name the unknown word.
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--backend") {
      ++i;
      continue;
    }
    if (word.starts_with("-")) continue;
    auto known = app.get_subcommands([&](CLI::App* sub) { return sub->check_name(word); });
    if (known.empty()) {
      std::fprintf(stderr, "trellis: error: unknown command '%s' (run trellis --help for the list)\n", word.c_str());
      return static_cast<int>(ExitCode::usage_or_input);
    }
    break;
  }

  app.parse_complete_callback([&] { trellis::Progress::set_quiet(globals.quiet); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);  // prints help, version or the parse error
    return code == 0 ? static_cast<int>(ExitCode::ok) : static_cast<int>(ExitCode::usage_or_input);
  } catch (const trellis::cli::ExitWithoutMessage& quiet) {
    return quiet.code;
  } catch (const std::exception& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "trellis: error: %s\n", error.what());
    return static_cast<int>(trellis::exit_code_for(error));
  }
  return static_cast<int>(ExitCode::ok);
}
