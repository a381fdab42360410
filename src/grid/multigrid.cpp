// Multigrid setup (levels, transfers, Galerkin operators, smoother data,
// coarse solve) and the V- and F-cycles on the host kernels of one backend;
// a cuda hierarchy is set up here with the cpu kernels and handed to the
// device cycle (multigrid_device.hpp).
#include "trellis/grid/multigrid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include "banded_lu.hpp"
#include "kronecker_levels.hpp"
#include "multigrid_device.hpp"
#include "multigrid_kernels.hpp"
#include "multigrid_colors.hpp"
#include "multigrid_lines.hpp"
#include "multigrid_smoother.hpp"
#include "multigrid_transfer.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::grid {

std::string_view to_string(Smoother smoother) noexcept {
  switch (smoother) {
    case Smoother::jacobi:
      return "jacobi";
    case Smoother::line:
      return "line";
    case Smoother::gauss_seidel:
      return "gauss-seidel";
    case Smoother::chebyshev:
      break;
  }
  return "chebyshev";
}

std::string_view to_string(Cycle cycle) noexcept { return cycle == Cycle::v ? "V" : "F"; }

namespace {

template <typename T>
struct Level {
  Mesh mesh;
  // On a cuda hierarchy only the coarsest level's is kept here; the others
  // are copied from the device when asked for (level_matrix).
  mutable CsrMatrix<T> a;
  // To this level from the next coarser one (empty on the coarsest), and back.
  CsrMatrix<T> p;
  CsrMatrix<T> r;
  std::vector<std::uint8_t> constrained;  // empty on level 0 of a cuda hierarchy (device_constrained holds it)
  std::vector<std::int32_t> constrained_nodes;
  std::vector<T> inverse_diagonal;  // 1 / a_ii on free rows, 0 on constrained ones
  double lambda_max = 0;
  std::vector<detail::SmoothingStep> steps;
  std::vector<detail::LineFactors<T>> lines;  // per axis of two nodes or more (Smoother::line)
  // Work vectors: right-hand side and iterate (levels below the finest),
  // residual and smoother direction.
  mutable std::vector<T> b, x, residual, direction;
};

UsageError line_pivot_error(std::int32_t row, std::size_t level, std::int32_t nodes, int axis) {
  return UsageError(fmt::format(
      "multigrid: the line smoother meets a zero or non-finite pivot in free row {} of level {} ({} nodes) along "
      "axis {}",
      row, level, nodes, axis));
}

void check_options(const MultigridOptions& o) {
  auto fail = [](const std::string& what) { throw UsageError("multigrid: " + what); };
  if (o.smoothing_steps < 1 || o.smoothing_steps > 64) {
    fail(fmt::format("smoothing_steps must be in 1..64, got {}", o.smoothing_steps));
  }
  if (!(o.line_weight > 0 && o.line_weight < 2)) {
    fail(fmt::format("line_weight must be in (0, 2), got {}", o.line_weight));
  }
  if (!(o.jacobi_weight > 0 && o.jacobi_weight < 2)) {
    fail(fmt::format("jacobi_weight must be in (0, 2), got {}", o.jacobi_weight));
  }
  if (!(o.gauss_seidel_weight > 0 && o.gauss_seidel_weight < 2)) {
    fail(fmt::format("gauss_seidel_weight must be in (0, 2), got {}", o.gauss_seidel_weight));
  }
  if (!(o.chebyshev_lower > 0 && o.chebyshev_lower < o.chebyshev_upper && std::isfinite(o.chebyshev_upper))) {
    fail(fmt::format("the Chebyshev interval needs 0 < lower < upper, got [{}, {}]", o.chebyshev_lower,
                     o.chebyshev_upper));
  }
  if (o.eigenvalue_steps < 1 || o.eigenvalue_steps > 1000) {
    fail(fmt::format("eigenvalue_steps must be in 1..1000, got {}", o.eigenvalue_steps));
  }
  if (o.max_levels < 1) fail(fmt::format("max_levels must be >= 1, got {}", o.max_levels));
  if (!(o.direct_solve_flops >= 0)) fail(fmt::format("direct_solve_flops must be >= 0, got {}", o.direct_solve_flops));
}

// The largest eigenvalue of the tridiagonal matrix (alpha on the diagonal,
// beta beside it) by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const std::size_t m = alpha.size();
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double radius = (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i + 1 < m ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - radius);
    hi = std::max(hi, alpha[i] + radius);
  }
  // Eigenvalues below x: sign changes of the LDL^T pivots of T - x I.
  auto below = [&](double x) {
    std::size_t count = 0;
    double d = 1;
    for (std::size_t i = 0; i < m; ++i) {
      d = alpha[i] - x - (i > 0 ? beta[i - 1] * beta[i - 1] / d : 0.0);
      if (d == 0) d = -1e-300;
      if (d < 0) ++count;
    }
    return count;
  };
  for (int iteration = 0; iteration < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++iteration) {
    const double mid = (lo + hi) / 2;
    if (below(mid) == m)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

// Deterministic start vector in (-1, 1), zero on constrained rows
// (multigrid_smoother.hpp's generator, stepped in order).
template <typename T>
void lanczos_start(const std::vector<T>& inverse_diagonal, std::vector<T>& q) {
  std::uint64_t state = detail::kLanczosSeed;
  for (std::size_t i = 0; i < q.size(); ++i) {
    state = detail::lanczos_next(state);
    q[i] = inverse_diagonal[i] == T(0) ? T(0) : static_cast<T>(detail::lanczos_start_value(state));
  }
}

}  // namespace

