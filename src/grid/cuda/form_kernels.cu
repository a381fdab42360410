// Assembly fills and the matrix-free apply on the GPU.
//
// Gather: one thread per matrix position sums its contributions, which the
// table stores contiguously, so reads are coalesced and nothing is atomic;
// the sums are in the reference's order (bitwise equal to it). Atomic: one
// thread per contribution adds itself to its position (sentinels skipped),
// the cuda-dolfinx way; the order of the additions varies from run to run.
//
// Matrix-free apply: one thread per row. Forms whose operator chains have at
// most one atom (differences, averages, jumps, shifts: every form of the
// examples) take a compact kernel with reciprocal spacings precomputed, the
// mesh walked as a 3-D launch (no integer division) and no local arrays; any
// other form takes the generic kernel, the reference's loop per row.
#include <cstdint>

#include "../form_kernels.hpp"
#include "trellis/core/cuda_check.hpp"

namespace trellis::grid::cuda {
namespace {

using detail::FormView;
using detail::TableOutput;
using detail::TableView;

constexpr int kThreads = 256;

std::int64_t blocks_for(std::int64_t work) { return (work + kThreads - 1) / kThreads; }

template <typename T>
__global__ void gather_kernel(TableView<T> table, const T* __restrict__ coefficients, TableOutput<T> out) {
  const std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= table.outputs) return;
  T sum = 0;
  for (std::int64_t k = table.offsets[o]; k < table.offsets[o + 1]; ++k) {
    sum = __fadd_rn(sum, __fmul_rn(table.geometry[k], coefficients[table.coefficient[k]]));
  }
  if (o < out.split) out.first[o] = sum;
  else out.second[o - out.split] = sum;
}

template <>
__global__ void gather_kernel<double>(TableView<double> table, const double* __restrict__ coefficients,
                                      TableOutput<double> out) {
  const std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= table.outputs) return;
  double sum = 0;
  for (std::int64_t k = table.offsets[o]; k < table.offsets[o + 1]; ++k) {
    sum = __dadd_rn(sum, __dmul_rn(table.geometry[k], coefficients[table.coefficient[k]]));
  }
  if (o < out.split) out.first[o] = sum;
  else out.second[o - out.split] = sum;
}

template <typename T>
__global__ void atomic_kernel(TableView<T> table, const T* __restrict__ coefficients, TableOutput<T> out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= table.contributions) return;
  const std::int64_t position = table.position[k];
  if (position < 0) return;  // the constrained-row sentinel
  T* slot = position < out.split ? out.first + position : out.second + (position - out.split);
  atomicAdd(slot, table.geometry[k] * coefficients[table.coefficient[k]]);
}

template <typename T>
__global__ void finish_kernel(std::int32_t rows, const std::uint8_t* __restrict__ constrained,
                              const T* __restrict__ g, CsrView<T> lift, T* __restrict__ b) {
  const std::int32_t row = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= rows) return;
  if (constrained[row]) {
    b[row] = g[row];
    return;
  }
  T lifted = 0;
  for (RowOffset k = lift.row_offsets[row]; k < lift.row_offsets[row + 1]; ++k) {
    lifted += lift.values[k] * g[lift.col_indices[k]];
  }
  b[row] -= lifted;
}

template <typename T>
__global__ void generic_apply_kernel(FormView<T> form, const T* __restrict__ x, T* __restrict__ y) {
  const std::int32_t nodes = form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2];
  const std::int32_t row = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row < nodes) y[row] = detail::apply_row(form, x, row);
}

// ---------------------------------------------------------------- compact apply

// A term whose chains have at most one atom; kind -1 is the identity.
struct CompactTerm {
  std::int8_t weight;  // 0: inner_h, 1: inner_plus along `axis`
  std::int8_t axis;
  std::int8_t test_kind;
  std::int8_t test_axis;
  std::int8_t trial_kind;
  std::int8_t trial_axis;
  std::int32_t coefficient;
  double scale;
};

template <typename T>
struct CompactForm {
  CompactTerm terms[detail::kMaxTerms];
  std::int32_t term_count;
  std::int32_t extent[3];
  std::int32_t stride[3];
  const T* inverse_h[3];  // 1 / h_i, i = 0 .. N + 1
  const T* h[3];
  const T* hhalf[3];
  const std::uint8_t* constrained;
  bool symmetrized;
  const T* coefficients;
};

