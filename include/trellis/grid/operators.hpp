// Discrete operators on mesh nodes: differences, jumps, averages and shifts
// along one axis, composable into chains. Every elementary operator (an
// "atom") maps u to out with
//     out_i = self(i) * u_i + neighbour(i) * u_{i+d}
// along its axis, d = -1 for backward and +1 for forward atoms, and u taken
// as zero outside the mesh (zero extension). With h as in mesh.hpp:
//   backward_difference  D-: (u_i - u_{i-1}) / h_i
//   forward_difference   D+: (u_{i+1} - u_i) / h_{i+1}
//   backward_jump           : u_i - u_{i-1}
//   forward_jump            : u_{i+1} - u_i
//   backward_average     M-: (u_i + u_{i-1}) / 2
//   forward_average      M+: (u_i + u_{i+1}) / 2
//   backward_shift          : u_{i-1}
//   forward_shift           : u_{i+1}
// An Operator is a chain of atoms applied first to last; compose(a, b) is
// "a after b" (b applied first), as in mathematics.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid {

struct TrialFunction;
struct TestFunction;
struct TrialTerm;
struct TestTerm;

// The elementary operators (see above).
enum class AtomKind : std::uint8_t {
  backward_difference,  // D-: (u_i - u_{i-1}) / h_i
  forward_difference,   // D+: (u_{i+1} - u_i) / h_{i+1}
  backward_jump,        // u_i - u_{i-1}
  forward_jump,         // u_{i+1} - u_i
  backward_average,     // M-: (u_i + u_{i-1}) / 2
  forward_average,      // M+: (u_i + u_{i+1}) / 2
  backward_shift,       // u_{i-1}
  forward_shift,        // u_{i+1}
};

// An elementary operator along one axis.
struct Atom {
  AtomKind kind;     // which operator
  std::int8_t axis;  // the axis it acts along, 0 to dim - 1
  // Equal when kind and axis are.
  bool operator==(const Atom&) const = default;
};

// A chain of atoms applied first to last; empty is the identity.
class Operator {
 public:
  Operator() = default;  // the identity
  // The single atom.
  explicit Operator(Atom atom) : atoms_{atom} {}

  // Atoms in the order they are applied.
  const std::vector<Atom>& atoms() const noexcept { return atoms_; }
  // True for the identity (no atoms).
  bool is_identity() const noexcept { return atoms_.empty(); }
  // Throws UsageError when an atom's axis is not below dim.
  void check_axes(int dim) const;

  friend Operator compose(const Operator& after, const Operator& before);

  // In forms (form.hpp): op(u) and op(v). Defined in form.cpp.
  TrialTerm operator()(TrialFunction u) const;
  // op(v) for a test function.
  TestTerm operator()(TestFunction v) const;
  // Equal when the atoms are, in order.
  bool operator==(const Operator&) const = default;

 private:
  std::vector<Atom> atoms_;
};

// The identity operator.
Operator identity();
// D-: (u_i - u_{i-1}) / h_i along axis.
Operator backward_difference(int axis);
// D+: (u_{i+1} - u_i) / h_{i+1} along axis.
Operator forward_difference(int axis);
// u_i - u_{i-1} along axis.
Operator backward_jump(int axis);
// u_{i+1} - u_i along axis.
Operator forward_jump(int axis);
// M-: (u_i + u_{i-1}) / 2 along axis.
Operator backward_average(int axis);
// M+: (u_i + u_{i+1}) / 2 along axis.
Operator forward_average(int axis);
// u_{i-1} along axis.
Operator backward_shift(int axis);
// u_{i+1} along axis.
Operator forward_shift(int axis);
// compose(after, before)
Operator compose(const Operator& after, const Operator& before);

// One entry of an operator's stencil at a node: out[node] += weight * u[source].
struct StencilEntry {
  std::int32_t source;  // node whose value is read
  double weight;        // its weight
};

// The stencil of op at node (entries with zero weight dropped, sources
// ascending, duplicates merged). At most 2^(atoms) entries.
std::vector<StencilEntry> stencil_at(const Mesh& mesh, const Operator& op, std::int32_t node);

// The spacing arrays of a mesh resident on the device (for cuda kernels):
// per axis h_0..h_{N+1} and hhalf_0..hhalf_N, converted to T.
template <typename T>
class DeviceMesh {
 public:
  // Uploads mesh's spacings, converted to T, on stream.
  explicit DeviceMesh(const Mesh& mesh, Stream stream = nullptr);
  // The host mesh.
  const Mesh& mesh() const noexcept { return mesh_; }
  // Device array h_0 .. h_{N+1} of axis.
  const T* spacings(int axis) const { return spacings_[static_cast<std::size_t>(axis)].data(); }
  // Device array hhalf_0 .. hhalf_N of axis.
  const T* half_spacings(int axis) const { return half_spacings_[static_cast<std::size_t>(axis)].data(); }

 private:
  Mesh mesh_;
  std::array<DeviceArray<T>, 3> spacings_;
  std::array<DeviceArray<T>, 3> half_spacings_;
};

// out = op(u) on host data with the chosen backend (cuda uploads and
// downloads). u and out have mesh.nodes() entries and must not overlap.
template <typename T>
void apply(const Operator& op, const Mesh& mesh, std::span<const T> u, std::span<T> out,
           Backend backend = Backend::automatic);

// out = op(u) on device data, asynchronous on stream.
template <typename T>
void apply(const Operator& op, const DeviceMesh<T>& mesh, const DeviceArray<T>& u, DeviceArray<T>& out,
           Stream stream = nullptr);

}  // namespace trellis::grid
