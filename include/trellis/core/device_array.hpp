// DeviceArray<T>: an owning, move-only array in device memory (cudaMalloc,
// never managed memory). Copies are asynchronous on the given stream; the
// host buffer must stay alive until the stream is synchronised.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis {

// An owning, move-only array of trivially copyable T in device memory.
template <typename T>
class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceArray holds trivially copyable values");

 public:
  DeviceArray() = default;  // empty

  // Uninitialised storage for count elements.
  explicit DeviceArray(std::size_t count)
      : data_(count == 0 ? nullptr : static_cast<T*>(device::allocate(count * sizeof(T)))), size_(count) {}

  // A new array holding a copy of host, enqueued on stream.
  static DeviceArray from_host(std::span<const T> host, Stream stream = nullptr) {
    DeviceArray array(host.size());
    array.copy_from_host(host, stream);
    return array;
  }

  ~DeviceArray() { device::release(data_); }  // frees the memory

  DeviceArray(const DeviceArray&) = delete;             // not copyable
  DeviceArray& operator=(const DeviceArray&) = delete;  // not copy-assignable
  // Takes other's memory; other is left empty.
  DeviceArray(DeviceArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  // Releases this array's memory and takes other's; other is left empty.
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    if (this != &other) {
      device::release(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  // Device pointer to the first element (nullptr when empty).
  T* data() noexcept { return data_; }
  // Device pointer to the first element (nullptr when empty).
  const T* data() const noexcept { return data_; }
  // Number of elements.
  std::size_t size() const noexcept { return size_; }
  // Size in bytes.
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  // True when there are no elements.
  bool empty() const noexcept { return size_ == 0; }

  // Asynchronous on stream; sizes must match exactly.
  void copy_from_host(std::span<const T> host, Stream stream = nullptr) {
    check_size(host.size());
    if (size_ != 0) device::copy_to_device(data_, host.data(), bytes(), stream);
  }
  // Copies into host, asynchronously on stream; sizes must match exactly.
  void copy_to_host(std::span<T> host, Stream stream = nullptr) const {
    check_size(host.size());
    if (size_ != 0) device::copy_to_host(host.data(), data_, bytes(), stream);
  }
  // Device-to-device copy of other, asynchronous on stream; sizes must match exactly.
  void copy_from(const DeviceArray& other, Stream stream = nullptr) {
    check_size(other.size());
    if (size_ != 0) device::copy_on_device(data_, other.data_, bytes(), stream);
  }
  // Sets every byte to zero, asynchronously on stream.
  void fill_zero(Stream stream = nullptr) {
    if (size_ != 0) device::fill_zero(data_, bytes(), stream);
  }

  // Synchronous download: copies on stream and waits for it.
  std::vector<T> to_host(Stream stream = nullptr) const {
    std::vector<T> host(size_);
    copy_to_host(host, stream);
    device::synchronize(stream);
    return host;
  }

 private:
  void check_size(std::size_t count) const {
    if (count != size_) {
      throw Error("DeviceArray copy of " + std::to_string(count) + " elements into/out of an array of " +
                  std::to_string(size_));
    }
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace trellis
