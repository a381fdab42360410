// Assembly and matrix-free kernels, declared once; each backend folder
// defines them in its own namespace. Pointers live in the backend's memory
// space; host backends ignore the stream.
#pragma once

#include <cstdint>

#include "form_stencils.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid::detail {

// A scatter table (assembly.hpp): contributions grouped by position.
template <typename T>
struct TableView {
  std::int64_t outputs = 0;                   // positions
  std::int64_t contributions = 0;             // including dropped ones
  const std::int64_t* offsets = nullptr;      // outputs + 1: position o sums offsets[o] .. offsets[o + 1] - 1
  const std::int64_t* position = nullptr;     // per contribution: its position, or negative (dropped)
  const std::int32_t* coefficient = nullptr;  // per contribution: packed coefficient index (0 = the constant 1)
  const T* geometry = nullptr;                // per contribution: its geometric factor
};

// Positions below split are written to first[o], the others to second[o - split].
template <typename T>
struct TableOutput {
  T* first = nullptr;
  std::int64_t split = 0;
  T* second = nullptr;
};

// A form whose every term acts along one axis (its operators and staggered
// weight on that axis, each chain at most one atom) applies as a sum over
// axes a of G_a(r) * (1-D stencil along a), G_a the product of the other
// axes' control-volume lengths. The 1-D stencils are tabulated per index
// along a on the host (separable_form.hpp): constant-coefficient terms merged
// into one 5-point table (offsets -2..2), each coefficient term as two 3-point
// tables, one per point p (r itself, and r + shift along a) whose
// coefficient it multiplies.
inline constexpr int kMaxCoefficientTermsPerAxis = 4;

// Device passes only: the host compiler does not know the pragma.
#if defined(__CUDA_ARCH__)
#define TRELLIS_UNROLL _Pragma("unroll")
#else
#define TRELLIS_UNROLL
#endif

template <typename T>
struct AxisProgram {
  std::int32_t reach = 0;  // x is read at offsets -reach..reach along the axis
  const T* constant_table =
      nullptr;  // 5 x extent (offset-major, so neighbouring rows read neighbouring values), or null
  std::int32_t coefficient_terms = 0;
  const T* coefficient_table[kMaxCoefficientTermsPerAxis] = {};  // (2 x 3) x extent, offset-major
  std::int32_t coefficient_slot[kMaxCoefficientTermsPerAxis] = {};
  std::int32_t shift[kMaxCoefficientTermsPerAxis] = {};  // 0: the term reads the coefficient at r only
};

// Per node: bit 0 set when the node is constrained, bit 1 when a node the
// row reads (within reach along some axis) is, bit 2 when the row's reach
// crosses the mesh's edge. Rows with no bit set (the interior) read their
// neighbours without any check.
inline constexpr std::uint8_t kConstrainedNode = 1;
inline constexpr std::uint8_t kNearConstrainedNode = 2;
inline constexpr std::uint8_t kNearEdgeNode = 4;

template <typename T>
struct SeparableForm {
  bool usable = false;
  AxisProgram<T> axis[3];
  const std::uint8_t* flags = nullptr;  // kConstrainedNode | kNearConstrainedNode per node
};

// A separable form with constant coefficients whose 1-D tables (and the
// mesh's half spacings) are the same, bit for bit in T, at every interior
// index of every axis, constrained exactly on the boundary nodes: Poisson
// on an equally spaced mesh, optionally with a constant reaction. Every
// unconstrained row is then interior along every axis, so a row needs only
// its indices, these few weights and its 2 * Dim + 1 x values. The weights
// are the tables' own entries in T, so the sums below are separable_row's
// arithmetic, operation for operation.
template <typename T>
struct UniformConstantForm {
  bool usable = false;
  T weight[3][3] = {};  // per axis: the stencil at offsets -1, 0, +1
  T others[3] = {};     // per axis: the product of the other axes' interior half spacings
};

// The sum separable_row forms for an unconstrained row (every axis at Reach
// 1, no coefficients): below[a] and above[a] are x at the row's neighbours
// along a, already zero where a symmetrised form drops a constrained column.
template <typename T, int Dim>
TRELLIS_HOST_DEVICE inline T uniform_interior_row(const UniformConstantForm<T>& form, T x_row, const T (&below)[3],
                                                  const T (&above)[3]) {
  T sum = 0;
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) {
    T acc = 0;
    acc += form.weight[a][0] * below[a];
    acc += form.weight[a][1] * x_row;
    acc += form.weight[a][2] * above[a];
    sum += form.others[a] * acc;
  }
  return sum;
}