// The atom's weights at index i with reciprocal spacings: the values
// atom_weights gives (1/h rounded once either way).
template <typename T>
__device__ __forceinline__ AtomWeights<T> compact_weights(std::int8_t kind, const T* inverse_h, int i) {
  switch (static_cast<AtomKind>(kind)) {
    case AtomKind::backward_difference: return {inverse_h[i], -inverse_h[i], -1};
    case AtomKind::forward_difference: return {-inverse_h[i + 1], inverse_h[i + 1], +1};
    case AtomKind::backward_jump: return {T(1), T(-1), -1};
    case AtomKind::forward_jump: return {T(-1), T(1), +1};
    case AtomKind::backward_average: return {T(0.5), T(0.5), -1};
    case AtomKind::forward_average: return {T(0.5), T(0.5), +1};
    case AtomKind::backward_shift: return {T(0), T(1), -1};
    case AtomKind::forward_shift: return {T(0), T(1), +1};
  }
  return {T(0), T(0), 0};
}

template <typename T>
__device__ __forceinline__ T masked_x(const CompactForm<T>& form, const T* __restrict__ x, std::int32_t node) {
  return form.symmetrized && form.constrained[node] ? T(0) : __ldg(x + node);
}

template <typename T>
__global__ void compact_apply_kernel(CompactForm<T> form, const T* __restrict__ x, T* __restrict__ y) {
  std::int32_t r[3];
  r[0] = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  r[1] = static_cast<std::int32_t>(blockIdx.y);
  r[2] = static_cast<std::int32_t>(blockIdx.z);
  if (r[0] >= form.extent[0]) return;
  const std::int32_t row = r[0] + r[1] * form.stride[1] + r[2] * form.stride[2];
  if (form.constrained[row]) {
    y[row] = x[row];
    return;
  }
  const std::int32_t nodes = form.extent[0] * form.extent[1] * form.extent[2];
  T sum = 0;
  for (std::int32_t t = 0; t < form.term_count; ++t) {
    const CompactTerm term = form.terms[t];
    // The points p whose test stencil reads r, with the weight it reads r by.
    for (int q = 0; q < 2; ++q) {
      std::int32_t p[3] = {r[0], r[1], r[2]};
      T s = T(1);
      if (term.test_kind < 0) {
        if (q == 1) break;
      } else {
        const int axis = term.test_axis;
        const int offset = compact_weights<T>(term.test_kind, form.inverse_h[axis], 0).offset;
        if (q == 1) p[axis] -= offset;
        if (p[axis] < 0 || p[axis] >= form.extent[axis]) continue;
        const AtomWeights<T> w = compact_weights<T>(term.test_kind, form.inverse_h[axis], p[axis]);
        s = q == 0 ? w.self : w.neighbour;
        if (s == T(0)) continue;
      }
      T weight = T(1);
      for (int a = 0; a < 3; ++a) {
        if (term.weight == 1 && a == term.axis) {
          weight *= p[a] == 0 ? T(0) : form.h[a][p[a]];
        } else {
          weight *= form.hhalf[a][p[a]];
        }
      }
      if (weight == T(0)) continue;
      const std::int32_t p_node = p[0] + p[1] * form.stride[1] + p[2] * form.stride[2];
      T trial;
      if (term.trial_kind < 0) {
        trial = masked_x(form, x, p_node);
      } else {
        const int axis = term.trial_axis;
        const AtomWeights<T> w = compact_weights<T>(term.trial_kind, form.inverse_h[axis], p[axis]);
        trial = w.self * masked_x(form, x, p_node);
        const std::int32_t j = p[axis] + w.offset;
        if (j >= 0 && j < form.extent[axis]) {
          trial += w.neighbour * masked_x(form, x, p_node + w.offset * form.stride[axis]);
        }
      }
      const T c = term.coefficient < 0 ? T(1) : form.coefficients[1 + term.coefficient * nodes + p_node];
      sum += static_cast<T>(term.scale) * weight * s * c * trial;
    }
  }
  y[row] = sum;
}

