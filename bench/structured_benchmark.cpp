#include "structured_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>

#include "cusparse_spmv.hpp"
#include "device_timing.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/dia.hpp"
#include "trellis/grid/spmm.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::bench {
namespace {

constexpr int kWarmups = 3;
constexpr std::uint64_t kSeed = 20261129;

template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> values(n);
  for (T& value : values) value = static_cast<T>(uniform(rng));
  return values;
}

// Largest |y - y_ref| / sum_j |a_ij x_j| over the rows of every column of a
// column-major block: the error relative to what rounding in a row sum can reach.
template <typename T>
double max_relative_error(const CsrMatrix<T>& a, const std::vector<T>& x, const std::vector<T>& y,
                          const std::vector<T>& y_ref, std::int32_t columns) {
  const auto rows = static_cast<std::size_t>(a.rows);
  const auto cols = static_cast<std::size_t>(a.cols);
  double worst = 0;
  bool any_nan = false;
#pragma omp parallel for reduction(max : worst) reduction(|| : any_nan) schedule(static)
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (std::int32_t j = 0; j < columns; ++j) {
      const T* x_column = x.data() + static_cast<std::size_t>(j) * cols;
      double scale = 0;
      for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
        scale += std::abs(static_cast<double>(a.values[k]) * x_column[a.col_indices[k]]);
      }
      const std::size_t at = static_cast<std::size_t>(j) * rows + static_cast<std::size_t>(row);
      const double diff = std::abs(static_cast<double>(y[at]) - y_ref[at]);
      if (std::isnan(diff))
        any_nan = true;
      else
        worst = std::max(worst, scale > 0 ? diff / scale : diff);
    }
  }
  return any_nan ? std::numeric_limits<double>::infinity() : worst;
}

// Bytes each kernel must move at the least: the matrix once, x (or X) once,
// y (or Y) written once (beta is 0, so y is not read).
template <typename T>
std::size_t csr_bytes(const CsrMatrix<T>& a, std::int32_t right_hand_sides) {
  return static_cast<std::size_t>(a.nnz()) * (sizeof(T) + sizeof(ColumnIndex)) +
         (static_cast<std::size_t>(a.rows) + 1) * sizeof(RowOffset) +
         static_cast<std::size_t>(right_hand_sides) * (static_cast<std::size_t>(a.cols) + a.rows) * sizeof(T);
}

template <typename T>
std::size_t dia_bytes(const grid::DiaMatrix<T>& a) {
  return a.values.size() * sizeof(T) + a.offsets.size() * sizeof(std::int32_t) +
         (static_cast<std::size_t>(a.cols) + a.rows) * sizeof(T);
}

struct Measurement {
  std::string kernel;
  std::int32_t right_hand_sides;
  double ms;
  std::size_t bytes;
  double error;
};

}  // namespace

