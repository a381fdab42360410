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
