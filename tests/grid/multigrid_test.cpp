// Geometric multigrid on every backend against reference: one cycle equal
// to the reference cycle within 1e-12 (the Galerkin products and the
// eigenvalue estimate's dot products sum in another order; everything else
// is the same arithmetic), the V-cycle symmetric, mgcg iteration counts flat
// under refinement, the residual reduced by a bounded factor per cycle, 1-,
// 2- and 3-D meshes, uniform, graded and random, variable k in [1, 2],
// axes that cannot be halved, refills, and bad input; seeded random problems
// solved like the reference. cuda instances skip where no device is usable
// (and asking for cuda there throws BackendUnavailable); on a device, mgcg
// runs on device vectors and the other drivers copy host vectors over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "grid/kronecker_levels.hpp"
#include "grid/multigrid_colors.hpp"
#include "grid/multigrid_smoother.hpp"
#include "support/backends.hpp"
#include "support/random_values.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/multigrid.hpp"
#include "trellis/grid/problems.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::grid {
namespace {

using trellis::testing::random_vector;

enum class Kind { uniform, graded, random };

// Axis a has length 1 + a / 2 unless square (so cells are not squares).
Mesh make_mesh(const std::vector<std::int32_t>& cells, Kind kind, std::uint64_t seed = 7, bool square = false) {
  std::vector<Mesh1D> axes;
  for (std::size_t a = 0; a < cells.size(); ++a) {
    const double length = square ? 1.0 : 1.0 + 0.5 * static_cast<double>(a);
    switch (kind) {
      case Kind::uniform:
        axes.push_back(Mesh1D::uniform(0.0, length, cells[a]));
        break;
      case Kind::graded: {
        // Largest over smallest spacing 3 along each axis, growing along
        // axis 0 and shrinking along the others: cells up to 9:1.
        const double ratio = std::pow(3.0, 1.0 / (cells[a] - 1));
        axes.push_back(Mesh1D::graded(0.0, length, cells[a], a == 0 ? ratio : 1 / ratio));
        break;
      }
      case Kind::random:
        axes.push_back(Mesh1D::random(0.0, length, cells[a], seed + a));
        break;
    }
  }
  return Mesh(axes);
}

// -div(k grad u) = f with Dirichlet data on the boundary, symmetrised; k is 1
// or random in [1, 2], f and the boundary values random.
struct Problem {
  Mesh mesh;
  std::vector<std::uint8_t> constrained;
  AssembledMatrix<double> a;
  std::vector<double> b;
};

// form(k in slot 0) = f in slot 1 under the given constraints (constrained
// columns kept in the free rows unless symmetrize).
Problem make_problem(const Mesh& mesh, const BilinearForm& form, const std::vector<Marker>& dirichlet, bool variable_k,
                     std::uint64_t seed, bool symmetrize = true) {
  Assembly<double> assembly(mesh, form, inner_h(Coefficient{1}, TestFunction{}), dirichlet, {.symmetrize = symmetrize});
  const auto n = static_cast<std::size_t>(mesh.nodes());
  Coefficients<double> coefficients(mesh, 2);
  std::vector<double> k = random_vector<double>(n, seed);
  for (double& value : k) value = variable_k ? 1.5 + 0.5 * value : 1.0;
  coefficients.set(0, std::span<const double>(k));
  coefficients.set(1, std::span<const double>(random_vector<double>(n, seed + 1)));
  Problem problem{mesh, assembly.constrained(), assembly.new_matrix(), std::vector<double>(n)};
  assembly.refill(coefficients, problem.a, Backend::cpu);
  assembly.assemble_rhs(coefficients, random_vector<double>(n, seed + 2), problem.a, problem.b, Backend::cpu);
  return problem;
}

Problem make_problem(const Mesh& mesh, bool variable_k, std::uint64_t seed) {
  return make_problem(mesh, inner_plus(Coefficient{0} * grad_minus(TrialFunction{}), grad_minus(TestFunction{})),
                      {boundary_marker(mesh)}, variable_k, seed);
}

double relative_difference(const std::vector<double>& got, const std::vector<double>& expected) {
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    difference = std::max(difference, std::abs(got[i] - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  return difference / scale;
}

// Host operators for a hierarchy on backend (a cuda one takes them too).
Backend host_backend(Backend backend) { return backend == Backend::cuda ? Backend::cpu : backend; }

// mgcg with a's CSR operator on mg's backend: host vectors, or device
// vectors and the device operator for a cuda hierarchy.
SolveResult solve_mgcg(const CsrMatrix<double>& a, const std::vector<double>& b, const Multigrid<double>& mg,
                       std::vector<double>& x, double tolerance = 1e-8, std::int32_t max_iterations = 200) {
  const SolverOptions options{.relative_tolerance = tolerance, .max_iterations = max_iterations};
  if (mg.backend() != Backend::cuda) {
    return mgcg<double>(csr_operator(a, Preconditioner::none, mg.backend()), mg, b, x, options);
  }
  const DeviceCsr<double> device_a(a);
  const DeviceCsrOperator<double> op(device_a, Preconditioner::none);
  const DeviceArray<double> device_b = DeviceArray<double>::from_host(b);
  DeviceArray<double> device_x = DeviceArray<double>::from_host(x);
  const SolveResult result = mgcg<double>(op.op(), mg, device_b, device_x, options);
  x = device_x.to_host();
  return result;
}

SolveResult solve_mgcg(const Problem& problem, const Multigrid<double>& mg, std::vector<double>& x,
                       double tolerance = 1e-8) {
  return solve_mgcg(problem.a.matrix, problem.b, mg, x, tolerance);
}

// mgcg from a zero guess with a device operator on a cuda hierarchy; the
// solution comes back in x.
SolveResult device_mgcg(const DeviceLinearOperator<double>& op, const Multigrid<double>& mg,
                        const std::vector<double>& b, std::vector<double>& x, const SolverOptions& options) {
  const DeviceArray<double> device_b = DeviceArray<double>::from_host(b);
  DeviceArray<double> device_x(b.size());
  device_x.fill_zero();
  const SolveResult result = mgcg<double>(op, mg, device_b, device_x, options);
  x = device_x.to_host();
  return result;
}

// mgcg's iterations to 1e-8 on problem with a hierarchy smoothing with smoother.
std::int32_t mgcg_iterations(const Problem& problem, Smoother smoother, Backend backend) {
  MultigridOptions options;
  options.smoother = smoother;
  const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, options, backend);
  std::vector<double> x(problem.b.size(), 0.0);
  const SolveResult result = solve_mgcg(problem, mg, x);
  EXPECT_TRUE(result.converged) << to_string(smoother) << ": " << result.stopped_because;
  EXPECT_LE(result.final_residual, 2e-8 * result.rhs_norm) << to_string(smoother);
  return result.iterations;
}

// got's levels are expected's (same patterns, values within tolerance,
// the same eigenvalue estimates and sizes) and two cycles from a seeded
// guess agree within 1e-12.
void expect_same_hierarchy(const Problem& problem, const Multigrid<double>& got, const Multigrid<double>& expected,
                           double tolerance, std::uint64_t seed) {
  const std::string what = std::to_string(problem.mesh.nodes()) + " nodes";
  ASSERT_EQ(got.levels(), expected.levels()) << what;
  for (std::int32_t l = 0; l < got.levels(); ++l) {
    const CsrMatrix<double>& g = got.level_matrix(l);
    const CsrMatrix<double>& e = expected.level_matrix(l);
    ASSERT_EQ(g.row_offsets, e.row_offsets) << what << ", level " << l;
    ASSERT_EQ(g.col_indices, e.col_indices) << what << ", level " << l;
    EXPECT_LE(relative_difference(g.values, e.values), tolerance) << what << ", level " << l;
    EXPECT_EQ(got.level(l).nonzeros, expected.level(l).nonzeros) << what << ", level " << l;
    EXPECT_NEAR(got.level(l).lambda_max, expected.level(l).lambda_max, 1e-12 * expected.level(l).lambda_max);
  }
  const auto n = problem.b.size();
  std::vector<double> x_got = random_vector<double>(n, seed + 5), x_expected = x_got;
  for (int k = 0; k < 2; ++k) {
    got.cycle(problem.b, x_got);
    expected.cycle(problem.b, x_expected);
  }
  EXPECT_LE(relative_difference(x_got, x_expected), 1e-12) << what;
}

class MultigridTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam()); }
  Backend backend() const { return GetParam(); }
};

struct Case {
  std::vector<std::int32_t> cells;
  Kind kind;
  bool variable_k;
  MultigridOptions options;
};

