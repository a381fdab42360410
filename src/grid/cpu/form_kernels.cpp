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
  for (std::int64_t o = 0; o < table.outputs; ++o)
    detail::output_slot(out, o) = detail::gather_position(table, coefficients, o);
}

template <typename T>
void scatter(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out) {
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < table.outputs; ++o) detail::output_slot(out, o) = T(0);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < table.contributions; ++k) {
    if (table.position[k] < 0) continue;
    const T value = table.geometry[k] * coefficients[table.coefficient[k]];
    T& slot = detail::output_slot(out, table.position[k]);
#pragma omp atomic
    slot += value;
  }
}

template <typename T>
void finish(std::int32_t rows, const std::uint8_t* constrained, const T* g, const CsrView<T>& lift, T* b) {
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < rows; ++row) b[row] = detail::finished_rhs(row, constrained, g, lift, b);
}

// Calls row_value(r, row) for every node (i, j, k) of the mesh, its row
// index in x-fastest order, and stores the result in y[row].
template <typename T, typename RowValue>
void for_each_row(const detail::MeshView<T>& mesh, T* y, const RowValue& row_value) {
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int32_t k = 0; k < mesh.extent[2]; ++k) {
    for (std::int32_t j = 0; j < mesh.extent[1]; ++j) {
      for (std::int32_t i = 0; i < mesh.extent[0]; ++i) {
        const std::int32_t r[3] = {i, j, k};
        const std::int32_t row = i + j * mesh.stride[1] + k * mesh.stride[2];
        y[row] = row_value(r, row);
      }
    }
  }
}

template <typename T, int Dim, int Reach, bool WithCoefficients>
void apply_separable(const FormView<T>& form, const T* x, T* y) {
  for_each_row(form.mesh, y, [&](const std::int32_t(&r)[3], std::int32_t row) {
    return detail::separable_row<T, Dim, Reach, WithCoefficients>(form, r, row, x);
  });
}

// The uniform constant stencil: the separable rows' arithmetic without
// tables or flags.
template <typename T, int Dim>
void apply_uniform(const FormView<T>& form, const T* x, T* y) {
  for_each_row(form.mesh, y, [&](const std::int32_t(&r)[3], std::int32_t row) {
    return detail::uniform_row<T, Dim>(form.uniform, form.mesh, form.symmetrized, r, row, x);
  });
}

// Uniform constant forms apply their few weights, other separable forms
// read their 1-D tables (as cuda does); others go row by row.
template <typename T>
void apply(const FormView<T>& form, const T* x, T* y) {
  if (form.uniform.usable) {
    if (form.mesh.dim == 1)
      apply_uniform<T, 1>(form, x, y);
    else if (form.mesh.dim == 2)
      apply_uniform<T, 2>(form, x, y);
    else
      apply_uniform<T, 3>(form, x, y);
    return;
  }
  if (form.separable.usable) {
    detail::with_separable_shape(form, [&]<int Dim, int Reach, bool WithCoefficients>() {
      apply_separable<T, Dim, Reach, WithCoefficients>(form, x, y);
    });
    return;
  }
  const std::int32_t nodes = form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2];
#pragma omp parallel for schedule(static)
  for (std::int32_t row = 0; row < nodes; ++row) y[row] = detail::apply_row(form, x, row);
}

}  // namespace
#define TRELLIS_CPU_FORM_KERNELS(T)                                                                         \
  void refill_gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream) { \
    gather(table, coefficients, out);                                                                       \
  }                                                                                                         \
  void refill_atomic(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream) { \
    scatter(table, coefficients, out);                                                                      \
  }                                                                                                         \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,             \
                  const CsrView<T>& lift, T* b, Stream) {                                                   \
    finish(rows, constrained, boundary_values, lift, b);                                                    \
  }                                                                                                         \
  void matrix_free_apply(const FormView<T>& form, const T* x, T* y, Stream) { apply(form, x, y); }

TRELLIS_CPU_FORM_KERNELS(float)
TRELLIS_CPU_FORM_KERNELS(double)

}  // namespace trellis::grid::cpu
