// Assembly fills and the matrix-free apply with OpenMP threads: positions
// and rows are independent, so each thread takes a contiguous share and does
// exactly the reference's arithmetic for it (gather and apply match the
// reference bitwise; the atomic scatter only within rounding).
#include <omp.h>

#include "../form_kernels.hpp"

namespace trellis::grid::cpu {
namespace {

using detail::FormView;
using detail::TableOutput;
using detail::TableView;

template <typename T>
void gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out) {
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < table.outputs; ++o) {
    T sum = 0;
    for (std::int64_t k = table.offsets[o]; k < table.offsets[o + 1]; ++k) {
      sum += table.geometry[k] * coefficients[table.coefficient[k]];
    }
    if (o < out.split) out.first[o] = sum;
    else out.second[o - out.split] = sum;
  }
}

template <typename T>
void scatter(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out) {
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < table.outputs; ++o) {
    if (o < out.split) out.first[o] = T(0);
    else out.second[o - out.split] = T(0);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < table.contributions; ++k) {
    const std::int64_t position = table.position[k];
    if (position < 0) continue;
    T* slot = position < out.split ? out.first + position : out.second + (position - out.split);
    const T value = table.geometry[k] * coefficients[table.coefficient[k]];
#pragma omp atomic
    *slot += value;
  }
}

template <typename T>
void finish(std::int32_t rows, const std::uint8_t* constrained, const T* g, const CsrView<T>& lift, T* b) {
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < rows; ++row) {
    if (constrained[row]) {
      b[row] = g[row];
      continue;
    }
    T lifted = 0;
    for (RowOffset k = lift.row_offsets[row]; k < lift.row_offsets[row + 1]; ++k) {
      lifted += lift.values[k] * g[lift.col_indices[k]];
    }
    b[row] -= lifted;
  }
}

template <typename T>
void apply(const FormView<T>& form, const T* x, T* y) {
  const detail::MeshView<T>& mesh = form.mesh;
  const std::int32_t nodes = mesh.extent[0] * mesh.extent[1] * mesh.extent[2];
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < nodes; ++row) {
    if (form.constrained[row]) {
      y[row] = x[row];
      continue;
    }
    const std::int32_t r[3] = {row % mesh.extent[0], (row / mesh.extent[0]) % mesh.extent[1],
                               row / (mesh.extent[0] * mesh.extent[1])};
    T sum = 0;
    detail::for_each_contribution(mesh, form.terms, form.term_count, r,
                                  [&](std::int32_t col, std::int32_t slot, std::int32_t p, T g) {
                                    if (form.symmetrized && form.constrained[col]) return;
                                    const T c = slot < 0 ? T(1) : form.coefficients[1 + slot * nodes + p];
                                    sum += c * g * x[col];
                                  });
    y[row] = sum;
  }
}

}  // namespace

#define TRELLIS_CPU_FORM_KERNELS(T)                                                                          \
  void refill_gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream) { \
    gather(table, coefficients, out);                                                                        \
  }                                                                                                          \
  void refill_atomic(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream) { \
    scatter(table, coefficients, out);                                                                       \
  }                                                                                                          \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,              \
                  const CsrView<T>& lift, T* b, Stream) {                                                    \
    finish(rows, constrained, boundary_values, lift, b);                                                     \
  }                                                                                                          \
  void matrix_free_apply(const FormView<T>& form, const T* x, T* y, Stream) { apply(form, x, y); }

TRELLIS_CPU_FORM_KERNELS(float)
TRELLIS_CPU_FORM_KERNELS(double)

}  // namespace trellis::grid::cpu
