// Grid functions: one value per mesh node, numbered as in mesh.hpp. The mesh
// is shared (std::shared_ptr<const Mesh>) so many functions on one mesh cost
// one mesh. Operations on two functions require the same mesh: the same
// object, or an equal one (compared point by point), else UsageError.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/stream.hpp"
#include "trellis/grid/mesh.hpp"
#include "trellis/grid/operators.hpp"

namespace trellis::grid {

// One value of type T per mesh node, on a shared mesh.
template <typename T>
class GridFunction {
 public:
  // Zero at every node. Throws UsageError when mesh is null.
  explicit GridFunction(std::shared_ptr<const Mesh> mesh);
  // value at every node.
  GridFunction(std::shared_ptr<const Mesh> mesh, T value);
  // Throws UsageError unless values has mesh->nodes() entries.
  GridFunction(std::shared_ptr<const Mesh> mesh, std::vector<T> values);

  // The mesh.
  const Mesh& mesh() const noexcept { return *mesh_; }
  // The mesh, shared.
  const std::shared_ptr<const Mesh>& shared_mesh() const noexcept { return mesh_; }
  // Number of values (the mesh's nodes).
  std::int32_t size() const noexcept { return static_cast<std::int32_t>(values_.size()); }

  // The values, by node number.
  std::span<T> values() noexcept { return values_; }
  // The values, by node number.
  std::span<const T> values() const noexcept { return values_; }
  // The value at a node.
  T& operator[](std::int32_t node) { return values_[static_cast<std::size_t>(node)]; }
  // The value at a node.
  const T& operator[](std::int32_t node) const { return values_[static_cast<std::size_t>(node)]; }
  // The value at a multi-index.
  T& operator[](const MultiIndex& i) { return (*this)[mesh_->index(i)]; }
  // The value at a multi-index.
  const T& operator[](const MultiIndex& i) const { return (*this)[mesh_->index(i)]; }

  // Sets every value to value.
  void fill(T value);
  // The same function with values converted to U (e.g. double to float).
  template <typename U>
  GridFunction<U> converted() const {
    return GridFunction<U>(mesh_, std::vector<U>(values_.begin(), values_.end()));
  }

  // Adds other node by node (same mesh).
  GridFunction& operator+=(const GridFunction& other);
  // Subtracts other node by node (same mesh).
  GridFunction& operator-=(const GridFunction& other);
  // Multiplies every value by scale.
  GridFunction& operator*=(T scale);
  // this += alpha * x
  GridFunction& add_scaled(T alpha, const GridFunction& x);

  // a + b node by node (same mesh).
  friend GridFunction operator+(GridFunction a, const GridFunction& b) { return a += b; }
  // a - b node by node (same mesh).
  friend GridFunction operator-(GridFunction a, const GridFunction& b) { return a -= b; }
  // scale * a.
  friend GridFunction operator*(T scale, GridFunction a) { return a *= scale; }

 private:
  std::shared_ptr<const Mesh> mesh_;
  std::vector<T> values_;
};

// A grid function resident on the device, uploaded once and reused.
template <typename T>
class DeviceGridFunction {
 public:
  // Zero at every node.
  explicit DeviceGridFunction(std::shared_ptr<const Mesh> mesh, Stream stream = nullptr);
  // Uploads host and waits for the copy (host may die afterwards).
  explicit DeviceGridFunction(const GridFunction<T>& host, Stream stream = nullptr);

  // The mesh.
  const Mesh& mesh() const noexcept { return *mesh_; }
  // The mesh, shared.
  const std::shared_ptr<const Mesh>& shared_mesh() const noexcept { return mesh_; }
  // Number of values (the mesh's nodes).
  std::int32_t size() const noexcept { return static_cast<std::int32_t>(values_.size()); }
  // The values on the device, by node number.
  DeviceArray<T>& values() noexcept { return values_; }
  // The values on the device, by node number.
  const DeviceArray<T>& values() const noexcept { return values_; }

  // Asynchronous on stream: host must stay alive until the stream is
  // synchronised. Both require the same mesh.
  void copy_from_host(const GridFunction<T>& host, Stream stream = nullptr);
  // Downloads into host, asynchronously on stream (same mesh).
  void copy_to_host(GridFunction<T>& host, Stream stream = nullptr) const;
  // Synchronous download.
  GridFunction<T> to_host(Stream stream = nullptr) const;

 private:
  std::shared_ptr<const Mesh> mesh_;
  DeviceArray<T> values_;
};

// op(u) as a new function on u's mesh (see apply in operators.hpp).
template <typename T>
GridFunction<T> apply(const Operator& op, const GridFunction<T>& u, Backend backend = Backend::automatic);
// op(u) on the device; mesh must hold u's mesh. Asynchronous on stream.
template <typename T>
DeviceGridFunction<T> apply(const Operator& op, const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u,
                            Stream stream = nullptr);

extern template class GridFunction<float>;
extern template class GridFunction<double>;
extern template class DeviceGridFunction<float>;
extern template class DeviceGridFunction<double>;

}  // namespace trellis::grid
