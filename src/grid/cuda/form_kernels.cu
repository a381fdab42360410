// Assembly fills and the matrix-free apply on the GPU.
//
// Gather: one thread per matrix position sums its contributions, which the
// table stores contiguously, so reads are coalesced and nothing is atomic;
// the sums are in the reference's order (bitwise equal to it). Atomic: one
// thread per contribution adds itself to its position (sentinels skipped),
// the cuda-dolfinx way; the order of the additions varies from run to run.
//
// Matrix-free apply: one thread per row. Separable forms (every term along
// one axis, chains of at most one atom: every form of the examples) read
// 1-D stencil tables tabulated on the host (form_kernels.hpp), so a row costs
// its x neighbours, a few cached table entries and its coefficients; any
// other form takes the generic kernel, the reference's loop per row. A
// separable form whose stencil is the same at every interior node, with
// the boundary constrained (Poisson on an equally spaced mesh), skips the
// tables and flags: its weights travel as kernel parameters and each thread
// applies a short column of rows.
#include <cstdint>

#include "../form_kernels.hpp"
#include "smoothing_step.cuh"
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
  if (o < out.split)
    out.first[o] = sum;
  else
    out.second[o - out.split] = sum;
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
  if (o < out.split)
    out.first[o] = sum;
  else
    out.second[o - out.split] = sum;
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
__global__ void finish_kernel(std::int32_t rows, const std::uint8_t* __restrict__ constrained, const T* __restrict__ g,
                              CsrView<T> lift, T* __restrict__ b) {
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
__global__ void scatter_values_kernel(std::int32_t count, const std::int32_t* __restrict__ nodes,
                                      const T* __restrict__ values, T* __restrict__ out) {
  const std::int32_t i = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[nodes[i]] = values[i];
}

template <typename T>
__global__ void generic_apply_kernel(FormView<T> form, const T* __restrict__ x, T* __restrict__ y) {
  const std::int32_t nodes = form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2];
  const std::int32_t row = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row < nodes) y[row] = detail::apply_row(form, x, row);
}

// ---------------------------------------------------------------- separable apply

// One thread per row, the mesh walked as a 3-D launch (no integer division).
template <typename T, int Dim, int Reach, bool WithCoefficients>
__global__ void separable_apply_kernel(FormView<T> form, const T* __restrict__ x, T* __restrict__ y) {
  const std::int32_t r[3] = {static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x),
                             static_cast<std::int32_t>(blockIdx.y), static_cast<std::int32_t>(blockIdx.z)};
  if (r[0] >= form.mesh.extent[0]) return;
  const std::int32_t row = r[0] + r[1] * form.mesh.stride[1] + r[2] * form.mesh.stride[2];
  y[row] = detail::separable_row<T, Dim, Reach, WithCoefficients>(form, r, row, x);
}

// ---------------------------------------------------------------- uniform apply

// Each thread takes Rows consecutive rows along y at one (i, k): their y
// neighbours are one column of Rows + 2 values, loaded once. Every load is
// issued before any sum, from addresses clamped into the mesh (a value
// loaded at a clamped address is never used), so no load waits behind a
// branch and a thread has all its bytes in flight at once. Warps run along
// x, so each load and store is coalesced; x goes through the read-only path
// and the weights are kernel parameters. Constrained rows (the boundary)
// are found from the indices. Stencil(row, x_row, below, above) sums an
// interior row: constant weights, or weights times coefficients read there.
// A stencil names the rows a thread takes in 3-D and the blocks a
// multiprocessor must hold (the registers a thread may use): one slot loaded
// around the rows doubles the registers, and 2 rows at 4 blocks ran faster
// than 4 rows at 2 blocks (bench/results/NOTES.md).
constexpr int kUniformRows = 4;
constexpr int kUniformThreadsX = 32;
constexpr int kUniformThreadsY = 8;

// A field (x, or a coefficient slot) at a thread's Rows rows and their
// neighbours: along y one column of Rows + 2 values, along x and z one
// below and one above each row (the row itself at the mesh's edge).
template <typename T, int Rows>
struct Around {
  T column[Rows + 2];
  T x_below[Rows], x_above[Rows], z_below[Rows], z_above[Rows];
};

