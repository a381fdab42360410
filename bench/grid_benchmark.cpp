#include "grid_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

Problem make_problem(int dim, std::int32_t nodes_per_axis) {
  std::vector<grid::Mesh1D> axes(static_cast<std::size_t>(dim), grid::Mesh1D::uniform(0.0, 1.0, nodes_per_axis - 1));
  Problem problem{fmt::format("{}-D {}-point {}^{}", dim, 2 * dim + 1, nodes_per_axis, dim), grid::Mesh(axes), {}};
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
    tables.assembly.add_row({problem.name, what, static_cast<std::int64_t>(host.matrix.nnz()),
                             static_cast<std::int64_t>(assembly.contributions()), number(ms, 3),
                             bytes > 0 ? number(gbs(bytes, ms), 0) : number(std::nan(""), 0),
                             bytes > 0 ? number(100 * gbs(bytes, ms) / kCopyBandwidthGBs, 1) : number(std::nan(""), 1),
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
  tables.solvers.add_row({problem.name, fmt::format("cpu, CSR ({} iterations timed)", cpu_result.iterations),
                          static_cast<std::int64_t>(cpu_result.iterations), "-",
                          scientific(cpu_result.final_residual / cpu_result.rhs_norm, 1), number(cpu_ms, 1), "-",
                          number(per_iteration, 4), number(1.0, 1)});
  // A multigrid solve's row: time is the hierarchy and the iterations.
  auto add_multigrid_row = [&](const std::string& solver, const SolveResult& result, double hierarchy_ms,
                               double solve_ms) {
    const double ms = hierarchy_ms + solve_ms;
    tables.solvers.add_row({problem.name, solver, static_cast<std::int64_t>(result.iterations),
                            result.converged ? "yes" : "no", scientific(result.final_residual / result.rhs_norm, 1),
                            number(ms, 1), number(hierarchy_ms, 1),
                            number(solve_ms / std::max(1, result.iterations), 4), "-"});
  };
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
    add_multigrid_row("cpu, mgcg, variable k", result, hierarchy_ms, solve_timer.elapsed_ms());
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
                                  number(100 * gbs(bytes, ms) / kCopyBandwidthGBs, 1), number(cusparse_ms, 4),
                                  number(cusparse_ms / ms, 2), scientific(error, 1)});
    }
    progress.advance();

    // CG on the device: assembled and matrix-free, to 1e-8.
    std::vector<double> g(n, 0.0);
    DeviceArray<double> device_g = DeviceArray<double>::from_host(g);
    DeviceAssembledMatrix<double> solved = assembly.new_device_matrix();
    assembly.refill(device_coefficients, solved);
    DeviceArray<double> device_b(n);
    assembly.assemble_rhs(device_coefficients, device_g, solved, device_b);
    DeviceCsrOperator<double> csr_op(solved.matrix, Preconditioner::jacobi);
    MatrixFreeOperator<double> mf(problem.mesh, variable, dirichlet, {.symmetrize = true});
    const std::vector<double> diagonal = mf.diagonal(coefficients);
    auto device_diagonal = DeviceArray<double>::from_host(diagonal);
    DeviceLinearOperator<double> mf_op{
        static_cast<std::int32_t>(n),
        [&](const double* in, double* out, Stream stream) { mf.apply(device_coefficients, in, out, stream); },
        device_diagonal.data()};
    const SolverOptions solver_options{.relative_tolerance = kCgTolerance, .max_iterations = 100000, .check_every = 50};
    for (int matrix_free = 0; matrix_free < 2; ++matrix_free) {
      DeviceArray<double> device_x0(n);
      device_x0.fill_zero();
      EventTimer timer;
      timer.start();
      const SolveResult result = cg<double>(matrix_free ? mf_op : csr_op.op(), device_b, device_x0, solver_options);
      timer.stop();
      const double ms = timer.elapsed_ms();
      tables.solvers.add_row({problem.name, matrix_free ? "cuda, matrix-free" : "cuda, CSR",
                              static_cast<std::int64_t>(result.iterations), result.converged ? "yes" : "no",
                              scientific(result.final_residual / result.rhs_norm, 1), number(ms, 1), "-",
                              number(ms / std::max(1, result.iterations), 4),
                              number(per_iteration / (ms / std::max(1, result.iterations)), 1)});
    }
    // mgcg on the device: variable k (3-D Galerkin products, the matrix as
    // the operator), and constant k with the coarse operators by axes and
    // the matrix-free apply as the operator (its finest residuals too).
    auto device_mgcg = [&](const std::string& solver, const BilinearForm& form, const DeviceCsr<double>& matrix,
                           const DeviceLinearOperator<double>* outer, const DeviceArray<double>& rhs_b) {
      EventTimer hierarchy_timer;
      hierarchy_timer.start();
      const Multigrid<double> mg(problem.mesh, form, matrix, assembly.constrained(), multigrid_options);
      hierarchy_timer.stop();
      DeviceArray<double> device_x0(n);
      device_x0.fill_zero();
      EventTimer timer;
      timer.start();
      const SolveResult result =
          mgcg<double>(outer != nullptr ? *outer : mg.device_operator(), mg, rhs_b, device_x0, mgcg_options);
      timer.stop();
      add_multigrid_row(solver + (mg.coarse_by_axes() ? " (coarse by axes)" : " (coarse as 3-D products)"), result,
                        hierarchy_timer.elapsed_ms(), timer.elapsed_ms());
    };
    device_mgcg("cuda, mgcg, variable k", variable, solved.matrix, nullptr, device_b);
    {
      const Assembly<double> constant_assembly(problem.mesh, constant, rhs, dirichlet,
                                               {.symmetrize = true, .setup = Backend::cuda});
      DeviceAssembledMatrix<double> constant_matrix = constant_assembly.new_device_matrix();
      constant_assembly.refill(device_coefficients, constant_matrix);
      DeviceArray<double> constant_b(n);
      constant_assembly.assemble_rhs(device_coefficients, device_g, constant_matrix, constant_b);
      MatrixFreeOperator<double> constant_free(problem.mesh, constant, dirichlet, {.symmetrize = true});
      const DeviceCoefficients<double> none(Coefficients<double>(problem.mesh, 0));
      const DeviceLinearOperator<double> constant_op{
          static_cast<std::int32_t>(n),
          [&](const double* in, double* out, Stream stream) { constant_free.apply(none, in, out, stream); }, nullptr};
      device_mgcg("cuda, mgcg, constant k, matrix-free", constant, constant_matrix.matrix, &constant_op, constant_b);
    }
    assembly.release_device_tables();
  }

  progress.finish();
}

}  // namespace

