// libFuzzer harness for the Matrix Market .mtx reader.
#include <cstddef>
#include <cstdint>

#include "reader_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trellis::fuzz::check_reader(data, size, "fuzz.mtx", [](std::istream& in, const std::string& name) {
    return trellis::graph::io_detail::read_matrix_market(in, name, trellis::fuzz::kLimits);
  });
  return 0;
}
