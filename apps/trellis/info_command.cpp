// `trellis info`: version, backends compiled in and usable, devices found.
#include <fmt/format.h>
#include <omp.h>

#include "commands.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/vulkan.hpp"
#include "trellis/core/version.hpp"

namespace trellis::cli {

void print_info() {
  fmt::print("trellis {}\n", kVersion);
  fmt::print("backends compiled in: reference, cpu{}{}\n", cuda_compiled() ? ", cuda" : "",
             vulkan_compiled() ? ", vulkan" : "");
  std::string usable;
  for (Backend b : available_backends()) usable += (usable.empty() ? "" : ", ") + std::string(to_string(b));
  fmt::print("backends usable now:  {}\n", usable);
  fmt::print("automatic backend:    {}\n", to_string(resolve(Backend::automatic)));
  fmt::print("cpu threads (OpenMP): {}\n", omp_get_max_threads());
  std::string reason;
  auto devices = list_devices(&reason);
  if (devices.empty()) {
    fmt::print("CUDA devices:         none ({})\n", reason);
  } else {
    fmt::print("CUDA devices:         {}\n", devices.size());
  }
  for (const DeviceInfo& d : devices) {
    fmt::print(
        "  [{}] {}: compute capability {}.{}, {} SMs, {} MiB memory ({} MiB free), {} MiB L2, "
        "{} KiB shared memory per block\n",
        d.index, d.name, d.compute_major, d.compute_minor, d.multiprocessors, d.total_memory >> 20, d.free_memory >> 20,
        d.l2_cache >> 20, d.shared_memory_per_block_optin >> 10);
  }
  auto vulkan_devices = list_vulkan_devices(&reason);
  if (vulkan_devices.empty()) {
    fmt::print("Vulkan devices:       none ({})\n", reason);
  } else {
    fmt::print("Vulkan devices:       {} (the vulkan backend runs on [0]; TRELLIS_VULKAN_DEVICE picks another)\n",
               vulkan_devices.size());
  }
  for (const VulkanDeviceInfo& d : vulkan_devices) {
    fmt::print("  [{}] {} ({}): Vulkan {}, subgroup size {}, {} KiB shared memory, fp64 {}{}\n", d.index, d.name,
               d.type, d.api_version, d.subgroup_size, d.shared_memory >> 10, d.float64 ? "yes" : "no",
               d.driver.empty() ? "" : ", driver " + d.driver);
    if (!d.memory.empty()) fmt::print("      memory: {}\n", d.memory);
  }
}

void add_info_command(CLI::App& app, const GlobalOptions&) {
  CLI::App* info = app.add_subcommand("info", "Show the version, the backends compiled in and the devices found");
  info->callback([] { print_info(); });
}

}  // namespace trellis::cli
