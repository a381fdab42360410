// The JSON report of a routing (`trellis route --report`, `trellis demo`):
// the lattice, every iteration, the nets left unrouted, wire, vias, the
// design-rule check's counts, the pads the pours join and the warnings.
#pragma once

#include <nlohmann/json.hpp>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/router.hpp"

namespace trellis::cli {

// Pour islands joining two pads or more: [{"net", "layer", "pads": [...]}].
nlohmann::json pour_joins_json(const route::Board& board, const std::vector<route::PourIsland>& islands);

nlohmann::json route_report_json(const route::Board& board, const route::RouteResult& result,
                                 const route::DrcReport& drc);

}  // namespace trellis::cli
