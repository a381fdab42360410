// Helpers for tests parameterised over backends, Ginkgo style: one test body,
// one instance per backend, each compared with reference. CUDA instances are
// skipped (not passed) where no device is usable.
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

// The backends compared with reference: cpu and cuda.
std::vector<Backend> backends_under_test();

// For INSTANTIATE_TEST_SUITE_P's name generator: "cpu", "cuda".
std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info);

// Empty when the backend can run here, else why not.
std::string unavailable_reason(Backend backend);

}  // namespace trellis::testing

#define TRELLIS_SKIP_UNLESS_AVAILABLE(backend)                                          \
  do {                                                                                  \
    if (std::string why = ::trellis::testing::unavailable_reason(backend); !why.empty()) \
      GTEST_SKIP() << why;                                                              \
  } while (0)

#define TRELLIS_SKIP_UNLESS_CUDA() TRELLIS_SKIP_UNLESS_AVAILABLE(::trellis::Backend::cuda)