template <typename T>
struct Multigrid<T>::State {
  MultigridOptions options;
  Backend backend;
  detail::MultigridKernels<T> kernels;
  std::vector<Level<T>> levels;
  detail::BandedLu lu;
  bool direct = false;
  bool coarse_symmetric = true;
  // cuda: the levels on the device, and b and x of a cycle on host vectors.
  std::unique_ptr<cuda::MultigridCycle<T>> device;
  // The finest operator off the constrained faces as Kronecker products, when
  // the hierarchy was given a separable constant-coefficient form
  // (kronecker_levels.hpp); and every level's, while the fill in use matches it.
  std::optional<detail::KroneckerOperator> separable;
  std::vector<detail::KroneckerOperator> kronecker;
  // The setup's phases so far, and the clock of the current one.
  std::vector<TimedPhase> phases;
  SteadyTimer phase_clock;

  // Closes the current phase under name (after the device's work on cuda).
  void end_phase(const char* name) {
    if (backend == Backend::cuda) device::synchronize(nullptr);
    phases.push_back({name, phase_clock.elapsed_ms()});
    phase_clock = SteadyTimer();
  }
  void begin_phases() {
    phases.clear();
    phase_clock = SteadyTimer();
  }
  std::vector<DeviceArray<std::uint8_t>> device_constrained;  // per level (cuda; the host keeps none of level 0's)
  mutable DeviceArray<T> staged_b, staged_x;                  // b and x of cycles on host vectors, made at the first

  // Options, backend, levels and (with a form) the separable operator.
  void start(const Mesh& mesh, const BilinearForm* form, const std::vector<std::uint8_t>& constrained,
             const MultigridOptions& o, Backend chosen);
  // The hierarchy of a host matrix: on the device for cuda, else here.
  void build(const CsrMatrix<T>& a) {
    if (backend == Backend::cuda) {
      build_on_device(DeviceCsr<T>(a));
      return;
    }
    levels.front().a = a;
    build_operators();
  }

  // The meshes, constraint flags and (host backends) transfers of every level.
  void make_levels(const Mesh& mesh, const std::vector<std::uint8_t>& constrained);

  // Level l's matrix-dependent data: inverse diagonal and eigenvalue estimate.
  void prepare_smoother(Level<T>& level) const {
    const std::int32_t n = level.a.rows;
    level.inverse_diagonal.assign(static_cast<std::size_t>(n), T(0));
    for (std::int32_t row = 0; row < n; ++row) {
      if (level.constrained[static_cast<std::size_t>(row)]) continue;
      T diagonal = 0;
      for (RowOffset k = level.a.row_offsets[row]; k < level.a.row_offsets[row + 1]; ++k) {
        if (level.a.col_indices[k] == row) diagonal += level.a.values[k];
      }
      if (diagonal == T(0) || !std::isfinite(static_cast<double>(diagonal))) {
        throw UsageError(
            fmt::format("multigrid: the matrix has a zero or non-finite diagonal entry in free row {} "
                        "of level {} ({} nodes)",
                        row, &level - levels.data(), n));
      }
      level.inverse_diagonal[static_cast<std::size_t>(row)] = T(1) / diagonal;
    }
    level.lambda_max = options.smoother == Smoother::chebyshev ? estimate_lambda_max(level) : 0.0;
    level.steps = detail::smoothing_schedule(options, level.lambda_max);
    level.lines.clear();
    if (options.smoother != Smoother::line) return;
    for (int axis = 0; axis < level.mesh.dim(); ++axis) {
      if (level.mesh.extent(axis) < 2) continue;
      std::int32_t bad_row = -1;
      level.lines.push_back(detail::factor_lines(level.a.view(), level.constrained.data(), level.mesh.stride(axis),
                                                 level.mesh.extent(axis), bad_row));
      if (bad_row >= 0) {
        throw line_pivot_error(bad_row, static_cast<std::size_t>(&level - levels.data()), n, axis);
      }
    }
  }

