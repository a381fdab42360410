// Checks every reader harness shares: a finding aborts with a message, and
// an InputError must name the input, say what is wrong, and point at a line
// that exists (0 for the whole input).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trellis/core/error.hpp"

namespace trellis::fuzz {

[[noreturn]] inline void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz check failed: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline std::size_t lines_in(std::string_view text) {
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

inline void check_input_error(const InputError& error, const std::string& name, std::string_view text) {
  if (error.file() != name) bug("InputError names the wrong file", error.what());
  if (error.problem().empty()) bug("InputError without a problem", error.what());
  if (error.line() > lines_in(text)) bug("InputError names a line past the end", error.what());
}

}  // namespace trellis::fuzz
