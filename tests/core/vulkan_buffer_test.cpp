// The vulkan backend's buffers: host data in and out (mapped, or through
// the staging buffer in chunks), and the recorded fills, updates, copies
// and indirect dispatch arguments, checked word by word.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "core/vulkan/context.hpp"
#include "support/backends.hpp"

namespace trellis {
namespace {

std::vector<std::uint32_t> counting(std::size_t size, std::uint32_t from) {
  std::vector<std::uint32_t> values(size);
  std::iota(values.begin(), values.end(), from);
  return values;
}

TEST(VulkanBuffer, UploadAndDownloadRoundTripAtOffsets) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  // Past one staging chunk (32 MiB), so a staged copy takes several.
  const std::size_t words = (std::size_t{33} << 20) / sizeof(std::uint32_t) + 5;
  const std::vector<std::uint32_t> values = counting(words, 7);
  const auto buffer = vk::Buffer::from<std::uint32_t>(values);
  // TRELLIS_VULKAN_STAGING=1 (a ctest entry sets it): nothing mapped, so the
  // copies below go through the staging buffer.
  if (const char* staging = std::getenv("TRELLIS_VULKAN_STAGING"); staging != nullptr && *staging == '1') {
    EXPECT_EQ(buffer->data(), nullptr);
  }
  std::vector<std::uint32_t> back(words);
  buffer->download<std::uint32_t>(back);
  EXPECT_EQ(back, values);

  const std::vector<std::uint32_t> patch = counting(1000, 1u << 30);
  buffer->upload<std::uint32_t>(patch, words - 1003);
  std::vector<std::uint32_t> tail(1005);
  buffer->download<std::uint32_t>(tail, words - 1005);
  EXPECT_EQ(tail[0], values[words - 1005]);
  EXPECT_EQ(tail[1], values[words - 1004]);
  EXPECT_EQ(std::vector<std::uint32_t>(tail.begin() + 2, tail.end() - 3), patch);
  EXPECT_EQ(tail[1004], values[words - 1]);
}

TEST(VulkanBuffer, RecordedFillsUpdatesAndCopies) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(Backend::vulkan);
  vk::Buffer device(64 * sizeof(std::uint32_t));
  vk::Buffer host(64 * sizeof(std::uint32_t), vk::Memory::host);
  ASSERT_NE(host.data(), nullptr);
  const std::vector<std::uint32_t> words = counting(20, 100);  // 80 KiB would take two update commands
  std::vector<std::uint32_t> large = counting(20000, 5);
  vk::Buffer big(large.size() * sizeof(std::uint32_t));
  vk::Context::get().run([&](vk::Recorder& recorder) {
    recorder.fill(device, 0xABCDu);
    recorder.barrier();
    recorder.fill(device, 3, 8 * sizeof(std::uint32_t), 4 * sizeof(std::uint32_t));
    recorder.update(device, 16 * sizeof(std::uint32_t), words.data(), words.size() * sizeof(std::uint32_t));
    recorder.update(big, 0, large.data(), large.size() * sizeof(std::uint32_t));
    recorder.barrier();
    recorder.copy(device, 0, host, 0, device.bytes());
  });
  const std::uint32_t* seen = host.as<std::uint32_t>();
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t expected = i >= 8 && i < 12 ? 3u : i >= 16 && i < 36 ? words[i - 16] : 0xABCDu;
    EXPECT_EQ(seen[i], expected) << "word " << i;
  }
  std::vector<std::uint32_t> back(large.size());
  big.download<std::uint32_t>(back);
  EXPECT_EQ(back, large);
}

}  // namespace
}  // namespace trellis