  // Lanczos on S A S with S = D^-1/2 (similar to D^-1 A), without
  // reorthogonalisation: the largest Ritz value approaches lambda_max from
  // below, fast, and a lost orthogonality only repeats it.
  double estimate_lambda_max(const Level<T>& level) const {
    const std::int32_t n = level.a.rows;
    const auto size = static_cast<std::size_t>(n);
    std::vector<T> scale(size), q(size), q_previous(size, T(0)), w(size), scaled(size);
    for (std::size_t i = 0; i < size; ++i) {
      scale[i] = static_cast<T>(std::sqrt(static_cast<double>(level.inverse_diagonal[i])));
    }
    lanczos_start(level.inverse_diagonal, q);
    double norm = std::sqrt(kernels.dot(n, q.data(), q.data()));
    if (norm == 0) return 1;
    for (auto& value : q) value = static_cast<T>(value / norm);
    std::vector<double> alpha, beta;
    double beta_previous = 0;
    for (std::int32_t step = 0; step < options.eigenvalue_steps; ++step) {
      for (std::size_t i = 0; i < size; ++i) scaled[i] = scale[i] * q[i];
      kernels.spmv(T(1), level.a.view(), scaled.data(), T(0), w.data(), nullptr);
      for (std::size_t i = 0; i < size; ++i) w[i] = scale[i] * w[i] - static_cast<T>(beta_previous) * q_previous[i];
      const double a = kernels.dot(n, w.data(), q.data());
      kernels.axpy(n, -a, q.data(), w.data());
      alpha.push_back(a);
      const double b = std::sqrt(kernels.dot(n, w.data(), w.data()));
      if (!(b > 1e-12 * std::abs(a)) || step + 1 == options.eigenvalue_steps) break;  // invariant subspace, or done
      beta.push_back(b);
      q_previous.swap(q);
      for (std::size_t i = 0; i < size; ++i) q[i] = static_cast<T>(w[i] / b);
      beta_previous = b;
    }
    beta.resize(alpha.size() > 0 ? alpha.size() - 1 : 0);
    return largest_tridiagonal_eigenvalue(alpha, beta);
  }

  // The coarsest level's solve: factored when that is cheap enough.
  void prepare_coarse_solve() {
    const Level<T>& coarsest = levels.back();
    direct = detail::BandedLu::factor_flops(coarsest.a) <= options.direct_solve_flops && lu.factor(coarsest.a);
    if (!direct) coarse_symmetric = is_symmetric(coarsest.a);
  }

  static bool is_symmetric(const CsrMatrix<T>& a) {
    const CsrMatrix<T> t = detail::transposed(a);
    for (std::int32_t row = 0; row < a.rows; ++row) {
      // Both rows list their entries by ascending column (assembled and Galerkin matrices do).
      const RowOffset begin = a.row_offsets[row], end = a.row_offsets[row + 1];
      if (end - begin != t.row_offsets[row + 1] - t.row_offsets[row]) return false;
      for (RowOffset k = begin, kt = t.row_offsets[row]; k < end; ++k, ++kt) {
        const double x = a.values[k], y = t.values[kt];
        if (a.col_indices[k] != t.col_indices[kt] || std::abs(x - y) > 1e-12 * std::max(std::abs(x), std::abs(y))) {
          return false;
        }
      }
    }
    return true;
  }

