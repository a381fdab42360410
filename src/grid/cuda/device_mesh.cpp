// DeviceMesh: each axis' spacings and half spacings converted to T and
// uploaded once, for the cuda kernels.
#include <vector>

#include "trellis/core/device.hpp"
#include "trellis/grid/operators.hpp"

namespace trellis::grid {
namespace {

template <typename T>
DeviceArray<T> upload_as(const std::vector<double>& values, Stream stream) {
  const std::vector<T> converted(values.begin(), values.end());
  DeviceArray<T> array = DeviceArray<T>::from_host(converted, stream);
  device::synchronize(stream);  // converted dies here; the copy must have read it
  return array;
}

}  // namespace

template <typename T>
DeviceMesh<T>::DeviceMesh(const Mesh& mesh, Stream stream) : mesh_(mesh) {
  for (int a = 0; a < mesh_.dim(); ++a) {
    spacings_[static_cast<std::size_t>(a)] = upload_as<T>(mesh_.axis(a).spacings(), stream);
    half_spacings_[static_cast<std::size_t>(a)] = upload_as<T>(mesh_.axis(a).half_spacings(), stream);
  }
}

template class DeviceMesh<float>;
template class DeviceMesh<double>;

}  // namespace trellis::grid
