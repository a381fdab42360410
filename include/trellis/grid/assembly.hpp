// Assembly of forms into CSR matrices with a precomputed scatter table
// (the cuda-dolfinx architecture Bramble.jl recorded as its target).
//
// Setup (once per form, mesh and constraints) finds the sparsity pattern and
// records, for every contribution c(p) * g of the form (g its geometric
// factor, see form.hpp), the position it adds to: an index into the matrix's
// values, an index into the lift matrix's values (after the matrix's), or a
// negative sentinel for contributions to constrained rows, so a fill has no
// boundary branch. Contributions are stored grouped by position, so a fill
// is either a gather (each position sums its contiguous contributions) or a
// scatter (each contribution adds itself atomically to its position).
// A refill with new coefficient values is then pure table arithmetic: no
// search, and on cuda no matrix value passes through the host.
//
// Dirichlet constraints: a constrained row becomes the identity row and its
// right-hand side the boundary value. With symmetrize, constrained columns
// of free rows are moved out of the matrix into the lift matrix and the
// right-hand side becomes b - lift * g, so a symmetric form gives a
// symmetric matrix (CG applies).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid {

// The node-wise values of a form's coefficient slots, packed as the tables
// read them: [1, slot 0's nodes, slot 1's nodes, ...] (index 0 is the
// constant one that coefficient-free terms read).
template <typename T>
class Coefficients {
 public:
  // Room for slots coefficient slots on mesh, all zero.
  Coefficients(const Mesh& mesh, std::int32_t slots);
  // Throws UsageError on a wrong length or a non-finite value (naming slot and node).
  void set(std::int32_t slot, std::span<const T> values);
  // Sets every node of slot to constant.
  void set(std::int32_t slot, T constant);
  // The packed values: [1, slot 0's nodes, slot 1's nodes, ...].
  std::span<const T> packed() const noexcept { return packed_; }
  // Number of slots.
  std::int32_t slots() const noexcept { return slots_; }
  // The mesh the values are on.
  const Mesh& mesh() const noexcept { return mesh_; }

 private:
  Mesh mesh_;
  std::int32_t slots_;
  std::vector<T> packed_;
};

// The same packed layout on the device; slots can be replaced from host or
// device memory (asynchronously, on stream).
template <typename T>
class DeviceCoefficients {
 public:
  // Uploads host's packed values, on stream.
  explicit DeviceCoefficients(const Coefficients<T>& host, Stream stream = nullptr);
  void set(std::int32_t slot, std::span<const T> values, Stream stream = nullptr);     // checked like Coefficients
  void set(std::int32_t slot, const DeviceArray<T>& values, Stream stream = nullptr);  // not checked for NaN
  // Device pointer to the packed values.
  const T* packed() const noexcept { return packed_.data(); }
  // Number of slots.
  std::int32_t slots() const noexcept { return slots_; }
  // Number of mesh nodes per slot.
  std::int32_t nodes() const noexcept { return nodes_; }

 private:
  std::int32_t nodes_;
  std::int32_t slots_;
  DeviceArray<T> packed_;
};

// How Assembly sets up: Dirichlet symmetrisation and where the setup runs.
struct AssemblyOptions {
  bool symmetrize = false;  // move constrained columns into the lift matrix
  // Where setup builds the pattern and tables: cpu (host threads) or cuda
  // (the device, for device fills: the same tables bit for bit; the host
  // copies are made when a host fill or new_matrix first needs them). A form
  // with rows longer than the device setup takes is set up on the host.
  Backend setup = Backend::cpu;
};

// A matrix and its lift (rows x nodes, only constrained columns; empty
// without symmetrize), both with the pattern fixed at setup.
template <typename T>
struct AssembledMatrix {
  CsrMatrix<T> matrix;  // the form's matrix, constrained rows the identity
  CsrMatrix<T> lift;    // constrained columns of free rows (symmetrize only)
};

// AssembledMatrix on the device.
template <typename T>
struct DeviceAssembledMatrix {
  DeviceCsr<T> matrix;  // the form's matrix, constrained rows the identity
  DeviceCsr<T> lift;    // constrained columns of free rows (symmetrize only)
};

// How a device refill adds contributions: gather sums each position's run, atomic scatters them.
enum class RefillMethod {
  gather,  // each position sums its contiguous contributions
  atomic   // each contribution adds itself atomically
};

// The precomputed scatter tables of a form, mesh and constraints; fills matrices and right-hand sides.
template <typename T>
class Assembly {
 public:
  // Finds the pattern and builds the scatter tables of `form` (and of `rhs`,
  // the linear form). dirichlet: markers of constrained nodes (each must
  // select at least one node). Throws UsageError on an empty marker, a node
  // out of range, or a form the kernels cannot take (more than 4 atoms in an
  // operator chain, more than 16 terms).
  Assembly(const Mesh& mesh, const BilinearForm& form, const LinearForm& rhs, const std::vector<Marker>& dirichlet,
           AssemblyOptions options = {});
  ~Assembly();  // frees the tables, device copies included
  // Takes other's tables.
  Assembly(Assembly&&) noexcept;
  // Releases this object's tables and takes other's.
  Assembly& operator=(Assembly&&) noexcept;

  // The mesh set up on.
  const Mesh& mesh() const noexcept;
  // True when constrained columns go to the lift matrix.
  bool symmetrized() const noexcept;
  // 1 for constrained nodes, 0 for free ones.
  const std::vector<std::uint8_t>& constrained() const noexcept;
  std::int32_t coefficient_slots() const noexcept;  // of form and rhs together
  std::int64_t contributions() const noexcept;      // rows of the matrix table
  std::size_t table_bytes() const noexcept;         // host memory of both tables

  // The pattern with zero values.
  AssembledMatrix<T> new_matrix() const;

  // Host fill (reference: one plain loop over the table; cpu: threads).
  void refill(const Coefficients<T>& coefficients, AssembledMatrix<T>& out, Backend backend) const;
  // b = l(v) for free rows (minus lift * g with symmetrize), g on constrained
  // rows; boundary_values has one entry per node (only constrained ones read).
  void assemble_rhs(const Coefficients<T>& coefficients, std::span<const T> boundary_values,
                    const AssembledMatrix<T>& filled, std::span<T> b, Backend backend) const;

  // Device fill: tables are uploaded on first use and stay resident.
  DeviceAssembledMatrix<T> new_device_matrix(Stream stream = nullptr) const;
  // Device fill of out from coefficients, asynchronous on stream.
  void refill(const DeviceCoefficients<T>& coefficients, DeviceAssembledMatrix<T>& out, Stream stream = nullptr,
              RefillMethod method = RefillMethod::gather) const;
  // assemble_rhs on the device, asynchronous on stream.
  void assemble_rhs(const DeviceCoefficients<T>& coefficients, const DeviceArray<T>& boundary_values,
                    const DeviceAssembledMatrix<T>& filled, DeviceArray<T>& b, Stream stream = nullptr) const;

  // Frees the device copies of the tables (they are rebuilt on next use).
  void release_device_tables() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::grid