  // Coarse operators from level 0's matrix down, then smoothers and the coarse solve.
  void build_operators() {
    kronecker.clear();
    if (separable && backend != Backend::reference && detail::describes(*separable, levels[0].a)) {
      kronecker_levels();
      for (std::size_t l = 1; l < levels.size(); ++l) levels[l].a = detail::to_csr<T>(kronecker[l]);
    } else {
      for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
        Level<T>& coarse = levels[l + 1];
        coarse.a = kernels.galerkin_product(levels[l].r.view(), levels[l].a.view(), levels[l].p.view());
        add_constrained_identity(coarse.a, coarse.constrained, coarse.constrained_nodes.size());
      }
    }
    end_phase("coarse operators");
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) prepare_smoother(levels[l]);
    end_phase("smoothers");
    prepare_coarse_solve();
    end_phase("coarse solve");
  }

  // The same on the device from the finest matrix there: transfers, Galerkin
  // operators (the cpu backend's, bitwise), inverse diagonals and eigenvalue
  // estimates; the host keeps the coarsest matrix and its factors.
  void build_on_device(DeviceCsr<T> finest) {
    device.reset();  // the old levels' device memory first
    std::vector<detail::DeviceLevelParts<T>> parts(levels.size());
    parts[0].a = std::move(finest);
    kronecker.clear();
    if (separable) {
      detail::DeviceKronecker<T> finest_bands(*separable);
      const cuda::KroneckerMatch match = cuda::kronecker_describes<T>(finest_bands, parts[0].a.view());
      if (match != cuda::KroneckerMatch::none) kronecker_levels();
      // The finest level's residuals from the bands too, where no free row
      // reaches a constrained node (a symmetrized assembly's matrix).
      if (match == cuda::KroneckerMatch::free_rows) parts[0].kronecker.emplace(std::move(finest_bands));
    }
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
      parts[l].transfer.emplace(transfer_input(l));
      if (!kronecker.empty()) {
        // Below the finest, Kronecker products; the coarsest in CSR for its solve.
        if (l + 2 == levels.size())
          parts[l + 1].a = DeviceCsr<T>(detail::to_csr<T>(kronecker[l + 1]));
        else
          parts[l + 1].kronecker.emplace(kronecker[l + 1]);
        continue;
      }
      // P and R as matrices only for the product; the cycle applies them without.
      const DeviceCsr<T> p = cuda::interpolation<T>(*parts[l].transfer, false);
      const DeviceCsr<T> r = cuda::interpolation<T>(*parts[l].transfer, true);
      std::optional<DeviceCsr<T>> coarse = cuda::galerkin_product<T>(
          r.view(), parts[l].a.view(), p.view(), extents_of(levels[l + 1].mesh), device_constrained[l + 1].data());
      if (coarse) {
        parts[l + 1].a = std::move(*coarse);
      } else {
        // A row reaches beyond the device's window: the cpu product.
        const Level<T>& next = levels[l + 1];
        CsrMatrix<T> product =
            detail::multigrid_kernels<T>(Backend::cpu)
                .galerkin_product(r.to_host().view(), parts[l].a.to_host().view(), p.to_host().view());
        add_constrained_identity(product, next.constrained, next.constrained_nodes.size());
        parts[l + 1].a = DeviceCsr<T>(product);
      }
    }
    end_phase("coarse operators and transfers");
    // Chebyshev's eigenvalue estimates: every level's Lanczos steps queued,
    // the finest level's on a stream of their own beside the others', and
    // their tridiagonals read with one wait. Everything is allocated first:
    // an allocation keeps work queued after it on one stream from running
    // beside work queued before it on another. Each level's inverse
    // diagonal is queued with no wait: a free row whose diagonal is zero or
    // not finite lowers its level's entry of bad_rows, read once.
    std::optional<cuda::LanczosQueue<T>> lanczos;
    if (options.smoother == Smoother::chebyshev) {
      lanczos.emplace(levels.front().mesh.nodes(), levels.size() > 2 ? levels[1].mesh.nodes() : 0,
                      options.eigenvalue_steps, levels.size() - 1);
    }
    DeviceArray<int> bad_rows = DeviceArray<int>::from_host(std::vector<int>(levels.size(), INT_MAX));
    for (std::size_t l = 0; l < levels.size(); ++l) {
      Level<T>& level = levels[l];
      detail::DeviceLevelParts<T>& part = parts[l];
      part.constrained_nodes = DeviceArray<std::int32_t>::from_host(level.constrained_nodes);
      if (l == 0) part.constrained_diagonal = cuda::diagonal_at<T>(part.a.view(), part.constrained_nodes);
      level.a = CsrMatrix<T>{};
      if (l + 1 < levels.size()) part.inverse_diagonal = DeviceArray<T>(static_cast<std::size_t>(level.mesh.nodes()));
    }
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
      detail::DeviceLevelParts<T>& part = parts[l];
      if (part.kronecker) {
        cuda::kronecker_inverse_diagonal<T>(*part.kronecker, part.inverse_diagonal.data(), bad_rows.data() + l);
      } else {
        cuda::inverse_diagonal<T>(part.a.view(), device_constrained[l].data(), part.inverse_diagonal.data(),
                                  bad_rows.data() + l);
      }
    }
    for (std::size_t l = 0; lanczos && l + 1 < levels.size(); ++l) {
      const detail::DeviceLevelParts<T>& part = parts[l];
      if (part.kronecker) {
        lanczos->add(*part.kronecker, part.inverse_diagonal.data());
      } else {
        lanczos->add(part.a.view(), part.inverse_diagonal.data());
      }
    }
    const std::vector<int> bad = bad_rows.to_host();
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
      if (bad[l] == INT_MAX) continue;
      throw UsageError(
          fmt::format("multigrid: the matrix has a zero or non-finite diagonal entry in free row {} "
                      "of level {} ({} nodes)",
                      bad[l], l, levels[l].mesh.nodes()));
    }
    // The finest level's Chebyshev or Jacobi steps may run in a matrix-free
    // operator's pass, which then need not load an inverse diagonal that is
    // one value off the box's faces (line and colour sweeps never do).
    const bool point_smoother = options.smoother == Smoother::chebyshev || options.smoother == Smoother::jacobi;
    if (levels.size() > 1 && point_smoother) {
      detail::DeviceLevelParts<T>& top = parts.front();
      top.dim = levels.front().mesh.dim();
      top.extents = extents_of(levels.front().mesh);
      top.interior_inverse_diagonal = cuda::interior_value<T>(top.inverse_diagonal.data(), top.dim, top.extents);
    }
    const std::vector<cuda::LanczosTridiagonal> tridiagonals =
        lanczos ? lanczos->tridiagonals() : std::vector<cuda::LanczosTridiagonal>();
    lanczos.reset();
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
      Level<T>& level = levels[l];
      detail::DeviceLevelParts<T>& part = parts[l];
      level.lambda_max = 0;
      if (options.smoother == Smoother::chebyshev) {
        const cuda::LanczosTridiagonal& t = tridiagonals[l];
        level.lambda_max = t.alpha.empty() ? 1.0 : largest_tridiagonal_eigenvalue(t.alpha, t.beta);
      }
      level.steps = detail::smoothing_schedule(options, level.lambda_max);
      part.steps = level.steps;
      if (options.smoother == Smoother::line) line_factors_on_device(l, part);
      if (options.smoother == Smoother::gauss_seidel) {
        part.colours = 1 << level.mesh.dim();
        part.extent_x = level.mesh.extent(0);
        part.extent_y = level.mesh.extent(1);
      }
    }
    end_phase("smoothers");
    levels.back().a = parts.back().a.to_host();
    prepare_coarse_solve();
    device = std::make_unique<cuda::MultigridCycle<T>>(std::move(parts), options.cycle);
    device->set_coarse_solve(direct ? &lu : nullptr, coarse_symmetric);
    end_phase("coarse solve and work vectors");
  }

  static detail::LevelExtents extents_of(const Mesh& mesh) { return {mesh.extent(0), mesh.extent(1), mesh.extent(2)}; }

  // The 1-D interpolations from level l + 1 to level l, per axis.
  std::array<std::vector<detail::AxisWeights>, 3> interpolation_axes(std::size_t l) const {
    const Mesh& fine = levels[l].mesh;
    const Mesh& coarse = levels[l + 1].mesh;
    std::array<std::vector<detail::AxisWeights>, 3> axes;
    for (int a = 0; a < 3; ++a) {
      axes[static_cast<std::size_t>(a)] =
          a < fine.dim() ? detail::axis_interpolation(fine.axis(a), coarse.extent(a) != fine.extent(a))
                         : std::vector<detail::AxisWeights>{detail::AxisWeights{{0, 0}, {1, 0}, 1}};
    }
    return axes;
  }

  // Level l's line factors on the device, from its matrix there (or, on a
  // Kronecker level, from its CSR form, uploaded for the purpose).
  void line_factors_on_device(std::size_t l, detail::DeviceLevelParts<T>& part) const {
    const Mesh& mesh = levels[l].mesh;
    std::optional<DeviceCsr<T>> formed;
    if (part.a.rows() == 0) formed.emplace(detail::to_csr<T>(kronecker[l]));
    const CsrView<T> a = formed ? formed->view() : part.a.view();
    for (int axis = 0; axis < mesh.dim(); ++axis) {
      if (mesh.extent(axis) < 2) continue;
      std::int32_t bad_row = -1;
      part.lines.push_back(
          cuda::line_factors<T>(a, device_constrained[l].data(), mesh.stride(axis), mesh.extent(axis), bad_row));
      if (bad_row >= 0) {
        throw line_pivot_error(bad_row, l, a.rows, axis);
      }
    }
  }

  // Every level's Kronecker operator from the finest one down.
  void kronecker_levels() {
    kronecker.assign(1, *separable);
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
      kronecker.push_back(detail::coarsened(kronecker[l], interpolation_axes(l), extents_of(levels[l + 1].mesh)));
    }
  }

  // Level l to level l + 1, as the device builds it.
  detail::DeviceTransferInput transfer_input(std::size_t l) const {
    detail::DeviceTransferInput transfer;
    transfer.fine = extents_of(levels[l].mesh);
    transfer.coarse = extents_of(levels[l + 1].mesh);
    transfer.axes = interpolation_axes(l);
    transfer.fine_constrained = device_constrained[l].data();
    transfer.coarse_constrained = device_constrained[l + 1].data();
    return transfer;
  }

  // Whether the device holds level l as Kronecker bands (no CSR there).
  bool kronecker_level(std::size_t l) const { return !kronecker.empty() && l > 0 && l + 1 < levels.size(); }

  const cuda::MultigridCycle<T>& device_cycle() const {
    if (!device) {
      throw UsageError(fmt::format("multigrid: device vectors need a hierarchy on the cuda backend, this one is on {}",
                                   to_string(backend)));
    }
    return *device;
  }

  // Constrained coarse rows are empty in R A P: the identity there.
  static void add_constrained_identity(CsrMatrix<T>& a, const std::vector<std::uint8_t>& constrained,
                                       std::size_t constrained_count) {
    CsrMatrix<T> out;
    out.rows = a.rows;
    out.cols = a.cols;
    out.row_offsets.reserve(a.row_offsets.size());
    out.col_indices.reserve(a.col_indices.size() + constrained_count);
    out.values.reserve(out.col_indices.capacity());
    for (std::int32_t row = 0; row < a.rows; ++row) {
      if (constrained[static_cast<std::size_t>(row)]) {
        out.col_indices.push_back(row);
        out.values.push_back(T(1));
      } else {
        out.col_indices.insert(out.col_indices.end(), a.col_indices.begin() + a.row_offsets[row],
                               a.col_indices.begin() + a.row_offsets[row + 1]);
        out.values.insert(out.values.end(), a.values.begin() + a.row_offsets[row],
                          a.values.begin() + a.row_offsets[row + 1]);
      }
      out.row_offsets.push_back(static_cast<RowOffset>(out.col_indices.size()));
    }
    a = std::move(out);
  }

  // Constrained rows exactly: x = b / a_ii (a_ii is 1 below the finest level).
  void set_constrained(const Level<T>& level, const T* b, T* x) const {
    if (&level == levels.data()) {
      for (const std::int32_t node : level.constrained_nodes) {
        T diagonal = 0;
        for (RowOffset k = level.a.row_offsets[node]; k < level.a.row_offsets[node + 1]; ++k) {
          if (level.a.col_indices[k] == node) diagonal += level.a.values[k];
        }
        x[node] = diagonal == T(0) ? b[node] : b[node] / diagonal;
      }
      return;
    }
    for (const std::int32_t node : level.constrained_nodes) x[node] = b[node];
  }

  // Before the coarse correction (after = false) or after it: line
  // relaxation then visits the axes in reverse order, Gauss-Seidel the
  // colours.
  void smooth(const Level<T>& level, const T* b, T* x, bool after) const {
    T* r = level.residual.data();
    T* d = level.direction.data();
    if (options.smoother == Smoother::line) {
      const std::size_t axes = level.lines.size();
      for (const detail::SmoothingStep& step : level.steps) {
        for (std::size_t i = 0; i < axes; ++i) {
          kernels.residual(level.a.view(), b, x, r);
          detail::solve_lines(level.lines[after ? axes - 1 - i : i], r, d, backend);
          kernels.axpy(level.a.rows, step.beta, d, x);
        }
      }
      return;
    }
    if (options.smoother == Smoother::gauss_seidel) {
      const Mesh& mesh = level.mesh;
      const std::int32_t colours = 1 << mesh.dim();
      for (const detail::SmoothingStep& step : level.steps) {
        for (std::int32_t i = 0; i < colours; ++i) {
          detail::relax_colour(level.a.view(), b, mesh.extent(0), mesh.extent(1), after ? colours - 1 - i : i,
                               static_cast<T>(step.beta), level.inverse_diagonal.data(), x, backend);
        }
      }
      return;
    }
    for (const detail::SmoothingStep& step : level.steps) {
      kernels.residual(level.a.view(), b, x, r);
      kernels.smoothing_step(level.a.rows, step.alpha, step.beta, level.inverse_diagonal.data(), r, d, x);
    }
  }

  void coarse_solve(const T* b, T* x) const {
    const Level<T>& level = levels.back();
    const auto n = static_cast<std::size_t>(level.a.rows);
    T* r = level.residual.data();
    T* e = level.direction.data();
    kernels.residual(level.a.view(), b, x, r);
    if (direct) {
      lu.solve<T>(std::span<const T>(r, n), std::span<T>(e, n));
    } else {
      std::fill(e, e + n, T(0));
      const HostLinearOperator<T> op = csr_operator(level.a, Preconditioner::jacobi, backend);
      const SolverOptions solve{.relative_tolerance = 1e-12, .max_iterations = 100000};
      if (coarse_symmetric)
        cg<T>(op, std::span<const T>(r, n), std::span<T>(e, n), solve, backend);
      else
        bicgstab<T>(op, std::span<const T>(r, n), std::span<T>(e, n), solve, backend);
    }
    kernels.axpy(level.a.rows, 1.0, e, x);
  }

  void cycle(std::size_t l, Cycle kind, const T* b, T* x) const {
    const Level<T>& level = levels[l];
    set_constrained(level, b, x);
    if (l + 1 == levels.size()) {
      coarse_solve(b, x);
      set_constrained(level, b, x);
      return;
    }
    smooth(level, b, x, false);
    const Level<T>& coarse = levels[l + 1];
    kernels.residual(level.a.view(), b, x, level.residual.data());
    kernels.spmv(T(1), level.r.view(), level.residual.data(), T(0), coarse.b.data(), nullptr);
    std::fill(coarse.x.begin(), coarse.x.end(), T(0));
    if (kind == Cycle::f) cycle(l + 1, Cycle::f, coarse.b.data(), coarse.x.data());
    cycle(l + 1, Cycle::v, coarse.b.data(), coarse.x.data());
    kernels.spmv(T(1), level.p.view(), coarse.x.data(), T(1), x, nullptr);
    smooth(level, b, x, true);
    set_constrained(level, b, x);
  }
};

