// Meshes: construction with validation, refinement, spacings, node numbering
// and markers (conventions in mesh.hpp).
#include "trellis/grid/mesh.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

constexpr std::int64_t kMaxNodes = std::numeric_limits<std::int32_t>::max();

void check_interval(const char* what, double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) {
    throw UsageError(fmt::format("{}: the interval [{}, {}] must have finite ends", what, a, b));
  }
  if (!(a < b)) throw UsageError(fmt::format("{}: the interval [{}, {}] needs a < b", what, a, b));
}

void check_cells(const char* what, std::int32_t cells) {
  if (cells < 1) throw UsageError(fmt::format("{}: cells must be at least 1, got {}", what, cells));
  if (static_cast<std::int64_t>(cells) + 1 > kMaxNodes) {
    throw UsageError(fmt::format("{}: {} cells give more than 2^31-1 nodes", what, cells));
  }
}

// Throws UsageError describing the first problem with a list of mesh points.
void validate_points(const std::vector<double>& points) {
  if (points.empty()) throw UsageError("a mesh needs at least two points, got none");
  if (points.size() < 2) throw UsageError(fmt::format("a mesh needs at least two points, got {}", points.size()));
  if (points.size() > static_cast<std::size_t>(kMaxNodes)) {
    throw UsageError(fmt::format("a mesh of {} points exceeds 2^31-1 nodes", points.size()));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(points[i])) throw UsageError(fmt::format("mesh point x[{}] = {} is not finite", i, points[i]));
    if (i > 0 && !(points[i] > points[i - 1])) {
      throw UsageError(fmt::format("mesh points must be strictly increasing: x[{}] = {} <= x[{}] = {}", i, points[i],
                                   i - 1, points[i - 1]));
    }
  }
}

}  // namespace

Mesh1D Mesh1D::uniform(double a, double b, std::int32_t cells) {
  check_interval("uniform mesh", a, b);
  check_cells("uniform mesh", cells);
  std::vector<double> points(static_cast<std::size_t>(cells) + 1);
  for (std::int32_t i = 0; i < cells; ++i) points[static_cast<std::size_t>(i)] = a + (b - a) * i / cells;
  points.back() = b;  // exactly, whatever the rounding above
  validate_points(points);
  return Mesh1D(std::move(points), (b - a) / cells);
}

Mesh1D Mesh1D::from_points(std::vector<double> points) {
  validate_points(points);
  return Mesh1D(std::move(points));
}

Mesh1D Mesh1D::graded(double a, double b, std::int32_t cells, double ratio) {
  check_interval("graded mesh", a, b);
  check_cells("graded mesh", cells);
  if (!std::isfinite(ratio) || !(ratio > 0)) {
    throw UsageError(fmt::format("graded mesh: the ratio must be positive and finite, got {}", ratio));
  }
  if (ratio == 1.0) return uniform(a, b, cells);
  // x_i = a + (b - a) (r^i - 1) / (r^N - 1); expm1 keeps ratios near 1 accurate.
  const double log_ratio = std::log(ratio);
  const double total = std::expm1(cells * log_ratio);
  std::vector<double> points(static_cast<std::size_t>(cells) + 1);
  for (std::int32_t i = 0; i < cells; ++i) {
    points[static_cast<std::size_t>(i)] = a + (b - a) * (std::expm1(i * log_ratio) / total);
  }
  points.back() = b;
  // Extreme ratios may round points together; from_points names them.
  return from_points(std::move(points));
}

// x_i = a + (i + jitter * (u_i - 1/2)) * (b - a) / cells for 0 < i < cells,
// where u_i = (r_i >> 11) * 2^-53 and r_1, r_2, ... are the successive
// outputs of std::mt19937_64(seed). The ends stay a and b. Each point moves
// by less than half a cell, so every spacing lies in ((1 - jitter) h, (1 + jitter) h).
Mesh1D Mesh1D::random(double a, double b, std::int32_t cells, std::uint64_t seed, double jitter) {
  check_interval("random mesh", a, b);
  check_cells("random mesh", cells);
  if (!(jitter >= 0.0 && jitter < 1.0)) {
    throw UsageError(fmt::format("random mesh: jitter must be in [0, 1), got {}", jitter));
  }
  std::mt19937_64 rng(seed);
  const double h = (b - a) / cells;
  std::vector<double> points(static_cast<std::size_t>(cells) + 1);
  points.front() = a;
  for (std::int32_t i = 1; i < cells; ++i) {
    const double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    points[static_cast<std::size_t>(i)] = a + (i + jitter * (unit - 0.5)) * h;
  }
  points.back() = b;
  return from_points(std::move(points));
}

Mesh1D Mesh1D::refined() const {
  if (2 * static_cast<std::int64_t>(cells()) + 1 > kMaxNodes) {
    throw UsageError(fmt::format("refining a mesh of {} cells exceeds 2^31-1 nodes", cells()));
  }
  std::vector<double> fine;
  fine.reserve(2 * points_.size() - 1);
  for (std::size_t i = 0; i + 1 < points_.size(); ++i) {
    fine.push_back(points_[i]);
    fine.push_back(0.5 * (points_[i] + points_[i + 1]));
  }
  fine.push_back(points_.back());
  validate_points(fine);                                   // a cell one ulp wide cannot be halved
  return Mesh1D(std::move(fine), 0.5 * uniform_spacing_);  // halving is exact
}

double Mesh1D::spacing(std::int32_t i) const {
  const std::int32_t n = cells();
  if (i < 0 || i > n + 1) throw UsageError(fmt::format("spacing index {} is outside 0..{}", i, n + 1));
  if (is_uniform()) return uniform_spacing_;
  const std::int32_t cell = std::clamp(i, 1, n);  // h_0 := h_1, h_{N+1} := h_N
  return point(cell) - point(cell - 1);
}

