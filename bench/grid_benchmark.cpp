#include "grid_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "cusparse_spmv.hpp"
#include "device_timing.hpp"
#include "structured_benchmark.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/progress.hpp"
#include "trellis/core/timer.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/multigrid.hpp"
#include "trellis/grid/solvers.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::bench {
namespace {

constexpr int kWarmups = 2;
constexpr double kCgTolerance = 1e-8;

struct Problem {
  std::string name;
  grid::Mesh mesh;
  std::vector<double> k;  // diffusivity per node, in [1, 2]
};

Problem make_problem(int dim, std::int32_t cells_per_axis) {
  std::vector<grid::Mesh1D> axes(static_cast<std::size_t>(dim), grid::Mesh1D::uniform(0.0, 1.0, cells_per_axis));
  Problem problem{
      fmt::format("{}-D {}-point, {}^{} cells", dim, 2 * dim + 1, cells_per_axis, dim), grid::Mesh(axes), {}};
  problem.k.resize(static_cast<std::size_t>(problem.mesh.nodes()));
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> uniform(1.0, 2.0);
  for (double& value : problem.k) value = uniform(rng);
  return problem;
}

double gbs(double bytes, double ms) { return bytes / (ms * 1e-3) * 1e-9; }

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0, worst = 0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return scale > 0 ? worst / scale : worst;
}

template <typename F>
double host_median_ms(int repeats, F&& run) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    SteadyTimer timer;
    run();
    times.push_back(timer.elapsed_ms());
  }
  return median(times);
}

