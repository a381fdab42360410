// Assembly setup (pattern and scatter tables, built once on the host with
// threads) and the backend switch of every fill.
//
// Setup visits rows in parallel, twice: the first pass counts each row's
// columns and contributions, prefix sums place every row, the second pass
// writes them. Within a row, contributions are sorted by (column,
// coefficient index) and those with equal keys merged (their geometric
// factors summed in that order), so the tables are the same on every run.
#include "trellis/grid/assembly.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "assembly_device.hpp"
#include "form_codes.hpp"
#include "form_kernels.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {

using detail::MeshView;
using detail::TableOutput;
using detail::TableView;
using detail::term_codes;
using detail::TermCode;

// ---------------------------------------------------------------- coefficients

namespace {

std::int64_t packed_size(const Mesh& mesh, std::int32_t slots) {
  if (slots < 0) throw UsageError(fmt::format("coefficient slots must not be negative, got {}", slots));
  const std::int64_t size = 1 + static_cast<std::int64_t>(slots) * mesh.nodes();
  if (size > std::numeric_limits<std::int32_t>::max()) {
    throw UsageError(fmt::format("{} coefficient slots of {} nodes do not fit 32-bit indices", slots, mesh.nodes()));
  }
  return size;
}

template <typename T>
void check_slot_values(std::int32_t slot, std::int32_t slots, std::int32_t nodes, std::span<const T> values) {
  if (slot < 0 || slot >= slots) {
    throw UsageError(fmt::format("coefficient slot {} does not exist (the form has {})", slot, slots));
  }
  if (values.size() != static_cast<std::size_t>(nodes)) {
    throw UsageError(fmt::format("coefficient slot {} needs {} node values, got {}", slot, nodes, values.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw UsageError(fmt::format("coefficient slot {} has a non-finite value ({}) at node {}", slot,
                                   static_cast<double>(values[i]), i));
    }
  }
}

}  // namespace

template <typename T>
Coefficients<T>::Coefficients(const Mesh& mesh, std::int32_t slots)
    : mesh_(mesh), slots_(slots), packed_(static_cast<std::size_t>(packed_size(mesh, slots)), T(0)) {
  packed_[0] = T(1);
}

template <typename T>
void Coefficients<T>::set(std::int32_t slot, std::span<const T> values) {
  check_slot_values(slot, slots_, mesh_.nodes(), values);
  std::copy(values.begin(), values.end(), packed_.begin() + 1 + static_cast<std::ptrdiff_t>(slot) * mesh_.nodes());
}

template <typename T>
void Coefficients<T>::set(std::int32_t slot, T constant) {
  std::vector<T> values(static_cast<std::size_t>(mesh_.nodes()), constant);
  set(slot, std::span<const T>(values));
}

template <typename T>
DeviceCoefficients<T>::DeviceCoefficients(const Coefficients<T>& host, Stream stream)
    : nodes_(host.mesh().nodes()), slots_(host.slots()), packed_(DeviceArray<T>::from_host(host.packed(), stream)) {
  device::synchronize(stream);  // the host object may go away before the copy ran
}

template <typename T>
void DeviceCoefficients<T>::set(std::int32_t slot, std::span<const T> values, Stream stream) {
  check_slot_values(slot, slots_, nodes_, values);
  device::copy_to_device(packed_.data() + 1 + static_cast<std::int64_t>(slot) * nodes_, values.data(),
                         values.size_bytes(), stream);
  device::synchronize(stream);
}

template <typename T>
void DeviceCoefficients<T>::set(std::int32_t slot, const DeviceArray<T>& values, Stream stream) {
  if (slot < 0 || slot >= slots_) {
    throw UsageError(fmt::format("coefficient slot {} does not exist (the form has {})", slot, slots_));
  }
  if (values.size() != static_cast<std::size_t>(nodes_)) {
    throw UsageError(fmt::format("coefficient slot {} needs {} node values, got {}", slot, nodes_, values.size()));
  }
  device::copy_on_device(packed_.data() + 1 + static_cast<std::int64_t>(slot) * nodes_, values.data(), values.bytes(),
                         stream);
}

// ---------------------------------------------------------------- setup

namespace {

// One scatter table on the host, and its device copy once uploaded.
template <typename T>
struct Table {
  std::int64_t outputs = 0;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> position;
  std::vector<std::int32_t> coefficient;
  std::vector<T> geometry;

