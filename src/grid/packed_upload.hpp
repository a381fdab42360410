// Many small host arrays in one device allocation with one copy: a
// multigrid level's tables (bands, face flags, transfer rows) took an
// allocation and a copy each, and allocations wait for the device.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "trellis/core/device.hpp"
#include "trellis/core/device_array.hpp"

namespace trellis::grid::detail {

class PackedUpload {
 public:
  // Appends values; returns where they will start, in bytes from the
  // upload's first (a multiple of kAlignment).
  template <typename T>
  std::size_t add(std::span<const T> values) {
    const std::size_t at = (bytes_.size() + kAlignment - 1) / kAlignment * kAlignment;
    bytes_.resize(at + values.size_bytes());
    if (!values.empty()) std::memcpy(bytes_.data() + at, values.data(), values.size_bytes());
    return at;
  }

  // Everything added, copied to the device with one allocation and one
  // copy, waited for.
  DeviceArray<unsigned char> upload() const {
    DeviceArray<unsigned char> device = DeviceArray<unsigned char>::from_host(bytes_);
    device::synchronize(nullptr);
    return device;
  }

 private:
  static constexpr std::size_t kAlignment = 16;  // every array type's alignment divides it
  std::vector<unsigned char> bytes_;
};

}  // namespace trellis::grid::detail