void run_problem(const GridBenchmarkOptions& options, const Problem& problem, bool with_cuda,
                 GridBenchmarkTables& tables) {
  using namespace grid;
  const auto n = static_cast<std::size_t>(problem.mesh.nodes());
  TrialFunction u;
  TestFunction v;
  const BilinearForm variable = inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v));
  const BilinearForm constant = inner_plus(grad_minus(u), grad_minus(v));
  const LinearForm rhs = inner_h(Coefficient{1}, v);
  const std::vector<Marker> dirichlet = {boundary_marker(problem.mesh)};
  Coefficients<double> coefficients(problem.mesh, 2);
  coefficients.set(0, std::span<const double>(problem.k));
  coefficients.set(1, 1.0);
  Progress progress(fmt::format("grid {}", problem.name), 6, options.quiet);

  // Assembly: setup once, then refills.
  SteadyTimer setup_timer;
  Assembly<double> assembly(problem.mesh, variable, rhs, dirichlet, {.symmetrize = true});
  const double setup_ms = setup_timer.elapsed_ms();
  progress.advance();
  AssembledMatrix<double> host = assembly.new_matrix();
  const int host_repeats = std::max(1, (options.repeats + 4) / 5);
  const double cpu_refill_ms = host_median_ms(host_repeats, [&] { assembly.refill(coefficients, host, Backend::cpu); });
  progress.advance();
  // A gather reads each contribution's factor and coefficient index, the
  // coefficient, each position's offset, and writes each value.
  const double contributions = static_cast<double>(assembly.contributions());
  const double positions = static_cast<double>(host.matrix.nnz() + host.lift.nnz());
  const double refill_bytes = contributions * (sizeof(double) + sizeof(std::int32_t)) +
                              positions * (sizeof(std::int64_t) + sizeof(double)) +
                              static_cast<double>(n) * sizeof(double);
  const double atomic_bytes =
      contributions * (sizeof(double) + sizeof(std::int32_t) + sizeof(std::int64_t) + sizeof(double)) +
      positions * sizeof(double);
  auto add_assembly_row = [&](const std::string& what, double ms, double bytes, double speedup) {
    tables.assembly.add_row(
        {problem.name, what, static_cast<std::int64_t>(host.matrix.nnz()),
         static_cast<std::int64_t>(assembly.contributions()), number(ms, 3),
         bytes > 0 ? number(gbs(bytes, ms), 0) : number(std::nan(""), 0),
         bytes > 0 ? number(100 * gbs(bytes, ms) / tables.copy_bandwidth_gbs, 1) : number(std::nan(""), 1),
         number(speedup, 1)});
  };
  add_assembly_row("setup (host, pattern + tables)", setup_ms, 0, std::nan(""));
  add_assembly_row("refill cpu (gather)", cpu_refill_ms, refill_bytes, 1.0);

  std::vector<double> x(n);
  {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (double& value : x) value = uniform(rng);
  }

  // cpu CG for a fixed number of iterations, timed per iteration.
  std::vector<double> b(n);
  assembly.assemble_rhs(coefficients, std::vector<double>(n, 0.0), host, b, Backend::cpu);
  const HostLinearOperator<double> op = csr_operator(host.matrix, Preconditioner::jacobi, Backend::cpu);
  std::vector<double> x0(n, 0.0);
  const SolverOptions cpu_options{.relative_tolerance = 1e-30, .max_iterations = options.cpu_cg_iterations};
  SteadyTimer cpu_timer;
  const SolveResult cpu_result = cg<double>(op, b, x0, cpu_options, Backend::cpu);
  const double cpu_ms = cpu_timer.elapsed_ms();
  const double per_iteration = cpu_ms / std::max(1, cpu_result.iterations);
  // A solve's row: the assembly's setup (pattern, tables, fill and right-hand
  // side), the multigrid hierarchy (NaN: none, a Jacobi CG row, whose
  // iterations compare with the cpu's) and the iterations; their sum is the
  // time to solution.
  auto add_solver_row = [&](const std::string& solver, const SolveResult& result, double setup_ms_of_row,
                            double hierarchy_ms, double solve_ms, bool to_solution) {
    const double ms_per_iteration = solve_ms / std::max(1, result.iterations);
    const double total = setup_ms_of_row + (std::isnan(hierarchy_ms) ? 0.0 : hierarchy_ms) + solve_ms;
    tables.solvers.add_row({problem.name, solver, static_cast<std::int64_t>(result.iterations),
                            to_solution ? (result.converged ? "yes" : "no") : "-",
                            scientific(result.final_residual / result.rhs_norm, 1), number(setup_ms_of_row, 1),
                            number(hierarchy_ms, 1), number(solve_ms, 1),
                            to_solution ? number(total, 1) : number(std::nan(""), 1), number(ms_per_iteration, 4),
                            std::isnan(hierarchy_ms) ? number(per_iteration / ms_per_iteration, 1) : "-"});
  };
  const double host_setup_ms = setup_ms + cpu_refill_ms;
  add_solver_row(fmt::format("cpu, Jacobi CG, CSR ({} iterations timed)", cpu_result.iterations), cpu_result,
                 host_setup_ms, std::nan(""), cpu_ms, false);
  const MultigridOptions multigrid_options;
  const SolverOptions mgcg_options{.relative_tolerance = kCgTolerance, .max_iterations = 200};
  {
    // The cpu multigrid on the host's cores, variable k (3-D Galerkin products).
    SteadyTimer hierarchy_timer;
    const Multigrid<double> mg(problem.mesh, variable, host.matrix, assembly.constrained(), multigrid_options,
                               Backend::cpu);
    const double hierarchy_ms = hierarchy_timer.elapsed_ms();
    std::vector<double> x_mg(n, 0.0);
    SteadyTimer solve_timer;
    const SolveResult result =
        mgcg<double>(csr_operator(host.matrix, Preconditioner::none, Backend::cpu), mg, b, x_mg, mgcg_options);
    add_solver_row("cpu, mgcg, variable k", result, host_setup_ms, hierarchy_ms, solve_timer.elapsed_ms(), true);
  }
  progress.advance();

  if (with_cuda) {
    DeviceCoefficients<double> device_coefficients(coefficients);
    DeviceAssembledMatrix<double> device = assembly.new_device_matrix();
    SteadyTimer upload_timer;
    assembly.refill(device_coefficients, device);  // uploads the tables once
    device::synchronize(nullptr);
    const double upload_ms = upload_timer.elapsed_ms();
    const double gather_ms =
        median_device_ms(kWarmups, options.repeats, [&] { assembly.refill(device_coefficients, device); });
    const double gather_error = max_relative_difference(device.matrix.values().to_host(), host.matrix.values);
    const double atomic_ms = median_device_ms(kWarmups, options.repeats, [&] {
      assembly.refill(device_coefficients, device, nullptr, RefillMethod::atomic);
    });
    const double atomic_error = max_relative_difference(device.matrix.values().to_host(), host.matrix.values);
    progress.advance();
    add_assembly_row("setup (tables to the device)", upload_ms, 0, std::nan(""));
    {
      // The setup on the device: its tables fill the same values, bit for bit.
      SteadyTimer device_setup_timer;
      const Assembly<double> on_device(problem.mesh, variable, rhs, dirichlet,
                                       {.symmetrize = true, .setup = Backend::cuda});
      const double device_setup_ms = device_setup_timer.elapsed_ms();
      DeviceAssembledMatrix<double> filled = on_device.new_device_matrix();
      on_device.refill(device_coefficients, filled);
      assembly.refill(device_coefficients, device);  // gather again (the atomic fill's sums are unordered)
      const bool same = filled.matrix.values().to_host() == device.matrix.values().to_host();
      add_assembly_row(fmt::format("setup (device, pattern + tables){}", same ? "" : ", fills DIFFER"), device_setup_ms,
                       0, setup_ms / device_setup_ms);
    }
    add_assembly_row(fmt::format("refill cuda (gather), rel. error {:.1e}", gather_error), gather_ms, refill_bytes,
                     cpu_refill_ms / gather_ms);
    add_assembly_row(fmt::format("refill cuda (atomic), rel. error {:.1e}", atomic_error), atomic_ms, atomic_bytes,
                     cpu_refill_ms / atomic_ms);
    assembly.release_device_tables();

    // Kernels on the assembled matrix, then the matrix-free apply.
    StructuredBenchmarkOptions structured;
    structured.repeats = options.repeats;
    structured.quiet = options.quiet;
    structured.copy_bandwidth_gbs = tables.copy_bandwidth_gbs;
    tables.kernels.push_back(run_structured_benchmark<double>(host.matrix, problem.name, structured));
    progress.advance();

    double cusparse_ms = std::nan("");
    if (cusparse_available()) {
      CusparseSpmv<double> anchor(host.matrix, x);
      for (int r = 0; r < kWarmups; ++r) anchor.run_ms();
      std::vector<double> times;
      for (int r = 0; r < options.repeats; ++r) times.push_back(anchor.run_ms());
      cusparse_ms = median(times);
    }
    auto device_x = DeviceArray<double>::from_host(x);
    DeviceArray<double> device_y(n);
    std::vector<double> y_csr(n);
    grid::spmv<double>(1.0, host.matrix, x, 0.0, y_csr, Backend::cpu);
    for (bool variable_k : {false, true}) {
      MatrixFreeOperator<double> apply_op(problem.mesh, variable_k ? variable : constant, dirichlet,
                                          {.symmetrize = true});
      Coefficients<double> c(problem.mesh, variable_k ? 1 : 0);
      if (variable_k) c.set(0, std::span<const double>(problem.k));
      DeviceCoefficients<double> device_c(c);
      const double ms =
          median_device_ms(kWarmups, options.repeats, [&] { apply_op.apply(device_c, device_x, device_y); });
      std::vector<double> expected = y_csr;
      if (!variable_k) {
        const Assembly<double> plain_assembly(problem.mesh, constant, LinearForm(), dirichlet, {.symmetrize = true});
        AssembledMatrix<double> plain = plain_assembly.new_matrix();
        plain_assembly.refill(c, plain, Backend::cpu);
        grid::spmv<double>(1.0, plain.matrix, x, 0.0, expected, Backend::cpu);
      }
      const double error = max_relative_difference(device_y.to_host(), expected);
      // x read, y written; the table path also reads a byte of flags per row,
      // and variable k adds k.
      const bool uniform_path = apply_op.uses_uniform_constant_path();
      const double bytes =
          static_cast<double>(n) * (2 * sizeof(double) + (uniform_path ? 0 : 1) + (variable_k ? sizeof(double) : 0));
      const std::string kernel = variable_k     ? "matrix-free, variable k"
                                 : uniform_path ? "matrix-free, constant k (uniform path)"
                                                : "matrix-free, constant k";
      tables.matrix_free.add_row({problem.name, kernel, number(ms, 4), number(gbs(bytes, ms), 0),
                                  number(100 * gbs(bytes, ms) / tables.copy_bandwidth_gbs, 1), number(cusparse_ms, 4),
                                  number(cusparse_ms / ms, 2), scientific(error, 1)});
    }
    progress.advance();

    // Solves on the device from the mesh and the form alone, each phase
    // timed to its end on the device: the assembly's setup on the device,
    // fill and right-hand side; the multigrid hierarchy; the iterations.
    const std::vector<double> g(n, 0.0);
    const DeviceArray<double> device_g = DeviceArray<double>::from_host(g);
    const DeviceCoefficients<double> no_coefficients(Coefficients<double>(problem.mesh, 0));
    enum class Method { jacobi_cg, mgcg };
    // One solve's phases.
    struct DeviceSolve {
      std::string name;
      SolveResult result;
      double setup_ms = 0, hierarchy_ms = 0, solve_ms = 0;
      std::vector<TimedPhase> phases;  // the hierarchy's
      double total() const { return setup_ms + (std::isnan(hierarchy_ms) ? 0.0 : hierarchy_ms) + solve_ms; }
    };
    auto solve_once = [&](const std::string& solver, const BilinearForm& form, bool variable_k, Method method,
                          bool matrix_free_operator) {
      SteadyTimer clock;
      const Assembly<double> on_device(problem.mesh, form, rhs, dirichlet,
                                       {.symmetrize = true, .setup = Backend::cuda});
      DeviceAssembledMatrix<double> filled = on_device.new_device_matrix();
      on_device.refill(device_coefficients, filled);
      DeviceArray<double> device_b(n);
      on_device.assemble_rhs(device_coefficients, device_g, filled, device_b);
      std::optional<MatrixFreeOperator<double>> free_apply;
      DeviceArray<double> free_diagonal;
      if (matrix_free_operator) {
        free_apply.emplace(problem.mesh, form, dirichlet, AssemblyOptions{.symmetrize = true});
        if (method == Method::jacobi_cg) {
          free_diagonal = DeviceArray<double>::from_host(free_apply->diagonal(coefficients));
        }
      }
      // The operator's arrays go to the device as it is made: setup too.
      const DeviceCoefficients<double>& apply_coefficients = variable_k ? device_coefficients : no_coefficients;
      std::optional<DeviceLinearOperator<double>> free_op;
      if (matrix_free_operator) {
        free_op.emplace(free_apply->device_operator(apply_coefficients,
                                                    free_diagonal.size() != 0 ? free_diagonal.data() : nullptr));
      }
      device::synchronize(nullptr);
      const double setup_ms_of_row = clock.elapsed_ms();
      DeviceArray<double> solution(n);
      solution.fill_zero();
      std::string name = solver;
      double hierarchy_ms = std::nan("");
      std::vector<TimedPhase> phases;
      SolveResult result;
      if (method == Method::jacobi_cg) {
        const DeviceCsrOperator<double> csr_op(filled.matrix, Preconditioner::jacobi);
        const SolverOptions options_cg{.relative_tolerance = kCgTolerance, .max_iterations = 100000, .check_every = 50};
        clock = SteadyTimer();
        result = cg<double>(free_op ? *free_op : csr_op.op(), device_b, solution, options_cg);
      } else {
        clock = SteadyTimer();
        const Multigrid<double> mg(problem.mesh, form, filled.matrix, on_device.constrained(), multigrid_options);
        device::synchronize(nullptr);
        hierarchy_ms = clock.elapsed_ms();
        phases = mg.setup_phases();
        name += mg.coarse_by_axes() ? " (coarse by axes)" : " (coarse as products R A P)";
        clock = SteadyTimer();
        result = mgcg<double>(free_op ? *free_op : mg.device_operator(), mg, device_b, solution, mgcg_options);
      }
      device::synchronize(nullptr);
      return DeviceSolve{name, result, setup_ms_of_row, hierarchy_ms, clock.elapsed_ms(), std::move(phases)};
    };
    // A multigrid solve (well under a second) runs kMultigridRuns times and
    // the run of the median time to solution is reported; Jacobi CG once.
    constexpr int kMultigridRuns = 3;
    auto device_solve = [&](const std::string& solver, const BilinearForm& form, bool variable_k, Method method,
                            bool matrix_free_operator) {
      std::vector<DeviceSolve> runs;
      for (int r = 0; r < (method == Method::mgcg ? kMultigridRuns : 1); ++r) {
        runs.push_back(solve_once(solver, form, variable_k, method, matrix_free_operator));
      }
      std::sort(runs.begin(), runs.end(),
                [](const DeviceSolve& left, const DeviceSolve& right) { return left.total() < right.total(); });
      const DeviceSolve& median_run = runs[runs.size() / 2];
      add_solver_row(median_run.name + (runs.size() > 1 ? fmt::format(", median of {}", runs.size()) : ""),
                     median_run.result, median_run.setup_ms, median_run.hierarchy_ms, median_run.solve_ms, true);
      for (const TimedPhase& phase : median_run.phases) {
        tables.hierarchy.add_row({problem.name, median_run.name, phase.name, number(phase.ms, 2)});
      }
    };
    device_solve("cuda, Jacobi CG, CSR, variable k", variable, true, Method::jacobi_cg, false);
    device_solve("cuda, Jacobi CG, matrix-free, variable k", variable, true, Method::jacobi_cg, true);
    device_solve("cuda, Jacobi CG, matrix-free, constant k", constant, false, Method::jacobi_cg, true);
    device_solve("cuda, mgcg, CSR, variable k", variable, true, Method::mgcg, false);
    device_solve("cuda, mgcg, matrix-free, variable k", variable, true, Method::mgcg, true);
    device_solve("cuda, mgcg, matrix-free, constant k", constant, false, Method::mgcg, true);
    assembly.release_device_tables();
  }

  progress.finish();
}

}  // namespace

