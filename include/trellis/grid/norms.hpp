// Discrete inner products and norms (Bramble's), with the weights of mesh.hpp:
//   inner_h(u, v)          = sum over nodes of hhalf_0(i) hhalf_1(j) hhalf_2(k) u v
//                            (control-volume weights);
//   inner_plus(u, v, a)    = sum over nodes with index i_a >= 1 of
//                            h_a(i_a) * prod_{b != a} hhalf_b(i_b) u v (staggered weights);
//   norm_h(u)              = sqrt(inner_h(u, u));
//   norm_plus(c_0..c_{D-1}) = sqrt(sum_a inner_plus(c_a, c_a, a));
//   h1_seminorm(u)         = sqrt(sum_a inner_plus(D-_a u, D-_a u, a)), D- the backward difference;
//   h1_norm(u)             = sqrt(norm_h(u)^2 + h1_seminorm(u)^2);
//   max_norm(u)            = max |u| (NaN when any value is NaN).
// A marker restricts every sum or maximum to its nodes (an empty marker gives
// 0). Sums accumulate in double on every backend and are deterministic: the
// same input gives the same result on every run (cuda and cpu reduce in a
// fixed order, independent of the thread count). Device versions return the
// result to the host, so they wait for the stream.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/grid_function.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/operators.hpp"

namespace trellis::grid {

// A marker's node list resident on the device. Throws UsageError when a node
// is outside the mesh or the list is not strictly ascending.
class DeviceMarker {
 public:
  // Uploads marker's nodes, checked against mesh, on stream.
  DeviceMarker(const Mesh& mesh, const Marker& marker, Stream stream = nullptr);
  // The marker's name.
  const std::string& name() const noexcept { return name_; }
  // Number of nodes.
  std::int32_t size() const noexcept { return static_cast<std::int32_t>(nodes_.size()); }
  // Device pointer to the node numbers, ascending.
  const std::int32_t* nodes() const noexcept { return nodes_.data(); }
  // Nodes of the mesh the marker was made for.
  std::int32_t mesh_nodes() const noexcept { return mesh_nodes_; }

 private:
  std::string name_;
  DeviceArray<std::int32_t> nodes_;
  std::int32_t mesh_nodes_ = 0;
};

// Host data with the chosen backend (cuda uploads). Every span has
// mesh.nodes() entries, else UsageError; axis below mesh.dim().
template <typename T>
T inner_h(const Mesh& mesh, std::span<const T> u, std::span<const T> v, const Marker* marker = nullptr,
          Backend backend = Backend::automatic);
// inner_plus(u, v, axis) of host data.
template <typename T>
T inner_plus(const Mesh& mesh, std::span<const T> u, std::span<const T> v, int axis, const Marker* marker = nullptr,
             Backend backend = Backend::automatic);
// norm_h(u) of host data.
template <typename T>
T norm_h(const Mesh& mesh, std::span<const T> u, const Marker* marker = nullptr, Backend backend = Backend::automatic);
// One component per axis.
template <typename T>
T norm_plus(const Mesh& mesh, std::span<const std::span<const T>> components, const Marker* marker = nullptr,
            Backend backend = Backend::automatic);
// h1_seminorm(u) of host data.
template <typename T>
T h1_seminorm(const Mesh& mesh, std::span<const T> u, const Marker* marker = nullptr,
              Backend backend = Backend::automatic);
// h1_norm(u) of host data.
template <typename T>
T h1_norm(const Mesh& mesh, std::span<const T> u, const Marker* marker = nullptr, Backend backend = Backend::automatic);
// max_norm(u) of host data (no mesh needed).
template <typename T>
T max_norm(std::span<const T> u, const Marker* marker = nullptr, Backend backend = Backend::automatic);

// Device data; synchronous (the result comes back to the host).
template <typename T>
T inner_h(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceArray<T>& v,
          const DeviceMarker* marker = nullptr, Stream stream = nullptr);
// inner_plus(u, v, axis) of device data.
template <typename T>
T inner_plus(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceArray<T>& v, int axis,
             const DeviceMarker* marker = nullptr, Stream stream = nullptr);
// norm_h(u) of device data.
template <typename T>
T norm_h(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker = nullptr,
         Stream stream = nullptr);
// norm_plus of device data, one component per axis.
template <typename T>
T norm_plus(const DeviceMesh<T>& mesh, std::span<const DeviceArray<T>> components, const DeviceMarker* marker = nullptr,
            Stream stream = nullptr);
// h1_seminorm(u) of device data.
template <typename T>
T h1_seminorm(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker = nullptr,
              Stream stream = nullptr);
// h1_norm(u) of device data.
template <typename T>
T h1_norm(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker = nullptr,
          Stream stream = nullptr);
// max_norm(u) of device data.
template <typename T>
T max_norm(const DeviceArray<T>& u, const DeviceMarker* marker = nullptr, Stream stream = nullptr);

// Grid functions on the host; two functions need the same mesh.
template <typename T>
T inner_h(const GridFunction<T>& u, const GridFunction<T>& v, const Marker* marker = nullptr,
          Backend backend = Backend::automatic);
// inner_plus(u, v, axis) of host grid functions.
template <typename T>
T inner_plus(const GridFunction<T>& u, const GridFunction<T>& v, int axis, const Marker* marker = nullptr,
             Backend backend = Backend::automatic);
// norm_h(u) of a host grid function.
template <typename T>
T norm_h(const GridFunction<T>& u, const Marker* marker = nullptr, Backend backend = Backend::automatic);
// norm_plus of host grid functions, one component per axis.
template <typename T>
T norm_plus(const std::vector<GridFunction<T>>& components, const Marker* marker = nullptr,
            Backend backend = Backend::automatic);
// h1_seminorm(u) of a host grid function.
template <typename T>
T h1_seminorm(const GridFunction<T>& u, const Marker* marker = nullptr, Backend backend = Backend::automatic);
// h1_norm(u) of a host grid function.
template <typename T>
T h1_norm(const GridFunction<T>& u, const Marker* marker = nullptr, Backend backend = Backend::automatic);
// max_norm(u) of a host grid function.
template <typename T>
T max_norm(const GridFunction<T>& u, const Marker* marker = nullptr, Backend backend = Backend::automatic);

// Grid functions on the device; mesh must hold the functions' mesh.
template <typename T>
T inner_h(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceGridFunction<T>& v,
          const DeviceMarker* marker = nullptr, Stream stream = nullptr);
// inner_plus(u, v, axis) of device grid functions.
template <typename T>
T inner_plus(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceGridFunction<T>& v, int axis,
             const DeviceMarker* marker = nullptr, Stream stream = nullptr);
// norm_h(u) of a device grid function.
template <typename T>
T norm_h(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker = nullptr,
         Stream stream = nullptr);
// h1_seminorm(u) of a device grid function.
template <typename T>
T h1_seminorm(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker = nullptr,
              Stream stream = nullptr);
// h1_norm(u) of a device grid function.
template <typename T>
T h1_norm(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker = nullptr,
          Stream stream = nullptr);
// max_norm(u) of a device grid function.
template <typename T>
T max_norm(const DeviceGridFunction<T>& u, const DeviceMarker* marker = nullptr, Stream stream = nullptr);

}  // namespace trellis::grid
