// The cpu engine's choice of instruction set, exposed so that tests can run
// every path this machine supports (cpu::sw_scores picks the widest).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "trellis/align/scoring.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align::cpu {

// portable: the exact 32-bit recurrence on every thread (non-x86 builds).
enum class InstructionSet { portable, sse2, avx2 };

std::string_view to_string(InstructionSet set) noexcept;

// Every set this machine runs, portable first; the widest is the default.
std::vector<InstructionSet> supported_instruction_sets();
InstructionSet widest_instruction_set();

// cpu::sw_scores on a chosen instruction set (it must be supported).
void sw_scores_with(InstructionSet set, std::span<const Residue> query, const SequenceSet& subjects,
                    const Scoring& scoring, std::span<std::int32_t> scores);

}  // namespace trellis::align::cpu
