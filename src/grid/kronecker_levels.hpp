// Coarse operators of separable constant-coefficient forms, axis by axis.
//
// A form whose every term acts along one axis with constant coefficients
// (separable_form.hpp) has, on the nodes off its constrained faces, the
// matrix A = sum_a F_a0 (x) F_a1 (x) F_a2: F_aa the form's 1-D stencil along
// a, F_ab (b != a) the diagonal of control-volume lengths along b. When the
// constrained nodes are whole faces of the mesh, P is the tensor product of
// the 1-D interpolations with the constrained indices left out, so
//   R A P = sum_a (P_0^T F_a0 P_0) (x) (P_1^T F_a1 P_1) (x) (P_2^T F_a2 P_2):
// every coarse operator is a sum of Kronecker products of banded 1-D
// matrices (reach at most 2), formed in microseconds and applied without
// being stored. Multigrid uses this where it applies (multigrid.hpp); the
// entries equal the 3-D Galerkin product's to rounding, not bitwise.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "multigrid_transfer.hpp"
#include "trellis/core/csr.hpp"
#include "trellis/grid/form.hpp"
#include "trellis/grid/mesh.hpp"

#if defined(__CUDACC__)
#define TRELLIS_KRONECKER_HD __host__ __device__
#else
#define TRELLIS_KRONECKER_HD
#endif

namespace trellis::grid::detail {

// A banded 1-D matrix: entry (i, i + o), |o| <= reach, at (o + reach) * extent + i.
struct Band {
  std::int32_t reach = 0;
  std::int32_t extent = 1;
  std::vector<double> values;
  std::vector<std::uint8_t> present;  // structurally non-zero (a product reached it)
};

// sum over terms of the Kronecker product of one band per axis (axis 0
// fastest in the node numbering), on the nodes whose indices are free along
// every axis; rows and columns of constrained nodes are empty in the bands.
struct KroneckerOperator {
  std::array<std::int32_t, 3> extents{1, 1, 1};
  std::vector<std::array<Band, 3>> terms;
  std::array<std::vector<std::uint8_t>, 3> constrained;  // per axis and index: the face there is constrained
  std::int32_t reach() const;                            // the largest band reach
  std::int32_t nodes() const { return extents[0] * extents[1] * extents[2]; }
};

// The operator of form's matrix on mesh off the constrained nodes (ascending
// node numbers); empty unless the form is separable with constant
// coefficients and the constrained nodes are exactly a union of whole faces.
std::optional<KroneckerOperator> separable_operator(const Mesh& mesh, const BilinearForm& form,
                                                    const std::vector<std::int32_t>& constrained_nodes);

// R A P for the next coarser level: axes[a] the 1-D interpolation of every
// fine index of axis a (multigrid_transfer.hpp), coarse the coarse extents.
KroneckerOperator coarsened(const KroneckerOperator& fine, const std::array<std::vector<AxisWeights>, 3>& axes,
                            const std::array<std::int32_t, 3>& coarse);

// The operator as CSR: its free rows (columns ascending, the structurally
// non-zero entries), an identity row on each constrained node.
template <typename T>
CsrMatrix<T> to_csr(const KroneckerOperator& op);

// Whether a's free rows, applied to a seeded vector (probe) that is zero on
// the constrained nodes, give the operator's within kDescribesTolerance of
// the largest: the operator is then a's free block, as the caller claims
// (a wrong form or matrix differs by far more than rounding).
template <typename T>
bool describes(const KroneckerOperator& op, const CsrMatrix<T>& a);
template <typename T>
inline constexpr double kDescribesTolerance = 1000 * static_cast<double>(std::numeric_limits<T>::epsilon());

// The operator as the kernels read it: bands in T, Reach the largest reach.
inline constexpr int kMaxKroneckerTerms = 3;
template <typename T>
struct KroneckerView {
  std::int32_t extents[3] = {1, 1, 1};
  std::int32_t terms = 0;
  const T* band[kMaxKroneckerTerms][3] = {};  // (o + reach) * extent + i
  std::int32_t reach[kMaxKroneckerTerms][3] = {};
  const std::uint8_t* constrained[3] = {};  // per axis and index
};

// The probe's value at a node: splitmix64 of its number, in [-0.5, 0.5).
TRELLIS_KRONECKER_HD inline double probe(std::int64_t node) {
  std::uint64_t state = static_cast<std::uint64_t>(node) + 0x9E3779B97F4A7C15ull;
  state = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9ull;
  state = (state ^ (state >> 27)) * 0x94D049BB133111EBull;
  state ^= state >> 31;
  return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53) - 0.5;
}