GridBenchmarkTables run_grid_benchmark(const GridBenchmarkOptions& options) {
  if (options.size < 2 || options.size_2d < 2) {
    throw UsageError(fmt::format("--size and --size-2d must be at least 2 cells per axis, got {} and {}", options.size,
                                 options.size_2d));
  }
  if (options.repeats <= 0) throw UsageError(fmt::format("--repeats must be positive, got {}", options.repeats));
  if (options.cpu_cg_iterations <= 0) {
    throw UsageError(fmt::format("--cpu-cg-iterations must be positive, got {}", options.cpu_cg_iterations));
  }
  const bool with_cuda = cuda_usable();
  GridBenchmarkTables tables{
      with_cuda ? measured_copy_bandwidth_gbs() : std::nan(""),
      {},
      Table({"problem", "kernel", "time ms (median)", "GB/s", "% of copy BW", "cuSPARSE ms", "speed-up",
             "max rel. diff. to CSR"}),
      Table({"problem", "step", "nnz", "contributions", "time ms (median)", "GB/s", "% of copy BW", "speed-up vs cpu"}),
      Table({"problem", "solver", "iterations", "converged", "relative residual", "setup ms", "hierarchy ms",
             "solve ms", "time to solution ms", "ms per iteration", "speed-up per iteration vs cpu CG"}),
      Table({"problem", "solver", "hierarchy phase", "ms"})};
  run_problem(options, make_problem(3, options.size), with_cuda, tables);
  run_problem(options, make_problem(2, options.size_2d), with_cuda, tables);
  return tables;
}

}  // namespace trellis::bench
