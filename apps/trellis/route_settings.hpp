// The router's options as `trellis route` names them, shared by the CLI and
// the Python binding so both check and map them the same way.
#pragma once

#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/route/router.hpp"

namespace trellis::cli {

struct RouteSettings {
  int max_iterations = 50;
  double pitch_mm = 0;  // 0: the finest wire width plus clearance
  double via_cost = 10;
  int corners = 45;                  // 45: pull tight and cut corners at 45 degrees; 90: right angles
  std::string directions = "board";  // board, alternate or none
  double against_cost = 2;
  double pour_cost = route::RouterOptions{}.pour_cost;
  double present_factor_growth = route::RouterOptions{}.present_factor_growth;
  double history_factor = route::RouterOptions{}.history_factor;
  int concurrent_nets = 0;
  int batch_size = route::RouterOptions{}.batch_size;
  bool nets_apart = false;  // batches of nets whose reaches are apart, not checked batches
  int device_round_min = route::RouterOptions{}.device_round_min;
  bool concurrency_follows_overuse = false;
  int overuse_per_concurrent_net = 8;
  int cleanup_passes = route::RouterOptions{}.cleanup_passes;
  double cleanup_via_cost = route::RouterOptions{}.cleanup_via_cost;
  bool exact_stub_claims = false;
  double neck_down_width_mm = -1;  // negative: the board's rules; 0: no neck-down
  std::vector<std::string> nets;   // names of the nets to route; empty: every net
};

// Throws UsageError naming the setting for a value out of range.
route::RouterOptions router_options(const RouteSettings& settings, Backend backend);

}  // namespace trellis::cli
