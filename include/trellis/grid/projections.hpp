// Projections of functions onto grid functions (Bramble's R_h and avg_h).
// f is called from several threads at once, so it must be safe to call
// concurrently; an exception it throws is rethrown to the caller.
#pragma once

#include <functional>
#include <memory>

#include "trellis/grid/grid_function.hpp"
#include "trellis/grid/mesh.hpp"

namespace trellis::grid {

// A function of a point of the domain (unused coordinates 0).
using Function = std::function<double(const Point&)>;

// R_h f: f at every node.
GridFunction<double> restrict_to_nodes(std::shared_ptr<const Mesh> mesh, const Function& f);

// avg_h f: the mean of f over each node's control volume, the tensor product
// of [x_{i-1/2}, x_{i+1/2}] clipped to the domain, by tensor Gauss-Legendre
// quadrature with points_per_axis points per axis (1..32; exact for
// polynomials of degree up to 2 * points_per_axis - 1 in each variable).
GridFunction<double> cell_average(std::shared_ptr<const Mesh> mesh, const Function& f, int points_per_axis = 3);

}  // namespace trellis::grid
