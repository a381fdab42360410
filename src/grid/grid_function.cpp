// Host and device grid functions and apply() on them.
#include "trellis/grid/grid_function.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

const Mesh& checked(const std::shared_ptr<const Mesh>& mesh) {
  if (mesh == nullptr) throw UsageError("a grid function needs a mesh, got a null pointer");
  return *mesh;
}

}  // namespace

template <typename T>
GridFunction<T>::GridFunction(std::shared_ptr<const Mesh> mesh) : GridFunction(std::move(mesh), T(0)) {}

template <typename T>
GridFunction<T>::GridFunction(std::shared_ptr<const Mesh> mesh, T value)
    : mesh_(std::move(mesh)), values_(static_cast<std::size_t>(checked(mesh_).nodes()), value) {}

template <typename T>
GridFunction<T>::GridFunction(std::shared_ptr<const Mesh> mesh, std::vector<T> values)
    : mesh_(std::move(mesh)), values_(std::move(values)) {
  if (values_.size() != static_cast<std::size_t>(checked(mesh_).nodes())) {
    throw UsageError(fmt::format("a grid function on a mesh of {} nodes needs {} values, got {}", mesh_->nodes(),
                                 mesh_->nodes(), values_.size()));
  }
}

template <typename T>
void GridFunction<T>::fill(T value) {
  std::fill(values_.begin(), values_.end(), value);
}

template <typename T>
GridFunction<T>& GridFunction<T>::operator+=(const GridFunction& other) {
  return add_scaled(T(1), other);
}

template <typename T>
GridFunction<T>& GridFunction<T>::operator-=(const GridFunction& other) {
  require_same_mesh(*mesh_, *other.mesh_, "grid function -=");
  for (std::size_t n = 0; n < values_.size(); ++n) values_[n] -= other.values_[n];
  return *this;
}

template <typename T>
GridFunction<T>& GridFunction<T>::operator*=(T scale) {
  for (T& value : values_) value *= scale;
  return *this;
}

template <typename T>
GridFunction<T>& GridFunction<T>::add_scaled(T alpha, const GridFunction& x) {
  require_same_mesh(*mesh_, *x.mesh_, "grid function +=");
  if (alpha == T(1)) {
    for (std::size_t n = 0; n < values_.size(); ++n) values_[n] += x.values_[n];
  } else {
    for (std::size_t n = 0; n < values_.size(); ++n) values_[n] += alpha * x.values_[n];
  }
  return *this;
}

template <typename T>
DeviceGridFunction<T>::DeviceGridFunction(std::shared_ptr<const Mesh> mesh, Stream stream)
    : mesh_(std::move(mesh)), values_(static_cast<std::size_t>(checked(mesh_).nodes())) {
  values_.fill_zero(stream);
}

template <typename T>
DeviceGridFunction<T>::DeviceGridFunction(const GridFunction<T>& host, Stream stream)
    : mesh_(host.shared_mesh()), values_(DeviceArray<T>::from_host(host.values(), stream)) {
  device::synchronize(stream);
}

template <typename T>
void DeviceGridFunction<T>::copy_from_host(const GridFunction<T>& host, Stream stream) {
  require_same_mesh(*mesh_, host.mesh(), "upload of a grid function");
  values_.copy_from_host(host.values(), stream);
}

template <typename T>
void DeviceGridFunction<T>::copy_to_host(GridFunction<T>& host, Stream stream) const {
  require_same_mesh(*mesh_, host.mesh(), "download of a grid function");
  values_.copy_to_host(host.values(), stream);
}

template <typename T>
GridFunction<T> DeviceGridFunction<T>::to_host(Stream stream) const {
  return GridFunction<T>(mesh_, values_.to_host(stream));
}

template <typename T>
GridFunction<T> apply(const Operator& op, const GridFunction<T>& u, Backend backend) {
  GridFunction<T> out(u.shared_mesh());
  apply<T>(op, u.mesh(), u.values(), out.values(), backend);
  return out;
}

template <typename T>
DeviceGridFunction<T> apply(const Operator& op, const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u,
                            Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "apply");
  DeviceGridFunction<T> out(u.shared_mesh(), stream);
  apply<T>(op, mesh, u.values(), out.values(), stream);
  return out;
}

template class GridFunction<float>;
template class GridFunction<double>;
template class DeviceGridFunction<float>;
template class DeviceGridFunction<double>;
template GridFunction<float> apply<float>(const Operator&, const GridFunction<float>&, Backend);
template GridFunction<double> apply<double>(const Operator&, const GridFunction<double>&, Backend);
template DeviceGridFunction<float> apply<float>(const Operator&, const DeviceMesh<float>&,
                                                const DeviceGridFunction<float>&, Stream);
template DeviceGridFunction<double> apply<double>(const Operator&, const DeviceMesh<double>&,
                                                  const DeviceGridFunction<double>&, Stream);

}  // namespace trellis::grid
