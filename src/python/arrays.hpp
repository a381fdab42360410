// NumPy arrays handed out without a copy: a vector's storage moves into a
// capsule that the array owns, or a view of storage another object owns.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace trellis::python {

namespace nb = nanobind;

template <typename T>
using NumpyVector = nb::ndarray<nb::numpy, T, nb::ndim<1>, nb::c_contig>;

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

}  // namespace trellis::python
