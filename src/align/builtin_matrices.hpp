// The built-in matrix tables (matrices.cpp), looked up by canonical
// (upper-case) name.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "trellis/align/scoring.hpp"

namespace trellis::align::matrices_detail {

std::span<const std::string_view> names() noexcept;
std::optional<ScoringMatrix::Scores> find(std::string_view canonical_name);

}  // namespace trellis::align::matrices_detail