GridBenchmarkTables run_grid_benchmark(const GridBenchmarkOptions& options) {
  if (options.size < 3 || options.size_2d < 3) {
    throw UsageError(fmt::format("--size and --size-2d must be at least 3 nodes per axis, got {} and {}", options.size,
                                 options.size_2d));
  }
  if (options.repeats <= 0) throw UsageError(fmt::format("--repeats must be positive, got {}", options.repeats));
  if (options.cpu_cg_iterations <= 0) {
    throw UsageError(fmt::format("--cpu-cg-iterations must be positive, got {}", options.cpu_cg_iterations));
  }
  GridBenchmarkTables tables{
      {},
      Table({"problem", "kernel", "time ms (median)", "GB/s", "% of copy BW", "cuSPARSE ms", "speed-up",
             "max rel. diff. to CSR"}),
      Table({"problem", "step", "nnz", "contributions", "time ms (median)", "GB/s", "% of copy BW", "speed-up vs cpu"}),
      Table({"problem", "solver", "iterations", "converged", "relative residual", "time ms", "hierarchy ms",
             "ms per iteration", "speed-up per iteration vs cpu"})};
  const bool with_cuda = cuda_usable();
  run_problem(options, make_problem(3, options.size), with_cuda, tables);
  run_problem(options, make_problem(2, options.size_2d), with_cuda, tables);
  return tables;
}

}  // namespace trellis::bench