namespace {

void check_sizes(const Mesh& mesh, std::int32_t rows, std::int32_t cols, std::size_t flags) {
  if (rows != cols || rows != mesh.nodes() || flags != static_cast<std::size_t>(mesh.nodes())) {
    throw UsageError(
        fmt::format("multigrid: a mesh of {} nodes needs a {}x{} matrix and {} constraint flags, got a "
                    "{}x{} matrix and {} flags",
                    mesh.nodes(), mesh.nodes(), mesh.nodes(), mesh.nodes(), rows, cols, flags));
  }
}

}  // namespace

template <typename T>
void Multigrid<T>::State::make_levels(const Mesh& mesh, const std::vector<std::uint8_t>& constrained) {
  // On cuda the finest flags go to the device from the caller's vector,
  // with no host copy: the device levels hold every level's.
  const bool on_device = backend == Backend::cuda;
  levels.push_back(Level<T>{
      mesh, {}, {}, {}, on_device ? std::vector<std::uint8_t>{} : constrained, {}, {}, 0, {}, {}, {}, {}, {}, {}});
  const auto flags = [&](std::size_t l) -> const std::vector<std::uint8_t>& {
    return l == 0 ? constrained : levels[l].constrained;
  };
  while (static_cast<std::int32_t>(levels.size()) < options.max_levels && detail::can_coarsen(levels.back().mesh)) {
    Level<T>& fine = levels.back();
    Mesh coarse_mesh = detail::coarsened(fine.mesh);
    std::vector<std::uint8_t> coarse_constrained =
        detail::coarse_constraints(fine.mesh, coarse_mesh, flags(levels.size() - 1));
    if (backend != Backend::cuda) {  // the device builds its own
      fine.p = detail::prolongation<T>(fine.mesh, coarse_mesh, fine.constrained, coarse_constrained);
      fine.r = detail::transposed(fine.p);
    }
    levels.push_back(
        Level<T>{std::move(coarse_mesh), {}, {}, {}, std::move(coarse_constrained), {}, {}, 0, {}, {}, {}, {}, {}, {}});
  }
  for (std::size_t l = 0; l < levels.size(); ++l) {
    Level<T>& level = levels[l];
    const auto n = static_cast<std::size_t>(level.mesh.nodes());
    level.constrained_nodes = detail::flagged_nodes(flags(l));
    if (on_device) {  // the device levels hold the work vectors
      device_constrained.push_back(cuda::flags_at(level.mesh.nodes(), level.constrained_nodes));
      continue;
    }
    if (l > 0) level.b.assign(n, T(0)), level.x.assign(n, T(0));
    level.residual.assign(n, T(0));
    level.direction.assign(n, T(0));
  }
}

