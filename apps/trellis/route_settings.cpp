// The router's options from the CLI's settings (route_settings.hpp).
#include "route_settings.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trellis/core/error.hpp"

namespace trellis::cli {

route::RouterOptions router_options(const RouteSettings& settings, Backend backend) {
  const auto at_least = [](const char* name, double value, double least) {
    if (!(value >= least)) throw UsageError(fmt::format("{} must be at least {}, got {}", name, least, value));
  };
  at_least("max iterations", settings.max_iterations, 1);
  at_least("batch size", settings.batch_size, 1);
  at_least("concurrent nets", settings.concurrent_nets, 0);
  at_least("overuse per concurrent net", settings.overuse_per_concurrent_net, 1);
  at_least("cleanup passes", settings.cleanup_passes, 0);
  if (settings.corners != 45 && settings.corners != 90) {
    throw UsageError(fmt::format("corners must be 45 or 90, got {}", settings.corners));
  }
  if (settings.directions != "board" && settings.directions != "alternate" && settings.directions != "none") {
    throw UsageError(fmt::format("directions must be board, alternate or none, got '{}'", settings.directions));
  }
  route::RouterOptions options;
  options.backend = backend;
  options.max_iterations = settings.max_iterations;
  options.via_cost = settings.via_cost;
  options.miter_corners = settings.corners == 45;
  options.layer_directions = settings.directions == "alternate" ? route::LayerDirections::alternate
                             : settings.directions == "none"    ? route::LayerDirections::none
                                                                : route::LayerDirections::from_board;
  options.against_direction_cost = settings.against_cost;
  options.pour_cost = settings.pour_cost;
  options.present_factor_growth = settings.present_factor_growth;
  options.history_factor = settings.history_factor;
  options.concurrent_nets = settings.concurrent_nets;
  options.batch_size = settings.batch_size;
  options.checked_batches = !settings.nets_apart;
  options.device_round_min = settings.device_round_min;
  options.concurrency_follows_overuse = settings.concurrency_follows_overuse;
  options.overuse_per_concurrent_net = settings.overuse_per_concurrent_net;
  options.cleanup_passes = settings.cleanup_passes;
  options.cleanup_via_cost = settings.cleanup_via_cost;
  options.exact_stub_claims = settings.exact_stub_claims;
  options.nets = settings.nets;
  if (settings.neck_down_width_mm >= 0 || std::isnan(settings.neck_down_width_mm)) {
    if (!(settings.neck_down_width_mm <= 100)) {
      throw UsageError(fmt::format("neck-down width must be a number of millimetres from 0 to 100, got {}",
                                   settings.neck_down_width_mm));
    }
    options.neck_down_width = static_cast<route::Coord>(
        std::llround(settings.neck_down_width_mm * static_cast<double>(route::kNanometresPerMillimetre)));
  }
  if (settings.pitch_mm != 0) {
    if (!(settings.pitch_mm > 0) || settings.pitch_mm > 100) {
      throw UsageError(
          fmt::format("pitch must be a positive number of millimetres up to 100, got {}", settings.pitch_mm));
    }
    options.pitch = static_cast<route::Coord>(
        std::llround(settings.pitch_mm * static_cast<double>(route::kNanometresPerMillimetre)));
  }
  return options;
}

}  // namespace trellis::cli