TEST_P(MultigridTest, CycleIsEquivalentToRef) {
  MultigridOptions jacobi_f;
  jacobi_f.smoother = Smoother::jacobi;
  jacobi_f.cycle = Cycle::f;
  jacobi_f.smoothing_steps = 3;
  MultigridOptions lines;
  lines.smoother = Smoother::line;
  lines.smoothing_steps = 2;
  MultigridOptions colours;
  colours.smoother = Smoother::gauss_seidel;
  colours.smoothing_steps = 2;
  MultigridOptions colours_f = colours;
  colours_f.cycle = Cycle::f;
  colours_f.gauss_seidel_weight = 1.3;
  const std::vector<Case> cases = {
      {{64}, Kind::uniform, true, {}},
      {{32}, Kind::graded, true, jacobi_f},
      {{16, 24}, Kind::random, true, {}},
      {{24, 9}, Kind::uniform, false, jacobi_f},
      {{8, 8, 8}, Kind::graded, true, {}},
      {{8, 6, 5}, Kind::random, true, jacobi_f},
      {{32}, Kind::graded, true, lines},
      {{16, 24}, Kind::random, true, lines},
      {{8, 6, 5}, Kind::graded, true, lines},
      {{33}, Kind::random, true, colours},
      {{16, 24}, Kind::graded, true, colours},
      {{8, 6, 5}, Kind::random, true, colours},
      {{12, 7}, Kind::uniform, false, colours_f},
  };
  std::uint64_t seed = 100;
  for (const Case& c : cases) {
    const Problem problem = make_problem(make_mesh(c.cells, c.kind), c.variable_k, seed += 10);
    const Multigrid<double> expected(problem.mesh, problem.a.matrix, problem.constrained, c.options,
                                     Backend::reference);
    const Multigrid<double> got(problem.mesh, problem.a.matrix, problem.constrained, c.options, backend());
    expect_same_hierarchy(problem, got, expected, 1e-14, seed);
  }
}

// Separable constant-coefficient forms under whole-face constraints: the
// coarse operators formed axis by axis (Kronecker products of 1-D Galerkin
// products) have the 3-D products' entries to rounding, and the cycle is
// the reference cycle's within 1e-12 (reference forms them in 3-D).
TEST_P(MultigridTest, CoarseOperatorsByAxesEqualGalerkinProducts) {
  TrialFunction u;
  TestFunction v;
  enum class Form { poisson, reaction, convection };
  auto form_of = [&](Form kind, int dim) {
    BilinearForm form = inner_plus(grad_minus(u), grad_minus(v));
    if (kind == Form::reaction) form = form + inner_h(2.5 * u, v);
    for (int axis = 0; kind == Form::convection && axis < dim; ++axis) {
      form = form + inner_h((0.25 * (axis + 1)) * backward_difference(axis)(u), v) +
             inner_h((0.25 * (axis + 1)) * forward_difference(axis)(u), v);
    }
    return form;
  };
  struct FormCase {
    std::vector<std::int32_t> cells;
    Kind kind;
    Form form;
    bool one_face;  // Dirichlet on the face x = 0 only, else on the whole boundary
  };
  const std::vector<FormCase> cases = {
      {{64}, Kind::uniform, Form::poisson, false},       {{32}, Kind::random, Form::reaction, true},
      {{16, 24}, Kind::graded, Form::poisson, false},    {{24, 9}, Kind::random, Form::convection, false},
      {{16, 16}, Kind::uniform, Form::reaction, true},   {{8, 8, 8}, Kind::uniform, Form::poisson, false},
      {{8, 6, 10}, Kind::random, Form::reaction, false}, {{8, 8, 4}, Kind::graded, Form::convection, true},
  };
  std::uint64_t seed = 300;
  for (const FormCase& c : cases) {
    const Mesh mesh = make_mesh(c.cells, c.kind, seed);
    const BilinearForm form = form_of(c.form, mesh.dim());
    const Marker face = mark(mesh, "x0", [](const Point& p) { return p[0] == 0.0; });
    const Problem problem = make_problem(mesh, form, {c.one_face ? face : boundary_marker(mesh)}, false, seed += 10);
    const Multigrid<double> expected(mesh, problem.a.matrix, problem.constrained, {}, Backend::reference);
    const Multigrid<double> got(mesh, form, problem.a.matrix, problem.constrained, {}, backend());
    EXPECT_EQ(got.coarse_by_axes(), backend() != Backend::reference) << mesh.nodes() << " nodes";
    expect_same_hierarchy(problem, got, expected, 1e-13, seed);
  }
}

// The nodes that a boundary marker constrains, ascending.
std::vector<std::int32_t> boundary_nodes(const Mesh& mesh) {
  const Problem problem = make_problem(mesh, false, 1);
  std::vector<std::int32_t> nodes;
  for (std::size_t i = 0; i < problem.constrained.size(); ++i) {
    if (problem.constrained[i] != 0) nodes.push_back(static_cast<std::int32_t>(i));
  }
  return nodes;
}

// On a uniform mesh with every face constrained the finest Kronecker
// operator has one stencil for its free rows (7 points in 3-D): on a vector
// zero on the constrained nodes it gives kronecker_row's bits on every free
// row. A graded mesh has none, nor a face left free.
TEST(KroneckerStencil, UniformMeshesHaveOneStencilForEveryFreeRow) {
  const BilinearForm poisson = inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  for (const std::vector<std::int32_t>& cells : std::vector<std::vector<std::int32_t>>{{12, 9, 7}, {20, 16}, {30}}) {
    const Mesh mesh = make_mesh(cells, Kind::uniform);
    const std::vector<std::int32_t> constrained = boundary_nodes(mesh);
    const std::optional<detail::KroneckerOperator> op = detail::separable_operator(mesh, poisson, constrained);
    ASSERT_TRUE(op.has_value()) << mesh.nodes();
    const std::optional<detail::UniformStencil<double>> stencil = detail::uniform_stencil<double>(*op);
    ASSERT_TRUE(stencil.has_value()) << mesh.nodes();
    EXPECT_EQ(stencil->count, 1 + 2 * static_cast<std::int32_t>(cells.size()));
    std::vector<double> x = random_vector<double>(static_cast<std::size_t>(mesh.nodes()), 5);
    for (const std::int32_t node : constrained) x[static_cast<std::size_t>(node)] = 0;
    const detail::KroneckerView<double> view = detail::host_view(*op);
    std::int64_t free_rows = 0;
    for (std::int32_t i2 = 0; i2 < op->extents[2]; ++i2) {
      for (std::int32_t i1 = 0; i1 < op->extents[1]; ++i1) {
        for (std::int32_t i0 = 0; i0 < op->extents[0]; ++i0) {
          if (detail::kronecker_constrained(view, i0, i1, i2)) continue;
          const std::int64_t row = (static_cast<std::int64_t>(i2) * op->extents[1] + i1) * op->extents[0] + i0;
          double sum = 0;
          for (std::int32_t e = 0; e < stencil->count; ++e) {
            sum += stencil->weight[e] * x[static_cast<std::size_t>(row + stencil->offset[e])];
          }
          ASSERT_EQ(sum, (detail::kronecker_row<double, 1>(view, i0, i1, i2, x.data()))) << row;
          ++free_rows;
        }
      }
    }
    EXPECT_GT(free_rows, 0);
  }
  const Mesh graded = make_mesh({12, 9, 7}, Kind::graded);
  const std::optional<detail::KroneckerOperator> stretched =
      detail::separable_operator(graded, poisson, boundary_nodes(graded));
  ASSERT_TRUE(stretched.has_value());
  EXPECT_FALSE(detail::uniform_stencil<double>(*stretched).has_value());
  // The face x = 0 left free: its rows have half a cell along x.
  const Mesh mesh = make_mesh({12, 9}, Kind::uniform);
  std::vector<std::int32_t> open_face;
  for (const std::int32_t node : boundary_nodes(mesh)) {
    if (node % mesh.extent(0) != 0 || node / mesh.extent(0) == 0 || node / mesh.extent(0) == mesh.extent(1) - 1) {
      open_face.push_back(node);
    }
  }
  const std::optional<detail::KroneckerOperator> neumann = detail::separable_operator(mesh, poisson, open_face);
  ASSERT_TRUE(neumann.has_value());
  EXPECT_FALSE(detail::uniform_stencil<double>(*neumann).has_value());
}

// Without symmetrizing, the free rows keep their couplings to the
// constrained nodes, which the bands leave out: the coarse levels are
// still formed by axes, but the finest level's residuals must come from
// its matrix (with the boundary values the cycle sets there), so the cycle
// stays the reference cycle.
TEST_P(MultigridTest, FinestMatrixKeptWhereFreeRowsReachConstrainedNodes) {
  const BilinearForm poisson = inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  const std::vector<std::vector<std::int32_t>> meshes = {{24, 16}, {8, 10, 12}};
  std::uint64_t seed = 900;
  for (const std::vector<std::int32_t>& cells : meshes) {
    const Mesh mesh = make_mesh(cells, Kind::graded, seed);
    const Problem problem = make_problem(mesh, poisson, {boundary_marker(mesh)}, false, seed += 10, false);
    const Multigrid<double> expected(mesh, problem.a.matrix, problem.constrained, {}, Backend::reference);
    const Multigrid<double> got(mesh, poisson, problem.a.matrix, problem.constrained, {}, backend());
    EXPECT_EQ(got.coarse_by_axes(), backend() != Backend::reference) << mesh.nodes() << " nodes";
    expect_same_hierarchy(problem, got, expected, 1e-13, seed);
  }
}

