// FormSolver: fill, right-hand side and Krylov solve on one backend.
#include "linear_solve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "../form_kernels.hpp"
#include "../multigrid_transfer.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::grid::detail {

struct FormSolver::Device {
  DeviceAssembledMatrix<double> matrix;
  std::unique_ptr<DeviceCsrOperator<double>> csr;
  DeviceArray<double> diagonal;
  DeviceArray<double> b;
  DeviceArray<double> g;
  DeviceArray<double> x;
  // The right-hand side reads g only at the constrained nodes: those
  // entries alone go up (a few MB where the whole vector is a hundred).
  std::vector<std::int32_t> constrained;
  DeviceArray<std::int32_t> device_constrained;
  std::vector<double> g_values;
  DeviceArray<double> device_g_values;
};

namespace {

// Whether every entry is +0 (an initial guess the device can write itself).
bool all_positive_zero(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  bool nonzero = false;
#pragma omp parallel for schedule(static) reduction(|| : nonzero) if (n >= (std::int64_t{1} << 20))
  for (std::int64_t i = 0; i < n; ++i)
    nonzero = nonzero || std::bit_cast<std::uint64_t>(x[static_cast<std::size_t>(i)]) != 0;
  return !nonzero;
}

}  // namespace

FormSolver::FormSolver(const Mesh& mesh, const BilinearForm& form, const LinearForm& rhs,
                       const std::vector<Marker>& dirichlet, Krylov krylov, const ProblemOptions& options,
                       Backend backend)
    : assembly_(mesh, form, rhs, dirichlet,
                {.symmetrize = true, .setup = resolve(backend) == Backend::cuda ? Backend::cuda : Backend::cpu}),
      form_(form),
      krylov_(krylov),
      solver_(options.solver),
      multigrid_options_(options.multigrid),
      backend_(resolve(backend)) {
  if (options.matrix_free) matrix_free_.emplace(mesh, form, dirichlet, AssemblyOptions{.symmetrize = true});
  if (backend_ != Backend::cuda) host_matrix_ = assembly_.new_matrix();  // cuda: only for mg_bicgstab, made there
  if (backend_ == Backend::cuda) {
    device_ = std::make_unique<Device>();
    device_->matrix = assembly_.new_device_matrix();
    const auto n = static_cast<std::size_t>(mesh.nodes());
    device_->b = DeviceArray<double>(n);
    device_->g = DeviceArray<double>(n);
    device_->x = DeviceArray<double>(n);
    device_->g.fill_zero();  // only its constrained entries are written and read
    device_->constrained = flagged_nodes(assembly_.constrained());
    device_->device_constrained = DeviceArray<std::int32_t>::from_host(device_->constrained);
    device_->g_values.resize(device_->constrained.size());
    device_->device_g_values = DeviceArray<double>(device_->constrained.size());
  }
}

FormSolver::~FormSolver() = default;

namespace {

// mg: a cycle that stops contracting shows within a few hundred cycles.
SolverOptions cycle_options(const SolverOptions& options) {
  SolverOptions cycles = options;
  cycles.max_iterations = std::min(options.max_iterations, 500);
  return cycles;
}

void require_converged(const SolveResult& result) {
  if (!result.converged) {
    throw Error(fmt::format("the linear solver stopped after {} iterations without converging: {}", result.iterations,
                            result.stopped_because));
  }
}

}  // namespace

SolveResult FormSolver::solve(const Coefficients<double>& coefficients, const std::vector<double>& boundary_values,
                              std::vector<double>& x, double tolerance) {
  const SolverOptions options{.relative_tolerance = tolerance, .max_iterations = 100000, .check_every = 20};
  const std::int32_t n = assembly_.mesh().nodes();
  SolveResult result;
  begin_phases();
  if (backend_ != Backend::cuda) {
    // The matrix is filled either way: the right-hand side's lift reads it.
    assembly_.refill(coefficients, host_matrix_, backend_);
    std::vector<double> b(static_cast<std::size_t>(n));
    assembly_.assemble_rhs(coefficients, boundary_values, host_matrix_, b, backend_);
    end_phase("fill and right-hand side");
    if (solver_ != LinearSolver::cg) {
      result = multigrid_solve(coefficients, b, x, options);
      require_converged(result);
      return result;
    }
    HostLinearOperator<double> op;
    if (matrix_free_) {
      op.size = n;
      op.apply = [&](std::span<const double> in, std::span<double> out) {
        matrix_free_->apply(coefficients, in, out, backend_);
      };
      op.diagonal = matrix_free_->diagonal(coefficients);
    } else {
      op = csr_operator(host_matrix_.matrix, Preconditioner::jacobi, backend_);
    }
    result =
        krylov_ == Krylov::cg ? cg<double>(op, b, x, options, backend_) : bicgstab<double>(op, b, x, options, backend_);
    end_phase("iterations");
    require_converged(result);
    return result;
  }

  Device& d = *device_;
  DeviceCoefficients<double> device_coefficients(coefficients);
  if (boundary_values.size() != static_cast<std::size_t>(n) || x.size() != static_cast<std::size_t>(n)) {
    throw UsageError(fmt::format("a solve on {} nodes needs boundary values and x of that many entries, got {} and {}",
                                 n, boundary_values.size(), x.size()));
  }
  const auto constrained = static_cast<std::int64_t>(d.constrained.size());
#pragma omp parallel for schedule(static) if (constrained >= (std::int64_t{1} << 16))
  for (std::int64_t i = 0; i < constrained; ++i) {
    const auto at = static_cast<std::size_t>(i);
    d.g_values[at] = boundary_values[static_cast<std::size_t>(d.constrained[at])];
  }
  d.device_g_values.copy_from_host(d.g_values);
  cuda::scatter_values<double>(static_cast<std::int32_t>(constrained), d.device_constrained.data(),
                               d.device_g_values.data(), d.g.data(), nullptr);
  if (all_positive_zero(x)) {
    d.x.fill_zero();
  } else {
    d.x.copy_from_host(x);
  }
  end_phase("data to the device");
  assembly_.refill(device_coefficients, d.matrix);
  assembly_.assemble_rhs(device_coefficients, d.g, d.matrix, d.b);
  end_phase("fill and right-hand side");
  DeviceLinearOperator<double> op;
  if (matrix_free_) {
    const double* device_diagonal = nullptr;
    if (solver_ == LinearSolver::cg) {  // Jacobi's diagonal; a multigrid solve does not read it
      const std::vector<double> diagonal = matrix_free_->diagonal(coefficients);
      if (d.diagonal.size() != diagonal.size()) d.diagonal = DeviceArray<double>(diagonal.size());
      d.diagonal.copy_from_host(diagonal);
      device_diagonal = d.diagonal.data();
      device::synchronize(nullptr);
    }
    op = matrix_free_->device_operator(device_coefficients, device_diagonal);
  } else if (solver_ == LinearSolver::cg) {
    // Rebuilt every fill: the diagonal changes with the coefficients.
    d.csr = std::make_unique<DeviceCsrOperator<double>>(d.matrix.matrix, Preconditioner::jacobi);
    op = d.csr->op();
  }
  if (solver_ != LinearSolver::cg) {
    result = device_multigrid_solve(op, x, options);
  } else {
    result = krylov_ == Krylov::cg ? cg<double>(op, d.b, d.x, options) : bicgstab<double>(op, d.b, d.x, options);
  }
  end_phase("iterations");
  require_converged(result);
  d.x.copy_to_host(x);
  end_phase("solution to the host");
  return result;
}

