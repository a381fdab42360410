// The statistic every benchmark table reports: the median of repeated runs.
#pragma once

#include <algorithm>
#include <vector>

namespace trellis::bench {

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace trellis::bench