// The form is only taken where it describes the matrix: a coefficient
// form, constraints that are not whole faces, and a matrix of another form
// all get the 3-D products, the same hierarchy as without the form.
TEST_P(MultigridTest, FormsThatDoNotDescribeTheMatrixKeepGalerkinProducts) {
  TrialFunction u;
  TestFunction v;
  const BilinearForm poisson = inner_plus(grad_minus(u), grad_minus(v));
  const BilinearForm with_k = inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v));
  const Mesh mesh = make_mesh({16, 12}, Kind::random, 11);
  const Marker corner = mark(mesh, "corner", [](const Point& p) { return p[0] == 0.0 && p[1] < 0.5; });
  struct Mismatch {
    const BilinearForm* form;
    std::vector<Marker> dirichlet;
    double scale;  // of the matrix after assembly: not the form's matrix unless 1
  };
  const std::vector<Mismatch> cases = {
      {&with_k, {boundary_marker(mesh)}, 1.0},
      {&poisson, {corner}, 1.0},
      {&poisson, {boundary_marker(mesh)}, 1.5},
  };
  for (const Mismatch& c : cases) {
    Problem problem = make_problem(mesh, *c.form, c.dirichlet, true, 77);
    for (double& value : problem.a.matrix.values) value *= c.scale;
    const Multigrid<double> plain(mesh, problem.a.matrix, problem.constrained, {}, backend());
    const Multigrid<double> with_form(mesh, *c.form, problem.a.matrix, problem.constrained, {}, backend());
    EXPECT_FALSE(with_form.coarse_by_axes());
    for (std::int32_t l = 0; l < plain.levels(); ++l) {
      EXPECT_EQ(with_form.level_matrix(l).values, plain.level_matrix(l).values) << "level " << l;
    }
  }
}

// The hierarchy formed by axes solves the worked Poisson example in as many
// mgcg iterations as the 3-D products, on every backend.
TEST_P(MultigridTest, CoarseOperatorsByAxesSolveLikeGalerkinProducts) {
  const Mesh mesh = make_mesh({32, 32, 16}, Kind::graded, 5);
  const BilinearForm poisson = inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  const Problem problem = make_problem(mesh, poisson, {boundary_marker(mesh)}, false, 501);
  const Multigrid<double> plain(mesh, problem.a.matrix, problem.constrained, {}, Backend::reference);
  const Multigrid<double> by_axes(mesh, poisson, problem.a.matrix, problem.constrained, {}, backend());
  std::vector<double> x_plain(problem.b.size(), 0.0), x_axes = x_plain;
  const SolveResult expected = solve_mgcg(problem, plain, x_plain, 1e-10);
  const SolveResult got = solve_mgcg(problem, by_axes, x_axes, 1e-10);
  ASSERT_TRUE(got.converged) << got.stopped_because;
  EXPECT_NEAR(got.iterations, expected.iterations, 1);
  EXPECT_LE(relative_difference(x_axes, x_plain), 1e-8);
}

// Cells stretched 16:1, and graded meshes whose spacings change 16-fold
// across the domain (cells up to 256:1): line relaxation keeps mgcg at a
// few iterations, flat under refinement, where Chebyshev's point smoothing
// needs several times as many and more with every refinement.
TEST_P(MultigridTest, LineRelaxationKeepsIterationsFlatOnStretchedCells) {
  const auto stretched = [](std::int32_t n) {
    return Mesh({Mesh1D::uniform(0.0, 1.0, n), Mesh1D::uniform(0.0, 1.0 / 16, n)});
  };
  const auto graded = [](std::int32_t n) {
    const double ratio = std::pow(16.0, 1.0 / (n - 1));
    return Mesh({Mesh1D::graded(0.0, 1.0, n, ratio), Mesh1D::graded(0.0, 1.0, n, 1 / ratio)});
  };
  for (const auto& mesh_of : {+stretched, +graded}) {
    std::vector<std::int32_t> line_iterations, point_iterations;
    for (const std::int32_t n : {32, 64, 128}) {
      const Problem problem = make_problem(mesh_of(n), true, 13);
      line_iterations.push_back(mgcg_iterations(problem, Smoother::line, backend()));
      point_iterations.push_back(mgcg_iterations(problem, Smoother::chebyshev, backend()));
    }
    const auto [fewest, most] = std::minmax_element(line_iterations.begin(), line_iterations.end());
    EXPECT_LE(*most, 5);
    EXPECT_LE(*most - *fewest, 1);
    EXPECT_GE(point_iterations.back(), 2 * *most);
    EXPECT_GT(point_iterations.back(), point_iterations.front());
  }
  // 3-D, one axis 16 times shorter: two mgcg iterations where Chebyshev takes 18.
  const std::int32_t n = 16;
  const Mesh flat({Mesh1D::uniform(0.0, 1.0, n), Mesh1D::uniform(0.0, 1.0, n), Mesh1D::uniform(0.0, 1.0 / 16, n)});
  const Problem problem = make_problem(flat, true, 14);
  MultigridOptions options;
  options.smoother = Smoother::line;
  const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, options, backend());
  std::vector<double> x(problem.b.size(), 0.0);
  const SolveResult result = solve_mgcg(problem, mg, x);
  ASSERT_TRUE(result.converged) << result.stopped_because;
  EXPECT_LE(result.iterations, 4);
}

// v . B u = u . B v: the V-cycle with Jacobi, Chebyshev or line relaxation
// (its axes reversed after the coarse correction) is symmetric.
TEST_P(MultigridTest, VCycleIsSymmetric) {
  for (const Smoother smoother : {Smoother::jacobi, Smoother::chebyshev, Smoother::line, Smoother::gauss_seidel}) {
    const Problem problem = make_problem(make_mesh({16, 12}, Kind::random), true, 3);
    MultigridOptions options;
    options.smoother = smoother;
    const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, options, backend());
    ASSERT_GE(mg.levels(), 3);
    const auto n = problem.b.size();
    const std::vector<double> u = random_vector<double>(n, 1), v = random_vector<double>(n, 2);
    std::vector<double> bu(n), bv(n);
    mg.precondition(u, bu);
    mg.precondition(v, bv);
    double vbu = 0, ubv = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
      vbu += v[i] * bu[i];
      ubv += u[i] * bv[i];
      scale += std::abs(v[i] * bu[i]);
    }
    EXPECT_NEAR(vbu, ubv, 1e-12 * scale) << to_string(smoother);
  }
}

// Multicolour Gauss-Seidel is Gauss-Seidel in any order: on the forms'
// stencils and their Galerkin coarse operators (which also couple diagonal
// neighbours) no two nodes of one colour are coupled, so the colour's rows
// solved one after another (relax_colour, multigrid_colors.hpp) give what
// all of them updated at once from one residual give, to rounding; a
// colouring with coupled nodes would not. Checked on every level's matrix
// of 1-, 2- and 3-D hierarchies. And as a smoother it is a strong one: mgcg
// iterations flat under refinement, fewer than Jacobi's.
TEST_P(MultigridTest, MulticolourGaussSeidelIsGaussSeidel) {
  for (const auto& cells : std::vector<std::vector<std::int32_t>>{{32}, {16, 12}, {8, 6, 10}}) {
    const Problem problem = make_problem(make_mesh(cells, Kind::random), true, 31);
    MultigridOptions options;
    options.smoother = Smoother::gauss_seidel;
    const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, options, backend());
    ASSERT_GE(mg.levels(), 2);
    const Backend host_backend = backend() == Backend::reference ? Backend::reference : Backend::cpu;
    for (std::int32_t l = 0; l < mg.levels(); ++l) {
      const CsrMatrix<double>& a = mg.level_matrix(l);
      MultiIndex extents = mg.level(l).extents;  // 0 on unused axes
      for (std::int32_t& e : extents) e = std::max(e, 1);
      const auto n = static_cast<std::size_t>(a.rows);
      const std::vector<double> b = random_vector<double>(n, 40 + static_cast<std::uint64_t>(l));
      std::vector<double> want = random_vector<double>(n, 50 + static_cast<std::uint64_t>(l));
      std::vector<double> got = want, inverse_diagonal(n, 0.0);
      for (std::int32_t row = 0; row < a.rows; ++row) {
        for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
          if (a.col_indices[k] == row) inverse_diagonal[static_cast<std::size_t>(row)] += a.values[k];
        }
        inverse_diagonal[static_cast<std::size_t>(row)] = 1 / inverse_diagonal[static_cast<std::size_t>(row)];
      }
      const std::int32_t colours = 1 << problem.mesh.dim();
      std::vector<double> r(n);
      for (std::int32_t colour = 0; colour < colours; ++colour) {
        // Every node of the colour from the residual before any of them moves.
        for (std::int32_t row = 0; row < a.rows; ++row) {
          double sum = 0;
          for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
            sum += a.values[k] * want[static_cast<std::size_t>(a.col_indices[k])];
          }
          r[static_cast<std::size_t>(row)] = b[static_cast<std::size_t>(row)] - sum;
        }
        for (std::int32_t row = 0; row < a.rows; ++row) {
          std::int32_t c = 0, rest = row;
          for (int axis = 0; axis < 3; ++axis) {
            c |= ((rest % extents[static_cast<std::size_t>(axis)]) & 1) << axis;
            rest /= extents[static_cast<std::size_t>(axis)];
          }
          if (c == colour) {
            want[static_cast<std::size_t>(row)] +=
                inverse_diagonal[static_cast<std::size_t>(row)] * r[static_cast<std::size_t>(row)];
          }
        }
        // The rows of the colour one after another, each seeing the ones before.
        detail::relax_colour(a.view(), b.data(), extents[0], extents[1], colour, 1.0, inverse_diagonal.data(),
                             got.data(), host_backend);
      }
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::abs(want[i]))) << "level " << l << ", node " << i;
      }
    }
  }
  std::vector<std::int32_t> gauss_seidel, jacobi;
  for (const std::int32_t cells : {32, 64, 128}) {
    const Problem problem = make_problem(make_mesh({cells, cells}, Kind::uniform), true, 12);
    gauss_seidel.push_back(mgcg_iterations(problem, Smoother::gauss_seidel, backend()));
    jacobi.push_back(mgcg_iterations(problem, Smoother::jacobi, backend()));
  }
  for (std::size_t k = 0; k < gauss_seidel.size(); ++k) EXPECT_LT(gauss_seidel[k], jacobi[k]) << "size " << k;
  EXPECT_LE(*std::max_element(gauss_seidel.begin(), gauss_seidel.end()) -
                *std::min_element(gauss_seidel.begin(), gauss_seidel.end()),
            1);
}

