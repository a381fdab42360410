// Assembly setup on the GPU (assembly_device.hpp): one thread per row
// gathers the row's contributions (the host setup's for_each_contribution),
// sorts and merges them; a first pass counts each row's columns and entries,
// scans place every row, a second pass writes the tables and patterns. This
// file is compiled without fused multiply-adds (src/CMakeLists.txt), so the
// geometric factors round as the host's do and the tables equal the host
// setup's bitwise.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "../assembly_device.hpp"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 128;
constexpr std::int64_t kMaxBlocks = 16384;

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

using detail::kMaxDeviceRowEntries;
using detail::RowEntry;

struct SetupArgs {
  detail::MeshView<double> mesh;
  detail::TermCode terms[detail::kMaxTerms];
  std::int32_t term_count;
  const std::uint8_t* constrained;
  bool symmetrize;
  std::int32_t nodes;
  int* overflow;
};

// A row's entries split as the host splits them: matrix (with the identity
// of a constrained row), lift, and dropped, each in its own stretch of one
// local array; matrix and lift sorted and merged.
struct RowParts {
  RowEntry entries[kMaxDeviceRowEntries];
  std::int32_t matrix = 0, lift = 0, dropped = 0;  // counts
  __device__ RowEntry* lift_entries() { return entries + matrix; }
  __device__ RowEntry* dropped_entries() { return entries + matrix + lift; }
};

__device__ inline void row_index(const detail::MeshView<double>& mesh, std::int32_t node, std::int32_t* r) {
  for (int a = 2; a >= 0; --a) {
    r[a] = node / mesh.stride[a];
    node -= r[a] * mesh.stride[a];
  }
}

// Gathers in three passes over the row's contributions (one per part), so
// each part keeps its visit order without a second buffer. False on overflow.
__device__ bool matrix_row(const SetupArgs& args, std::int32_t row, RowParts& parts) {
  std::int32_t r[3];
  row_index(args.mesh, row, r);
  const bool row_constrained = args.constrained[row] != 0;
  std::int32_t count = 0;
  bool overflow = false;
  for (int part = 0; part < 3; ++part) {
    const std::int32_t first = count;
    detail::for_each_contribution(
        args.mesh, args.terms, args.term_count, r, [&](std::int32_t col, std::int32_t slot, std::int32_t p, double g) {
          const int entry_part = row_constrained ? 2 : args.symmetrize && args.constrained[col] ? 1 : 0;
          if (entry_part != part) return;
          if (count == kMaxDeviceRowEntries) {
            overflow = true;
            return;
          }
          parts.entries[count++] = {col, slot < 0 ? 0 : 1 + slot * args.nodes + p, g};
        });
    if (part == 0 && row_constrained) {
      if (count == kMaxDeviceRowEntries) return false;
      parts.entries[count++] = {row, 0, 1.0};  // the identity row
    }
    if (overflow) return false;
    const std::int32_t n = count - first;
    const std::int32_t kept = part == 2 ? n : detail::sort_and_merge(parts.entries + first, n);
    count = first + kept;
    (part == 0 ? parts.matrix : part == 1 ? parts.lift : parts.dropped) = kept;
  }
  return true;
}

// The linear form's row: host linear_row, matrix part or dropped.
__device__ bool vector_row(const SetupArgs& args, std::int32_t row, RowParts& parts) {
  std::int32_t r[3];
  row_index(args.mesh, row, r);
  const bool row_constrained = args.constrained[row] != 0;
  std::int32_t count = 0;
  for (std::int32_t t = 0; t < args.term_count; ++t) {
    const detail::TermCode& term = args.terms[t];
    std::int32_t points[detail::kMaxStencil][3];
    const std::int32_t n = detail::test_points(args.mesh, term.test, r, points);
    for (std::int32_t q = 0; q < n; ++q) {
      const double w = detail::inner_weight(args.mesh, term.weight, term.axis, points[q]);
      const double s = w == 0 ? 0 : detail::test_weight(args.mesh, term.test, points[q], r);
      if (s == 0) continue;
      if (count == kMaxDeviceRowEntries) return false;
      const std::int32_t p = detail::node_of(args.mesh, points[q]);
      parts.entries[count++] = {row, term.coefficient < 0 ? 0 : 1 + term.coefficient * args.nodes + p,
                                term.scale * w * s};
    }
  }
  parts.matrix = row_constrained ? 0 : detail::sort_and_merge(parts.entries, count);
  parts.lift = 0;
  parts.dropped = row_constrained ? count : 0;
  return true;
}

__device__ inline std::int32_t distinct_columns(const RowEntry* entries, std::int32_t count) {
  std::int32_t distinct = 0;
  for (std::int32_t i = 0; i < count; ++i) distinct += (i == 0 || entries[i].column != entries[i - 1].column);
  return distinct;
}

// Per row: matrix columns, lift columns, matrix entries, lift entries, dropped entries.
constexpr int kCounts = 5;

