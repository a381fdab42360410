// What the worked examples share: option checks, meshes, error norms and the
// bookkeeping of a convergence table.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "trellis/grid/problems.hpp"

namespace trellis::grid::detail {

void check_options(const ProblemOptions& options);

// The backend a study runs on: resolve(options.backend), whatever the solver.
Backend study_backend(const ProblemOptions& options);

// Fills the error columns of row from the nodal error R_h u - u_h.
void measure_error(const Mesh& mesh, const std::vector<double>& exact, const std::vector<double>& solution,
                   ConvergenceRow& row);

// Orders against the previous rows and the fitted slopes.
void finish_study(ConvergenceStudy& study);

// Adds each of step's phases to total's phase of that name (appended when new).
void add_phases(const std::vector<TimedPhase>& step, std::vector<TimedPhase>& total);

// f projected as the options ask (R_h or avg_h; see problems.hpp).
std::vector<double> project_rhs(const ProblemOptions& options, const std::shared_ptr<const Mesh>& mesh,
                                const std::function<double(const Point&)>& f);

// exp(x + y + z) on the mesh's dimensions.
double exponential(const Point& x, int dim, double t = 0);

}  // namespace trellis::grid::detail