// mgcg to 1e-8 at 32^2, 64^2, 128^2: a few iterations, the same within one.
TEST_P(MultigridTest, MgcgIterationsAreMeshIndependent) {
  for (const bool variable_k : {false, true}) {
    std::vector<std::int32_t> iterations;
    for (const std::int32_t cells : {32, 64, 128}) {
      const Problem problem = make_problem(make_mesh({cells, cells}, Kind::uniform), variable_k, 11);
      const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, {}, backend());
      std::vector<double> x(problem.b.size(), 0.0);
      const SolveResult result = solve_mgcg(problem, mg, x);
      ASSERT_TRUE(result.converged) << result.stopped_because;
      EXPECT_LE(result.final_residual, 2e-8 * result.rhs_norm);
      iterations.push_back(result.iterations);
    }
    const auto [fewest, most] = std::minmax_element(iterations.begin(), iterations.end());
    EXPECT_LE(*most, 10) << "variable k " << variable_k;
    EXPECT_LE(*most - *fewest, 1) << "variable k " << variable_k;
  }
}

// On square cells each V-cycle reduces the residual by at least 0.15
// (Chebyshev of degree 3 measures 0.03-0.1 per cycle in 1-, 2- and 3-D);
// the solution is the one CG finds, in far fewer iterations.
TEST_P(MultigridTest, ResidualReductionPerCycle) {
  for (const auto& cells : std::vector<std::vector<std::int32_t>>{{64, 64}, {16, 16, 16}, {256}}) {
    const Problem problem = make_problem(make_mesh(cells, Kind::uniform, 0, true), true, 21);
    const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, {}, backend());
    std::vector<double> x(problem.b.size(), 0.0);
    const SolveResult result = mg_solve<double>(mg, problem.b, x, {.relative_tolerance = 1e-10, .max_iterations = 40});
    ASSERT_TRUE(result.converged) << result.stopped_because;
    const auto& history = result.residual_history;
    for (std::size_t k = 1; k < history.size(); ++k) EXPECT_LT(history[k], 0.15 * history[k - 1]) << "cycle " << k;
    std::vector<double> x_cg(problem.b.size(), 0.0);
    const SolveResult cg_result = cg<double>(csr_operator(problem.a.matrix), problem.b, x_cg,
                                             {.relative_tolerance = 1e-12, .max_iterations = 5000});
    ASSERT_TRUE(cg_result.converged);
    EXPECT_LE(relative_difference(x, x_cg), 1e-8);
    EXPECT_LT(result.iterations * 4, cg_result.iterations);
  }
}

// SolverOptions::progress in the multigrid drivers: called every
// check_every cycles (mg) or iterations (mgcg) with the history's residual;
// false stops the solve there, interrupted.
TEST_P(MultigridTest, ProgressIsCalledAndCanStopTheSolve) {
  const Problem problem = make_problem(make_mesh({64, 64}, Kind::uniform, 0, true), true, 22);
  const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, {}, backend());
  std::vector<std::pair<std::int32_t, double>> calls;
  SolverOptions options{.relative_tolerance = 1e-12, .max_iterations = 40, .check_every = 2};
  options.progress = [&calls](std::int32_t k, double residual) {
    calls.emplace_back(k, residual);
    return true;
  };
  std::vector<double> x(problem.b.size(), 0.0);
  const SolveResult cycles = mg_solve<double>(mg, problem.b, x, options);
  ASSERT_TRUE(cycles.converged) << cycles.stopped_because;
  ASSERT_EQ(calls.size(), static_cast<std::size_t>((cycles.iterations - 1) / 2));
  for (const auto& [k, residual] : calls) {
    EXPECT_EQ(k % 2, 0);
    EXPECT_EQ(residual, cycles.residual_history[static_cast<std::size_t>(k)]);
  }
  options.progress = [](std::int32_t k, double) { return k < 4; };
  std::fill(x.begin(), x.end(), 0.0);
  const SolveResult stopped = mg_solve<double>(mg, problem.b, x, options);
  EXPECT_EQ(stopped.stop, SolverStop::interrupted);
  EXPECT_EQ(stopped.iterations, 4);
  EXPECT_FALSE(stopped.converged);
  if (backend() != Backend::cuda) {
    std::fill(x.begin(), x.end(), 0.0);
    const SolveResult krylov =
        mgcg<double>(csr_operator(problem.a.matrix, Preconditioner::none, backend()), mg, problem.b, x, options);
    EXPECT_EQ(krylov.stop, SolverStop::interrupted);
    EXPECT_EQ(krylov.iterations, 4);
  }
}

// Graded and random meshes with variable k, F-cycles and Jacobi: mgcg still
// converges in few iterations, and mg and mgcg agree with reference.
TEST_P(MultigridTest, NonUniformMeshesSolveLikeReference) {
  MultigridOptions f_cycle;
  f_cycle.cycle = Cycle::f;
  MultigridOptions jacobi;
  jacobi.smoother = Smoother::jacobi;
  const std::vector<Case> cases = {
      {{128}, Kind::graded, true, {}},
      {{48, 32}, Kind::graded, true, f_cycle},
      {{32, 32}, Kind::random, true, jacobi},
      {{16, 16, 8}, Kind::graded, true, {}},
  };
  for (const Case& c : cases) {
    const Problem problem = make_problem(make_mesh(c.cells, c.kind), c.variable_k, 31);
    const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, c.options, backend());
    const Multigrid<double> ref(problem.mesh, problem.a.matrix, problem.constrained, c.options, Backend::reference);
    std::vector<double> x(problem.b.size(), 0.0), x_ref(problem.b.size(), 0.0);
    const SolveResult got = solve_mgcg(problem, mg, x, 1e-10);
    const SolveResult expected = solve_mgcg(problem, ref, x_ref, 1e-10);
    ASSERT_TRUE(got.converged) << got.stopped_because;
    // Measured: 7 (1-D), 10 (random 2-D, Jacobi), 14 (graded 2-D and 3-D,
    // where cells reach 9:1 and point smoothers lose some of their grip).
    EXPECT_LE(got.iterations, 16) << problem.mesh.nodes() << " nodes";
    EXPECT_NEAR(got.iterations, expected.iterations, 1);
    EXPECT_LE(relative_difference(x, x_ref), 1e-8);

    std::vector<double> y(problem.b.size(), 0.0), y_ref(problem.b.size(), 0.0);
    const SolverOptions options{.relative_tolerance = 1e-8, .max_iterations = 100};
    const SolveResult mg_got = mg_solve<double>(mg, problem.b, y, options);
    const SolveResult mg_expected = mg_solve<double>(ref, problem.b, y_ref, options);
    ASSERT_TRUE(mg_got.converged) << mg_got.stopped_because;
    EXPECT_NEAR(mg_got.iterations, mg_expected.iterations, 1);
    EXPECT_LE(relative_difference(y, y_ref), 1e-6);
  }
}