template <typename T>
void Multigrid<T>::State::start(const Mesh& mesh, const BilinearForm* form,
                                const std::vector<std::uint8_t>& constrained, const MultigridOptions& o,
                                Backend chosen) {
  options = o;
  backend = chosen;
  begin_phases();
  kernels = detail::multigrid_kernels<T>(backend);  // cpu's for cuda (the host parts)
  make_levels(mesh, constrained);
  if (form != nullptr && options.coarse_by_axes && backend != Backend::reference) {
    separable = detail::separable_operator(mesh, *form, levels.front().constrained_nodes);
  }
  end_phase("levels");
}

template <typename T>
Multigrid<T>::Multigrid(const Mesh& mesh, const CsrMatrix<T>& a, const std::vector<std::uint8_t>& constrained,
                        const MultigridOptions& options, Backend backend)
    : state_(std::make_unique<State>()) {
  check_options(options);
  check_sizes(mesh, a.rows, a.cols, constrained.size());
  state_->start(mesh, nullptr, constrained, options, resolve(backend));
  state_->build(a);
}

template <typename T>
Multigrid<T>::Multigrid(const Mesh& mesh, const DeviceCsr<T>& a, const std::vector<std::uint8_t>& constrained,
                        const MultigridOptions& options)
    : state_(std::make_unique<State>()) {
  check_options(options);
  check_sizes(mesh, a.rows(), a.cols(), constrained.size());
  state_->start(mesh, nullptr, constrained, options, resolve(Backend::cuda));
  state_->build_on_device(a.copy());
}