// The hierarchy is set up on the device from the device fill's matrix; the
// cycles and CG run there. BiCGStab with a cycle (convection) has no device
// driver: it iterates on the host, each cycle copying its vectors to the
// device and back.
SolveResult FormSolver::device_multigrid_solve(DeviceLinearOperator<double> op, std::vector<double>& x,
                                               const SolverOptions& options) {
  Device& d = *device_;
  const SteadyTimer timer;
  if (multigrid_) {
    multigrid_->refill(d.matrix.matrix);
  } else {
    multigrid_.emplace(assembly_.mesh(), form_, d.matrix.matrix, assembly_.constrained(), multigrid_options_);
  }
  hierarchy_seconds_ = timer.elapsed_ms() / 1000;
  hierarchy_phases();
  const Multigrid<double>& mg = *multigrid_;
  if (solver_ == LinearSolver::mg) return mg_solve<double>(mg, d.b, d.x, cycle_options(options));
  if (!op.apply) op = mg.device_operator();
  if (krylov_ == Krylov::cg) return mgcg<double>(op, mg, d.b, d.x, options);
  if (host_matrix_.matrix.rows == 0) host_matrix_ = assembly_.new_matrix();
  host_matrix_.matrix.values = d.matrix.matrix.values().to_host();
  std::vector<double> b = d.b.to_host();
  SolveResult result =
      mg_bicgstab<double>(csr_operator(host_matrix_.matrix, Preconditioner::none, Backend::cpu), mg, b, x, options);
  d.x.copy_from_host(x);
  return result;
}

const Multigrid<double>& FormSolver::hierarchy() {
  const SteadyTimer timer;
  if (multigrid_) {
    multigrid_->refill(host_matrix_.matrix);
  } else {
    multigrid_.emplace(assembly_.mesh(), form_, host_matrix_.matrix, assembly_.constrained(), multigrid_options_,
                       backend_);
  }
  hierarchy_seconds_ = timer.elapsed_ms() / 1000;
  hierarchy_phases();
  return *multigrid_;
}

SolveResult FormSolver::multigrid_solve(const Coefficients<double>& coefficients, const std::vector<double>& b,
                                        std::vector<double>& x, const SolverOptions& options) {
  const Multigrid<double>& mg = hierarchy();
  if (solver_ == LinearSolver::mg) {
    SolveResult result = mg_solve<double>(mg, b, x, cycle_options(options));
    end_phase("iterations");
    return result;
  }
  HostLinearOperator<double> op;
  if (matrix_free_) {
    op.size = assembly_.mesh().nodes();
    op.apply = [&](std::span<const double> in, std::span<double> out) {
      matrix_free_->apply(coefficients, in, out, backend_);
    };
  } else {
    op = csr_operator(host_matrix_.matrix, Preconditioner::none, backend_);
  }
  SolveResult result =
      krylov_ == Krylov::cg ? mgcg<double>(op, mg, b, x, options) : mg_bicgstab<double>(op, mg, b, x, options);
  end_phase("iterations");
  return result;
}

void FormSolver::begin_phases() {
  phases_.clear();
  phase_clock_ = SteadyTimer();
}

void FormSolver::end_phase(const char* name) {
  if (backend_ == Backend::cuda) device::synchronize(nullptr);
  phases_.push_back({name, phase_clock_.elapsed_ms()});
  phase_clock_ = SteadyTimer();
}

void FormSolver::hierarchy_phases() {
  for (const TimedPhase& phase : multigrid_->setup_phases()) phases_.push_back({"hierarchy: " + phase.name, phase.ms});
  phase_clock_ = SteadyTimer();
}

}  // namespace trellis::grid::detail
