// Forms flattened for kernels: each term as plain data, and the stencil
// arithmetic every backend of assembly and matrix-free apply shares (host and
// device). A chain of at most kMaxChainAtoms atoms has at most kMaxStencil
// stencil points.
//
// For a term scale * < c * T(u), S(v) >_W, row r of the matrix collects, for
// every point p whose test stencil S(p) reaches r with weight s, and every
// entry (col, t) of the trial stencil T(p):
//     A[r][col] += scale * W(p) * c(p) * s * t.
// The points p are r minus a subset of the test atoms' offsets.
#pragma once

#include <cstdint>

#include "atom_weights.hpp"
#include "trellis/grid/form.hpp"

namespace trellis::grid::detail {

inline constexpr int kMaxChainAtoms = 4;
inline constexpr int kMaxStencil = 1 << kMaxChainAtoms;
inline constexpr int kMaxTerms = 16;

struct ChainCode {
  std::int32_t count = 0;
  AtomKind kind[kMaxChainAtoms] = {};
  std::int32_t axis[kMaxChainAtoms] = {};
};

struct TermCode {
  InnerProduct weight = InnerProduct::h;
  std::int32_t axis = 0;
  ChainCode trial;
  ChainCode test;
  std::int32_t coefficient = -1;  // slot, or -1
  double scale = 1;
};

// The mesh as kernels see it: extents, strides and per-axis spacing arrays
// (h_0..h_{N+1}, hhalf_0..hhalf_N) in the memory space of the backend.
template <typename T>
struct MeshView {
  std::int32_t dim = 1;
  std::int32_t extent[3] = {1, 1, 1};
  std::int32_t stride[3] = {1, 1, 1};
  const T* h[3] = {nullptr, nullptr, nullptr};
  const T* hhalf[3] = {nullptr, nullptr, nullptr};
};

template <typename T>
struct StencilPoint {
  std::int32_t i[3];
  T weight;
};

template <typename T>
TRELLIS_HOST_DEVICE inline std::int32_t node_of(const MeshView<T>& mesh, const std::int32_t* i) {
  return i[0] * mesh.stride[0] + i[1] * mesh.stride[1] + i[2] * mesh.stride[2];
}

// The inner product's weight at point p.
template <typename T>
TRELLIS_HOST_DEVICE inline T inner_weight(const MeshView<T>& mesh, InnerProduct weight, std::int32_t axis,
                                          const std::int32_t* p) {
  T w = T(1);
  for (std::int32_t a = 0; a < mesh.dim; ++a) {
    if (weight == InnerProduct::plus && a == axis) {
      if (p[a] == 0) return T(0);
      w *= mesh.h[a][p[a]];
    } else {
      w *= mesh.hhalf[a][p[a]];
    }
  }
  return w;
}

// The stencil of the chain at p: out = A_last(... A_first(u)) evaluated at p
// is sum over entries of weight * u[entry]. Entries may repeat a point.
template <typename T>
TRELLIS_HOST_DEVICE inline std::int32_t chain_stencil(const MeshView<T>& mesh, const ChainCode& chain,
                                                      const std::int32_t* p, StencilPoint<T>* out) {
  std::int32_t count = 1;
  out[0] = {{p[0], p[1], p[2]}, T(1)};
  // The last atom acts on the chain's output point; earlier atoms act on the
  // points the later ones read.
  for (std::int32_t k = chain.count - 1; k >= 0; --k) {
    const std::int32_t axis = chain.axis[k];
    const std::int32_t n = count;
    for (std::int32_t e = 0; e < n; ++e) {
      const std::int32_t i = out[e].i[axis];
      const AtomWeights<T> w = atom_weights(chain.kind[k], mesh.h[axis], i);
      const std::int32_t j = i + w.offset;
      if (j >= 0 && j < mesh.extent[axis] && w.neighbour != T(0)) {
        out[count] = out[e];
        out[count].i[axis] = j;
        out[count].weight = out[e].weight * w.neighbour;
        ++count;
      }
      out[e].weight *= w.self;
    }
  }
  return count;
}

// The points p (inside the mesh, distinct) whose test stencil may reach r.
template <typename T>
TRELLIS_HOST_DEVICE inline std::int32_t test_points(const MeshView<T>& mesh, const ChainCode& test,
                                                    const std::int32_t* r, std::int32_t (*points)[3]) {
  std::int32_t count = 0;
  for (std::int32_t subset = 0; subset < (1 << test.count); ++subset) {
    std::int32_t p[3] = {r[0], r[1], r[2]};
    for (std::int32_t k = 0; k < test.count; ++k) {
      if (subset & (1 << k)) {
        const std::int32_t offset = atom_weights(test.kind[k], mesh.h[test.axis[k]], 0).offset;
        p[test.axis[k]] -= offset;
      }
    }
    bool inside = true;
    for (std::int32_t a = 0; a < 3; ++a) inside = inside && p[a] >= 0 && p[a] < mesh.extent[a];
    bool seen = false;
    for (std::int32_t q = 0; q < count; ++q) {
      seen = seen || (points[q][0] == p[0] && points[q][1] == p[1] && points[q][2] == p[2]);
    }
    if (inside && !seen) {
      points[count][0] = p[0];
      points[count][1] = p[1];
      points[count][2] = p[2];
      ++count;
    }
  }
  return count;
}

// The total weight with which the test stencil at p reads r.
template <typename T>
TRELLIS_HOST_DEVICE inline T test_weight(const MeshView<T>& mesh, const ChainCode& test, const std::int32_t* p,
                                         const std::int32_t* r) {
  StencilPoint<T> stencil[kMaxStencil];
  const std::int32_t n = chain_stencil(mesh, test, p, stencil);
  T s = T(0);
  for (std::int32_t e = 0; e < n; ++e) {
    if (stencil[e].i[0] == r[0] && stencil[e].i[1] == r[1] && stencil[e].i[2] == r[2]) s += stencil[e].weight;
  }
  return s;
}

// Calls visit(col, slot, p, g) for every contribution of the terms to row r
// (multi-index): A[r][col] += c_slot(p) * g, slot -1 meaning no coefficient.
template <typename T, typename Visit>
TRELLIS_HOST_DEVICE inline void for_each_contribution(const MeshView<T>& mesh, const TermCode* terms,
                                                      std::int32_t term_count, const std::int32_t* r, Visit&& visit) {
  for (std::int32_t t = 0; t < term_count; ++t) {
    const TermCode& term = terms[t];
    std::int32_t points[kMaxStencil][3];
    const std::int32_t n = test_points(mesh, term.test, r, points);
    for (std::int32_t q = 0; q < n; ++q) {
      const std::int32_t* p = points[q];
      const T w = inner_weight(mesh, term.weight, term.axis, p);
      if (w == T(0)) continue;
      const T s = test_weight(mesh, term.test, p, r);
      if (s == T(0)) continue;
      StencilPoint<T> trial[kMaxStencil];
      const std::int32_t m = chain_stencil(mesh, term.trial, p, trial);
      const T base = static_cast<T>(term.scale) * w * s;
      const std::int32_t p_node = node_of(mesh, p);
      for (std::int32_t e = 0; e < m; ++e) {
        if (trial[e].weight != T(0)) visit(node_of(mesh, trial[e].i), term.coefficient, p_node, base * trial[e].weight);
      }
    }
  }
}

}  // namespace trellis::grid::detail