template <typename T>
Multigrid<T>::Multigrid(const Mesh& mesh, const BilinearForm& form, const CsrMatrix<T>& a,
                        const std::vector<std::uint8_t>& constrained, const MultigridOptions& options, Backend backend)
    : state_(std::make_unique<State>()) {
  check_options(options);
  check_sizes(mesh, a.rows, a.cols, constrained.size());
  state_->start(mesh, &form, constrained, options, resolve(backend));
  state_->build(a);
}

template <typename T>
Multigrid<T>::Multigrid(const Mesh& mesh, const BilinearForm& form, const DeviceCsr<T>& a,
                        const std::vector<std::uint8_t>& constrained, const MultigridOptions& options)
    : state_(std::make_unique<State>()) {
  check_options(options);
  check_sizes(mesh, a.rows(), a.cols(), constrained.size());
  state_->start(mesh, &form, constrained, options, resolve(Backend::cuda));
  state_->build_on_device(a.copy());
}

template <typename T>
Multigrid<T>::~Multigrid() = default;
template <typename T>
Multigrid<T>::Multigrid(Multigrid&&) noexcept = default;
template <typename T>
Multigrid<T>& Multigrid<T>::operator=(Multigrid&&) noexcept = default;

template <typename T>
void Multigrid<T>::refill(const CsrMatrix<T>& a) {
  State& s = *state_;
  s.begin_phases();
  if (a.rows != size() || a.cols != size()) {
    throw UsageError(
        fmt::format("multigrid refill: the hierarchy is for {0}x{0} matrices, got {1}x{2}", size(), a.rows, a.cols));
  }
  s.build(a);
}