template <bool Matrix>
__global__ void __launch_bounds__(kThreads) count_setup_rows(SetupArgs args, std::int64_t* __restrict__ counts) {
  const std::int64_t rows = args.nodes;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < rows;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const auto row = static_cast<std::int32_t>(k);
    RowParts parts;
    const bool fits = Matrix ? matrix_row(args, row, parts) : vector_row(args, row, parts);
    if (!fits) {
      atomicExch(args.overflow, 1);
      parts.matrix = parts.lift = parts.dropped = 0;
    }
    counts[0 * rows + k] = Matrix ? distinct_columns(parts.entries, parts.matrix) : 1;
    counts[1 * rows + k] = distinct_columns(parts.lift_entries(), parts.lift);
    counts[2 * rows + k] = parts.matrix;
    counts[3 * rows + k] = parts.lift;
    counts[4 * rows + k] = parts.dropped;
  }
}

// Where each row's pieces start (exclusive sums of the counts, each with its total at [rows]).
struct RowStarts {
  const std::int64_t* matrix_position;
  const std::int64_t* lift_position;
  const std::int64_t* matrix_entry;
  const std::int64_t* lift_entry;
  const std::int64_t* dropped_entry;
};

template <typename T>
struct TableTarget {
  std::int64_t* offsets;
  std::int64_t* position;
  std::int32_t* coefficient;
  T* geometry;
  ColumnIndex* matrix_columns;  // null for a vector table
  ColumnIndex* lift_columns;
};

// One group: entries from `first` on, positions from `first_position` on
// (assembly.cpp's write).
template <typename T>
__device__ void write_group(const RowEntry* entries, std::int32_t count, std::int64_t first,
                            std::int64_t first_position, const TableTarget<T>& out, ColumnIndex* columns) {
  std::int64_t position = first_position - 1;
  for (std::int32_t e = 0; e < count; ++e) {
    const std::int64_t k = first + e;
    if (e == 0 || entries[e].column != entries[e - 1].column) {
      ++position;
      out.offsets[position] = k;
      columns[position - first_position] = entries[e].column;
    }
    out.position[k] = position;
    out.coefficient[k] = entries[e].coefficient;
    out.geometry[k] = static_cast<T>(entries[e].geometry);
  }
}

template <typename T, bool Matrix>
__global__ void __launch_bounds__(kThreads) write_setup_rows(SetupArgs args, RowStarts starts, TableTarget<T> out) {
  const std::int64_t rows = args.nodes;
  const std::int64_t matrix_nnz = starts.matrix_position[rows];
  const std::int64_t matrix_entries = starts.matrix_entry[rows];
  const std::int64_t lift_entries = starts.lift_entry[rows];
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < rows;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const auto row = static_cast<std::int32_t>(k);
    RowParts parts;
    if (Matrix) {
      matrix_row(args, row, parts);
      write_group(parts.entries, parts.matrix, starts.matrix_entry[k], starts.matrix_position[k], out,
                  out.matrix_columns + starts.matrix_position[k]);
      write_group(parts.lift_entries(), parts.lift, matrix_entries + starts.lift_entry[k],
                  matrix_nnz + starts.lift_position[k], out, out.lift_columns + starts.lift_position[k]);
    } else {
      vector_row(args, row, parts);
      out.offsets[k] = starts.matrix_entry[k];
      for (std::int32_t e = 0; e < parts.matrix; ++e) {
        const std::int64_t at = starts.matrix_entry[k] + e;
        out.position[at] = row;
        out.coefficient[at] = parts.entries[e].coefficient;
        out.geometry[at] = static_cast<T>(parts.entries[e].geometry);
      }
    }
    const RowEntry* dropped = Matrix ? parts.dropped_entries() : parts.entries;
    for (std::int32_t e = 0; e < parts.dropped; ++e) {
      const std::int64_t at = matrix_entries + lift_entries + starts.dropped_entry[k] + e;
      out.position[at] = -1;  // the sentinel: a constrained row's contribution
      out.coefficient[at] = dropped[e].coefficient;
      out.geometry[at] = static_cast<T>(dropped[e].geometry);
    }
  }
}

// starts[0] = 0, starts[1 + i] = counts[0] + ... + counts[i].
void exclusive_starts(const std::int64_t* counts, std::int64_t rows, std::int64_t* starts) {
  device::fill_zero(starts, sizeof(std::int64_t), nullptr);
  std::size_t scratch_bytes = 0;
  TRELLIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scratch_bytes, counts, starts + 1, rows, nullptr));
  DeviceArray<unsigned char> scratch(std::max<std::size_t>(scratch_bytes, 1));
  TRELLIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch.data(), scratch_bytes, counts, starts + 1, rows, nullptr));
}

std::int64_t read_back(const std::int64_t* value) {
  std::int64_t host = 0;
  device::copy_to_host(&host, value, sizeof(host), nullptr);
  device::synchronize(nullptr);
  return host;
}