// Where a thread's rows and their neighbours are: addresses clamped into the
// mesh, so every load is issued before any sum.
struct Place {
  std::int32_t base, j0, ny, sy, west, east, down, up;
  __device__ std::int32_t row(std::int32_t j) const { return base + (j < 0 ? 0 : (j >= ny ? ny - 1 : j)) * sy; }
};

template <typename T, int Dim, int Rows>
__device__ void load_around(Around<T, Rows>& out, const T* __restrict__ field, const Place& at) {
  TRELLIS_UNROLL
  for (int t = 0; t < Rows + 2; ++t) out.column[t] = __ldg(field + at.row(at.j0 - 1 + t));
  TRELLIS_UNROLL
  for (int t = 0; t < Rows; ++t) {
    const std::int32_t row = at.row(at.j0 + t);
    out.x_below[t] = __ldg(field + row - at.west);
    out.x_above[t] = __ldg(field + row + at.east);
    if constexpr (Dim >= 3) {
      out.z_below[t] = __ldg(field + row - at.down);
      out.z_above[t] = __ldg(field + row + at.up);
    }
  }
}

// The stencils: constant weights; weights times coefficients read at their
// nodes; weights times the one coefficient slot's values, loaded around the
// rows like x (field).
template <typename T, int Dim>
struct ConstantStencil {
  static constexpr bool kField = false;
  static constexpr int kRows3d = kUniformRows, kMinBlocks3d = 1;
  detail::UniformConstantForm<T> form;
  const T* field = nullptr;
  template <int Rows>
  __device__ T operator()(std::int32_t, int, const Around<T, Rows>&, T x_row, const T (&below)[3],
                          const T (&above)[3]) const {
    return detail::uniform_interior_row<T, Dim>(form, x_row, below, above);
  }
};

template <typename T, int Dim>
struct CoefficientStencil {
  static constexpr bool kField = false;
  static constexpr int kRows3d = kUniformRows, kMinBlocks3d = 1;
  detail::UniformCoefficientForm<T> form;
  const T* field = nullptr;
  const T* __restrict__ coefficients;
  std::int64_t nodes;
  std::int32_t stride[3];
  template <int Rows>
  __device__ T operator()(std::int32_t row, int, const Around<T, Rows>&, T x_row, const T (&below)[3],
                          const T (&above)[3]) const {
    const auto coefficient = [&](int a, int v, int shift) {
      return __ldg(coefficients + 1 + static_cast<std::int64_t>(form.slot[a][v]) * nodes + row + shift * stride[a]);
    };
    return detail::uniform_coefficient_row<T, Dim>(form, coefficient, x_row, below, above);
  }
};

// EdgeFlux: the form is an edge_flux_form (its row with the shift known).
template <typename T, int Dim, bool EdgeFlux>
struct SingleSlotStencil {
  static constexpr bool kField = true;
  static constexpr int kRows3d = 2, kMinBlocks3d = 4;
  detail::UniformCoefficientForm<T> form;
  const T* field;  // the slot's values
  template <int Rows>
  __device__ T operator()(std::int32_t, int t, const Around<T, Rows>& k, T x_row, const T (&below)[3],
                          const T (&above)[3]) const {
    const T k_below[3] = {k.x_below[t], k.column[t], Dim >= 3 ? k.z_below[t] : T(0)};
    const T k_above[3] = {k.x_above[t], k.column[t + 2], Dim >= 3 ? k.z_above[t] : T(0)};
    const auto coefficient = [&](int a, int, int shift) {
      return shift == 0 ? k.column[t + 1] : (shift > 0 ? k_above[a] : k_below[a]);
    };
    if constexpr (EdgeFlux) {
      return detail::edge_flux_row<T, Dim>(form, coefficient, x_row, below, above);
    } else {
      return detail::uniform_coefficient_row<T, Dim>(form, coefficient, x_row, below, above);
    }
  }
};

// What the uniform apply writes at a row from (A x)[row] (operator()), or
// at a constrained row, where A x is x itself (edge): the product, or a
// multigrid smoothing step finished in the same pass (r = b - A x, then
// smoothing_step.cuh's direction and update, the two-pass step's roundings),
// the new iterate into another vector than x (x's neighbours are still read).
template <typename T>
struct WriteProduct {
  T* __restrict__ y;
  __device__ void operator()(std::int32_t row, T, T product) const { y[row] = product; }
  __device__ void edge(std::int32_t row, T x_row) const { y[row] = x_row; }
};