// Row `row` (multi-index r) of y = A x for a uniform constant form: x itself
// on the boundary (the constrained nodes), else the interior sum, a
// neighbour on the boundary read as zero when symmetrised.
template <typename T, int Dim>
TRELLIS_HOST_DEVICE inline T uniform_row(const UniformConstantForm<T>& form, const MeshView<T>& mesh, bool symmetrized,
                                         const std::int32_t* r, std::int32_t row, const T* x) {
  bool boundary = false;
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) boundary = boundary || r[a] == 0 || r[a] == mesh.extent[a] - 1;
  if (boundary) return x[row];
  T below[3] = {T(0), T(0), T(0)};
  T above[3] = {T(0), T(0), T(0)};
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) {
    below[a] = symmetrized && r[a] == 1 ? T(0) : x[row - mesh.stride[a]];
    above[a] = symmetrized && r[a] == mesh.extent[a] - 2 ? T(0) : x[row + mesh.stride[a]];
  }
  return uniform_interior_row<T, Dim>(form, x[row], below, above);
}

// x at offset o (-2..2) along the axis from the five values loaded once.
template <typename T>
TRELLIS_HOST_DEVICE inline T pick(const T (&xs)[5], int o) {
  // A select chain, not an indexed load, so xs stays in registers.
  T v = xs[0];
  v = o == -1 ? xs[1] : v;
  v = o == 0 ? xs[2] : v;
  v = o == 1 ? xs[3] : v;
  v = o == 2 ? xs[4] : v;
  return v;
}

// A separable form with coefficient terms on the same footing as
// UniformConstantForm: every axis reaches one node, its constant stencil
// (if any) and each coefficient term's two 3-point stencils are bitwise the
// same at every interior index, as are the half spacings, and exactly the
// boundary nodes are constrained: -div(k grad u) with a reaction on an
// equally spaced mesh. A row then needs its 2 * Dim + 1 x values, the
// coefficients at itself and its shifted neighbours, and these weights.
template <typename T>
struct UniformCoefficientForm {
  bool usable = false;
  bool constant[3] = {};  // per axis: whether a constant stencil acts along it
  T weight[3][3] = {};    // per axis: the constant stencil at offsets -1, 0, +1
  T others[3] = {};       // per axis: the product of the other axes' interior half spacings
  std::int32_t terms[3] = {};
  std::int32_t slot[3][kMaxCoefficientTermsPerAxis] = {};
  std::int32_t shift[3][kMaxCoefficientTermsPerAxis] = {};
  T entries[3][kMaxCoefficientTermsPerAxis][6] = {};  // the term's (2 x 3) stencil, as its table holds it
  std::int32_t single_slot = -1;                      // the one coefficient slot every term reads, or -1
};

// The sum separable_row forms for an unconstrained interior row of a
// uniform coefficient form, operation for operation: below[a] and above[a]
// as in uniform_interior_row; coefficient(a, v, shift) is term v of axis
// a's coefficient at the row (shift 0) or shift nodes along a from it.
template <typename T, int Dim, typename Coefficient>
TRELLIS_HOST_DEVICE inline T uniform_coefficient_row(const UniformCoefficientForm<T>& form,
                                                     const Coefficient& coefficient, T x_row, const T (&below)[3],
                                                     const T (&above)[3]) {
  T sum = 0;
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) {
    const T xs[5] = {T(0), below[a], x_row, above[a], T(0)};
    T acc = 0;
    if (form.constant[a]) {
      acc += form.weight[a][0] * xs[1];
      acc += form.weight[a][1] * xs[2];
      acc += form.weight[a][2] * xs[3];
    }
    TRELLIS_UNROLL
    for (int v = 0; v < kMaxCoefficientTermsPerAxis; ++v) {
      if (v >= form.terms[a]) break;
      const T* e = form.entries[a][v];
      acc += coefficient(a, v, 0) * (e[0] * xs[1] + e[1] * xs[2] + e[2] * xs[3]);
      const int shift = form.shift[a][v];
      if (shift != 0) {
        acc += coefficient(a, v, shift) *
               (e[3] * pick(xs, shift - 1) + e[4] * pick(xs, shift) + e[5] * pick(xs, shift + 1));
      }
    }
    sum += form.others[a] * acc;
  }
  return sum;
}

