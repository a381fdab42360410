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

template <typename T>
class PinnedArray {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedArray holds trivially copyable values");

 public:
  PinnedArray() = default;
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
  ~PinnedArray() { device::release_pinned(data_); }

  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  PinnedArray(PinnedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
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

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::span<T> span() noexcept { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace trellis