SetupArgs setup_args(const detail::DeviceSetupInput& input, int* overflow) {
  SetupArgs args{};
  args.mesh = input.mesh;
  for (std::int32_t t = 0; t < input.term_count; ++t) args.terms[t] = input.terms[t];
  args.term_count = input.term_count;
  args.constrained = input.constrained;
  args.symmetrize = input.symmetrize;
  args.nodes = input.mesh.extent[0] * input.mesh.extent[1] * input.mesh.extent[2];
  args.overflow = overflow;
  return args;
}

template <typename T, bool Matrix>
bool build(const detail::DeviceSetupInput& input, detail::DeviceTableArrays<T>& table, detail::DevicePattern* matrix,
           detail::DevicePattern* lift) {
  DeviceArray<int> overflow(1);
  overflow.fill_zero();
  const SetupArgs args = setup_args(input, overflow.data());
  const std::int64_t rows = args.nodes;
  DeviceArray<std::int64_t> counts(static_cast<std::size_t>(kCounts * rows));
  TRELLIS_LAUNCH(count_setup_rows<Matrix>, blocks_for(rows), kThreads, 0, nullptr, args, counts.data());
  int overflowed = 0;
  device::copy_to_host(&overflowed, overflow.data(), sizeof(int), nullptr);
  device::synchronize(nullptr);
  if (overflowed != 0) return false;

  DeviceArray<std::int64_t> starts(static_cast<std::size_t>(kCounts * (rows + 1)));
  for (int c = 0; c < kCounts; ++c) exclusive_starts(counts.data() + c * rows, rows, starts.data() + c * (rows + 1));
  counts = DeviceArray<std::int64_t>();
  const RowStarts row_starts{starts.data(), starts.data() + (rows + 1), starts.data() + 2 * (rows + 1),
                             starts.data() + 3 * (rows + 1), starts.data() + 4 * (rows + 1)};
  const std::int64_t matrix_nnz = read_back(row_starts.matrix_position + rows);
  const std::int64_t lift_nnz = read_back(row_starts.lift_position + rows);
  const std::int64_t matrix_entries = read_back(row_starts.matrix_entry + rows);
  const std::int64_t lift_entries = read_back(row_starts.lift_entry + rows);
  const std::int64_t total = matrix_entries + lift_entries + read_back(row_starts.dropped_entry + rows);

  table.outputs = Matrix ? matrix_nnz + lift_nnz : rows;
  table.offsets = DeviceArray<std::int64_t>(static_cast<std::size_t>(table.outputs) + 1);
  table.position = DeviceArray<std::int64_t>(static_cast<std::size_t>(total));
  table.coefficient = DeviceArray<std::int32_t>(static_cast<std::size_t>(total));
  table.geometry = DeviceArray<T>(static_cast<std::size_t>(total));
  const std::int64_t end = matrix_entries + lift_entries;
  device::copy_to_device(table.offsets.data() + table.outputs, &end, sizeof(end), nullptr);
  TableTarget<T> out{
      table.offsets.data(), table.position.data(), table.coefficient.data(), table.geometry.data(), nullptr, nullptr};
  if (Matrix) {
    for (detail::DevicePattern* pattern : {matrix, lift}) {
      pattern->rows = static_cast<std::int32_t>(rows);
      pattern->cols = static_cast<std::int32_t>(rows);
      pattern->row_offsets = DeviceArray<RowOffset>(static_cast<std::size_t>(rows) + 1);
    }
    matrix->col_indices = DeviceArray<ColumnIndex>(static_cast<std::size_t>(matrix_nnz));
    lift->col_indices = DeviceArray<ColumnIndex>(static_cast<std::size_t>(lift_nnz));
    device::copy_on_device(matrix->row_offsets.data(), row_starts.matrix_position, sizeof(RowOffset) * (rows + 1),
                           nullptr);
    device::copy_on_device(lift->row_offsets.data(), row_starts.lift_position, sizeof(RowOffset) * (rows + 1), nullptr);
    out.matrix_columns = matrix->col_indices.data();
    out.lift_columns = lift->col_indices.data();
  }
  TRELLIS_LAUNCH((write_setup_rows<T, Matrix>), blocks_for(rows), kThreads, 0, nullptr, args, row_starts, out);
  device::synchronize(nullptr);  // `end` and the scratch go away
  return true;
}

}  // namespace

template <typename T>
bool build_matrix_tables(const detail::DeviceSetupInput& input, detail::DeviceTableArrays<T>& table,
                         detail::DevicePattern& matrix, detail::DevicePattern& lift) {
  return build<T, true>(input, table, &matrix, &lift);
}

template <typename T>
bool build_vector_table(const detail::DeviceSetupInput& input, detail::DeviceTableArrays<T>& table) {
  return build<T, false>(input, table, nullptr, nullptr);
}

TRELLIS_GRID_ASSEMBLY_SETUP(float)
TRELLIS_GRID_ASSEMBLY_SETUP(double)

}  // namespace trellis::grid::cuda
