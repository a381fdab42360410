// Assembly and matrix-free kernels, declared once; each backend folder
// defines them in its own namespace. Pointers live in the backend's memory
// space; host backends ignore the stream.
#pragma once

#include <cstdint>

#include "form_stencils.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/stream.hpp"

namespace trellis::grid::detail {

// A scatter table (assembly.hpp): contributions grouped by position.
template <typename T>
struct TableView {
  std::int64_t outputs = 0;         // positions
  std::int64_t contributions = 0;   // including dropped ones
  const std::int64_t* offsets = nullptr;     // outputs + 1: position o sums offsets[o] .. offsets[o + 1] - 1
  const std::int64_t* position = nullptr;    // per contribution: its position, or negative (dropped)
  const std::int32_t* coefficient = nullptr; // per contribution: packed coefficient index (0 = the constant 1)
  const T* geometry = nullptr;               // per contribution: its geometric factor
};

// Positions below split are written to first[o], the others to second[o - split].
template <typename T>
struct TableOutput {
  T* first = nullptr;
  std::int64_t split = 0;
  T* second = nullptr;
};

// The form's terms and constraints as the matrix-free apply reads them.
template <typename T>
struct FormView {
  MeshView<T> mesh;
  TermCode terms[kMaxTerms];
  std::int32_t term_count = 0;
  const std::uint8_t* constrained = nullptr;  // per node
  bool symmetrized = false;
  const T* coefficients = nullptr;  // packed
};

// The host fills, shared by reference and cpu (which only adds threads); the
// cuda gather spells the same sums with unfused roundings.
template <typename T>
inline T gather_position(const TableView<T>& table, const T* coefficients, std::int64_t o) {
  T sum = 0;
  for (std::int64_t k = table.offsets[o]; k < table.offsets[o + 1]; ++k) {
    sum += table.geometry[k] * coefficients[table.coefficient[k]];
  }
  return sum;
}

template <typename T>
inline T& output_slot(const TableOutput<T>& out, std::int64_t position) {
  return position < out.split ? out.first[position] : out.second[position - out.split];
}

// b[row] for constrained rows is g[row], for the others b[row] - (lift g)[row].
template <typename T>
inline T finished_rhs(std::int32_t row, const std::uint8_t* constrained, const T* g, const CsrView<T>& lift,
                      const T* b) {
  if (constrained[row]) return g[row];
  T lifted = 0;
  for (RowOffset k = lift.row_offsets[row]; k < lift.row_offsets[row + 1]; ++k) {
    lifted += lift.values[k] * g[lift.col_indices[k]];
  }
  return b[row] - lifted;
}

// Row `row` of y = A x for the form: x itself on constrained rows, else the
// sum of the row's contributions (constrained columns skipped when
// symmetrised). Every backend's generic apply is this, row by row.
template <typename T>
TRELLIS_HOST_DEVICE inline T apply_row(const FormView<T>& form, const T* x, std::int32_t row) {
  if (form.constrained[row]) return x[row];
  const MeshView<T>& mesh = form.mesh;
  const std::int32_t nodes = mesh.extent[0] * mesh.extent[1] * mesh.extent[2];
  const std::int32_t r[3] = {row % mesh.extent[0], (row / mesh.extent[0]) % mesh.extent[1],
                             row / (mesh.extent[0] * mesh.extent[1])};
  T sum = 0;
  for_each_contribution(mesh, form.terms, form.term_count, r,
                        [&](std::int32_t col, std::int32_t slot, std::int32_t p, T g) {
                          if (form.symmetrized && form.constrained[col]) return;
                          const T c = slot < 0 ? T(1) : form.coefficients[1 + slot * nodes + p];
                          sum += c * g * x[col];
                        });
  return sum;
}

}  // namespace trellis::grid::detail

#define TRELLIS_GRID_DECLARE_FORM_KERNELS(T)                                                                       \
  void refill_gather(const ::trellis::grid::detail::TableView<T>& table, const T* coefficients,                   \
                     const ::trellis::grid::detail::TableOutput<T>& out, ::trellis::Stream stream);               \
  void refill_atomic(const ::trellis::grid::detail::TableView<T>& table, const T* coefficients,                   \
                     const ::trellis::grid::detail::TableOutput<T>& out, ::trellis::Stream stream);               \
  /* b[r] = g[r] on constrained rows, b[r] - sum_j lift[r][j] * g[j] elsewhere */                                  \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,                   \
                  const ::trellis::CsrView<T>& lift, T* b, ::trellis::Stream stream);                             \
  void matrix_free_apply(const ::trellis::grid::detail::FormView<T>& form, const T* x, T* y, ::trellis::Stream stream)

#define TRELLIS_GRID_DECLARE_ALL_FORM_KERNELS \
  TRELLIS_GRID_DECLARE_FORM_KERNELS(float);   \
  TRELLIS_GRID_DECLARE_FORM_KERNELS(double)

namespace trellis::grid::reference {
TRELLIS_GRID_DECLARE_ALL_FORM_KERNELS;
}
namespace trellis::grid::cpu {
TRELLIS_GRID_DECLARE_ALL_FORM_KERNELS;
}
namespace trellis::grid::cuda {
TRELLIS_GRID_DECLARE_ALL_FORM_KERNELS;
}