// Whether every axis of the form has one coefficient term, read at the row
// and at the row's upper neighbour (shift +1), and no constant stencil: a
// flux through each cell edge, -div(k grad u)'s form.
template <typename T>
bool edge_flux_form(const UniformCoefficientForm<T>& form, int dim) {
  for (int a = 0; a < dim; ++a) {
    if (form.constant[a] || form.terms[a] != 1 || form.shift[a][0] != 1) return false;
  }
  return true;
}

// uniform_coefficient_row for an edge_flux_form, the same operations with
// the shift known (no selects among the loaded values).
template <typename T, int Dim, typename Coefficient>
TRELLIS_HOST_DEVICE inline T edge_flux_row(const UniformCoefficientForm<T>& form, const Coefficient& coefficient,
                                           T x_row, const T (&below)[3], const T (&above)[3]) {
  T sum = 0;
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) {
    const T* e = form.entries[a][0];
    T acc = 0;
    acc += coefficient(a, 0, 0) * (e[0] * below[a] + e[1] * x_row + e[2] * above[a]);
    acc += coefficient(a, 0, 1) * (e[3] * x_row + e[4] * above[a] + e[5] * T(0));
    sum += form.others[a] * acc;
  }
  return sum;
}

// The form's terms and constraints as the matrix-free apply reads them.
template <typename T>
struct FormView {
  SeparableForm<T> separable;                      // filled where the form is separable and the tables are on hand
  UniformConstantForm<T> uniform;                  // usable where the separable form qualifies (see above)
  UniformCoefficientForm<T> uniform_coefficients;  // usable where the separable form qualifies (see above)
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

// Row `row` (multi-index r) of y = A x for a separable form. Per axis: the x values
// at offsets -Reach..Reach (zero outside the mesh or, when symmetrised, at
// constrained nodes), the merged constant stencil, then each coefficient term
// at its one or two points; the sum weighted by the other axes' control
// volumes. Dim, Reach (the largest over the axes) and whether any term has
// a coefficient are template parameters so the loops unroll to just the
// loads and multiply-adds the form needs.
template <typename T, int Dim, int Reach, bool WithCoefficients>
TRELLIS_HOST_DEVICE inline T separable_row(const FormView<T>& form, const std::int32_t* r, std::int32_t row,
                                           const T* __restrict__ x) {
  const MeshView<T>& mesh = form.mesh;
  const std::uint8_t flags = form.separable.flags[row];
  if (flags & kConstrainedNode) return x[row];
  const bool check_columns = form.symmetrized && (flags & kNearConstrainedNode);
  const bool check_edges = flags & kNearEdgeNode;
  const std::int32_t nodes = mesh.extent[0] * mesh.extent[1] * mesh.extent[2];
  T hhalf[3];
  TRELLIS_UNROLL
  for (int a = 0; a < 3; ++a) hhalf[a] = a < Dim ? mesh.hhalf[a][r[a]] : T(1);
  const T x_row = x[row];
  T sum = 0;
  TRELLIS_UNROLL
  for (int a = 0; a < Dim; ++a) {
    const AxisProgram<T>& program = form.separable.axis[a];
    const std::int32_t stride = mesh.stride[a];
    T xs[5] = {T(0), T(0), x_row, T(0), T(0)};
    TRELLIS_UNROLL
    for (int o = -Reach; o <= Reach; ++o) {
      if (o == 0) continue;
      const std::int32_t j = r[a] + o;
      if (!check_edges || (j >= 0 && j < mesh.extent[a])) {
        const std::int32_t node = row + o * stride;
        xs[o + 2] = check_columns && form.constrained[node] ? T(0) : x[node];
      }
    }
    T acc = 0;
    if (program.constant_table != nullptr) {
      const T* m = program.constant_table + r[a];
      const std::int32_t n = mesh.extent[a];
      TRELLIS_UNROLL
      for (int o = 2 - Reach; o <= 2 + Reach; ++o) acc += m[o * n] * xs[o];
    }
    TRELLIS_UNROLL
    for (int v = 0; v < (WithCoefficients ? kMaxCoefficientTermsPerAxis : 0); ++v) {
      if (v >= program.coefficient_terms) break;
      const std::int32_t n = mesh.extent[a];
      const T* e0 = program.coefficient_table[v] + r[a];
      const T e[6] = {e0[0], e0[n], e0[2 * n], e0[3 * n], e0[4 * n], e0[5 * n]};
      const T* c = form.coefficients + 1 + static_cast<std::int64_t>(program.coefficient_slot[v]) * nodes;
      acc += c[row] * (e[0] * xs[1] + e[1] * xs[2] + e[2] * xs[3]);
      const int shift = program.shift[v];
      const std::int32_t p = r[a] + shift;
      if (shift != 0 && p >= 0 && p < mesh.extent[a]) {
        acc += c[row + shift * stride] *
               (e[3] * pick(xs, shift - 1) + e[4] * pick(xs, shift) + e[5] * pick(xs, shift + 1));
      }
    }
    T others = T(1);
    TRELLIS_UNROLL
    for (int b = 0; b < 3; ++b) others *= b == a ? T(1) : hhalf[b];
    sum += others * acc;
  }
  return sum;
}

// Calls run.template operator()<Dim, Reach, WithCoefficients>() with the
// separable form's shape.
template <typename T, typename Run>
void with_separable_shape(const FormView<T>& form, Run&& run) {
  int reach = 1;
  bool coefficients = false;
  for (int a = 0; a < form.mesh.dim; ++a) {
    reach = reach > form.separable.axis[a].reach ? reach : form.separable.axis[a].reach;
    coefficients = coefficients || form.separable.axis[a].coefficient_terms > 0;
  }
  auto by_dim = [&]<int Reach, bool WithCoefficients>() {
    if (form.mesh.dim == 1)
      run.template operator()<1, Reach, WithCoefficients>();
    else if (form.mesh.dim == 2)
      run.template operator()<2, Reach, WithCoefficients>();
    else
      run.template operator()<3, Reach, WithCoefficients>();
  };
  if (reach <= 1) {
    if (coefficients)
      by_dim.template operator()<1, true>();
    else
      by_dim.template operator()<1, false>();
  } else {
    if (coefficients)
      by_dim.template operator()<2, true>();
    else
      by_dim.template operator()<2, false>();
  }
}

}  // namespace trellis::grid::detail

