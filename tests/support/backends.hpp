// Helpers for tests parameterised over backends, Ginkgo style: one test body,
// one instance per backend, each compared with reference. CUDA and Vulkan
// instances are skipped (not passed) where no device is usable. Every test
// binary runs Vulkan under the Khronos validation layer where it is
// installed, and a message from it fails the test that caused it.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"

namespace trellis {
// Test names and failure messages show "cuda", not the enum's bytes.
inline void PrintTo(Backend backend, std::ostream* out) { *out << to_string(backend); }
}  // namespace trellis

namespace trellis::testing {

// The backends compared with reference: cpu and cuda. Vulkan, which has a
// few kernels only, is instantiated by the tests of those kernels.
std::vector<Backend> backends_under_test();

// For INSTANTIATE_TEST_SUITE_P's name generator: "cpu", "cuda".
std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info);

// Empty when the backend can run here, else why not (for vulkan: whether a
// device is usable, whatever the kernel).
std::string unavailable_reason(Backend backend);

// Empty when the backend can run fp64 kernels here, else why not (a Vulkan
// device without shaderFloat64).
std::string float64_unavailable_reason(Backend backend);

}  // namespace trellis::testing

#define TRELLIS_SKIP_UNLESS_AVAILABLE(backend)                                                                \
  do {                                                                                                        \
    if (std::string why = ::trellis::testing::unavailable_reason(backend); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

#define TRELLIS_SKIP_UNLESS_CUDA() TRELLIS_SKIP_UNLESS_AVAILABLE(::trellis::Backend::cuda)

#define TRELLIS_SKIP_UNLESS_FLOAT64(backend)                                                                          \
  do {                                                                                                                \
    if (std::string why = ::trellis::testing::float64_unavailable_reason(backend); !why.empty()) GTEST_SKIP() << why; \
  } while (0)