// The operator's own double bands, for host loops.
KroneckerView<double> host_view(const KroneckerOperator& op);

// One stencil for every free row, where the operator has one: reach at most
// 1, the free indices of each axis one run whose neighbours lie inside the
// mesh, and each band's entries between free indices equal along the run.
// Weights by node offset in kronecker_row's order and rounding (T's bands,
// terms in turn), zero ones left out: on a vector that is zero on the
// constrained nodes (a Lanczos vector, a coarse correction) a free row's
// sum in this order is kronecker_row's, bit for bit.
inline constexpr int kMaxStencilEntries = 27;
template <typename T>
struct UniformStencil {
  std::int32_t count = 0;
  std::int64_t offset[kMaxStencilEntries] = {};  // node number differences
  T weight[kMaxStencilEntries] = {};
};
template <typename T>
std::optional<UniformStencil<T>> uniform_stencil(const KroneckerOperator& op);

// Row (i0, i1, i2) of y = A x on a free row. Terms' band entries beyond
// their reach, or reaching outside the mesh, are skipped.
template <typename T, int Reach>
TRELLIS_KRONECKER_HD inline T kronecker_row(const KroneckerView<T>& op, std::int32_t i0, std::int32_t i1,
                                            std::int32_t i2, const T* x) {
  const std::int32_t e0 = op.extents[0], e1 = op.extents[1], e2 = op.extents[2];
  const std::int64_t plane = static_cast<std::int64_t>(e0) * e1;
  T sum = 0;
  for (int o2 = -Reach; o2 <= Reach; ++o2) {
    const std::int32_t j2 = i2 + o2;
    if (j2 < 0 || j2 >= e2) continue;
    for (int o1 = -Reach; o1 <= Reach; ++o1) {
      const std::int32_t j1 = i1 + o1;
      if (j1 < 0 || j1 >= e1) continue;
      const T* line = x + j2 * plane + static_cast<std::int64_t>(j1) * e0;
      for (int o0 = -Reach; o0 <= Reach; ++o0) {
        const std::int32_t j0 = i0 + o0;
        if (j0 < 0 || j0 >= e0) continue;
        T weight = 0;
        for (int t = 0; t < op.terms; ++t) {
          const std::int32_t r0 = op.reach[t][0], r1 = op.reach[t][1], r2 = op.reach[t][2];
          if (o0 < -r0 || o0 > r0 || o1 < -r1 || o1 > r1 || o2 < -r2 || o2 > r2) continue;
          weight += op.band[t][0][(o0 + r0) * e0 + i0] * op.band[t][1][(o1 + r1) * e1 + i1] *
                    op.band[t][2][(o2 + r2) * e2 + i2];
        }
        sum += weight * line[j0];
      }
    }
  }
  return sum;
}

// A's diagonal entry at a free row.
template <typename T>
TRELLIS_KRONECKER_HD inline T kronecker_diagonal(const KroneckerView<T>& op, std::int32_t i0, std::int32_t i1,
                                                 std::int32_t i2) {
  T sum = 0;
  for (int t = 0; t < op.terms; ++t) {
    sum += op.band[t][0][op.reach[t][0] * op.extents[0] + i0] * op.band[t][1][op.reach[t][1] * op.extents[1] + i1] *
           op.band[t][2][op.reach[t][2] * op.extents[2] + i2];
  }
  return sum;
}

// Whether the node is constrained (some index on a constrained face).
template <typename T>
TRELLIS_KRONECKER_HD inline bool kronecker_constrained(const KroneckerView<T>& op, std::int32_t i0, std::int32_t i1,
                                                       std::int32_t i2) {
  return op.constrained[0][i0] != 0 || op.constrained[1][i1] != 0 || op.constrained[2][i2] != 0;
}

}  // namespace trellis::grid::detail
