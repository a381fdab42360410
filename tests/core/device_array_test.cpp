#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "support/backends.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis {
namespace {

TEST(DeviceArray, EmptyArrayNeedsNoDevice) {
  DeviceArray<int> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  DeviceArray<int> zero(0);
  EXPECT_EQ(zero.size(), 0u);
}

TEST(DeviceArray, WithoutDeviceAllocationSaysWhy) {
  if (cuda_usable()) GTEST_SKIP() << "a device is usable here";
  EXPECT_THROW(DeviceArray<int>(16), BackendUnavailable);
  EXPECT_THROW(EventTimer(), BackendUnavailable);
}

TEST(DeviceArray, RoundTripsThroughTheDevice) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::vector<double> host(100003);
  std::iota(host.begin(), host.end(), -5.5);
  auto device = DeviceArray<double>::from_host(host);
  EXPECT_EQ(device.size(), host.size());
  EXPECT_EQ(device.bytes(), host.size() * sizeof(double));
  EXPECT_EQ(device.to_host(), host);

  DeviceArray<double> copy(host.size());
  copy.copy_from(device);
  EXPECT_EQ(copy.to_host(), host);
  copy.fill_zero();
  EXPECT_EQ(copy.to_host(), std::vector<double>(host.size(), 0.0));
}

TEST(DeviceArray, MovesOwnership) {
  TRELLIS_SKIP_UNLESS_CUDA();
  std::vector<int> host{3, 1, 4, 1, 5};
  auto a = DeviceArray<int>::from_host(host);
  const int* pointer = a.data();
  DeviceArray<int> b = std::move(a);
  EXPECT_EQ(b.data(), pointer);
  // The moved-from state is specified.
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  EXPECT_EQ(a.size(), 0u);       // NOLINT(bugprone-use-after-move)
  DeviceArray<int> c(2);
  c = std::move(b);
  EXPECT_EQ(c.to_host(), host);
}

TEST(DeviceArray, RejectsCopiesOfTheWrongSize) {
  TRELLIS_SKIP_UNLESS_CUDA();
  DeviceArray<float> a(10);
  std::vector<float> host(9);
  EXPECT_THROW(a.copy_from_host(host), Error);
  EXPECT_THROW(a.copy_to_host(host), Error);
}

TEST(DeviceArray, OutOfMemoryReportsBytesAskedAndFree) {
  TRELLIS_SKIP_UNLESS_CUDA();
  try {
    DeviceArray<char> huge(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "allocation of 1 PiB succeeded";
  } catch (const DeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(std::size_t{1} << 50)), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
  DeviceArray<int> after(4);  // the failed allocation left the runtime usable
  EXPECT_EQ(after.size(), 4u);
}

TEST(EventTimer, MeasuresDeviceWork) {
  TRELLIS_SKIP_UNLESS_CUDA();
  DeviceArray<char> a(std::size_t{64} << 20);
  EventTimer timer;
  timer.start();
  a.fill_zero();
  timer.stop();
  EXPECT_GT(timer.elapsed_ms(), 0.0);
}

}  // namespace
}  // namespace trellis