template <typename T>
void Multigrid<T>::refill(const DeviceCsr<T>& a) {
  State& s = *state_;
  if (a.rows() != size() || a.cols() != size()) {
    throw UsageError(fmt::format("multigrid refill: the hierarchy is for {0}x{0} matrices, got {1}x{2}", size(),
                                 a.rows(), a.cols()));
  }
  s.device_cycle();  // throws on a host hierarchy
  s.begin_phases();
  s.build_on_device(a.copy());
}

template <typename T>
void Multigrid<T>::cycle(std::span<const T> b, std::span<T> x) const {
  if (b.size() != static_cast<std::size_t>(size()) || x.size() != b.size()) {
    throw UsageError(
        fmt::format("multigrid cycle: vectors of length {} needed, got b {} and x {}", size(), b.size(), x.size()));
  }
  const State& s = *state_;
  if (s.backend != Backend::cuda) {
    s.cycle(0, s.options.cycle, b.data(), x.data());
    return;
  }
  if (s.staged_b.size() != b.size()) {  // made at the first cycle on host vectors
    s.staged_b = DeviceArray<T>(b.size());
    s.staged_x = DeviceArray<T>(x.size());
  }
  s.staged_b.copy_from_host(b);
  s.staged_x.copy_from_host(x);
  s.device->cycle(s.staged_b.data(), s.staged_x.data(), nullptr);
  s.staged_x.copy_to_host(x);
  device::synchronize(nullptr);
}

template <typename T>
void Multigrid<T>::cycle(const T* b, T* x, Stream stream) const {
  state_->device_cycle().cycle(b, x, stream);
}

template <typename T>
void Multigrid<T>::precondition(const T* r, T* z, Stream stream, const DeviceLinearOperator<T>* finest) const {
  const cuda::MultigridCycle<T>& device = state_->device_cycle();
  device::fill_zero(z, sizeof(T) * static_cast<std::size_t>(size()), stream);
  device.cycle(r, z, stream, finest);
}

template <typename T>
const DeviceLinearOperator<T>& Multigrid<T>::device_operator() const {
  return state_->device_cycle().finest_operator();
}

template <typename T>
void Multigrid<T>::precondition(std::span<const T> r, std::span<T> z) const {
  std::fill(z.begin(), z.end(), T(0));
  cycle(r, z);
}

template <typename T>
std::int32_t Multigrid<T>::size() const noexcept {
  return state_->levels.front().mesh.nodes();
}
template <typename T>
std::int32_t Multigrid<T>::levels() const noexcept {
  return static_cast<std::int32_t>(state_->levels.size());
}
template <typename T>
MultigridLevelInfo Multigrid<T>::level(std::int32_t l) const {
  const Level<T>& level = state_->levels.at(static_cast<std::size_t>(l));
  const std::int64_t nonzeros = state_->device && !state_->kronecker_level(static_cast<std::size_t>(l))
                                    ? state_->device->level_matrix(static_cast<std::size_t>(l)).nnz()
                                    : level_matrix(l).nnz();
  return {{level.mesh.extent(0), level.mesh.extent(1), level.mesh.extent(2)},
          level.mesh.nodes(),
          nonzeros,
          level.lambda_max};
}
template <typename T>
const CsrMatrix<T>& Multigrid<T>::level_matrix(std::int32_t l) const {
  const Level<T>& level = state_->levels.at(static_cast<std::size_t>(l));
  if (state_->device && level.a.rows == 0) {
    const auto at = static_cast<std::size_t>(l);
    level.a = state_->kronecker_level(at) ? detail::to_csr<T>(state_->kronecker[at])
                                          : state_->device->level_matrix(at).to_host();
  }
  return level.a;
}
template <typename T>
const std::vector<TimedPhase>& Multigrid<T>::setup_phases() const noexcept {
  return state_->phases;
}
template <typename T>
bool Multigrid<T>::coarse_by_axes() const noexcept {
  return !state_->kronecker.empty();
}
template <typename T>
bool Multigrid<T>::direct_coarse_solve() const noexcept {
  return state_->direct;
}
template <typename T>
Backend Multigrid<T>::backend() const noexcept {
  return state_->backend;
}
template <typename T>
const MultigridOptions& Multigrid<T>::options() const noexcept {
  return state_->options;
}

template class Multigrid<float>;
template class Multigrid<double>;

}  // namespace trellis::grid