// Convection-diffusion (central differences, not symmetric): BiCGStab with
// the cycle as its preconditioner, and the cycles alone, converge in a few
// iterations and agree with reference.
TEST_P(MultigridTest, NonSymmetricFormsSolveWithBicgstab) {
  const Mesh mesh = make_mesh({32, 24}, Kind::random);
  TrialFunction u;
  TestFunction v;
  const BilinearForm form = inner_plus(grad_minus(u), grad_minus(v)) + inner_h(2.0 * backward_difference(0)(u), v) +
                            inner_h(2.0 * forward_difference(0)(u), v) + inner_h(-1.0 * backward_difference(1)(u), v) +
                            inner_h(-1.0 * forward_difference(1)(u), v);
  const Problem problem = make_problem(mesh, form, {boundary_marker(mesh)}, false, 91);
  const auto n = problem.b.size();
  const CsrMatrix<double>& a = problem.a.matrix;
  const std::vector<double>& b = problem.b;
  std::vector<double> x_ref;
  for (const Backend which : {Backend::reference, backend()}) {
    const Multigrid<double> mg(mesh, a, problem.constrained, {}, which);
    std::vector<double> x(n, 0.0), y(n, 0.0);
    const SolveResult krylov = mg_bicgstab<double>(csr_operator(a, Preconditioner::none, host_backend(which)), mg, b, x,
                                                   {.relative_tolerance = 1e-10, .max_iterations = 50});
    ASSERT_TRUE(krylov.converged) << krylov.stopped_because;
    EXPECT_LE(krylov.iterations, 6);
    EXPECT_LE(krylov.final_residual, 2e-10 * krylov.rhs_norm);
    const SolveResult cycles = mg_solve<double>(mg, b, y, {.relative_tolerance = 1e-10, .max_iterations = 50});
    ASSERT_TRUE(cycles.converged) << cycles.stopped_because;
    EXPECT_LE(cycles.iterations, 14);
    EXPECT_LE(relative_difference(x, y), 1e-8);
    if (x_ref.empty())
      x_ref = x;
    else
      EXPECT_LE(relative_difference(x, x_ref), 1e-8);
  }
}

// Constraints other than the boundary: none at all (a reaction term keeps
// the form definite), and an interior disc held beside the boundary.
TEST_P(MultigridTest, OtherConstraintSets) {
  const Mesh mesh = make_mesh({32, 32}, Kind::random, 7, true);
  TrialFunction u;
  TestFunction v;
  const BilinearForm form = inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v)) + inner_h(u, v);
  const Marker disc = mark(
      mesh, "disc", [](const Point& p) { return (p[0] - 0.4) * (p[0] - 0.4) + (p[1] - 0.55) * (p[1] - 0.55) < 0.03; });
  const std::vector<std::vector<Marker>> constraint_sets = {{}, {boundary_marker(mesh), disc}};
  for (const std::vector<Marker>& dirichlet : constraint_sets) {
    const Problem problem = make_problem(mesh, form, dirichlet, true, 101);
    const auto n = problem.b.size();
    std::vector<double> x_ref;
    for (const Backend which : {Backend::reference, backend()}) {
      const Multigrid<double> mg(mesh, problem.a.matrix, problem.constrained, {}, which);
      std::vector<double> x(n, 0.0);
      const SolveResult result = solve_mgcg(problem.a.matrix, problem.b, mg, x, 1e-10, 50);
      ASSERT_TRUE(result.converged) << result.stopped_because;
      EXPECT_LE(result.iterations, 10) << dirichlet.size() << " markers";
      if (x_ref.empty())
        x_ref = x;
      else
        EXPECT_LE(relative_difference(x, x_ref), 1e-8);
    }
  }
}

// Axes that cannot be halved keep their points; a mesh with none to halve is
// one level, solved directly in one cycle.
TEST_P(MultigridTest, OddSizesStopCoarseningThatAxis) {
  const Problem problem = make_problem(make_mesh({24, 9}, Kind::random), true, 41);
  const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, {}, backend());
  ASSERT_EQ(mg.levels(), 4);  // 24, 12, 6, 3 cells along axis 0; 9 throughout
  EXPECT_EQ(mg.level(3).extents, (MultiIndex{4, 10, 1}));
  EXPECT_TRUE(mg.direct_coarse_solve());
  std::vector<double> x(problem.b.size(), 0.0);
  EXPECT_LE(solve_mgcg(problem, mg, x).iterations, 10);

  const Problem odd = make_problem(make_mesh({7, 5, 9}, Kind::uniform), true, 43);
  const Multigrid<double> single(odd.mesh, odd.a.matrix, odd.constrained, {}, backend());
  EXPECT_EQ(single.levels(), 1);
  std::vector<double> y(odd.b.size(), 0.0);
  const SolveResult result = mg_solve<double>(single, odd.b, y, {.relative_tolerance = 1e-12});
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 1);

  // Too big to factor: the coarsest level is solved by CG instead.
  MultigridOptions no_direct;
  no_direct.direct_solve_flops = 0;
  const Multigrid<double> krylov(odd.mesh, odd.a.matrix, odd.constrained, no_direct, backend());
  EXPECT_FALSE(krylov.direct_coarse_solve());
  std::fill(y.begin(), y.end(), 0.0);
  EXPECT_LE(mg_solve<double>(krylov, odd.b, y, {.relative_tolerance = 1e-10}).iterations, 1);
}

// A refill (new k, same mesh) gives the hierarchy a fresh one would have.
TEST_P(MultigridTest, RefillEqualsNewHierarchy) {
  const Problem first = make_problem(make_mesh({16, 16}, Kind::graded), true, 51);
  const Problem second = make_problem(make_mesh({16, 16}, Kind::graded), true, 52);
  Multigrid<double> refilled(first.mesh, first.a.matrix, first.constrained, {}, backend());
  refilled.refill(second.a.matrix);
  const Multigrid<double> fresh(second.mesh, second.a.matrix, second.constrained, {}, backend());
  std::vector<double> x(second.b.size(), 0.0), y(second.b.size(), 0.0);
  refilled.precondition(second.b, x);
  fresh.precondition(second.b, y);
  EXPECT_EQ(x, y);
}

// Seeded random problems, three seeds each: 1-, 2- and 3-D, uniform, graded
// and random meshes, k random in [1, 2], Dirichlet boundary, V and F cycles,
// both smoothers, a direct and a Krylov coarse solve. One cycle within
// 1e-12 of the reference's (1e-9 with the Krylov coarse solve, which stops
// at 1e-12 of its residual), and mg and mgcg with the reference's iteration
// counts (within one) and solutions.
TEST_P(MultigridTest, SeededProblemsSolveLikeReference) {
  MultigridOptions f_cycle;
  f_cycle.cycle = Cycle::f;
  MultigridOptions jacobi;
  jacobi.smoother = Smoother::jacobi;
  MultigridOptions f_jacobi = jacobi;
  f_jacobi.cycle = Cycle::f;
  MultigridOptions krylov_coarse;
  krylov_coarse.direct_solve_flops = 0;
  krylov_coarse.max_levels = 3;
  const std::vector<Case> cases = {
      {{96}, Kind::uniform, true, {}},           {{64}, Kind::graded, true, f_jacobi},
      {{32, 16}, Kind::uniform, true, f_cycle},  {{24, 24}, Kind::graded, true, {}},
      {{32, 32}, Kind::random, true, jacobi},    {{8, 8, 16}, Kind::uniform, true, {}},
      {{12, 8, 8}, Kind::graded, true, f_cycle}, {{16, 16, 16}, Kind::uniform, true, krylov_coarse},
  };
  for (const std::uint64_t seed : {1001u, 2002u, 3003u}) {
    for (const Case& c : cases) {
      const Problem problem = make_problem(make_mesh(c.cells, c.kind, seed), c.variable_k, seed);
      const Multigrid<double> expected(problem.mesh, problem.a.matrix, problem.constrained, c.options,
                                       Backend::reference);
      const Multigrid<double> got(problem.mesh, problem.a.matrix, problem.constrained, c.options, backend());
      const std::string what = std::to_string(problem.mesh.nodes()) + " nodes, seed " + std::to_string(seed);
      ASSERT_EQ(got.levels(), expected.levels()) << what;
      ASSERT_EQ(got.direct_coarse_solve(), expected.direct_coarse_solve()) << what;
      const auto n = problem.b.size();
      std::vector<double> x_got = random_vector<double>(n, seed + 7), x_expected = x_got;
      got.cycle(problem.b, x_got);
      expected.cycle(problem.b, x_expected);
      EXPECT_LE(relative_difference(x_got, x_expected), got.direct_coarse_solve() ? 1e-12 : 1e-9) << what;

      const SolverOptions options{.relative_tolerance = 1e-8, .max_iterations = 100};
      std::vector<double> y(n, 0.0), y_ref(n, 0.0);
      const SolveResult mg_got = mg_solve<double>(got, problem.b, y, options);
      const SolveResult mg_expected = mg_solve<double>(expected, problem.b, y_ref, options);
      ASSERT_TRUE(mg_got.converged) << what << ": " << mg_got.stopped_because;
      EXPECT_NEAR(mg_got.iterations, mg_expected.iterations, 1) << what;
      EXPECT_LE(relative_difference(y, y_ref), 1e-6) << what;

      std::vector<double> z(n, 0.0), z_ref(n, 0.0);
      const SolveResult cg_got = solve_mgcg(problem, got, z, 1e-10);
      const SolveResult cg_expected = solve_mgcg(problem, expected, z_ref, 1e-10);
      ASSERT_TRUE(cg_got.converged) << what << ": " << cg_got.stopped_because;
      EXPECT_NEAR(cg_got.iterations, cg_expected.iterations, 1) << what;
      EXPECT_LE(cg_got.final_residual, 2e-10 * cg_got.rhs_norm) << what;
      EXPECT_LE(relative_difference(z, z_ref), 1e-8) << what;
    }
  }
}

