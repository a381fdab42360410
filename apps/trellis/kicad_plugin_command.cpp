// `trellis kicad-plugin install [--to DIR]`: copies the KiCad action plugin
// "Route with trellis" (kicad/trellis_route) into KiCad's scripting plugin
// folder and links this trellis executable beside it (bin/trellis), where
// the plugin looks for it. Without --to, the folder is
// $HOME/.local/share/kicad/<version>/scripting/plugins for every KiCad
// version that has a folder there (6.0 when none has). The plugin's files
// are found beside the executable (../share/trellis/kicad/trellis_route,
// an installed tree) or in the source tree the executable was built from.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "trellis/core/error.hpp"

#ifndef TRELLIS_SOURCE_DIR
#define TRELLIS_SOURCE_DIR ""
#endif

namespace trellis::cli {
namespace {

namespace fs = std::filesystem;

fs::path plugin_source(const fs::path& executable) {
  const std::vector<fs::path> candidates = {
      executable.parent_path().parent_path() / "share" / "trellis" / "kicad" / "trellis_route",
      fs::path(TRELLIS_SOURCE_DIR) / "kicad" / "trellis_route"};
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate / "routing.py")) return candidate;
  }
  throw Error(fmt::format("the plugin's files were found neither at {} nor at {}", candidates[0].string(),
                          candidates[1].string()));
}

std::vector<fs::path> default_targets() {
  const char* home = std::getenv("HOME");
  if (home == nullptr) throw UsageError("HOME is not set: give the plugin folder with --to");
  const fs::path kicad = fs::path(home) / ".local" / "share" / "kicad";
  std::vector<fs::path> targets;
  if (fs::is_directory(kicad)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(kicad)) {
      if (entry.is_directory()) targets.push_back(entry.path() / "scripting" / "plugins");
    }
  }
  if (targets.empty()) targets.push_back(kicad / "6.0" / "scripting" / "plugins");
  return targets;
}

void install(const std::string& to) {
  const fs::path executable = fs::canonical("/proc/self/exe");
  const fs::path source = plugin_source(executable);
  const std::vector<fs::path> targets = to.empty() ? default_targets() : std::vector<fs::path>{fs::path(to)};
  for (const fs::path& folder : targets) {
    const fs::path plugin = folder / "trellis_route";
    fs::create_directories(plugin / "bin");
    for (const fs::directory_entry& entry : fs::directory_iterator(source)) {
      if (entry.path().extension() == ".py") {
        fs::copy_file(entry.path(), plugin / entry.path().filename(), fs::copy_options::overwrite_existing);
      }
    }
    const fs::path link = plugin / "bin" / "trellis";
    fs::remove(link);
    fs::create_symlink(executable, link);
    fmt::print("installed the KiCad plugin \"Route with trellis\" in {} (trellis: {})\n", plugin.string(),
               executable.string());
  }
}

}  // namespace

void add_kicad_plugin_command(CLI::App& app, const GlobalOptions&) {
  CLI::App* kicad = app.add_subcommand("kicad-plugin", "The KiCad action plugin \"Route with trellis\"");
  kicad->require_subcommand(1);
  auto to = std::make_shared<std::string>();
  CLI::App* command = kicad->add_subcommand(
      "install",
      "Copy the plugin into KiCad's scripting plugin folder (every $HOME/.local/share/kicad/<version>/scripting/"
      "plugins found, else 6.0's) and link this trellis beside it");
  command->add_option("--to", *to, "Install into this plugin folder instead");
  command->callback([to] { install(*to); });
}

}  // namespace trellis::cli
