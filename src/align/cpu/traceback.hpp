// The traceback's choice of instruction set, exposed so that tests can run
// every path this machine supports (cpu::sw_traceback picks the widest).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "trellis/align/alignment.hpp"
#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align::cpu {

// reference: reference::sw_traceback itself (machines without AVX2).
enum class TracebackPath { reference, avx2, avx512 };

std::string_view to_string(TracebackPath path) noexcept;

// Every path this machine runs, reference first; the last is the default.
std::vector<TracebackPath> supported_traceback_paths();

// cpu::sw_traceback on a chosen path (it must be supported).
Alignment sw_traceback_with(TracebackPath path, std::span<const Residue> query, std::span<const Residue> subject,
                            const Scoring& scoring, std::optional<std::int32_t> known_score = std::nullopt);

}  // namespace trellis::align::cpu
