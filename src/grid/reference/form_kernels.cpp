// Assembly fills and the matrix-free apply, one plain loop each: the oracle
// the other backends are compared with.
#include "../form_kernels.hpp"

namespace trellis::grid::reference {
namespace {

using detail::FormView;
using detail::TableOutput;
using detail::TableView;

template <typename T>
void gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out) {
  for (std::int64_t o = 0; o < table.outputs; ++o)
    detail::output_slot(out, o) = detail::gather_position(table, coefficients, o);
}

// Contribution by contribution in table order, skipping the sentinels: what
// the atomic kernel does, without the atomics.
template <typename T>
void scatter(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out) {
  for (std::int64_t o = 0; o < table.outputs; ++o) detail::output_slot(out, o) = T(0);
  for (std::int64_t k = 0; k < table.contributions; ++k) {
    if (table.position[k] < 0) continue;
    detail::output_slot(out, table.position[k]) += table.geometry[k] * coefficients[table.coefficient[k]];
  }
}

template <typename T>
void finish(std::int32_t rows, const std::uint8_t* constrained, const T* g, const CsrView<T>& lift, T* b) {
  for (std::int32_t row = 0; row < rows; ++row) b[row] = detail::finished_rhs(row, constrained, g, lift, b);
}

template <typename T>
void apply(const FormView<T>& form, const T* x, T* y) {
  const std::int32_t nodes = form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2];
  for (std::int32_t row = 0; row < nodes; ++row) y[row] = detail::apply_row(form, x, row);
}

}  // namespace
#define TRELLIS_REFERENCE_FORM_KERNELS(T)                                                                   \
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

TRELLIS_REFERENCE_FORM_KERNELS(float)
TRELLIS_REFERENCE_FORM_KERNELS(double)

}  // namespace trellis::grid::reference