TEST_P(MultigridTest, RejectsBadInput) {
  const Problem problem = make_problem(make_mesh({8, 8}, Kind::uniform), false, 61);
  const Mesh& mesh = problem.mesh;
  const auto& a = problem.a.matrix;
  EXPECT_THROW(Multigrid<double>(make_mesh({8, 4}, Kind::uniform), a, problem.constrained, {}, backend()), UsageError);
  EXPECT_THROW(Multigrid<double>(mesh, a, std::vector<std::uint8_t>(3, 0), {}, backend()), UsageError);
  for (auto bad :
       {+[](MultigridOptions& o) { o.smoothing_steps = 0; }, +[](MultigridOptions& o) { o.jacobi_weight = 2; },
        +[](MultigridOptions& o) { o.chebyshev_lower = 1.2; }, +[](MultigridOptions& o) { o.eigenvalue_steps = 0; },
        +[](MultigridOptions& o) { o.max_levels = 0; }, +[](MultigridOptions& o) { o.line_weight = 0; },
        +[](MultigridOptions& o) { o.line_weight = std::nan(""); },
        +[](MultigridOptions& o) { o.gauss_seidel_weight = 2; }}) {
    MultigridOptions options;
    bad(options);
    EXPECT_THROW(Multigrid<double>(mesh, a, problem.constrained, options, backend()), UsageError);
  }
  // A zero diagonal in a free row; with line relaxation, a zero pivot.
  CsrMatrix<double> zero = a;
  std::fill(zero.values.begin(), zero.values.end(), 0.0);
  EXPECT_THROW(Multigrid<double>(mesh, zero, problem.constrained, {}, backend()), UsageError);
  MultigridOptions lines;
  lines.smoother = Smoother::line;
  CsrMatrix<double> singular_line = a;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    // Each free row's diagonal equals its neighbours' along axis 0 (1 1 1 ...
    // on a line: the second pivot is 1 - 1 * 1 = 0).
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      const std::int32_t column = a.col_indices[k];
      if (column == row || column == row - 1 || column == row + 1) singular_line.values[k] = 1.0;
    }
  }
  EXPECT_THROW(Multigrid<double>(mesh, singular_line, problem.constrained, lines, backend()), UsageError);

  Multigrid<double> mg(mesh, a, problem.constrained, {}, backend());
  std::vector<double> short_x(5, 0.0), x(problem.b.size(), 0.0);
  EXPECT_THROW(mg.cycle(problem.b, short_x), UsageError);
  EXPECT_THROW(mg_solve<double>(mg, problem.b, short_x), UsageError);
  EXPECT_THROW(mg_solve<double>(mg, problem.b, x, {.relative_tolerance = -1}), UsageError);
  EXPECT_THROW(mg.refill(CsrMatrix<double>{}), UsageError);
  HostLinearOperator<double> wrong;
  wrong.size = 3;
  EXPECT_THROW(mgcg<double>(wrong, mg, problem.b, x), UsageError);

  // A zero right-hand side gives x = 0; NaN in b is reported, not thrown.
  std::vector<double> zero_b(problem.b.size(), 0.0), guess(problem.b.size(), 1.0);
  EXPECT_EQ(mg_solve<double>(mg, zero_b, guess).stop, SolverStop::zero_rhs);
  EXPECT_EQ(guess, zero_b);
  std::vector<double> nan_b = problem.b;
  nan_b[10] = std::nan("");
  EXPECT_EQ(mg_solve<double>(mg, nan_b, x).stop, SolverStop::non_finite_input);
}

INSTANTIATE_TEST_SUITE_P(Backends, MultigridTest, ::testing::ValuesIn(trellis::testing::backends_under_test()),
                         trellis::testing::backend_test_name);

TEST(MultigridCuda, IsUnavailableWithoutDevice) {
  if (cuda_usable()) GTEST_SKIP() << "a CUDA device is usable here";
  const Problem problem = make_problem(make_mesh({8}, Kind::uniform), false, 71);
  EXPECT_THROW(Multigrid<double>(problem.mesh, problem.a.matrix, problem.constrained, {}, Backend::cuda),
               BackendUnavailable);
}

// The hierarchy built on the device: every level's matrix equals the cpu
// hierarchy's bit for bit (transfers and Galerkin products summed in the cpu
// product's order), the eigenvalue estimates to rounding; built from a
// device matrix and refilled there alike; a host hierarchy refuses a device refill.
TEST(MultigridCuda, DeviceSetupEqualsCpuBitwise) {
  TRELLIS_SKIP_UNLESS_CUDA();
  MultigridOptions jacobi;
  jacobi.smoother = Smoother::jacobi;
  const std::vector<Case> cases = {
      {{64}, Kind::graded, true, {}},        {{16, 24}, Kind::random, true, jacobi},
      {{24, 9}, Kind::uniform, false, {}},   {{16, 16, 16}, Kind::uniform, true, {}},
      {{12, 8, 10}, Kind::random, true, {}}, {{8, 6, 5}, Kind::graded, true, jacobi},
  };
  std::uint64_t seed = 300;
  for (const Case& c : cases) {
    const Problem problem = make_problem(make_mesh(c.cells, c.kind), c.variable_k, seed += 10);
    const Multigrid<double> cpu(problem.mesh, problem.a.matrix, problem.constrained, c.options, Backend::cpu);
    const DeviceCsr<double> device_a(problem.a.matrix);
    Multigrid<double> cuda(problem.mesh, device_a, problem.constrained, c.options);
    ASSERT_EQ(cuda.levels(), cpu.levels());
    for (std::int32_t l = 1; l < cuda.levels(); ++l) {
      const CsrMatrix<double>& g = cuda.level_matrix(l);
      const CsrMatrix<double>& e = cpu.level_matrix(l);
      ASSERT_EQ(g.row_offsets, e.row_offsets) << "level " << l;
      ASSERT_EQ(g.col_indices, e.col_indices) << "level " << l;
      ASSERT_EQ(g.values, e.values) << "level " << l;
      EXPECT_EQ(cuda.level(l).nonzeros, cpu.level(l).nonzeros);
    }
    for (std::int32_t l = 0; l + 1 < cuda.levels(); ++l) {
      EXPECT_NEAR(cuda.level(l).lambda_max, cpu.level(l).lambda_max, 1e-12 * cpu.level(l).lambda_max);
    }
    EXPECT_EQ(cuda.level_matrix(0).values, problem.a.matrix.values);

    // A refill with other values equals a new hierarchy of them.
    CsrMatrix<double> scaled = problem.a.matrix;
    for (double& value : scaled.values) value *= 1.5;
    cuda.refill(DeviceCsr<double>(scaled));
    const Multigrid<double> cpu_scaled(problem.mesh, scaled, problem.constrained, c.options, Backend::cpu);
    for (std::int32_t l = 1; l < cuda.levels(); ++l) {
      ASSERT_EQ(cuda.level_matrix(l).values, cpu_scaled.level_matrix(l).values) << "refill, level " << l;
    }
    const auto n = problem.b.size();
    std::vector<double> x_cuda = random_vector<double>(n, seed + 5), x_cpu = x_cuda;
    cuda.cycle(problem.b, x_cuda);
    cpu_scaled.cycle(problem.b, x_cpu);
    EXPECT_LE(relative_difference(x_cuda, x_cpu), 1e-12) << problem.mesh.nodes() << " nodes";
  }
  const Problem problem = make_problem(make_mesh({8, 8}, Kind::uniform), false, 77);
  Multigrid<double> host(problem.mesh, problem.a.matrix, problem.constrained, {}, Backend::cpu);
  EXPECT_THROW(host.refill(DeviceCsr<double>(problem.a.matrix)), UsageError);
}