template <typename T>
bool compact_form(const FormView<T>& view, CompactForm<T>& form) {
  for (std::int32_t t = 0; t < view.term_count; ++t) {
    const detail::TermCode& code = view.terms[t];
    if (code.test.count > 1 || code.trial.count > 1) return false;
    CompactTerm& term = form.terms[t];
    term.weight = code.weight == InnerProduct::plus ? 1 : 0;
    term.axis = static_cast<std::int8_t>(code.axis);
    term.test_kind = code.test.count == 0 ? std::int8_t(-1) : static_cast<std::int8_t>(code.test.kind[0]);
    term.test_axis = static_cast<std::int8_t>(code.test.count == 0 ? 0 : code.test.axis[0]);
    term.trial_kind = code.trial.count == 0 ? std::int8_t(-1) : static_cast<std::int8_t>(code.trial.kind[0]);
    term.trial_axis = static_cast<std::int8_t>(code.trial.count == 0 ? 0 : code.trial.axis[0]);
    term.coefficient = code.coefficient;
    term.scale = code.scale;
  }
  form.term_count = view.term_count;
  for (int a = 0; a < 3; ++a) {
    form.extent[a] = view.mesh.extent[a];
    form.stride[a] = view.mesh.stride[a];
    form.h[a] = view.mesh.h[a];
    form.hhalf[a] = view.mesh.hhalf[a];
    form.inverse_h[a] = view.mesh.inverse_h[a];
  }
  form.constrained = view.constrained;
  form.symmetrized = view.symmetrized;
  form.coefficients = view.coefficients;
  return true;
}

template <typename T>
void apply(const FormView<T>& view, const T* x, T* y, Stream stream) {
  const std::int64_t nodes = static_cast<std::int64_t>(view.mesh.extent[0]) * view.mesh.extent[1] *
                             view.mesh.extent[2];
  if (nodes == 0) return;
  CompactForm<T> form{};
  if (!compact_form(view, form) || view.mesh.extent[1] > 65535 || view.mesh.extent[2] > 65535) {
    TRELLIS_LAUNCH(generic_apply_kernel<T>, blocks_for(nodes), kThreads, 0, stream, view, x, y);
    return;
  }
  constexpr int kRowThreads = 128;
  const dim3 grid(static_cast<unsigned>((view.mesh.extent[0] + kRowThreads - 1) / kRowThreads),
                  static_cast<unsigned>(view.mesh.extent[1]), static_cast<unsigned>(view.mesh.extent[2]));
  TRELLIS_LAUNCH(compact_apply_kernel<T>, grid, kRowThreads, 0, stream, form, x, y);
}


template <typename T>
void gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) {
  if (table.outputs == 0) return;
  TRELLIS_LAUNCH(gather_kernel<T>, blocks_for(table.outputs), kThreads, 0, stream, table, coefficients, out);
}

template <typename T>
void scatter(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) {
  if (table.contributions == 0) return;
  TRELLIS_LAUNCH(atomic_kernel<T>, blocks_for(table.contributions), kThreads, 0, stream, table, coefficients, out);
}

template <typename T>
void finish(std::int32_t rows, const std::uint8_t* constrained, const T* g, const CsrView<T>& lift, T* b,
            Stream stream) {
  if (rows == 0) return;
  TRELLIS_LAUNCH(finish_kernel<T>, blocks_for(rows), kThreads, 0, stream, rows, constrained, g, lift, b);
}

}  // namespace

#define TRELLIS_CUDA_FORM_KERNELS(T)                                                                             \
  void refill_gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) { \
    gather(table, coefficients, out, stream);                                                                    \
  }                                                                                                              \
  void refill_atomic(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) { \
    scatter(table, coefficients, out, stream);                                                                   \
  }                                                                                                              \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,                  \
                  const CsrView<T>& lift, T* b, Stream stream) {                                                 \
    finish(rows, constrained, boundary_values, lift, b, stream);                                                 \
  }                                                                                                              \
  void matrix_free_apply(const FormView<T>& form, const T* x, T* y, Stream stream) { apply(form, x, y, stream); }

TRELLIS_CUDA_FORM_KERNELS(float)
TRELLIS_CUDA_FORM_KERNELS(double)

}  // namespace trellis::grid::cuda