double Mesh1D::half_spacing(std::int32_t i) const {
  const std::int32_t n = cells();
  if (i < 0 || i > n) throw UsageError(fmt::format("half spacing index {} is outside 0..{}", i, n));
  if (i == 0) return 0.5 * spacing(1);
  if (i == n) return 0.5 * spacing(n);
  return 0.5 * (spacing(i) + spacing(i + 1));
}

double Mesh1D::max_spacing() const {
  double largest = 0;
  for (std::int32_t i = 1; i <= cells(); ++i) largest = std::max(largest, spacing(i));
  return largest;
}

std::vector<double> Mesh1D::spacings() const {
  std::vector<double> h(static_cast<std::size_t>(cells()) + 2);
  for (std::int32_t i = 0; i <= cells() + 1; ++i) h[static_cast<std::size_t>(i)] = spacing(i);
  return h;
}

std::vector<double> Mesh1D::half_spacings() const {
  std::vector<double> hh(static_cast<std::size_t>(nodes()));
  for (std::int32_t i = 0; i < nodes(); ++i) hh[static_cast<std::size_t>(i)] = half_spacing(i);
  return hh;
}

Mesh::Mesh(std::vector<Mesh1D> axes) : axes_(std::move(axes)) {
  if (axes_.empty() || axes_.size() > 3) {
    throw UsageError(fmt::format("a mesh has one to three axes, got {}", axes_.size()));
  }
  std::int64_t nodes = 1;
  for (const Mesh1D& axis : axes_) {
    nodes *= axis.nodes();
    if (nodes > kMaxNodes) {
      std::string shape;
      for (const Mesh1D& a : axes_) shape += (shape.empty() ? "" : " x ") + std::to_string(a.nodes());
      throw UsageError(fmt::format("a mesh of {} nodes exceeds 2^31-1 nodes", shape));
    }
  }
  nodes_ = static_cast<std::int32_t>(nodes);
}

Mesh Mesh::cube(const Mesh1D& axis, int dim) {
  if (dim < 1 || dim > 3) throw UsageError(fmt::format("a mesh has one to three axes, got {}", dim));
  return Mesh(std::vector<Mesh1D>(static_cast<std::size_t>(dim), axis));
}

std::int32_t Mesh::stride(int a) const noexcept {
  std::int32_t s = 1;
  for (int b = 0; b < a && b < dim(); ++b) s *= extent(b);
  return s;
}

std::int32_t Mesh::index(const MultiIndex& i) const noexcept { return i[0] + extent(0) * (i[1] + extent(1) * i[2]); }

MultiIndex Mesh::multi_index(std::int32_t node) const noexcept {
  const std::int32_t n0 = extent(0);
  const std::int32_t n1 = extent(1);
  return {node % n0, (node / n0) % n1, node / (n0 * n1)};
}

Point Mesh::point(std::int32_t node) const noexcept {
  const MultiIndex i = multi_index(node);
  Point x{0, 0, 0};
  for (int a = 0; a < dim(); ++a) x[static_cast<std::size_t>(a)] = axis(a).point(i[static_cast<std::size_t>(a)]);
  return x;
}

bool Mesh::on_boundary(std::int32_t node) const noexcept {
  const MultiIndex i = multi_index(node);
  for (int a = 0; a < dim(); ++a) {
    const std::int32_t ia = i[static_cast<std::size_t>(a)];
    if (ia == 0 || ia == axis(a).cells()) return true;
  }
  return false;
}

double Mesh::max_spacing() const {
  double largest = 0;
  for (const Mesh1D& axis : axes_) largest = std::max(largest, axis.max_spacing());
  return largest;
}

Mesh Mesh::refined() const {
  std::vector<Mesh1D> fine;
  fine.reserve(axes_.size());
  for (const Mesh1D& axis : axes_) fine.push_back(axis.refined());
  return Mesh(std::move(fine));
}

Marker mark(const Mesh& mesh, std::string name, const std::function<bool(const Point&)>& predicate) {
  Marker marker{std::move(name), {}};
  for (std::int32_t node = 0; node < mesh.nodes(); ++node) {
    if (predicate(mesh.point(node))) marker.nodes.push_back(node);
  }
  return marker;
}

Marker boundary_marker(const Mesh& mesh, std::string name) {
  // Line by line along axis 0 (node order): a line on a face of the other
  // axes lies wholly on the boundary, any other line only at its two ends.
  // Visiting the surface, not every node, keeps this off a setup's clock.
  Marker marker{std::move(name), {}};
  const std::int32_t length = mesh.extent(0);
  const std::int32_t lines = mesh.nodes() / length;
  const auto on_face = [&](int a, std::int32_t index) {
    return a < mesh.dim() && (index == 0 || index == mesh.extent(a) - 1);
  };
  for (std::int32_t line = 0; line < lines; ++line) {
    const std::int32_t first = line * length;
    if (on_face(1, line % mesh.extent(1)) || on_face(2, line / mesh.extent(1))) {
      for (std::int32_t i = 0; i < length; ++i) marker.nodes.push_back(first + i);
    } else {
      marker.nodes.push_back(first);
      if (length > 1) marker.nodes.push_back(first + length - 1);
    }
  }
  return marker;
}

void require_same_mesh(const Mesh& a, const Mesh& b, const char* what) {
  if (&a == &b || a == b) return;
  if (a.nodes() == b.nodes()) {
    throw UsageError(
        fmt::format("{}: operands from different spaces (two different meshes of {} nodes)", what, a.nodes()));
  }
  throw UsageError(
      fmt::format("{}: operands from different spaces (meshes of {} and {} nodes)", what, a.nodes(), b.nodes()));
}

}  // namespace trellis::grid