#define TRELLIS_GRID_DECLARE_FORM_KERNELS(T)                                                        \
  void refill_gather(const ::trellis::grid::detail::TableView<T>& table, const T* coefficients,     \
                     const ::trellis::grid::detail::TableOutput<T>& out, ::trellis::Stream stream); \
  void refill_atomic(const ::trellis::grid::detail::TableView<T>& table, const T* coefficients,     \
                     const ::trellis::grid::detail::TableOutput<T>& out, ::trellis::Stream stream); \
  /* b[r] = g[r] on constrained rows, b[r] - sum_j lift[r][j] * g[j] elsewhere */                   \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,     \
                  const ::trellis::CsrView<T>& lift, T* b, ::trellis::Stream stream);               \
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
// out[nodes[i]] = values[i] for i < count: a vector's few entries that
// matter (boundary values at the constrained nodes) sent without the rest.
template <typename T>
void scatter_values(std::int32_t count, const std::int32_t* nodes, const T* values, T* out, ::trellis::Stream stream);

// The device vectors of a multigrid smoothing step (size() values each).
template <typename T>
struct SmoothingStepVectors {
  const T* b;                               // right-hand side
  const T* x;                               // iterate
  InverseDiagonalView<T> inverse_diagonal;  // D^-1
  T* d;                                     // direction, updated in place
  T* x_out;                                 // the new iterate; not x
};
// A smoothing step in the matrix-free apply's pass (uniform paths only):
// r = b - A x, d = alpha d + beta D^-1 r and x_out = x + d, rounded as the
// multigrid's two-pass step. False, with nothing launched, where the form
// has no uniform path or the mesh is too tall for its launch.
bool matrix_free_smoothing_step(const ::trellis::grid::detail::FormView<float>& form,
                                const SmoothingStepVectors<float>& vectors, float alpha, float beta,
                                ::trellis::Stream stream);
bool matrix_free_smoothing_step(const ::trellis::grid::detail::FormView<double>& form,
                                const SmoothingStepVectors<double>& vectors, double alpha, double beta,
                                ::trellis::Stream stream);
// The residual r = b - A x in the matrix-free apply's pass (uniform paths
// only), rounded as the apply then b - y. False, with nothing launched,
// where the form has no uniform path or the mesh is too tall for its launch.
bool matrix_free_residual(const ::trellis::grid::detail::FormView<float>& form, const float* b, const float* x,
                          float* r, ::trellis::Stream stream);
bool matrix_free_residual(const ::trellis::grid::detail::FormView<double>& form, const double* b, const double* x,
                          double* r, ::trellis::Stream stream);
}  // namespace trellis::grid::cuda
