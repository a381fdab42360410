// What the device benchmarks share: the copy bandwidth they are measured
// against, and the median of repeated CUDA-event timings after warm-up.
#pragma once

#include <vector>

#include "median.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::bench {

// Measured device-to-device copy bandwidth of the H200 (read + write), the
// ceiling a memory-bound kernel is compared with.
inline constexpr double kCopyBandwidthGBs = 4254.0;

// Runs run() `warmups` times, then times `repeats` runs with CUDA events;
// after_each() follows every timed run (progress). Returns the median, ms.
template <typename Run, typename AfterEach>
double median_device_ms(int warmups, int repeats, Run&& run, AfterEach&& after_each) {
  EventTimer timer;
  for (int r = 0; r < warmups; ++r) run();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    run();
    timer.stop();
    times.push_back(timer.elapsed_ms());
    after_each();
  }
  return median(times);
}

template <typename Run>
double median_device_ms(int warmups, int repeats, Run&& run) {
  return median_device_ms(warmups, repeats, run, [] {});
}

}  // namespace trellis::bench