template <typename T>
struct WriteResidual {
  const T* __restrict__ b;
  T* __restrict__ r;
  __device__ void operator()(std::int32_t row, T, T product) const { r[row] = b[row] - product; }
  __device__ void edge(std::int32_t row, T x_row) const { r[row] = b[row] - x_row; }
};

// Where every interior row's D^-1 is one known value (interior_known), the
// interior rows take it from the parameter: one vector pass less a step.
template <typename T>
struct WriteSmoothingStep {
  const T* __restrict__ b;
  const T* __restrict__ inverse_diagonal;
  T* __restrict__ d;
  T* __restrict__ x_out;
  T alpha, beta;
  bool interior_known;
  T interior;
  __device__ void operator()(std::int32_t row, T x_row, T product) const {
    step(row, x_row, product, interior_known ? interior : inverse_diagonal[row]);
  }
  __device__ void edge(std::int32_t row, T x_row) const { step(row, x_row, x_row, inverse_diagonal[row]); }
  __device__ void step(std::int32_t row, T x_row, T product, T inverse) const {
    const T r = b[row] - product;
    const T direction = smoothing_direction(alpha, previous_direction(alpha, d, row), beta, inverse, r);
    d[row] = direction;
    x_out[row] = add_rn(x_row, direction);
  }
};

template <typename T, int Dim, int Rows, typename Stencil, typename Write>
__global__ void __launch_bounds__(kUniformThreadsX* kUniformThreadsY, Dim == 3 ? Stencil::kMinBlocks3d : 1)
    uniform_apply_kernel(Stencil stencil, detail::MeshView<T> mesh, bool symmetrized, const T* __restrict__ x,
                         Write write) {
  const std::int32_t nx = mesh.extent[0], ny = mesh.extent[1], nz = mesh.extent[2];
  const std::int32_t i = static_cast<std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  const std::int32_t j0 = static_cast<std::int32_t>(blockIdx.y * blockDim.y + threadIdx.y) * Rows;
  const std::int32_t k = static_cast<std::int32_t>(blockIdx.z);
  if (i >= nx || j0 >= ny) return;
  const std::int32_t sy = mesh.stride[1], sz = mesh.stride[2];
  const Place at{i + k * sz, j0, ny, sy, i > 0 ? 1 : 0, i < nx - 1 ? 1 : 0, k > 0 ? sz : 0, k < nz - 1 ? sz : 0};
  Around<T, Rows> xs;
  load_around<T, Dim, Rows>(xs, x, at);
  Around<T, Rows> field;
  if constexpr (Stencil::kField) load_around<T, Dim, Rows>(field, stencil.field, at);
  const bool edge_xz = i == 0 || i == nx - 1 || (Dim >= 3 && (k == 0 || k == nz - 1));
  TRELLIS_UNROLL
  for (int t = 0; t < Rows; ++t) {
    const std::int32_t j = j0 + t;
    if (j >= ny) break;
    const std::int32_t row = at.base + j * sy;
    if (edge_xz || (Dim >= 2 && (j == 0 || j == ny - 1))) {
      write.edge(row, xs.column[t + 1]);
      continue;
    }
    // A symmetrised form reads a constrained (boundary) neighbour as zero.
    T below[3] = {T(0), T(0), T(0)};
    T above[3] = {T(0), T(0), T(0)};
    below[0] = symmetrized && i == 1 ? T(0) : xs.x_below[t];
    above[0] = symmetrized && i == nx - 2 ? T(0) : xs.x_above[t];
    if constexpr (Dim >= 2) {
      below[1] = symmetrized && j == 1 ? T(0) : xs.column[t];
      above[1] = symmetrized && j == ny - 2 ? T(0) : xs.column[t + 2];
    }
    if constexpr (Dim >= 3) {
      below[2] = symmetrized && k == 1 ? T(0) : xs.z_below[t];
      above[2] = symmetrized && k == nz - 2 ? T(0) : xs.z_above[t];
    }
    write(row, xs.column[t + 1], stencil.template operator()<Rows>(row, t, field, xs.column[t + 1], below, above));
  }
}

