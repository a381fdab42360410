#include "spmv_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>

#include "device_timing.hpp"
#include "cusparse_spmv.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/spmv.hpp"
#include "trellis/grid/stencil.hpp"
#include "trellis/grid/vulkan_spmv.hpp"

namespace trellis::bench {
namespace {

constexpr int kWarmups = 3;

// Largest |y - y_ref| / sum_j |a_ij x_j| over rows: the error relative to
// what rounding in the row sum can reach.
template <typename T>
double max_relative_error(const CsrMatrix<T>& a, const std::vector<T>& x, const std::vector<T>& y,
                          const std::vector<T>& y_ref) {
  double worst = 0;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    double scale = 0;
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      scale += std::abs(static_cast<double>(a.values[k]) * x[a.col_indices[k]]);
    }
    double diff = std::abs(static_cast<double>(y[row]) - y_ref[row]);
    if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, scale > 0 ? diff / scale : diff);
  }
  return worst;
}

template <typename T>
std::size_t trellis_bytes(const CsrMatrix<T>& a) {
  return static_cast<std::size_t>(a.nnz()) * (sizeof(T) + sizeof(ColumnIndex)) +
         (static_cast<std::size_t>(a.rows) + 1) * sizeof(RowOffset) + static_cast<std::size_t>(a.cols) * sizeof(T) +
         static_cast<std::size_t>(a.rows) * sizeof(T);
}

struct Measurement {
  std::string name;
  double ms;
  std::size_t bytes;
  double error;
};

template <typename T>
void run_precision(const SpmvBenchmarkOptions& options, const std::string& precision, Table& table) {
  const std::int32_t n = options.size;
  CsrMatrix<T> a = grid::laplacian_7point<T>(n, n, n);
  std::vector<T> x(static_cast<std::size_t>(a.cols));
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& value : x) value = static_cast<T>(uniform(rng));

  const int host_repeats = std::max(1, (options.repeats + 9) / 10);
  auto wants = [&](Backend b) {
    return options.backends.empty() ||
           std::find(options.backends.begin(), options.backends.end(), b) != options.backends.end();
  };
  const bool with_cuda = cuda_usable() && wants(Backend::cuda);
  // Only when asked for (--backend vulkan): auto never picks vulkan.
  const bool with_vulkan =
      std::find(options.backends.begin(), options.backends.end(), Backend::vulkan) != options.backends.end();
  std::size_t steps = 1 + (wants(Backend::reference) ? host_repeats - 1 : 0) +
                      (wants(Backend::cpu) ? host_repeats : 0) +
                      (with_cuda ? 2 * static_cast<std::size_t>(options.repeats) : 0) +
                      (with_vulkan ? static_cast<std::size_t>(options.repeats) : 0);
  Progress progress(fmt::format("spmv {} {}^3", precision, n), steps, options.quiet);

  // The reference result is the truth every other row is checked against.
  std::vector<T> y_ref(static_cast<std::size_t>(a.rows));
  std::vector<double> times;
  for (int r = 0; r < (wants(Backend::reference) ? host_repeats : 1); ++r) {
    SteadyTimer timer;
    grid::spmv<T>(T(1), a, x, T(0), y_ref, Backend::reference);
    times.push_back(timer.elapsed_ms());
    progress.advance();
  }
  std::vector<Measurement> rows;
  if (wants(Backend::reference)) rows.push_back({"reference", median(times), trellis_bytes(a), 0.0});

  if (wants(Backend::cpu)) {
    std::vector<T> y(static_cast<std::size_t>(a.rows));
    times.clear();
    for (int r = 0; r < host_repeats; ++r) {
      SteadyTimer timer;
      grid::spmv<T>(T(1), a, x, T(0), y, Backend::cpu);
      times.push_back(timer.elapsed_ms());
      progress.advance();
    }
    rows.push_back({"cpu", median(times), trellis_bytes(a), max_relative_error(a, x, y, y_ref)});
  }

  if (with_cuda) {
    DeviceCsr<T> device_a(a);
    auto device_x = DeviceArray<T>::from_host(x);
    DeviceArray<T> device_y(static_cast<std::size_t>(a.rows));
    EventTimer timer;
    for (int r = 0; r < kWarmups; ++r) grid::spmv<T>(T(1), device_a, device_x, T(0), device_y);
    times.clear();
    for (int r = 0; r < options.repeats; ++r) {
      timer.start();
      grid::spmv<T>(T(1), device_a, device_x, T(0), device_y);
      timer.stop();
      times.push_back(timer.elapsed_ms());
      progress.advance();
    }
    rows.push_back({"cuda", median(times), trellis_bytes(a), max_relative_error(a, x, device_y.to_host(), y_ref)});
  }

  if (with_vulkan) {
    // Resident matrix and vectors: each timed product is one submission
    // (recorded, submitted, waited for), host wall clock.
    grid::VulkanSpmv<T> device_a(a);
    device_a.set_x(x);
    for (int r = 0; r < kWarmups; ++r) device_a.run(T(1), T(0));
    times.clear();
    for (int r = 0; r < options.repeats; ++r) {
      SteadyTimer timer;
      device_a.run(T(1), T(0));
      times.push_back(timer.elapsed_ms());
      progress.advance();
    }
    std::vector<T> y(static_cast<std::size_t>(a.rows));
    device_a.get_y(y);
    rows.push_back({"vulkan", median(times), trellis_bytes(a), max_relative_error(a, x, y, y_ref)});
  }

  if (with_cuda && cusparse_available()) {
    CusparseSpmv<T> anchor(a, x);
    for (int r = 0; r < kWarmups; ++r) anchor.run_ms();
    times.clear();
    for (int r = 0; r < options.repeats; ++r) {
      times.push_back(anchor.run_ms());
      progress.advance();
    }
    rows.push_back({anchor.uses_32bit_offsets() ? "cuSPARSE (32-bit offsets)" : "cuSPARSE (64-bit indices)",
                    median(times), anchor.bytes_moved(), max_relative_error(a, x, anchor.result(), y_ref)});
  }
  progress.finish();

  for (const Measurement& m : rows) {
    const double seconds = m.ms * 1e-3;
    const double gbs = static_cast<double>(m.bytes) / seconds * 1e-9;
    table.add_row({m.name, precision, fmt::format("{}^3", n), static_cast<std::int64_t>(a.nnz()), number(m.ms, 3),
                   number(2.0 * static_cast<double>(a.nnz()) / seconds * 1e-9, 1), number(gbs, 0),
                   number(100.0 * gbs / kCopyBandwidthGBs, 1), scientific(m.error, 1)});
  }
}

}  // namespace

Table run_spmv_benchmark(const SpmvBenchmarkOptions& options) {
  if (options.size <= 0) throw UsageError(fmt::format("--size must be positive, got {}", options.size));
  if (options.repeats <= 0) throw UsageError(fmt::format("--repeats must be positive, got {}", options.repeats));
  for (Backend b : options.backends) {
    // A clear error now, not a silently missing row.
    if (b == Backend::cuda || b == Backend::vulkan) resolve_with_vulkan(b);
  }
  Table table(
      {"backend", "precision", "grid", "nnz", "time ms (median)", "GFLOP/s", "GB/s", "% of copy BW", "max rel. error"});
  for (const std::string& precision : options.precisions) {
    if (precision == "double")
      run_precision<double>(options, precision, table);
    else if (precision == "float")
      run_precision<float>(options, precision, table);
    else
      throw UsageError("unknown precision '" + precision + "' (expected double or float)");
  }
  return table;
}

}  // namespace trellis::bench