  TableView<T> view() const {
    return {
        outputs,        static_cast<std::int64_t>(position.size()), offsets.data(), position.data(), coefficient.data(),
        geometry.data()};
  }
  std::size_t bytes() const {
    return offsets.size() * sizeof(std::int64_t) + position.size() * sizeof(std::int64_t) +
           coefficient.size() * sizeof(std::int32_t) + geometry.size() * sizeof(T);
  }
};

template <typename T>
struct DeviceTable {
  std::int64_t outputs = 0;
  std::int64_t contributions = 0;
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int64_t> position;
  DeviceArray<std::int32_t> coefficient;
  DeviceArray<T> geometry;

  explicit DeviceTable(detail::DeviceTableArrays<T>&& built)
      : outputs(built.outputs),
        contributions(static_cast<std::int64_t>(built.position.size())),
        offsets(std::move(built.offsets)),
        position(std::move(built.position)),
        coefficient(std::move(built.coefficient)),
        geometry(std::move(built.geometry)) {}

  // The host copy of the table.
  Table<T> to_host() const {
    Table<T> host;
    host.outputs = outputs;
    host.offsets = offsets.to_host();
    host.position = position.to_host();
    host.coefficient = coefficient.to_host();
    host.geometry = geometry.to_host();
    return host;
  }

  explicit DeviceTable(const Table<T>& host, Stream stream)
      : outputs(host.outputs),
        contributions(static_cast<std::int64_t>(host.position.size())),
        offsets(DeviceArray<std::int64_t>::from_host(host.offsets, stream)),
        position(DeviceArray<std::int64_t>::from_host(host.position, stream)),
        coefficient(DeviceArray<std::int32_t>::from_host(host.coefficient, stream)),
        geometry(DeviceArray<T>::from_host(host.geometry, stream)) {}

  TableView<T> view() const {
    return {outputs, contributions, offsets.data(), position.data(), coefficient.data(), geometry.data()};
  }
};

using detail::RowEntry;

// Sorts by (column, coefficient) and merges equal keys, as the device setup does.
void sort_and_merge(std::vector<RowEntry>& entries) {
  entries.resize(
      static_cast<std::size_t>(detail::sort_and_merge(entries.data(), static_cast<std::int32_t>(entries.size()))));
}

std::int32_t distinct_columns(const std::vector<RowEntry>& sorted) {
  std::int32_t count = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) count += (i == 0 || sorted[i].column != sorted[i - 1].column);
  return count;
}

}  // namespace

template <typename T>
struct Assembly<T>::State {
  Mesh mesh;
  bool symmetrize = false;
  std::vector<std::uint8_t> constrained;
  std::vector<TermCode> form_terms;
  std::vector<TermCode> rhs_terms;
  std::int32_t slots = 0;
  std::int64_t matrix_nnz = 0;
  std::int64_t lift_nnz = 0;
  // The host pattern and tables; after a device setup, copied from the
  // device when a host fill first needs them.
  mutable bool host_ready = true;
  mutable CsrMatrix<T> pattern;
  mutable CsrMatrix<T> lift_pattern;
  mutable Table<T> matrix_table;
  mutable Table<T> rhs_table;
  mutable std::unique_ptr<DeviceTable<T>> device_matrix_table;
  mutable std::unique_ptr<DeviceTable<T>> device_rhs_table;
  mutable std::unique_ptr<DeviceArray<std::uint8_t>> device_constrained;
  // A device setup's patterns (their values are zero in a new matrix).
  std::unique_ptr<detail::DevicePattern> device_pattern;
  std::unique_ptr<detail::DevicePattern> device_lift_pattern;

  State(const Mesh& m) : mesh(m) {}

  // The setup on the device; false when a row is too long for it (the host
  // setup then runs).
  bool build_on_device(const detail::HostMeshArrays<double>& arrays);

