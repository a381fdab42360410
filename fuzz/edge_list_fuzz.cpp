// libFuzzer harness for the edge list readers: every input goes through
// both the unweighted (.el) and the weighted (.wel) reader.
#include <cstddef>
#include <cstdint>

#include "reader_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const bool weighted : {false, true}) {
    trellis::fuzz::check_reader(
        data, size, weighted ? "fuzz.wel" : "fuzz.el", [weighted](std::istream& in, const std::string& name) {
          return trellis::graph::io_detail::read_edge_list(in, name, weighted, trellis::fuzz::kLimits);
        });
  }
  return 0;
}