template <typename T>
Table run_structured_benchmark(const CsrMatrix<T>& a, const std::string& matrix_name,
                               const StructuredBenchmarkOptions& options) {
  if (options.repeats <= 0) throw UsageError(fmt::format("--repeats must be positive, got {}", options.repeats));
  for (std::int32_t k : options.spmm_widths) {
    if (k <= 0) throw UsageError(fmt::format("SpMM right-hand sides must be positive, got {}", k));
  }
  resolve(Backend::cuda);  // a clear error now when there is no device
  a.validate();
  const std::string precision = sizeof(T) == 8 ? "double" : "float";
  const auto rows = static_cast<std::size_t>(a.rows);
  const auto cols = static_cast<std::size_t>(a.cols);
  const std::size_t timed_kernels = 3 + options.spmm_widths.size();
  Progress progress(fmt::format("structured {} {}", matrix_name, precision),
                    timed_kernels * static_cast<std::size_t>(options.repeats), options.quiet);

  // cpu results are bitwise the reference's and much faster on large matrices.
  const std::vector<T> x = random_values<T>(cols, kSeed);
  std::vector<T> y_ref(rows);
  grid::spmv<T>(T(1), a, x, T(0), y_ref, Backend::cpu);

  std::vector<Measurement> measured;
  const DeviceCsr<T> device_a(a);
  const auto device_x = DeviceArray<T>::from_host(x);
  DeviceArray<T> device_y(rows);
  {
    const double ms = median_device_ms(
        kWarmups, options.repeats, [&] { grid::spmv<T>(T(1), device_a, device_x, T(0), device_y); },
        [&] { progress.advance(); });
    measured.push_back(
        {"CSR SpMV (trellis)", 1, ms, csr_bytes(a, 1), max_relative_error(a, x, device_y.to_host(), y_ref, 1)});
  }

  double cusparse_ms = std::numeric_limits<double>::quiet_NaN();
  if (cusparse_available()) {
    CusparseSpmv<T> anchor(a, x);
    for (int r = 0; r < kWarmups; ++r) anchor.run_ms();
    std::vector<double> times;
    for (int r = 0; r < options.repeats; ++r) {
      times.push_back(anchor.run_ms());
      progress.advance();
    }
    cusparse_ms = median(times);
    measured.push_back(
        {anchor.uses_32bit_offsets() ? "CSR SpMV (cuSPARSE, 32-bit offsets)" : "CSR SpMV (cuSPARSE, 64-bit indices)", 1,
         cusparse_ms, anchor.bytes_moved(), max_relative_error(a, x, anchor.result(), y_ref, 1)});
  } else {
    progress.advance(static_cast<std::uint64_t>(options.repeats));
  }

  try {
    const grid::DiaMatrix<T> dia = grid::dia_from_csr(a, options.max_diagonals);
    const grid::DeviceDia<T> device_dia(dia);
    const double ms = median_device_ms(
        kWarmups, options.repeats, [&] { grid::dia_spmv<T>(T(1), device_dia, device_x, T(0), device_y); },
        [&] { progress.advance(); });
    measured.push_back({fmt::format("DIA SpMV ({} diagonals)", dia.diagonals()), 1, ms, dia_bytes(dia),
                        max_relative_error(a, x, device_y.to_host(), y_ref, 1)});
  } catch (const UsageError&) {
    // Not a stencil-like matrix: the row says so instead of a time.
    progress.advance(static_cast<std::uint64_t>(options.repeats));
    measured.push_back({"DIA SpMV (not built: more than " + std::to_string(options.max_diagonals) + " diagonals)", 1,
                        std::numeric_limits<double>::quiet_NaN(), 0, std::numeric_limits<double>::quiet_NaN()});
  }

  for (std::int32_t k : options.spmm_widths) {
    const std::vector<T> x_block = random_values<T>(cols * static_cast<std::size_t>(k), kSeed + k);
    std::vector<T> y_block_ref(rows * static_cast<std::size_t>(k));
    grid::spmm<T>(T(1), a, x_block, T(0), y_block_ref, k, Backend::cpu);
    const auto device_x_block = DeviceArray<T>::from_host(x_block);
    DeviceArray<T> device_y_block(rows * static_cast<std::size_t>(k));
    const double ms = median_device_ms(
        kWarmups, options.repeats, [&] { grid::spmm<T>(T(1), device_a, device_x_block, T(0), device_y_block, k); },
        [&] { progress.advance(); });
    measured.push_back({fmt::format("CSR SpMM (trellis, k = {})", k), k, ms, csr_bytes(a, k),
                        max_relative_error(a, x_block, device_y_block.to_host(), y_block_ref, k)});
  }
  progress.finish();

  Table table({"kernel", "matrix", "precision", "rows", "nnz", "time ms (median)", "ms per rhs", "GB/s", "% of copy BW",
               "speed-up per rhs vs cuSPARSE", "max rel. error"});
  for (const Measurement& m : measured) {
    const double per_rhs = m.ms / m.right_hand_sides;
    const double gbs = static_cast<double>(m.bytes) / (m.ms * 1e-3) * 1e-9;
    table.add_row({m.kernel, matrix_name, precision, static_cast<std::int64_t>(a.rows),
                   static_cast<std::int64_t>(a.nnz()), number(m.ms, 3), number(per_rhs, 3), number(gbs, 0),
                   number(100.0 * gbs / options.copy_bandwidth_gbs, 1), number(cusparse_ms / per_rhs, 2),
                   scientific(m.error, 1)});
  }
  return table;
}

template Table run_structured_benchmark<float>(const CsrMatrix<float>&, const std::string&,
                                               const StructuredBenchmarkOptions&);
template Table run_structured_benchmark<double>(const CsrMatrix<double>&, const std::string&,
                                                const StructuredBenchmarkOptions&);

}  // namespace trellis::bench
