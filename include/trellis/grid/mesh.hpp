// Tensor-product meshes in the style of Bramble.jl: a 1-D mesh is a strictly
// increasing list of points x_0 < x_1 < ... < x_N; a D-dimensional mesh
// (D = 1, 2, 3) is the tensor product of D of them. Nodes are numbered with
// axis 0 fastest: node (i, j, k) is i + n0 * (j + n1 * k).
//
// Spacing conventions (the discrete operators and inner products use them):
//   h_i      = x_i - x_{i-1} for 1 <= i <= N; h_0 := h_1 and h_{N+1} := h_N,
//              so differences at the ends are defined (zero extension);
//   hhalf_i  = length of node i's control volume [x_{i-1/2}, x_{i+1/2}]
//              clipped to [x_0, x_N]: (h_i + h_{i+1}) / 2 inside,
//              h_1 / 2 at i = 0 and h_N / 2 at i = N.
// A uniform mesh (Mesh1D::uniform, its refinements, graded with ratio 1) has
// one spacing, h = (b - a) / N, for every i: its points are rounded, and
// their differences would scatter over a few ulps around h.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// Finite differences on tensor-product meshes: meshes, grid functions, operators, forms, assembly and solvers.
namespace trellis::grid {

// A 1-D mesh: strictly increasing points x_0 < ... < x_N.
class Mesh1D {
 public:
  // cells >= 1 equal cells on [a, b], all of spacing (b - a) / cells.
  static Mesh1D uniform(double a, double b, std::int32_t cells);
  // The given points; throws UsageError when there are fewer than two, one is
  // not finite, or they are not strictly increasing (naming the first bad index).
  static Mesh1D from_points(std::vector<double> points);
  // Geometric grading on [a, b]: h_{i+1} = ratio * h_i (ratio > 0, finite).
  static Mesh1D graded(double a, double b, std::int32_t cells, double ratio);
  // Seeded random non-uniform mesh on [a, b]: each interior point of the
  // uniform mesh moved by up to jitter/2 of a cell (0 <= jitter < 1), so
  // neighbouring spacings differ by a bounded factor. Same seed, same mesh.
  static Mesh1D random(double a, double b, std::int32_t cells, std::uint64_t seed, double jitter = 0.5);

  // The midpoint of every cell inserted: twice the cells.
  Mesh1D refined() const;

  // Number of cells, N.
  std::int32_t cells() const noexcept { return static_cast<std::int32_t>(points_.size()) - 1; }
  // Number of points, N + 1.
  std::int32_t nodes() const noexcept { return static_cast<std::int32_t>(points_.size()); }
  // The points x_0 .. x_N.
  const std::vector<double>& points() const noexcept { return points_; }
  // Point x_i.
  double point(std::int32_t i) const { return points_[static_cast<std::size_t>(i)]; }
  // h_i for 0 <= i <= N + 1 (see the conventions above).
  double spacing(std::int32_t i) const;
  // hhalf_i for 0 <= i <= N.
  double half_spacing(std::int32_t i) const;
  // The largest spacing.
  double max_spacing() const;

  // Spacings h_0 .. h_{N+1} and hhalf_0 .. hhalf_N as arrays (for kernels).
  std::vector<double> spacings() const;
  // hhalf_0 .. hhalf_N as an array.
  std::vector<double> half_spacings() const;

  // True for meshes built uniform (see the conventions above).
  bool is_uniform() const noexcept { return uniform_spacing_ > 0; }

  // Equal when the points and the uniform spacing are.
  bool operator==(const Mesh1D& other) const = default;

 private:
  explicit Mesh1D(std::vector<double> points, double uniform_spacing = 0)
      : points_(std::move(points)), uniform_spacing_(uniform_spacing) {}
  std::vector<double> points_;
  double uniform_spacing_ = 0;  // > 0 for uniform meshes: every h_i
};

using Point = std::array<double, 3>;             // unused coordinates are 0
using MultiIndex = std::array<std::int32_t, 3>;  // unused entries are 0

// A tensor-product mesh of one to three Mesh1D axes; nodes numbered axis 0 fastest.
class Mesh {
 public:
  // One to three axes; throws UsageError otherwise or when the node count
  // does not fit 32-bit indices.
  explicit Mesh(std::vector<Mesh1D> axes);
  // The same 1-D mesh on every axis.
  static Mesh cube(const Mesh1D& axis, int dim);

  // Number of axes (1 to 3).
  int dim() const noexcept { return static_cast<int>(axes_.size()); }
  // The 1-D mesh of axis a.
  const Mesh1D& axis(int a) const { return axes_[static_cast<std::size_t>(a)]; }
  // The 1-D meshes of all axes.
  const std::vector<Mesh1D>& axes() const noexcept { return axes_; }
  // Nodes along axis a (1 for a >= dim()).
  std::int32_t extent(int a) const noexcept { return a < dim() ? axes_[static_cast<std::size_t>(a)].nodes() : 1; }
  // Distance in node numbers between neighbours along axis a.
  std::int32_t stride(int a) const noexcept;
  // Number of nodes (the product of the extents).
  std::int32_t nodes() const noexcept { return nodes_; }

  // Node number of a multi-index (unused entries 0).
  std::int32_t index(const MultiIndex& i) const noexcept;
  // Multi-index of a node (unused entries 0).
  MultiIndex multi_index(std::int32_t node) const noexcept;
  // Coordinates of a node (unused coordinates 0).
  Point point(std::int32_t node) const noexcept;
  // True when any index is 0 or N on its axis.
  bool on_boundary(std::int32_t node) const noexcept;
  // Largest spacing over all axes.
  double max_spacing() const;

  // Every axis refined.
  Mesh refined() const;

  // Equal when every axis is.
  bool operator==(const Mesh& other) const { return axes_ == other.axes_; }

 private:
  std::vector<Mesh1D> axes_;
  std::int32_t nodes_ = 0;
};

// A named set of nodes (ascending ids), e.g. the Dirichlet boundary.
struct Marker {
  std::string name;                 // what the set is called
  std::vector<std::int32_t> nodes;  // node numbers, ascending
};

// Nodes whose coordinates satisfy the predicate.
Marker mark(const Mesh& mesh, std::string name, const std::function<bool(const Point&)>& predicate);
// Every boundary node.
Marker boundary_marker(const Mesh& mesh, std::string name = "boundary");

// Throws UsageError naming both meshes' node counts when a and b differ
// ("operands from different spaces"); what names the operation.
void require_same_mesh(const Mesh& a, const Mesh& b, const char* what);

}  // namespace trellis::grid