// One level solved directly: small factors walked by one device thread
// (the 2-D and 3-D meshes), larger ones on the host (41 x 41 nodes); either
// way the cycle equals the cpu's bit for bit (the residual, the
// substitutions and the correction round alike).
TEST(MultigridCuda, DirectCoarseSolveEqualsCpuBitwise) {
  TRELLIS_SKIP_UNLESS_CUDA();
  MultigridOptions one_level;
  one_level.max_levels = 1;
  std::uint64_t seed = 700;
  for (const std::vector<std::int32_t>& cells :
       {std::vector<std::int32_t>{12, 10}, std::vector<std::int32_t>{4, 4, 3}, std::vector<std::int32_t>{40, 40}}) {
    const Problem problem = make_problem(make_mesh(cells, Kind::random), true, seed += 10);
    const Multigrid<double> cpu(problem.mesh, problem.a.matrix, problem.constrained, one_level, Backend::cpu);
    const Multigrid<double> cuda(problem.mesh, problem.a.matrix, problem.constrained, one_level, Backend::cuda);
    ASSERT_EQ(cuda.levels(), 1);
    const auto n = problem.b.size();
    std::vector<double> x_cuda = random_vector<double>(n, seed + 1), x_cpu = x_cuda;
    for (int cycle = 0; cycle < 2; ++cycle) {
      cuda.cycle(problem.b, x_cuda);
      cpu.cycle(problem.b, x_cpu);
      ASSERT_EQ(x_cuda, x_cpu) << problem.mesh.nodes() << " nodes, cycle " << cycle;
    }
  }
}

// Device vectors: mg_solve and mgcg keep everything on the device, and a
// host hierarchy refuses them.
// mgcg's operator also computes the cycle's residuals on the finest level:
// the form's matrix-free apply in place of the matrix gives the same solve,
// with the coarse operators formed by axes.
TEST(MultigridCuda, MatrixFreeOperatorInTheCycle) {
  TRELLIS_SKIP_UNLESS_CUDA();
  const Mesh mesh = make_mesh({24, 16, 16}, Kind::uniform, 0, true);
  const BilinearForm poisson = inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  const Problem problem = make_problem(mesh, poisson, {boundary_marker(mesh)}, false, 91);
  const Multigrid<double> mg(mesh, poisson, problem.a.matrix, problem.constrained, {}, Backend::cuda);
  EXPECT_TRUE(mg.coarse_by_axes());
  const MatrixFreeOperator<double> matrix_free(mesh, poisson, {boundary_marker(mesh)}, {.symmetrize = true});
  const DeviceCoefficients<double> coefficients(Coefficients<double>(mesh, 2));
  DeviceLinearOperator<double> op;
  op.size = mesh.nodes();
  op.apply = [&](const double* in, double* out, Stream stream) { matrix_free.apply(coefficients, in, out, stream); };
  std::vector<double> x, x_csr;
  const SolverOptions options{.relative_tolerance = 1e-10, .max_iterations = 40};
  const SolveResult free = device_mgcg(op, mg, problem.b, x, options);
  const SolveResult csr = device_mgcg(mg.device_operator(), mg, problem.b, x_csr, options);
  ASSERT_TRUE(free.converged) << free.stopped_because;
  EXPECT_NEAR(free.iterations, csr.iterations, 1);
  EXPECT_LE(relative_difference(x, x_csr), 1e-8);
}

// The device's start vector: a thread's first entry by squarings, then
// jumps of the grid's stride; both must land on the generator's own states.
TEST(Multigrid, LanczosJumpsFollowTheGenerator) {
  std::uint64_t state = detail::kLanczosSeed;
  for (std::uint64_t steps = 1; steps <= 2000; ++steps) {
    state = detail::lanczos_next(state);
    ASSERT_EQ(detail::lanczos_state_after(steps), state) << steps;
  }
  for (const std::uint64_t from : {std::uint64_t{1}, std::uint64_t{77}, std::uint64_t{1} << 40}) {
    for (const std::uint64_t stride : {std::uint64_t{1}, std::uint64_t{256}, std::uint64_t{2097152}}) {
      EXPECT_EQ(detail::lanczos_jump(stride)(detail::lanczos_state_after(from)),
                detail::lanczos_state_after(from + stride))
          << from << " + " << stride;
    }
  }
}