// False (nothing launched) when the mesh is too tall for the launch's grid.
// make_stencil.template operator()<Dim>() gives the kernel's stencil.
template <typename T, typename Write, typename MakeStencil>
bool apply_uniform(const FormView<T>& view, const T* x, const Write& write, Stream stream, MakeStencil&& make_stencil) {
  const detail::MeshView<T>& mesh = view.mesh;
  if (mesh.extent[2] > 65535) return false;
  const dim3 block(mesh.dim == 1 ? kUniformThreadsX * kUniformThreadsY : kUniformThreadsX,
                   mesh.dim == 1 ? 1 : kUniformThreadsY);
  // The launch's grid for Rows rows a thread; false when too tall.
  const auto grid_for = [&](int rows, dim3& grid) {
    const std::int64_t columns = (static_cast<std::int64_t>(mesh.extent[1]) + rows - 1) / rows;
    const std::int64_t grid_y = (columns + block.y - 1) / block.y;
    grid = dim3(static_cast<unsigned>((mesh.extent[0] + block.x - 1) / block.x), static_cast<unsigned>(grid_y),
                static_cast<unsigned>(mesh.extent[2]));
    return grid_y <= 65535;
  };
  auto launch = [&]<int Dim>() {
    const auto stencil = make_stencil.template operator()<Dim>();
    using Stencil = decltype(stencil);
    constexpr int rows = Dim == 1 ? 1 : (Dim == 2 ? kUniformRows : Stencil::kRows3d);
    dim3 grid;
    if (!grid_for(rows, grid)) return false;
    TRELLIS_LAUNCH((uniform_apply_kernel<T, Dim, rows, Stencil, Write>), grid, block, 0, stream, stencil, mesh,
                   view.symmetrized, x, write);
    return true;
  };
  if (mesh.dim == 1) return launch.template operator()<1>();
  if (mesh.dim == 2) return launch.template operator()<2>();
  return launch.template operator()<3>();
}

template <typename T, typename Write>
bool apply_uniform_constant(const FormView<T>& view, const T* x, const Write& write, Stream stream) {
  return apply_uniform(view, x, write, stream, [&]<int Dim>() {
    return ConstantStencil<T, Dim>{view.uniform, nullptr};
  });
}

template <typename T, typename Write>
bool apply_uniform_coefficients(const FormView<T>& view, const T* x, const Write& write, Stream stream) {
  const detail::MeshView<T>& mesh = view.mesh;
  const std::int64_t nodes = static_cast<std::int64_t>(mesh.extent[0]) * mesh.extent[1] * mesh.extent[2];
  const detail::UniformCoefficientForm<T>& form = view.uniform_coefficients;
  if (form.single_slot >= 0) {
    const T* slot = view.coefficients + 1 + static_cast<std::int64_t>(form.single_slot) * nodes;
    if (detail::edge_flux_form(form, mesh.dim)) {
      return apply_uniform(view, x, write, stream, [&]<int Dim>() {
        return SingleSlotStencil<T, Dim, true>{form, slot};
      });
    }
    return apply_uniform(view, x, write, stream, [&]<int Dim>() {
      return SingleSlotStencil<T, Dim, false>{form, slot};
    });
  }
  return apply_uniform(view, x, write, stream, [&]<int Dim>() {
    return CoefficientStencil<T, Dim>{
        form, nullptr, view.coefficients, nodes, {mesh.stride[0], mesh.stride[1], mesh.stride[2]}};
  });
}

// A uniform path's apply with its output; false when neither path applies.
template <typename T, typename Write>
bool apply_uniform_paths(const FormView<T>& view, const T* x, const Write& write, Stream stream) {
  return (view.uniform.usable && apply_uniform_constant(view, x, write, stream)) ||
         (view.uniform_coefficients.usable && apply_uniform_coefficients(view, x, write, stream));
}

