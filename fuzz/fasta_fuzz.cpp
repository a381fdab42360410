// libFuzzer harness for the FASTA reader: it returns a consistent sequence
// set or throws an InputError naming the input and a line that exists (0 for
// the whole input). Anything else is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trellis/align/sequence.hpp"
#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"

using trellis::fuzz::bug;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.fasta";
  trellis::align::SequenceSet set;
  try {
    set = trellis::align::parse_fasta(text, name);
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, name, text);
    return 0;
  }
  if (set.empty()) bug("no records and no error", "");
  std::int64_t residues = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.id(i).empty()) bug("empty id", std::to_string(i));
    for (const trellis::align::Residue r : set.residues(i)) {
      if (r >= trellis::align::kAlphabetSize) bug("residue code out of range", std::to_string(r));
    }
    residues += set.length(i);
  }
  if (residues != set.total_residues() || residues > static_cast<std::int64_t>(size)) {
    bug("residue count", std::to_string(residues));
  }
  return 0;
}
