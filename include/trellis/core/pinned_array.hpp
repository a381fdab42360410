// PinnedArray<T>: an owning, move-only array in page-locked host memory, for
// large copies to and from the device (see device::allocate_pinned).
// Uninitialised; grow_to() keeps a buffer reused from call to call.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "trellis/core/device.hpp"

namespace trellis {

// An owning, move-only array of trivially copyable T in page-locked host memory.
template <typename T>
class PinnedArray {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedArray holds trivially copyable values");

 public:
  PinnedArray() = default;  // empty
  // Uninitialised room for count elements; throws DeviceError when it cannot be locked.
  explicit PinnedArray(std::size_t count)
      : data_(count == 0 ? nullptr : static_cast<T*>(device::allocate_pinned(count * sizeof(T)))), size_(count) {}
  // Empty when count is 0 or the host will not lock that much memory.
  static PinnedArray try_allocate(std::size_t count) {
    PinnedArray array;
    if (count == 0) return array;
    array.data_ = static_cast<T*>(device::try_allocate_pinned(count * sizeof(T)));
    array.size_ = array.data_ == nullptr ? 0 : count;
    return array;
  }
  ~PinnedArray() { device::release_pinned(data_); }  // frees the memory

  PinnedArray(const PinnedArray&) = delete;             // not copyable
  PinnedArray& operator=(const PinnedArray&) = delete;  // not copy-assignable
  // Takes other's memory; other is left empty.
  PinnedArray(PinnedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  // Releases this array's memory and takes other's; other is left empty.
  PinnedArray& operator=(PinnedArray&& other) noexcept {
    if (this != &other) {
      device::release_pinned(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  // Room for at least count elements; the contents are lost when it grows.
  T* grow_to(std::size_t count) {
    if (count > size_) *this = PinnedArray(count);
    return data_;
  }

  // Pointer to the first element (nullptr when empty).
  T* data() noexcept { return data_; }
  // Pointer to the first element (nullptr when empty).
  const T* data() const noexcept { return data_; }
  // Number of elements.
  std::size_t size() const noexcept { return size_; }
  // The elements as a span.
  std::span<T> span() noexcept { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace trellis