template <typename T>
void apply(const FormView<T>& view, const T* x, T* y, Stream stream) {
  const detail::MeshView<T>& mesh = view.mesh;
  const std::int64_t nodes = static_cast<std::int64_t>(mesh.extent[0]) * mesh.extent[1] * mesh.extent[2];
  if (nodes == 0) return;
  if (apply_uniform_paths(view, x, WriteProduct<T>{y}, stream)) return;
  if (!view.separable.usable || mesh.extent[1] > 65535 || mesh.extent[2] > 65535) {
    TRELLIS_LAUNCH(generic_apply_kernel<T>, blocks_for(nodes), kThreads, 0, stream, view, x, y);
    return;
  }
  constexpr int kRowThreads = 128;
  const dim3 grid(static_cast<unsigned>((mesh.extent[0] + kRowThreads - 1) / kRowThreads),
                  static_cast<unsigned>(mesh.extent[1]), static_cast<unsigned>(mesh.extent[2]));
  detail::with_separable_shape(view, [&]<int Dim, int Reach, bool WithCoefficients>() {
    TRELLIS_LAUNCH((separable_apply_kernel<T, Dim, Reach, WithCoefficients>), grid, kRowThreads, 0, stream, view, x, y);
  });
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

// Whether the interior value of D^-1 is known for this mesh: the uniform
// kernel's constrained rows are its box's faces, so the box must be the one
// the value was found for, numbered alike.
template <typename T>
bool interior_of(const detail::MeshView<T>& mesh, const InverseDiagonalView<T>& inverse) {
  return inverse.interior_known && inverse.dim == mesh.dim && inverse.extent[0] == mesh.extent[0] &&
         inverse.extent[1] == mesh.extent[1] && inverse.extent[2] == mesh.extent[2] &&
         mesh.stride[1] == mesh.extent[0] && mesh.stride[2] == mesh.extent[0] * mesh.extent[1];
}

}  // namespace

#define TRELLIS_CUDA_FORM_KERNELS(T)                                                                                \
  void refill_gather(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) {  \
    gather(table, coefficients, out, stream);                                                                       \
  }                                                                                                                 \
  void refill_atomic(const TableView<T>& table, const T* coefficients, const TableOutput<T>& out, Stream stream) {  \
    scatter(table, coefficients, out, stream);                                                                      \
  }                                                                                                                 \
  void finish_rhs(std::int32_t rows, const std::uint8_t* constrained, const T* boundary_values,                     \
                  const CsrView<T>& lift, T* b, Stream stream) {                                                    \
    finish(rows, constrained, boundary_values, lift, b, stream);                                                    \
  }                                                                                                                 \
  void matrix_free_apply(const FormView<T>& form, const T* x, T* y, Stream stream) { apply(form, x, y, stream); }   \
  bool matrix_free_smoothing_step(const FormView<T>& form, const SmoothingStepVectors<T>& vectors, T alpha, T beta, \
                                  Stream stream) {                                                                  \
    const InverseDiagonalView<T>& inverse = vectors.inverse_diagonal;                                               \
    const WriteSmoothingStep<T> write{                                                                              \
        vectors.b,       inverse.values, vectors.d, vectors.x_out, alpha, beta, interior_of(form.mesh, inverse),    \
        inverse.interior};                                                                                          \
    return form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2] != 0 &&                                  \
           apply_uniform_paths(form, vectors.x, write, stream);                                                     \
  }                                                                                                                 \
  bool matrix_free_residual(const FormView<T>& form, const T* b, const T* x, T* r, Stream stream) {                 \
    return form.mesh.extent[0] * form.mesh.extent[1] * form.mesh.extent[2] != 0 &&                                  \
           apply_uniform_paths(form, x, WriteResidual<T>{b, r}, stream);                                            \
  }

TRELLIS_CUDA_FORM_KERNELS(float)
TRELLIS_CUDA_FORM_KERNELS(double)

template <typename T>
void scatter_values(std::int32_t count, const std::int32_t* nodes, const T* values, T* out, Stream stream) {
  if (count == 0) return;
  TRELLIS_LAUNCH(scatter_values_kernel<T>, blocks_for(count), kThreads, 0, stream, count, nodes, values, out);
}
template void scatter_values<float>(std::int32_t, const std::int32_t*, const float*, float*, Stream);
template void scatter_values<double>(std::int32_t, const std::int32_t*, const double*, double*, Stream);

}  // namespace trellis::grid::cuda