  void host_copies() const {
    if (host_ready) return;
    matrix_table = device_matrix_table->to_host();
    rhs_table = device_rhs_table->to_host();
    for (auto [host, device] :
         {std::pair{&pattern, device_pattern.get()}, {&lift_pattern, device_lift_pattern.get()}}) {
      host->rows = device->rows;
      host->cols = device->cols;
      host->row_offsets = device->row_offsets.to_host();
      host->col_indices = device->col_indices.to_host();
      host->values.assign(host->col_indices.size(), T(0));
    }
    host_ready = true;
  }
};

namespace {

// The row's contributions split into the matrix, the lift and the dropped.
struct RowParts {
  std::vector<RowEntry> matrix;
  std::vector<RowEntry> lift;
  std::vector<RowEntry> dropped;
};

// Node id to (i, j, k) by the mesh's strides.
void multi_index_of(const MeshView<double>& mesh, std::int32_t node, std::int32_t* r) {
  for (int a = 2; a >= 0; --a) {
    r[a] = node / mesh.stride[a];
    node -= r[a] * mesh.stride[a];
  }
}

void bilinear_row(const detail::HostMeshArrays<double>& arrays, const std::vector<TermCode>& terms,
                  const std::vector<std::uint8_t>& constrained, bool symmetrize, std::int32_t nodes, std::int32_t row,
                  RowParts& parts) {
  parts.matrix.clear();
  parts.lift.clear();
  parts.dropped.clear();
  const MeshView<double>& mesh = arrays.view;
  std::int32_t r[3];
  multi_index_of(mesh, row, r);
  const bool row_constrained = constrained[static_cast<std::size_t>(row)] != 0;
  detail::for_each_contribution(mesh, terms.data(), static_cast<std::int32_t>(terms.size()), r,
                                [&](std::int32_t col, std::int32_t slot, std::int32_t p, double g) {
                                  const std::int32_t coefficient = slot < 0 ? 0 : 1 + slot * nodes + p;
                                  const RowEntry entry{col, coefficient, g};
                                  if (row_constrained)
                                    parts.dropped.push_back(entry);
                                  else if (symmetrize && constrained[static_cast<std::size_t>(col)])
                                    parts.lift.push_back(entry);
                                  else
                                    parts.matrix.push_back(entry);
                                });
  if (row_constrained) parts.matrix.push_back({row, 0, 1.0});  // the identity row
  sort_and_merge(parts.matrix);
  sort_and_merge(parts.lift);
}

void linear_row(const detail::HostMeshArrays<double>& arrays, const std::vector<TermCode>& terms,
                const std::vector<std::uint8_t>& constrained, std::int32_t nodes, std::int32_t row, RowParts& parts) {
  parts.matrix.clear();
  parts.lift.clear();
  parts.dropped.clear();
  const MeshView<double>& mesh = arrays.view;
  std::int32_t r[3];
  multi_index_of(mesh, row, r);
  const bool row_constrained = constrained[static_cast<std::size_t>(row)] != 0;
  for (const TermCode& term : terms) {
    std::int32_t points[detail::kMaxStencil][3];
    const std::int32_t n = detail::test_points(mesh, term.test, r, points);
    for (std::int32_t q = 0; q < n; ++q) {
      const double w = detail::inner_weight(mesh, term.weight, term.axis, points[q]);
      const double s = w == 0 ? 0 : detail::test_weight(mesh, term.test, points[q], r);
      if (s == 0) continue;
      const std::int32_t p = detail::node_of(mesh, points[q]);
      const RowEntry entry{row, term.coefficient < 0 ? 0 : 1 + term.coefficient * nodes + p, term.scale * w * s};
      (row_constrained ? parts.dropped : parts.matrix).push_back(entry);
    }
  }
  sort_and_merge(parts.matrix);
}

struct RowCounts {
  std::int64_t matrix_columns = 0;
  std::int64_t lift_columns = 0;
  std::int64_t matrix_entries = 0;
  std::int64_t lift_entries = 0;
  std::int64_t dropped_entries = 0;
};

// Runs row_parts for every row twice (count, then write) and fills the
// table and, for bilinear forms, the matrix and lift patterns.
template <typename T, typename RowFunction>
void build(std::int32_t rows, std::int32_t cols, RowFunction row_parts, Table<T>& table, CsrMatrix<T>* matrix,
           CsrMatrix<T>* lift) {
  std::vector<RowCounts> counts(static_cast<std::size_t>(rows));
#pragma omp parallel
  {
    RowParts parts;
#pragma omp for schedule(dynamic, 1024)
    for (std::int32_t row = 0; row < rows; ++row) {
      row_parts(row, parts);
      RowCounts& c = counts[static_cast<std::size_t>(row)];
      c.matrix_columns = distinct_columns(parts.matrix);
      c.lift_columns = distinct_columns(parts.lift);
      c.matrix_entries = static_cast<std::int64_t>(parts.matrix.size());
      c.lift_entries = static_cast<std::int64_t>(parts.lift.size());
      c.dropped_entries = static_cast<std::int64_t>(parts.dropped.size());
    }
  }
  // Where each row's pieces start: matrix positions, lift positions, and the
  // three contribution regions (matrix, lift, dropped).
  std::vector<std::int64_t> matrix_start(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<std::int64_t> lift_start(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<std::int64_t> matrix_entry_start(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<std::int64_t> lift_entry_start(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<std::int64_t> dropped_start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t row = 0; row < static_cast<std::size_t>(rows); ++row) {
    matrix_start[row + 1] = matrix_start[row] + counts[row].matrix_columns;
    lift_start[row + 1] = lift_start[row] + counts[row].lift_columns;
    matrix_entry_start[row + 1] = matrix_entry_start[row] + counts[row].matrix_entries;
    lift_entry_start[row + 1] = lift_entry_start[row] + counts[row].lift_entries;
    dropped_start[row + 1] = dropped_start[row] + counts[row].dropped_entries;
  }
  const std::int64_t matrix_nnz = matrix_start.back();
  const std::int64_t lift_nnz = lift_start.back();
  const std::int64_t matrix_entries = matrix_entry_start.back();
  const std::int64_t lift_entries = lift_entry_start.back();
  const std::int64_t total = matrix_entries + lift_entries + dropped_start.back();

  table.outputs = matrix ? matrix_nnz + lift_nnz : rows;
  table.offsets.assign(static_cast<std::size_t>(table.outputs) + 1, 0);
  table.position.resize(static_cast<std::size_t>(total));
  table.coefficient.resize(static_cast<std::size_t>(total));
  table.geometry.resize(static_cast<std::size_t>(total));
  if (matrix) {
    matrix->rows = rows;
    matrix->cols = cols;
    matrix->row_offsets = matrix_start;
    matrix->col_indices.assign(static_cast<std::size_t>(matrix_nnz), 0);
    matrix->values.assign(static_cast<std::size_t>(matrix_nnz), T(0));
    lift->rows = rows;
    lift->cols = cols;
    lift->row_offsets = lift_start;
    lift->col_indices.assign(static_cast<std::size_t>(lift_nnz), 0);
    lift->values.assign(static_cast<std::size_t>(lift_nnz), T(0));
  }
  table.offsets[static_cast<std::size_t>(table.outputs)] = matrix_entries + lift_entries;

#pragma omp parallel
  {
    RowParts parts;
#pragma omp for schedule(dynamic, 1024)
    for (std::int32_t row = 0; row < rows; ++row) {
      row_parts(row, parts);
      const auto r = static_cast<std::size_t>(row);
      // Writes one group: entries from `first` on, positions from `first_position` on.
      auto write = [&](const std::vector<RowEntry>& entries, std::int64_t first, std::int64_t first_position,
                       ColumnIndex* columns) {
        std::int64_t position = first_position - 1;
        for (std::size_t e = 0; e < entries.size(); ++e) {
          const auto k = static_cast<std::size_t>(first) + e;
          if (e == 0 || entries[e].column != entries[e - 1].column) {
            ++position;
            table.offsets[static_cast<std::size_t>(position)] = static_cast<std::int64_t>(k);
            if (columns) columns[position - first_position] = entries[e].column;
          }
          table.position[k] = position;
          table.coefficient[k] = entries[e].coefficient;
          table.geometry[k] = static_cast<T>(entries[e].geometry);
        }
      };
      if (matrix) {
        write(parts.matrix, matrix_entry_start[r], matrix_start[r], matrix->col_indices.data() + matrix_start[r]);
        write(parts.lift, matrix_entries + lift_entry_start[r], matrix_nnz + lift_start[r],
              lift->col_indices.data() + lift_start[r]);
      } else {
        // A vector: one position per row, all of the row's contributions.
        table.offsets[r] = matrix_entry_start[r];
        for (std::size_t e = 0; e < parts.matrix.size(); ++e) {
          const auto k = static_cast<std::size_t>(matrix_entry_start[r]) + e;
          table.position[k] = row;
          table.coefficient[k] = parts.matrix[e].coefficient;
          table.geometry[k] = static_cast<T>(parts.matrix[e].geometry);
        }
      }
      for (std::size_t e = 0; e < parts.dropped.size(); ++e) {
        const auto k = static_cast<std::size_t>(matrix_entries + lift_entries + dropped_start[r]) + e;
        table.position[k] = -1;  // the sentinel: a constrained row's contribution
        table.coefficient[k] = parts.dropped[e].coefficient;
        table.geometry[k] = static_cast<T>(parts.dropped[e].geometry);
      }
    }
  }
}

}  // namespace

template <typename T>
Assembly<T>::Assembly(const Mesh& mesh, const BilinearForm& form, const LinearForm& rhs,
                      const std::vector<Marker>& dirichlet, AssemblyOptions options)
    : state_(std::make_unique<State>(mesh)) {
  State& s = *state_;
  s.symmetrize = options.symmetrize;
  s.form_terms = term_codes(form, mesh.dim());
  s.rhs_terms = term_codes(rhs, mesh.dim());
  s.slots = std::max(form.coefficient_slots(), rhs.coefficient_slots());
  packed_size(mesh, s.slots);  // checks that the packed indices fit
  const std::int32_t nodes = mesh.nodes();
  s.constrained = detail::constrained_nodes(mesh, dirichlet);
  const detail::HostMeshArrays<double> arrays(mesh);
  if (resolve(options.setup) == Backend::cuda && s.build_on_device(arrays)) return;
  build<T>(
      nodes, nodes,
      [&](std::int32_t row, RowParts& parts) {
        bilinear_row(arrays, s.form_terms, s.constrained, s.symmetrize, nodes, row, parts);
      },
      s.matrix_table, &s.pattern, &s.lift_pattern);
  build<T>(
      nodes, 1,
      [&](std::int32_t row, RowParts& parts) { linear_row(arrays, s.rhs_terms, s.constrained, nodes, row, parts); },
      s.rhs_table, nullptr, nullptr);
  s.matrix_nnz = s.pattern.nnz();
  s.lift_nnz = s.lift_pattern.nnz();
}

template <typename T>
bool Assembly<T>::State::build_on_device(const detail::HostMeshArrays<double>& arrays) {
  std::array<DeviceArray<double>, 6> spacings;
  detail::MeshView<double> device_mesh = arrays.view;
  for (int a = 0; a < 3; ++a) {
    const auto axis = static_cast<std::size_t>(a);
    spacings[2 * axis] = DeviceArray<double>::from_host(arrays.h[a]);
    spacings[2 * axis + 1] = DeviceArray<double>::from_host(arrays.hhalf[a]);
    device_mesh.h[a] = spacings[2 * axis].data();
    device_mesh.hhalf[a] = spacings[2 * axis + 1].data();
  }
  auto device_flags = std::make_unique<DeviceArray<std::uint8_t>>(DeviceArray<std::uint8_t>::from_host(constrained));
  device::synchronize(nullptr);
  detail::DeviceSetupInput input{device_mesh, form_terms.data(), static_cast<std::int32_t>(form_terms.size()),
                                 device_flags->data(), symmetrize};
  detail::DeviceTableArrays<T> built_matrix, built_rhs;
  auto built_pattern = std::make_unique<detail::DevicePattern>();
  auto built_lift = std::make_unique<detail::DevicePattern>();
  if (!cuda::build_matrix_tables<T>(input, built_matrix, *built_pattern, *built_lift)) return false;
  input.terms = rhs_terms.data();
  input.term_count = static_cast<std::int32_t>(rhs_terms.size());
  if (!cuda::build_vector_table<T>(input, built_rhs)) return false;
  matrix_nnz = static_cast<std::int64_t>(built_pattern->col_indices.size());
  lift_nnz = static_cast<std::int64_t>(built_lift->col_indices.size());
  device_matrix_table = std::make_unique<DeviceTable<T>>(std::move(built_matrix));
  device_rhs_table = std::make_unique<DeviceTable<T>>(std::move(built_rhs));
  device_constrained = std::move(device_flags);
  device_pattern = std::move(built_pattern);
  device_lift_pattern = std::move(built_lift);
  host_ready = false;
  return true;
}

template <typename T>
Assembly<T>::~Assembly() = default;
template <typename T>
Assembly<T>::Assembly(Assembly&&) noexcept = default;
template <typename T>
Assembly<T>& Assembly<T>::operator=(Assembly&&) noexcept = default;

template <typename T>
const Mesh& Assembly<T>::mesh() const noexcept {
  return state_->mesh;
}
template <typename T>
bool Assembly<T>::symmetrized() const noexcept {
  return state_->symmetrize;
}
template <typename T>
const std::vector<std::uint8_t>& Assembly<T>::constrained() const noexcept {
  return state_->constrained;
}
template <typename T>
std::int32_t Assembly<T>::coefficient_slots() const noexcept {
  return state_->slots;
}
template <typename T>
std::int64_t Assembly<T>::contributions() const noexcept {
  const State& s = *state_;
  return s.host_ready ? static_cast<std::int64_t>(s.matrix_table.position.size())
                      : s.device_matrix_table->contributions;
}
template <typename T>
std::size_t Assembly<T>::table_bytes() const noexcept {
  const State& s = *state_;
  if (s.host_ready) return s.matrix_table.bytes() + s.rhs_table.bytes();
  std::size_t bytes = 0;
  for (const DeviceTable<T>* table : {s.device_matrix_table.get(), s.device_rhs_table.get()}) {
    bytes += table->offsets.bytes() + table->position.bytes() + table->coefficient.bytes() + table->geometry.bytes();
  }
  return bytes;
}

template <typename T>
AssembledMatrix<T> Assembly<T>::new_matrix() const {
  state_->host_copies();
  return {state_->pattern, state_->lift_pattern};
}

// ---------------------------------------------------------------- fills

namespace {

template <typename T>
void check_coefficients(const Mesh& mesh, std::int32_t slots, const Mesh& their_mesh, std::int32_t their_slots) {
  require_same_mesh(mesh, their_mesh, "assembly coefficients");
  if (their_slots < slots) {
    throw UsageError(fmt::format("the form reads {} coefficient slots, the coefficients hold {}", slots, their_slots));
  }
}

void check_matrix(std::int64_t pattern_nnz, std::int64_t pattern_lift_nnz, std::int64_t nnz, std::int64_t lift_nnz) {
  if (nnz != pattern_nnz || lift_nnz != pattern_lift_nnz) {
    throw UsageError(fmt::format("refill into a matrix of {} + {} entries; this assembly's pattern has {} + {}", nnz,
                                 lift_nnz, pattern_nnz, pattern_lift_nnz));
  }
}

}  // namespace

template <typename T>
void Assembly<T>::refill(const Coefficients<T>& coefficients, AssembledMatrix<T>& out, Backend backend) const {
  const State& s = *state_;
  check_coefficients<T>(s.mesh, s.slots, coefficients.mesh(), coefficients.slots());
  check_matrix(s.matrix_nnz, s.lift_nnz, out.matrix.nnz(), out.lift.nnz());
  s.host_copies();
  const TableOutput<T> target{out.matrix.values.data(), out.matrix.nnz(), out.lift.values.data()};
  switch (resolve(backend)) {
    case Backend::reference:
      reference::refill_gather(s.matrix_table.view(), coefficients.packed().data(), target, nullptr);
      return;
    case Backend::cpu:
      cpu::refill_gather(s.matrix_table.view(), coefficients.packed().data(), target, nullptr);
      return;
    case Backend::cuda: {
      DeviceCoefficients<T> device_coefficients(coefficients);
      DeviceAssembledMatrix<T> device_matrix = new_device_matrix();
      refill(device_coefficients, device_matrix, nullptr);
      out.matrix.values = device_matrix.matrix.values().to_host();
      out.lift.values = device_matrix.lift.values().to_host();
      return;
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("refill: unresolved backend");
}

template <typename T>
void Assembly<T>::assemble_rhs(const Coefficients<T>& coefficients, std::span<const T> boundary_values,
                               const AssembledMatrix<T>& filled, std::span<T> b, Backend backend) const {
  const State& s = *state_;
  check_coefficients<T>(s.mesh, s.slots, coefficients.mesh(), coefficients.slots());
  check_matrix(s.matrix_nnz, s.lift_nnz, filled.matrix.nnz(), filled.lift.nnz());
  const auto nodes = static_cast<std::size_t>(s.mesh.nodes());
  if (boundary_values.size() != nodes || b.size() != nodes) {
    throw UsageError(fmt::format("assemble_rhs needs boundary values and b of {} entries, got {} and {}", nodes,
                                 boundary_values.size(), b.size()));
  }
  for (std::size_t i = 0; i < nodes; ++i) {
    if (s.constrained[i] && !std::isfinite(boundary_values[i])) {
      throw UsageError(fmt::format("the boundary value at node {} is not finite", i));
    }
  }
  s.host_copies();
  const TableOutput<T> target{b.data(), s.mesh.nodes(), nullptr};
  const auto rows = s.mesh.nodes();
  switch (resolve(backend)) {
    case Backend::reference:
      reference::refill_gather(s.rhs_table.view(), coefficients.packed().data(), target, nullptr);
      reference::finish_rhs(rows, s.constrained.data(), boundary_values.data(), filled.lift.view(), b.data(), nullptr);
      return;
    case Backend::cpu:
      cpu::refill_gather(s.rhs_table.view(), coefficients.packed().data(), target, nullptr);
      cpu::finish_rhs(rows, s.constrained.data(), boundary_values.data(), filled.lift.view(), b.data(), nullptr);
      return;
    case Backend::cuda: {
      DeviceCoefficients<T> device_coefficients(coefficients);
      DeviceAssembledMatrix<T> device_matrix{DeviceCsr<T>(filled.matrix), DeviceCsr<T>(filled.lift)};
      auto device_g = DeviceArray<T>::from_host(boundary_values);
      DeviceArray<T> device_b(nodes);
      assemble_rhs(device_coefficients, device_g, device_matrix, device_b, nullptr);
      device_b.copy_to_host(b);
      device::synchronize(nullptr);
      return;
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("assemble_rhs: unresolved backend");
}

namespace {

// A matrix of the device pattern with zero values (rows of a form are far
// shorter than kHeavyRowEntries: none is heavy).
template <typename T>
DeviceCsr<T> zero_matrix(const detail::DevicePattern& pattern, Stream stream) {
  DeviceArray<RowOffset> row_offsets(pattern.row_offsets.size());
  DeviceArray<ColumnIndex> col_indices(pattern.col_indices.size());
  DeviceArray<T> values(pattern.col_indices.size());
  row_offsets.copy_from(pattern.row_offsets, stream);
  col_indices.copy_from(pattern.col_indices, stream);
  values.fill_zero(stream);
  return DeviceCsr<T>(pattern.rows, pattern.cols, std::move(row_offsets), std::move(col_indices), std::move(values),
                      DeviceArray<std::int32_t>());
}

}  // namespace

template <typename T>
DeviceAssembledMatrix<T> Assembly<T>::new_device_matrix(Stream stream) const {
  const State& s = *state_;
  if (s.device_pattern) {
    DeviceAssembledMatrix<T> out{zero_matrix<T>(*s.device_pattern, stream),
                                 zero_matrix<T>(*s.device_lift_pattern, stream)};
    device::synchronize(stream);
    return out;
  }
  DeviceAssembledMatrix<T> out{DeviceCsr<T>(s.pattern, stream), DeviceCsr<T>(s.lift_pattern, stream)};
  device::synchronize(stream);
  return out;
}

template <typename T>
void Assembly<T>::refill(const DeviceCoefficients<T>& coefficients, DeviceAssembledMatrix<T>& out, Stream stream,
                         RefillMethod method) const {
  const State& s = *state_;
  if (coefficients.nodes() != s.mesh.nodes() || coefficients.slots() < s.slots) {
    throw UsageError(fmt::format("device coefficients of {} nodes and {} slots for a form on {} nodes reading {} slots",
                                 coefficients.nodes(), coefficients.slots(), s.mesh.nodes(), s.slots));
  }
  check_matrix(s.matrix_nnz, s.lift_nnz, out.matrix.nnz(), out.lift.nnz());
  if (!s.device_matrix_table) {
    s.device_matrix_table = std::make_unique<DeviceTable<T>>(s.matrix_table, stream);
    device::synchronize(stream);
  }
  const TableOutput<T> target{out.matrix.values().data(), out.matrix.nnz(), out.lift.values().data()};
  if (method == RefillMethod::gather) {
    cuda::refill_gather(s.device_matrix_table->view(), coefficients.packed(), target, stream);
  } else {
    out.matrix.values().fill_zero(stream);
    out.lift.values().fill_zero(stream);
    cuda::refill_atomic(s.device_matrix_table->view(), coefficients.packed(), target, stream);
  }
}

template <typename T>
void Assembly<T>::assemble_rhs(const DeviceCoefficients<T>& coefficients, const DeviceArray<T>& boundary_values,
                               const DeviceAssembledMatrix<T>& filled, DeviceArray<T>& b, Stream stream) const {
  const State& s = *state_;
  const auto nodes = static_cast<std::size_t>(s.mesh.nodes());
  if (coefficients.nodes() != s.mesh.nodes() || coefficients.slots() < s.slots) {
    throw UsageError(fmt::format("device coefficients of {} nodes and {} slots for a form on {} nodes reading {} slots",
                                 coefficients.nodes(), coefficients.slots(), s.mesh.nodes(), s.slots));
  }
  if (boundary_values.size() != nodes || b.size() != nodes) {
    throw UsageError(fmt::format("assemble_rhs needs boundary values and b of {} entries, got {} and {}", nodes,
                                 boundary_values.size(), b.size()));
  }
  check_matrix(s.matrix_nnz, s.lift_nnz, filled.matrix.nnz(), filled.lift.nnz());
  if (!s.device_rhs_table) {
    s.device_rhs_table = std::make_unique<DeviceTable<T>>(s.rhs_table, stream);
    s.device_constrained =
        std::make_unique<DeviceArray<std::uint8_t>>(DeviceArray<std::uint8_t>::from_host(s.constrained, stream));
    device::synchronize(stream);
  }
  const TableOutput<T> target{b.data(), s.mesh.nodes(), nullptr};
  cuda::refill_gather(s.device_rhs_table->view(), coefficients.packed(), target, stream);
  cuda::finish_rhs(s.mesh.nodes(), s.device_constrained->data(), boundary_values.data(), filled.lift.view(), b.data(),
                   stream);
}

template <typename T>
void Assembly<T>::release_device_tables() const {
  state_->host_copies();  // the device tables may be the only ones
  state_->device_matrix_table.reset();
  state_->device_rhs_table.reset();
  state_->device_constrained.reset();
}

template class Coefficients<float>;
template class Coefficients<double>;
template class DeviceCoefficients<float>;
template class DeviceCoefficients<double>;
template class Assembly<float>;
template class Assembly<double>;

}  // namespace trellis::grid
