// Writing a form with trellis: -div(k grad u) + c u = f on [0,1]^2 with a
// variable k, Dirichlet data on the boundary, on a seeded non-uniform mesh.
// Assembled once, refilled with a new k, solved with CG; prints the error
// against the exact solution u = sin(pi x) sin(pi y) + x.
//
//   build/bin/poisson_form [cells]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <vector>

#include "trellis/grid/assembly.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/norms.hpp"
#include "trellis/grid/projections.hpp"
#include "trellis/grid/solvers.hpp"

using namespace trellis;
using namespace trellis::grid;

int main(int argc, char** argv) {
  const int cells = argc > 1 ? std::atoi(argv[1]) : 64;
  if (cells < 2) {
    std::fprintf(stderr, "poisson_form: cells must be at least 2\n");
    return 2;
  }
  constexpr double pi = std::numbers::pi;
  auto mesh = std::make_shared<const Mesh>(Mesh::cube(Mesh1D::random(0.0, 1.0, cells, 42), 2));

  // The form: sum over axes of inner_plus(k_a D-_a u, D-_a v) + inner_h(c u, v) = inner_h(avg_h f, v).
  // D-_a u at node i approximates the derivative at the staggered point
  // x_{i-1/2}, so k_a holds k there (node values of k would cost an order).
  TrialFunction u;
  TestFunction v;
  const Coefficient kx{0}, ky{1}, c{2}, f{3};
  const BilinearForm a = inner_plus(kx * backward_difference(0)(u), backward_difference(0)(v), 0) +
                         inner_plus(ky * backward_difference(1)(u), backward_difference(1)(v), 1) + inner_h(c * u, v);
  const LinearForm l = inner_h(f, v);
  Assembly<double> assembly(*mesh, a, l, {boundary_marker(*mesh)}, {.symmetrize = true});

  // k = 1 + x y, c = 2; f = -div(k grad u) + c u for the exact u.
  auto exact = [&](const Point& p) { return std::sin(pi * p[0]) * std::sin(pi * p[1]) + p[0]; };
  auto rhs = [&](const Point& p) {
    const double x = p[0], y = p[1];
    const double kk = 1 + x * y;
    const double ux = pi * std::cos(pi * x) * std::sin(pi * y) + 1, uy = pi * std::sin(pi * x) * std::cos(pi * y);
    const double lap = -2 * pi * pi * std::sin(pi * x) * std::sin(pi * y);
    return -(kk * lap + y * ux + x * uy) + 2 * exact(p);
  };
  auto k = [](double x, double y) { return 1 + x * y; };
  std::vector<double> k_x(static_cast<std::size_t>(mesh->nodes())), k_y(k_x.size());
  for (std::int32_t node = 0; node < mesh->nodes(); ++node) {
    const MultiIndex i = mesh->multi_index(node);
    const double x = mesh->axis(0).point(i[0]), y = mesh->axis(1).point(i[1]);
    const double x_half = i[0] > 0 ? (x + mesh->axis(0).point(i[0] - 1)) / 2 : x;
    const double y_half = i[1] > 0 ? (y + mesh->axis(1).point(i[1] - 1)) / 2 : y;
    k_x[static_cast<std::size_t>(node)] = k(x_half, y);
    k_y[static_cast<std::size_t>(node)] = k(x, y_half);
  }
  Coefficients<double> coefficients(*mesh, 4);
  coefficients.set(0, std::span<const double>(k_x));
  coefficients.set(1, std::span<const double>(k_y));
  coefficients.set(2, 2.0);
  coefficients.set(3, cell_average(mesh, rhs).values());

  const GridFunction<double> exact_values = restrict_to_nodes(mesh, exact);
  AssembledMatrix<double> system = assembly.new_matrix();
  assembly.refill(coefficients, system, Backend::cpu);
  std::vector<double> b(static_cast<std::size_t>(mesh->nodes()));
  const std::vector<double> g(exact_values.values().begin(), exact_values.values().end());
  assembly.assemble_rhs(coefficients, g, system, b, Backend::cpu);

  std::vector<double> x(b.size(), 0.0);
  const SolveResult result = cg<double>(csr_operator(system.matrix), b, x, {.relative_tolerance = 1e-10});
  std::vector<double> error(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) error[i] = g[i] - x[i];
  std::printf("%d x %d cells, %d unknowns, %lld matrix entries, CG %s in %d iterations\n", cells, cells, mesh->nodes(),
              static_cast<long long>(system.matrix.nnz()), result.converged ? "converged" : "stopped",
              result.iterations);
  std::printf("error: normh %.3e, discrete H1 %.3e, max %.3e\n", norm_h<double>(*mesh, error),
              h1_norm<double>(*mesh, error), max_norm<double>(error));
  return result.converged ? 0 : 1;
}
