// Assembly setup on the device (cuda/assembly_setup.cu): the same pattern
// and scatter tables the host setup builds (assembly.cpp), row for row, for
// a form whose rows each have at most kMaxDeviceRowEntries contributions.
// The row entries' order, shared with the host: sorted by (part, column,
// coefficient) by insertion (stable, so equal keys merge in visit order on
// both), the constrained rows' dropped entries kept in visit order.
#pragma once

#include <cstdint>
#include <vector>

#include "atom_weights.hpp"
#include "form_stencils.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"

namespace trellis::grid::detail {

// A contribution of one row before positions are known.
struct RowEntry {
  std::int32_t column;
  std::int32_t coefficient;  // packed index
  double geometry;
};

TRELLIS_HOST_DEVICE inline bool entry_before(const RowEntry& a, const RowEntry& b) {
  return a.column != b.column ? a.column < b.column : a.coefficient < b.coefficient;
}

// Insertion sort by (column, coefficient), stable; then equal keys merged
// (geometric factors summed in order). Returns the new count.
TRELLIS_HOST_DEVICE inline std::int32_t sort_and_merge(RowEntry* entries, std::int32_t count) {
  for (std::int32_t i = 1; i < count; ++i) {
    const RowEntry entry = entries[i];
    std::int32_t j = i;
    while (j > 0 && entry_before(entry, entries[j - 1])) {
      entries[j] = entries[j - 1];
      --j;
    }
    entries[j] = entry;
  }
  std::int32_t kept = 0;
  for (std::int32_t i = 0; i < count; ++i) {
    if (kept > 0 && entries[kept - 1].column == entries[i].column &&
        entries[kept - 1].coefficient == entries[i].coefficient) {
      entries[kept - 1].geometry += entries[i].geometry;
    } else {
      entries[kept++] = entries[i];
    }
  }
  return kept;
}

inline constexpr std::int32_t kMaxDeviceRowEntries = 48;

// One scatter table's arrays on the device (assembly.hpp's layout).
template <typename T>
struct DeviceTableArrays {
  std::int64_t outputs = 0;
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int64_t> position;
  DeviceArray<std::int32_t> coefficient;
  DeviceArray<T> geometry;
};

// A sparsity pattern on the device.
struct DevicePattern {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  DeviceArray<RowOffset> row_offsets;
  DeviceArray<ColumnIndex> col_indices;
};

// The form's terms, the mesh (device spacing arrays in double) and the
// constraint flags (device) as the setup kernels read them.
struct DeviceSetupInput {
  MeshView<double> mesh;
  const TermCode* terms = nullptr;  // host; copied into the kernels' arguments
  std::int32_t term_count = 0;
  const std::uint8_t* constrained = nullptr;
  bool symmetrize = false;
};

}  // namespace trellis::grid::detail

namespace trellis::grid::cuda {

// The bilinear form's table, matrix and lift patterns; false (nothing
// written) when some row has more than kMaxDeviceRowEntries contributions.
template <typename T>
bool build_matrix_tables(const detail::DeviceSetupInput& input, detail::DeviceTableArrays<T>& table,
                         detail::DevicePattern& matrix, detail::DevicePattern& lift);
// The linear form's table (one position per row); false as above.
template <typename T>
bool build_vector_table(const detail::DeviceSetupInput& input, detail::DeviceTableArrays<T>& table);

// Their explicit instantiations (cuda/assembly_setup.cu, or the stand-ins
// of a build without CUDA).
#define TRELLIS_GRID_ASSEMBLY_SETUP(T)                                                                 \
  template bool build_matrix_tables<T>(const detail::DeviceSetupInput&, detail::DeviceTableArrays<T>&, \
                                       detail::DevicePattern&, detail::DevicePattern&);                \
  template bool build_vector_table<T>(const detail::DeviceSetupInput&, detail::DeviceTableArrays<T>&);

}  // namespace trellis::grid::cuda
