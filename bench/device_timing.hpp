// What the device benchmarks share: the copy bandwidth they are measured
// against, and the median of repeated CUDA-event timings after warm-up.
#pragma once

#include <cstddef>
#include <vector>

#include "median.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/device_array.hpp"
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

// The copy bandwidth of the device in use (read + write, GB/s), measured by
// a device-to-device copy of 512 MiB, for tables run on other devices than
// the one kCopyBandwidthGBs was measured on.
inline double measured_copy_bandwidth_gbs() {
  constexpr std::size_t kBytes = std::size_t{512} << 20;
  DeviceArray<std::byte> from(kBytes), to(kBytes);
  from.fill_zero();
  const double ms = median_device_ms(2, 10, [&] { device::copy_on_device(to.data(), from.data(), kBytes, nullptr); });
  return 2.0 * static_cast<double>(kBytes) / (ms * 1e-3) * 1e-9;
}

}  // namespace trellis::bench