// A matrix-free operator on equal spacings does the finest level's
// smoothing steps in its apply's pass: the solve equals, bit for bit, the
// same solve with each step in two passes (the operator's residual, then
// the step), on constant and variable k in 1-, 2- and 3-D; a graded mesh
// (no uniform path) offers no such step. With constant k the step is told
// the one inverse diagonal off the boundary.
TEST(MultigridCuda, SmoothingStepsInTheApplysPass) {
  TRELLIS_SKIP_UNLESS_CUDA();
  struct Shape {
    std::vector<std::int32_t> cells;
    bool variable_k;
  };
  const std::vector<Shape> shapes = {
      {{64}, true}, {{32, 24}, true}, {{24, 16}, false}, {{16, 16, 16}, true}, {{16, 12, 20}, false}};
  const BilinearForm diffusion = inner_plus(Coefficient{0} * grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  const BilinearForm poisson = inner_plus(grad_minus(TrialFunction{}), grad_minus(TestFunction{}));
  std::uint64_t seed = 500;
  for (const Shape& shape : shapes) {
    const Mesh mesh = make_mesh(shape.cells, Kind::uniform);
    const std::string what = std::to_string(mesh.nodes()) + " nodes" + (shape.variable_k ? ", variable k" : "");
    const BilinearForm& form = shape.variable_k ? diffusion : poisson;
    const Problem problem = make_problem(mesh, form, {boundary_marker(mesh)}, shape.variable_k, seed += 10);
    // The k the problem's matrix was filled with (make_problem's).
    const auto n = static_cast<std::size_t>(mesh.nodes());
    std::vector<double> k = random_vector<double>(n, seed);
    for (double& value : k) value = shape.variable_k ? 1.5 + 0.5 * value : 1.0;
    Coefficients<double> host_coefficients(mesh, 2);
    host_coefficients.set(0, std::span<const double>(k));
    const DeviceCoefficients<double> coefficients(host_coefficients);
    const MatrixFreeOperator<double> matrix_free(mesh, form, {boundary_marker(mesh)}, {.symmetrize = true});
    // From the matrix alone: no Kronecker bands on the finest level, whose
    // residuals then come from the operator.
    const Multigrid<double> mg(mesh, problem.a.matrix, problem.constrained, {}, Backend::cuda);
    const DeviceLinearOperator<double> one_pass = matrix_free.device_operator(coefficients);
    ASSERT_TRUE(one_pass.smoothing_step) << what;
    ASSERT_TRUE(one_pass.residual) << what;
    std::int32_t steps_in_one_pass = 0;
    std::int32_t residuals_in_one_pass = 0;
    DeviceLinearOperator<double> counted = one_pass;
    // Constant k on equal cells: one D^-1 off the boundary, known to the
    // step, which then leaves the vector alone there (same bits).
    std::int32_t steps_with_interior_known = 0;
    counted.smoothing_step = [&](const double* b, const double* x, double alpha, double beta,
                                 const InverseDiagonalView<double>& inverse, double* d, double* x_out, Stream stream) {
      const bool done = one_pass.smoothing_step(b, x, alpha, beta, inverse, d, x_out, stream);
      steps_in_one_pass += done ? 1 : 0;
      steps_with_interior_known += done && inverse.interior_known ? 1 : 0;
      return done;
    };
    counted.residual = [&](const double* b, const double* x, double* r, Stream stream) {
      const bool done = one_pass.residual(b, x, r, stream);
      residuals_in_one_pass += done ? 1 : 0;
      return done;
    };
    DeviceLinearOperator<double> two_passes = one_pass;
    two_passes.smoothing_step = nullptr;
    two_passes.residual = nullptr;
    std::vector<double> x_one, x_two, x_csr;
    const SolverOptions options{.relative_tolerance = 1e-10, .max_iterations = 60};
    const SolveResult one = device_mgcg(counted, mg, problem.b, x_one, options);
    const SolveResult two = device_mgcg(two_passes, mg, problem.b, x_two, options);
    ASSERT_TRUE(one.converged) << what << ": " << one.stopped_because;
    EXPECT_GT(steps_in_one_pass, 0) << what;
    EXPECT_EQ(steps_with_interior_known, shape.variable_k ? 0 : steps_in_one_pass) << what;
    EXPECT_GT(residuals_in_one_pass, 0) << what;
    EXPECT_EQ(one.iterations, two.iterations) << what;
    EXPECT_EQ(one.final_residual, two.final_residual) << what;
    EXPECT_EQ(x_one, x_two) << what;
    device_mgcg(mg.device_operator(), mg, problem.b, x_csr, options);
    EXPECT_LE(relative_difference(x_one, x_csr), 1e-8) << what;
    if (shape.variable_k) continue;
    // With the form, constant k gives the finest level Kronecker bands; the
    // operator's passes are taken over them.
    const Multigrid<double> banded(mesh, form, problem.a.matrix, problem.constrained, {}, Backend::cuda);
    ASSERT_TRUE(banded.coarse_by_axes()) << what;
    steps_in_one_pass = 0;
    steps_with_interior_known = 0;
    residuals_in_one_pass = 0;
    std::vector<double> x_banded;
    const SolveResult over_bands = device_mgcg(counted, banded, problem.b, x_banded, options);
    ASSERT_TRUE(over_bands.converged) << what << ": " << over_bands.stopped_because;
    EXPECT_GT(steps_in_one_pass, 0) << what;
    EXPECT_EQ(steps_with_interior_known, steps_in_one_pass) << what;
    EXPECT_GT(residuals_in_one_pass, 0) << what;
    EXPECT_LE(relative_difference(x_banded, x_csr), 1e-8) << what;
  }
  const Mesh graded = make_mesh({16, 16}, Kind::graded);
  const MatrixFreeOperator<double> stretched(graded, poisson, {boundary_marker(graded)}, {.symmetrize = true});
  const DeviceCoefficients<double> none(Coefficients<double>(graded, 0));
  EXPECT_FALSE(stretched.device_operator(none).smoothing_step);
}

TEST(MultigridCuda, DeviceVectors) {
  TRELLIS_SKIP_UNLESS_CUDA();
  // Square cells, where a cycle contracts fast (on a graded 24x16x8 mesh 60
  // cycles reached 6e-8 of the 2.5e-8 asked).
  const Problem problem = make_problem(make_mesh({16, 16, 16}, Kind::uniform, 0, true), true, 73);
  const Multigrid<double> mg(problem.mesh, problem.a.matrix, problem.constrained, {}, Backend::cuda);
  const Multigrid<double> ref(problem.mesh, problem.a.matrix, problem.constrained, {}, Backend::reference);
  const auto n = problem.b.size();
  const DeviceArray<double> b = DeviceArray<double>::from_host(problem.b);
  DeviceArray<double> x(n);
  x.fill_zero();
  const SolverOptions options{.relative_tolerance = 1e-9, .max_iterations = 60};
  const SolveResult cycles = mg_solve<double>(mg, b, x, options);
  std::vector<double> x_ref(n, 0.0);
  const SolveResult expected = mg_solve<double>(ref, problem.b, x_ref, options);
  ASSERT_TRUE(cycles.converged) << cycles.stopped_because;
  EXPECT_NEAR(cycles.iterations, expected.iterations, 1);
  ASSERT_EQ(cycles.residual_history.size(), static_cast<std::size_t>(cycles.iterations) + 1);
  for (std::size_t k = 0; k < std::min(cycles.residual_history.size(), expected.residual_history.size()); ++k) {
    EXPECT_NEAR(cycles.residual_history[k], expected.residual_history[k], 1e-9 * expected.residual_history[0]);
  }
  EXPECT_LE(relative_difference(x.to_host(), x_ref), 1e-7);

  x.fill_zero();
  const SolveResult krylov = mgcg<double>(mg.device_operator(), mg, b, x, options);
  ASSERT_TRUE(krylov.converged) << krylov.stopped_because;
  EXPECT_LE(krylov.iterations, 16);
  EXPECT_LE(relative_difference(x.to_host(), x_ref), 1e-7);

  const Multigrid<double> host(problem.mesh, problem.a.matrix, problem.constrained, {}, Backend::cpu);
  EXPECT_THROW(mg_solve<double>(host, b, x, options), UsageError);
  EXPECT_THROW(host.device_operator(), UsageError);
  DeviceArray<double> short_x(5);
  EXPECT_THROW(mg_solve<double>(mg, b, short_x, options), UsageError);
}

// The worked examples with --solver mg and mgcg: the errors of CG's
// solution, iteration counts flat over the meshes, the heat hierarchy
// refilled every step; convection with cycles and with BiCGStab; cuda refused.
TEST(MultigridProblems, StudiesSolveWithMultigrid) {
  ProblemOptions options;
  options.dim = 2;
  options.cells = 8;
  options.levels = 3;
  options.backend = Backend::cpu;
  const ConvergenceStudy cg_study = poisson_study(options);
  for (const LinearSolver solver : {LinearSolver::mg, LinearSolver::mgcg}) {
    options.solver = solver;
    const ConvergenceStudy study = poisson_study(options);
    ASSERT_EQ(study.rows.size(), 3u);
    for (std::size_t i = 0; i < study.rows.size(); ++i) {
      EXPECT_NEAR(study.rows[i].error_h, cg_study.rows[i].error_h, 1e-3 * cg_study.rows[i].error_h);
      EXPECT_LE(study.rows[i].iterations, 10);
      EXPECT_LE(std::abs(study.rows[i].iterations - study.rows[0].iterations), 1);
    }
    ProblemOptions heat_options = options;
    heat_options.cells = 4;
    heat_options.levels = 2;
    const ConvergenceStudy heat = heat_study(heat_options);
    EXPECT_LT(heat.rows.back().error_h, heat.rows.front().error_h / 3);
    EXPECT_LE(heat.rows.back().iterations, 8 * heat.rows.back().steps);
  }
  for (const LinearSolver solver : {LinearSolver::mg, LinearSolver::mgcg}) {
    options.solver = solver;  // mgcg: BiCGStab with the cycle
    EXPECT_LT(convection_diffusion_study(options).rows.back().iterations, 12);
  }
  options.backend = Backend::cuda;
  if (!cuda_usable()) {
    EXPECT_THROW(poisson_study(options), BackendUnavailable);
    return;
  }
  // On the device: the cpu study's errors and iteration counts.
  for (const LinearSolver solver : {LinearSolver::mg, LinearSolver::mgcg}) {
    options.solver = solver;
    options.backend = Backend::cpu;
    const ConvergenceStudy cpu_study = poisson_study(options);
    options.backend = Backend::cuda;
    const ConvergenceStudy study = poisson_study(options);
    EXPECT_EQ(study.backend, Backend::cuda);
    ASSERT_EQ(study.rows.size(), cpu_study.rows.size());
    for (std::size_t i = 0; i < study.rows.size(); ++i) {
      EXPECT_NEAR(study.rows[i].error_h, cpu_study.rows[i].error_h, 1e-3 * cpu_study.rows[i].error_h);
      EXPECT_NEAR(study.rows[i].iterations, cpu_study.rows[i].iterations, 1);
    }
    EXPECT_LT(convection_diffusion_study(options).rows.back().iterations, 12);
    ProblemOptions heat_options = options;
    heat_options.cells = 4;
    heat_options.levels = 2;
    const ConvergenceStudy heat = heat_study(heat_options);
    EXPECT_LT(heat.rows.back().error_h, heat.rows.front().error_h / 3);
  }
}

// A study row says where its solve went: the phases in order, the
// hierarchy's among them, summing to no more than the solve's time.
TEST(MultigridProblems, RowsNameWhereTheSolveWent) {
  ProblemOptions options;
  options.dim = 2;
  options.cells = 16;
  options.levels = 1;
  options.solver = LinearSolver::mgcg;
  for (const Backend backend : trellis::testing::backends_under_test()) {
    if (backend == Backend::cuda && !cuda_usable()) continue;
    options.backend = backend;
    const ConvergenceRow row = poisson_study(options).rows.front();
    std::vector<std::string> names;
    double sum_ms = 0;
    for (const TimedPhase& phase : row.phases) {
      names.push_back(phase.name);
      EXPECT_GE(phase.ms, 0) << phase.name;
      sum_ms += phase.ms;
    }
    std::vector<std::string> expected = {"fill and right-hand side",    "hierarchy: levels",
                                         "hierarchy: coarse operators", "hierarchy: smoothers",
                                         "hierarchy: coarse solve",     "iterations"};
    if (backend == Backend::cuda) {
      expected = {"data to the device",   "fill and right-hand side",
                  "hierarchy: levels",    "hierarchy: coarse operators and transfers",
                  "hierarchy: smoothers", "hierarchy: coarse solve and work vectors",
                  "iterations",           "solution to the host"};
    }
    EXPECT_EQ(names, expected) << to_string(backend);
    EXPECT_LE(sum_ms, row.solve_seconds * 1e3 + 1e-6) << to_string(backend);
    double hierarchy_ms = 0;
    for (const TimedPhase& phase : row.phases) {
      if (phase.name.starts_with("hierarchy: ")) hierarchy_ms += phase.ms;
    }
    EXPECT_LE(hierarchy_ms, row.hierarchy_seconds * 1e3 + 1e-6) << to_string(backend);
  }
}

// float hierarchies work too (the cycle in float, the sums of setup in double).
TEST(MultigridFloat, SolvesToFloatAccuracy) {
  const Problem problem = make_problem(make_mesh({32, 32}, Kind::uniform), true, 81);
  CsrMatrix<float> a;
  a.rows = a.cols = problem.a.matrix.rows;
  a.row_offsets = problem.a.matrix.row_offsets;
  a.col_indices = problem.a.matrix.col_indices;
  a.values.assign(problem.a.matrix.values.begin(), problem.a.matrix.values.end());
  const Multigrid<float> mg(problem.mesh, a, problem.constrained, {}, Backend::cpu);
  const std::vector<float> b(problem.b.begin(), problem.b.end());
  std::vector<float> x(b.size(), 0.0f);
  const SolveResult result = mg_solve<float>(mg, b, x, {.relative_tolerance = 1e-5, .max_iterations = 20});
  EXPECT_TRUE(result.converged) << result.stopped_because;
  EXPECT_LE(result.iterations, 10);
}

}  // namespace
}  // namespace trellis::grid
