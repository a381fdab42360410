// Convergence-study bookkeeping shared by the worked examples.
#include "study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "trellis/core/error.hpp"
#include "trellis/grid/norms.hpp"
#include "trellis/grid/projections.hpp"

namespace trellis::grid {

namespace {
// Largest spacing over smallest along each axis of a graded study mesh.
constexpr double kGrading = 16.0;
}  // namespace

Mesh study_mesh(const ProblemOptions& options, int level) {
  const std::int32_t cells = options.cells << level;
  std::vector<Mesh1D> axes;
  for (int a = 0; a < options.dim; ++a) {
    // Each level and axis draws its own mesh from the seed.
    const std::uint64_t seed =
        options.seed * 1000003u + static_cast<std::uint64_t>(level) * 31u + static_cast<std::uint64_t>(a);
    switch (options.mesh) {
      case MeshKind::uniform:
        axes.push_back(Mesh1D::uniform(0.0, 1.0, cells));
        break;
      case MeshKind::nonuniform:
        axes.push_back(Mesh1D::random(0.0, 1.0, cells, seed));
        break;
      case MeshKind::graded: {
        const double ratio = std::pow(kGrading, 1.0 / (cells - 1));
        axes.push_back(Mesh1D::graded(0.0, 1.0, cells, a == 0 ? ratio : 1 / ratio));
        break;
      }
    }
  }
  return Mesh(std::move(axes));
}

double fitted_order(const std::vector<double>& h, const std::vector<double>& error) {
  if (h.size() != error.size() || h.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    mx += std::log(h[i]);
    my += std::log(error[i]);
  }
  mx /= static_cast<double>(h.size());
  my /= static_cast<double>(h.size());
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    sxy += (std::log(h[i]) - mx) * (std::log(error[i]) - my);
    sxx += (std::log(h[i]) - mx) * (std::log(h[i]) - mx);
  }
  return sxy / sxx;
}

namespace detail {

void check_options(const ProblemOptions& options) {
  if (options.dim < 1 || options.dim > 3) throw UsageError(fmt::format("--dim must be 1, 2 or 3, got {}", options.dim));
  if (options.cells < 2) throw UsageError(fmt::format("--n must be at least 2 cells, got {}", options.cells));
  if (options.levels < 1 || options.levels > 20) {
    throw UsageError(fmt::format("--levels must be between 1 and 20, got {}", options.levels));
  }
  if (!(options.tolerance > 0 && options.tolerance < 1)) {
    throw UsageError(fmt::format("--tolerance must be in (0, 1), got {}", options.tolerance));
  }
  double nodes = 1;
  const double finest = static_cast<double>(options.cells) * std::pow(2.0, options.levels - 1) + 1;
  for (int a = 0; a < options.dim; ++a) nodes *= finest;
  if (nodes > 2.0e9) {
    throw UsageError(fmt::format("the finest mesh would have {:.3g} nodes; at most 2e9 fit 32-bit indices", nodes));
  }
}

Backend study_backend(const ProblemOptions& options) { return resolve(options.backend); }

std::vector<double> project_rhs(const ProblemOptions& options, const std::shared_ptr<const Mesh>& mesh,
                                const std::function<double(const Point&)>& f) {
  const bool nodal = options.rhs == RhsProjection::nodal ||
                     (options.rhs == RhsProjection::automatic && options.mesh == MeshKind::uniform);
  const GridFunction<double> values = nodal ? restrict_to_nodes(mesh, f) : cell_average(mesh, f);
  return std::vector<double>(values.values().begin(), values.values().end());
}

double exponential(const Point& x, int dim, double t) {
  double sum = -t;
  for (int a = 0; a < dim; ++a) sum += x[static_cast<std::size_t>(a)];
  return std::exp(sum);
}

void measure_error(const Mesh& mesh, const std::vector<double>& exact, const std::vector<double>& solution,
                   ConvergenceRow& row) {
  std::vector<double> error(exact.size());
  for (std::size_t i = 0; i < error.size(); ++i) error[i] = exact[i] - solution[i];
  row.error_h = norm_h<double>(mesh, error, nullptr, Backend::cpu);
  row.error_h1 = h1_norm<double>(mesh, error, nullptr, Backend::cpu);
  row.error_max = max_norm<double>(error, nullptr, Backend::cpu);
  row.h = mesh.max_spacing();
  row.unknowns = mesh.nodes();
}

void finish_study(ConvergenceStudy& study) {
  std::vector<double> h, eh, e1;
  for (std::size_t i = 0; i < study.rows.size(); ++i) {
    ConvergenceRow& row = study.rows[i];
    if (i == 0) {
      row.order_h = row.order_h1 = std::numeric_limits<double>::quiet_NaN();
    } else {
      const ConvergenceRow& prev = study.rows[i - 1];
      const double ratio = std::log(prev.h / row.h);
      row.order_h = std::log(prev.error_h / row.error_h) / ratio;
      row.order_h1 = std::log(prev.error_h1 / row.error_h1) / ratio;
    }
    h.push_back(row.h);
    eh.push_back(row.error_h);
    e1.push_back(row.error_h1);
  }
  study.fitted_order_h = fitted_order(h, eh);
  study.fitted_order_h1 = fitted_order(h, e1);
}

void add_phases(const std::vector<TimedPhase>& step, std::vector<TimedPhase>& total) {
  for (const TimedPhase& phase : step) {
    auto same = std::find_if(total.begin(), total.end(), [&](const TimedPhase& t) { return t.name == phase.name; });
    if (same == total.end())
      total.push_back(phase);
    else
      same->ms += phase.ms;
  }
}

}  // namespace detail
}  // namespace trellis::grid
