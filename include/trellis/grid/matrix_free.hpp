// The matrix-free apply of a form: y = A x for the matrix Assembly would
// build (same constraints, same symmetrisation), computed from the mesh's
// spacings and the coefficients without storing A. A 7-point apply reads x
// and writes y, about 16 bytes a row, against about 104 for CSR.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/solvers.hpp"

namespace trellis::grid {

// y = A x for the matrix Assembly would build from a form, mesh and constraints, without storing A.
template <typename T>
class MatrixFreeOperator {
 public:
  // Throws UsageError like Assembly's constructor.
  MatrixFreeOperator(const Mesh& mesh, const BilinearForm& form, const std::vector<Marker>& dirichlet,
                     AssemblyOptions options = {});
  ~MatrixFreeOperator();  // frees the tables
  // Takes other's state.
  MatrixFreeOperator(MatrixFreeOperator&&) noexcept;
  // Releases this operator's state and takes other's.
  MatrixFreeOperator& operator=(MatrixFreeOperator&&) noexcept;

  // Number of rows and columns of A (the mesh's nodes).
  std::int32_t size() const noexcept;
  // The mesh.
  const Mesh& mesh() const noexcept;
  // 1 for constrained (Dirichlet) nodes, 0 for free ones.
  const std::vector<std::uint8_t>& constrained() const noexcept;
  // True when every term acts along one axis with chains of at most one
  // atom: cpu and cuda then apply from 1-D stencil tables (the fast path);
  // otherwise they evaluate the terms row by row like the reference.
  bool separable() const noexcept;
  // True when the form is separable with constant coefficients, its stencil
  // is bitwise the same at every interior node (equal spacings along each
  // axis, e.g. Poisson plus a constant reaction) and the constraints are
  // exactly the boundary nodes: cpu and cuda then apply the stencil with
  // its few weights held as constants, reading no tables and no per-node
  // flags, with the same results as the table path.
  bool uses_uniform_constant_path() const noexcept;
  // The same with coefficient terms (each reading the coefficient at the row
  // or one node away), -div(k grad u) plus a reaction on equal spacings:
  // cuda then applies the stencils with their weights held as constants,
  // reading only x, the coefficients and the result (cpu keeps the tables).
  bool uses_uniform_coefficient_path() const noexcept;

  // Host data on any backend (cuda and vulkan upload and download). vulkan
  // takes separable forms only (BackendUnavailable for the others).
  void apply(const Coefficients<T>& coefficients, std::span<const T> x, std::span<T> y, Backend backend) const;
  // CG on this operator from x's initial guess, with host vectors, Jacobi
  // (from diagonal()) or no preconditioner. vulkan (separable forms): the
  // tables, the coefficients and CG's vectors are uploaded once and every
  // step runs on the device, with the host drivers' stopping rules.
  // reference, cpu, automatic: cg(HostLinearOperator) with apply() on that
  // backend and the vectors on the host (cuda: solve with a
  // DeviceLinearOperator over the device apply instead).
  SolveResult cg(const Coefficients<T>& coefficients, std::span<const T> b, std::span<T> x,
                 Preconditioner preconditioner = Preconditioner::jacobi, const SolverOptions& options = {},
                 Backend backend = Backend::cpu) const;
  // Device data, asynchronous on stream; the mesh's arrays are uploaded on first use.
  void apply(const DeviceCoefficients<T>& coefficients, const DeviceArray<T>& x, DeviceArray<T>& y,
             Stream stream = nullptr) const;
  // The same on raw device pointers of size() entries (for solver operators).
  void apply(const DeviceCoefficients<T>& coefficients, const T* x, T* y, Stream stream = nullptr) const;
  // This apply as a device operator (diagonal: a device pointer or null),
  // with the smoothing step and the residual in its pass where a uniform
  // path applies; the operator's arrays go to the device now, so a solve
  // does not pay for them. It refers to this operator, the coefficients and
  // the diagonal, which must outlive it.
  DeviceLinearOperator<T> device_operator(const DeviceCoefficients<T>& coefficients, const T* diagonal = nullptr) const;
  // A's diagonal (for Jacobi preconditioning), computed on the host.
  std::vector<T> diagonal(const Coefficients<T>& coefficients) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::grid
