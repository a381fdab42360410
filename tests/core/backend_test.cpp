#include <gtest/gtest.h>

#include <algorithm>

#include "trellis/core/backend.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis {
namespace {

TEST(Backend, ParsesNamesAndAliases) {
  EXPECT_EQ(parse_backend("auto"), Backend::automatic);
  EXPECT_EQ(parse_backend("automatic"), Backend::automatic);
  EXPECT_EQ(parse_backend("reference"), Backend::reference);
  EXPECT_EQ(parse_backend("ref"), Backend::reference);
  EXPECT_EQ(parse_backend("cpu"), Backend::cpu);
  EXPECT_EQ(parse_backend("cuda"), Backend::cuda);
  EXPECT_EQ(parse_backend("vulkan"), Backend::vulkan);
  for (Backend b : {Backend::automatic, Backend::reference, Backend::cpu, Backend::cuda, Backend::vulkan}) {
    EXPECT_EQ(parse_backend(to_string(b)), b);
  }
}

TEST(Backend, RejectsUnknownNamesListingTheChoices) {
  try {
    parse_backend("tpu");
    FAIL() << "no exception";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("'tpu'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("cuda"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("vulkan"), std::string::npos);
  }
  EXPECT_THROW(parse_backend(""), UsageError);
  EXPECT_THROW(parse_backend("CPU"), UsageError);
}

TEST(Backend, HostBackendsAlwaysResolveToThemselves) {
  EXPECT_EQ(resolve(Backend::reference), Backend::reference);
  EXPECT_EQ(resolve(Backend::cpu), Backend::cpu);
  auto available = available_backends();
  EXPECT_NE(std::find(available.begin(), available.end(), Backend::reference), available.end());
  EXPECT_NE(std::find(available.begin(), available.end(), Backend::cpu), available.end());
}

TEST(Backend, AutomaticPicksCudaExactlyWhenUsable) {
  EXPECT_EQ(resolve(Backend::automatic), cuda_usable() ? Backend::cuda : Backend::cpu);
  auto available = available_backends();
  EXPECT_EQ(std::find(available.begin(), available.end(), Backend::cuda) != available.end(), cuda_usable());
}

TEST(Backend, CudaWithoutDeviceIsAnErrorNotAFallback) {
  if (cuda_usable()) {
    EXPECT_EQ(resolve(Backend::cuda), Backend::cuda);
    return;
  }
  try {
    resolve(Backend::cuda);
    FAIL() << "no exception";
  } catch (const BackendUnavailable& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
    if (!cuda_compiled()) {
      EXPECT_NE(message.find("TRELLIS_CUDA=ON"), std::string::npos) << message;
    }
  }
}

TEST(Devices, DiscoveryReportsDevicesOrAReason) {
  std::string reason;
  auto devices = list_devices(&reason);
  EXPECT_EQ(devices.empty(), !cuda_usable());
  if (devices.empty()) {
    EXPECT_FALSE(reason.empty());
    EXPECT_THROW(current_device(), BackendUnavailable);
    return;
  }
  for (const DeviceInfo& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.total_memory, 0u);
    EXPECT_GE(d.compute_major, 5);
  }
  EXPECT_EQ(current_device().name, devices.front().name);
}

}  // namespace
}  // namespace trellis
