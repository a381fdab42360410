// NumPy arrays handed out without a copy: a vector's storage moves into a
// capsule that the array owns, or a view of storage another object owns.
// Device arrays in and out: CUDA arrays taken through DLPack (read and
// written in place), and device storage handed out as a DLPack-capable
// array that the package turns into the caller's framework's (CuPy,
// PyTorch) without a copy.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "trellis/core/device_array.hpp"

namespace trellis::python {

namespace nb = nanobind;

template <typename T>
using NumpyVector = nb::ndarray<nb::numpy, T, nb::ndim<1>, nb::c_contig>;

// Host arrays from Python, one-dimensional and C-contiguous: read, or written in place.
template <typename T>
using HostInput = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <typename T>
using HostOutput = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T>
std::span<const T> span_of(const HostInput<T>& values) {
  return {values.data(), values.shape(0)};
}

// The vector's buffer becomes the array's; nothing is copied.
template <typename T>
NumpyVector<T> to_numpy(std::vector<T>&& values) {
  auto* owner = new std::vector<T>(std::move(values));
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return NumpyVector<T>(owner->data(), {owner->size()}, capsule);
}

// A 2-D array (rows x cols, row-major) over a vector of rows * cols values.
template <typename T>
nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::c_contig> to_numpy_2d(std::vector<T>&& values, std::size_t rows,
                                                                 std::size_t cols) {
  auto* owner = new std::vector<T>(std::move(values));
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::c_contig>(owner->data(), {rows, cols}, capsule);
}

// A read-only view of storage kept alive by the Python object it is returned
// from (bind with nb::rv_policy::reference_internal).
template <typename T>
nb::ndarray<nb::numpy, const T, nb::ndim<1>, nb::c_contig> view_of(const std::vector<T>& values) {
  return nb::ndarray<nb::numpy, const T, nb::ndim<1>, nb::c_contig>(values.data(), {values.size()}, nb::handle());
}

// CUDA device arrays from Python (DLPack), one-dimensional and C-contiguous.
template <typename T>
using DeviceInput = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cuda>;
template <typename T>
using DeviceOutput = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cuda>;

// A device array Python holds, as what it is in the message of a bad call.
template <typename Array>
void check_length(const Array& array, std::size_t length, const char* name) {
  if (array.shape(0) != length) {
    throw UsageError(std::string(name) + " needs " + std::to_string(length) + " entries, got " +
                     std::to_string(array.shape(0)));
  }
}

// Device storage handed to Python as a rows x cols array on CUDA device
// `device_id`, owning the storage (nothing is copied).
template <typename T>
nb::ndarray<T, nb::c_contig> on_device_2d(DeviceArray<T>&& values, std::size_t rows, std::size_t cols, int device_id) {
  auto* owner = new DeviceArray<T>(std::move(values));
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<DeviceArray<T>*>(p); });
  const std::size_t shape[2] = {rows, cols};
  return nb::ndarray<T, nb::c_contig>(owner->data(), 2, shape, capsule, nullptr, nb::dtype<T>(),
                                      nb::device::cuda::value, device_id);
}

// The same as a one-dimensional array of all the values.
template <typename T>
nb::ndarray<T, nb::c_contig> on_device(DeviceArray<T>&& values, int device_id) {
  auto* owner = new DeviceArray<T>(std::move(values));
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<DeviceArray<T>*>(p); });
  const std::size_t shape[1] = {owner->size()};
  return nb::ndarray<T, nb::c_contig>(owner->data(), 1, shape, capsule, nullptr, nb::dtype<T>(),
                                      nb::device::cuda::value, device_id);
}

// A one-dimensional view of `count` values of device memory that `owner`
// (a capsule owning the storage) keeps alive; several views may share one
// owner. Handed to Python as a writable DLPack array on device_id.
template <typename T>
nb::ndarray<T, nb::c_contig> device_view(const T* data, std::size_t count, nb::handle owner, int device_id) {
  const std::size_t shape[1] = {count};
  // The storage is the library's and writable; the views of a device CSR
  // hand out const pointers only because the CSR's accessors do.
  return nb::ndarray<T, nb::c_contig>(const_cast<T*>(data), 1, shape, owner, nullptr, nb::dtype<T>(),
                                      nb::device::cuda::value, device_id);
}

}  // namespace trellis::python
