// Line relaxation for the multigrid smoother (Smoother::line). Along one
// axis of a level's tensor mesh, the tridiagonal part of its matrix on
// every line of nodes (a_{i,i-s}, a_ii and a_{i,i+s}, s the axis's stride,
// entries of one row summed in storage order) is factored once without
// pivoting (Thomas) and solved for all lines at once. Constrained rows get
// a zero inverse pivot, so their correction is 0 whatever the residual.
// The host backends loop over one line's steps (multigrid_lines.cpp: the
// reference in order, cpu over threads) and the cuda kernels
// (cuda/multigrid_setup.cu, cuda/multigrid.cu) repeat their operations in
// the same order without fused multiply-adds, so every backend gets the
// same bits from the same matrix.
#pragma once

#include <cstdint>
#include <vector>

#include "multigrid_smoother.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/csr.hpp"

namespace trellis::grid::detail {

// One axis's factors: per node, the entry below the diagonal on its line
// (0 at a line's first node), the eliminated entry above it (a_{i,i+s}
// over the pivot) and the inverse pivot (0 on constrained rows).
template <typename T>
struct LineFactors {
  std::int32_t stride = 1;  // between neighbours on a line
  std::int32_t length = 1;  // nodes on a line
  std::int32_t lines = 0;   // lines of the level
  std::vector<T> lower, upper, inverse_pivot;
};

// The first node of line `line` along an axis of `stride` and `length`
// (the cuda kernels' too).
TRELLIS_HOST_DEVICE inline std::int32_t line_start(std::int32_t line, std::int32_t stride, std::int32_t length) {
  return line / stride * stride * length + line % stride;
}

// The factors of `a` along an axis (a tensor mesh's nodes, `stride` and
// `length` that axis's). Returns the first free row whose pivot is zero or
// not finite through bad_row (else -1).
template <typename T>
LineFactors<T> factor_lines(const CsrView<T>& a, const std::uint8_t* constrained, std::int32_t stride,
                            std::int32_t length, std::int32_t& bad_row);

// e = T^-1 r on every line (T the factored tridiagonal part), on the
// reference's loop or the cpu's threads.
template <typename T>
void solve_lines(const LineFactors<T>& factors, const T* r, T* e, Backend backend);

}  // namespace trellis::grid::detail
