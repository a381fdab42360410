// libFuzzer harness for the NCBI-format matrix reader: it returns a matrix
// whose entries lie within the documented range, or throws an InputError
// naming the input and a line that exists. A matrix it returns also aligns
// a short pair without tripping the sanitizers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "input_error_checks.hpp"
#include "trellis/core/error.hpp"

using trellis::fuzz::bug;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace trellis::align;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.mat";
  try {
    const ScoringMatrix matrix = parse_matrix(text, name);
    for (const std::int32_t score : matrix.scores()) {
      if (score > kMaxMatrixMagnitude || score < -kMaxMatrixMagnitude) bug("score out of range", std::to_string(score));
    }
    const Scoring scoring(matrix, {11, 1});
    const auto query = encode_protein("MKVLAAGIWCHY*BZX");
    const auto subject = encode_protein("MKVIAGGWCHHYBZ");
    const Alignment alignment = local_alignment(query, subject, scoring);
    if (alignment.score != local_alignment_score(query, subject, scoring)) bug("traceback score", "");
    if (rescore(alignment, query, subject, scoring) != alignment.score) bug("rescore", alignment.cigar);
  } catch (const trellis::InputError& error) {
    trellis::fuzz::check_input_error(error, name, text);
  }
  return 0;
}
