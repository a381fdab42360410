// The JSON report of a design-rule check (`trellis drc --json`, the Python
// binding's drc()): the counts, every violation with its position and the
// two objects, the unconnected nets with their groups of pins, and the pads
// the pours join.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"

namespace trellis::cli {

// A layer's name, "?" for an index the board lacks.
std::string layer_name(const route::Board& board, int layer);

nlohmann::json drc_report_json(const route::Board& board, const route::DrcReport& report);

}  // namespace trellis::cli
