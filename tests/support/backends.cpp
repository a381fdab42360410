#include "support/backends.hpp"

#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::testing {

std::vector<Backend> backends_under_test() { return {Backend::cpu, Backend::cuda}; }

std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info) {
  return std::string(to_string(info.param));
}

std::string unavailable_reason(Backend backend) {
  try {
    resolve(backend);
    return {};
  } catch (const BackendUnavailable& error) {
    return error.what();
  }
}

}  // namespace trellis::testing
