// R_h and avg_h, OpenMP over nodes.
#include "trellis/grid/projections.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <exception>
#include <numbers>
#include <vector>

#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

constexpr int kMaxQuadraturePoints = 32;

// Gauss-Legendre rule on [0, 1]: points ascending, weights summing to 1.
struct QuadratureRule {
  std::vector<double> points;
  std::vector<double> weights;
};

// Newton's iteration on the Legendre polynomial P_n from the usual cosine
// guesses; P_n and its derivative by the three-term recurrence.
QuadratureRule gauss_legendre(int n) {
  QuadratureRule rule;
  rule.points.resize(static_cast<std::size_t>(n));
  rule.weights.resize(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    double x = std::cos(std::numbers::pi * (k + 0.75) / (n + 0.5));
    double derivative = 1;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p_previous = 1;
      double p = x;
      for (int j = 2; j <= n; ++j) {
        const double p_next = ((2 * j - 1) * x * p - (j - 1) * p_previous) / j;
        p_previous = p;
        p = p_next;
      }
      derivative = n * (x * p - p_previous) / (x * x - 1);
      const double step = p / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    // x_k descends on [-1, 1]; t = (1 - x) / 2 ascends on [0, 1].
    rule.points[static_cast<std::size_t>(k)] = 0.5 * (1 - x);
    rule.weights[static_cast<std::size_t>(k)] = 1.0 / ((1 - x * x) * derivative * derivative);
  }
  return rule;
}

// Runs body(node) for every node on all threads; the first exception thrown
// is rethrown here once the loop is done.
template <typename Body>
void for_each_node(std::int32_t nodes, Body body) {
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int32_t node = 0; node < nodes; ++node) {
    try {
      body(node);
    } catch (...) {
#pragma omp critical(trellis_grid_projection_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

const Mesh& checked(const std::shared_ptr<const Mesh>& mesh, const char* what) {
  if (mesh == nullptr) throw UsageError(fmt::format("{}: the mesh is a null pointer", what));
  return *mesh;
}

// Node i's control volume on one axis: [x_{i-1/2}, x_{i+1/2}] clipped.
std::array<double, 2> control_interval(const Mesh1D& axis, std::int32_t i) {
  const double lo = i == 0 ? axis.point(0) : 0.5 * (axis.point(i - 1) + axis.point(i));
  const double hi = i == axis.cells() ? axis.point(i) : 0.5 * (axis.point(i) + axis.point(i + 1));
  return {lo, hi};
}

}  // namespace

GridFunction<double> restrict_to_nodes(std::shared_ptr<const Mesh> mesh, const Function& f) {
  const Mesh& m = checked(mesh, "restrict_to_nodes");
  GridFunction<double> result(mesh);
  std::span<double> values = result.values();
  for_each_node(m.nodes(), [&](std::int32_t node) { values[static_cast<std::size_t>(node)] = f(m.point(node)); });
  return result;
}

GridFunction<double> cell_average(std::shared_ptr<const Mesh> mesh, const Function& f, int points_per_axis) {
  const Mesh& m = checked(mesh, "cell_average");
  if (points_per_axis < 1 || points_per_axis > kMaxQuadraturePoints) {
    throw UsageError(
        fmt::format("cell_average: points_per_axis must be in 1..{}, got {}", kMaxQuadraturePoints, points_per_axis));
  }
  const QuadratureRule rule = gauss_legendre(points_per_axis);
  const int dim = m.dim();
  const int q = points_per_axis;
  const int q1 = dim > 1 ? q : 1;
  const int q2 = dim > 2 ? q : 1;
  GridFunction<double> result(mesh);
  std::span<double> values = result.values();
  for_each_node(m.nodes(), [&](std::int32_t node) {
    const MultiIndex index = m.multi_index(node);
    std::array<std::array<double, 2>, 3> box{};
    for (int a = 0; a < dim; ++a) {
      box[static_cast<std::size_t>(a)] = control_interval(m.axis(a), index[static_cast<std::size_t>(a)]);
    }
    auto coordinate = [&](int a, int k) {
      const auto& [lo, hi] = box[static_cast<std::size_t>(a)];
      return lo + (hi - lo) * rule.points[static_cast<std::size_t>(k)];
    };
    double mean = 0;
    for (int k2 = 0; k2 < q2; ++k2) {
      for (int k1 = 0; k1 < q1; ++k1) {
        for (int k0 = 0; k0 < q; ++k0) {
          Point x{coordinate(0, k0), dim > 1 ? coordinate(1, k1) : 0.0, dim > 2 ? coordinate(2, k2) : 0.0};
          double weight = rule.weights[static_cast<std::size_t>(k0)];
          if (dim > 1) weight *= rule.weights[static_cast<std::size_t>(k1)];
          if (dim > 2) weight *= rule.weights[static_cast<std::size_t>(k2)];
          mean += weight * f(x);
        }
      }
    }
    values[static_cast<std::size_t>(node)] = mean;
  });
  return result;
}

}  // namespace trellis::grid
