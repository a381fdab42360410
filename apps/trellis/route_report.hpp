// The JSON report of a routing (`trellis route --report`, `trellis demo`):
// the lattice, every iteration, the nets left unrouted, wire, vias, the
// design-rule check's counts and the warnings.
#pragma once

#include <nlohmann/json.hpp>

#include "trellis/route/board.hpp"
#include "trellis/route/drc.hpp"
#include "trellis/route/router.hpp"

namespace trellis::cli {

nlohmann::json route_report_json(const route::Board& board, const route::RouteResult& result,
                                 const route::DrcReport& drc);

}  // namespace trellis::cli
