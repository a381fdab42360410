// The multigrid cycle on the GPU: every level's A as device CSR or as
// Kronecker bands, the transfers applied without matrices (all built there,
// cuda/multigrid_setup.cu), the cycle on device vectors, the host only
// enqueueing.
//
// A residual is a copy of b and the device SpMV with alpha -1 and beta 1
// (b - sum, as the reference rounds it), or on a Kronecker level one kernel
// (kronecker.cu); restriction and prolongation are the rows of R and of P
// summed as the SpMV sums them (DeviceTransfer; the correction is added); the smoothing step,
// the constrained rows and the coarse correction are the three small kernels
// here (with the line solve and the colour update of the other smoothers),
// rounded like the reference's loops (no fused multiply-add). The
// coarsest level is solved with the host's banded LU factors, by one
// device thread where they are small, else on the host (the residual
// down, the correction up: one small copy each way and one wait), or by
// the device Krylov solvers.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../kernels.hpp"
#include "../multigrid_colors.hpp"
#include "../multigrid_device.hpp"
#include "../multigrid_lines.hpp"
#include "grid_stride.cuh"
#include "rounding.cuh"
#include "smoothing_step.cuh"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 4096;

unsigned blocks_for(std::int64_t n) { return launch_blocks(n, kThreads, kMaxBlocks); }

// The most multiply-adds a forward and backward substitution may take for
// one device thread to walk them (about 30 us at 1.7 GHz with
// dependent adds) instead of a round trip to the host's factors.
constexpr double kDeviceLuWork = 16384;

// d = alpha d + beta D^-1 r; x += d (multigrid_rows.hpp's smoothing_entry).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    smoothing_step(std::int32_t n, T alpha, T beta, const T* __restrict__ inverse_diagonal, const T* __restrict__ r,
                   T* __restrict__ d, T* __restrict__ x) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T step = smoothing_direction(alpha, previous_direction(alpha, d, i), beta, inverse_diagonal[i], r[i]);
    d[i] = step;
    x[i] = add_rn(x[i], step);
  }
}

// x = b / a_ii on the constrained nodes (b where a_ii is 0), or x = b when
// there is no diagonal (the levels below the finest, where a_ii is 1).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    set_constrained(std::int32_t count, const std::int32_t* __restrict__ nodes, const T* __restrict__ diagonal,
                    const T* __restrict__ b, T* __restrict__ x) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int32_t node = nodes[i];
    T value = b[node];
    if (diagonal != nullptr && diagonal[i] != T(0)) value = value / diagonal[i];
    x[node] = value;
  }
}

// r = b - r (r holding A x).
template <typename T>
__global__ void __launch_bounds__(kThreads) subtract_from(std::int32_t n, const T* __restrict__ b, T* __restrict__ r) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) r[i] = b[i] - r[i];
}

// e = T^-1 r on every line (multigrid_lines.cpp's solve_line, one thread a line).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    solve_lines(std::int32_t stride, std::int32_t length, std::int32_t lines, const T* __restrict__ lower,
                const T* __restrict__ upper, const T* __restrict__ inverse_pivot, const T* __restrict__ r,
                T* __restrict__ e) {
  for (std::int64_t line = first_index(); line < lines; line += grid_stride()) {
    const std::int32_t first = detail::line_start(static_cast<std::int32_t>(line), stride, length);
    T previous = 0;
    for (std::int32_t k = 0; k < length; ++k) {
      const std::int32_t at = first + k * stride;
      previous = mul_rn(add_rn(r[at], -mul_rn(lower[at], previous)), inverse_pivot[at]);
      e[at] = previous;
    }
    T next = 0;
    for (std::int32_t k = length - 1; k >= 0; --k) {
      const std::int32_t at = first + k * stride;
      next = add_rn(e[at], -mul_rn(upper[at], next));
      e[at] = next;
    }
  }
}

// x += weight e (the host's axpy).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    add_weighted(std::int32_t n, T weight, const T* __restrict__ e, T* __restrict__ x) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] = add_rn(x[i], mul_rn(weight, e[i]));
}

// One colour of a Gauss-Seidel sweep on a CSR level (multigrid_colors.hpp's
// relax_colour): each row's residual summed in storage order, as
// residual_row sums it, then x_i += weight (D^-1 r)_i.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    relax_colour(CsrView<T> a, const T* __restrict__ b, std::int32_t nx, std::int32_t ny, std::int32_t colour, T weight,
                 const T* __restrict__ inverse_diagonal, T* x) {
  for (std::int64_t i = first_index(); i < a.rows; i += grid_stride()) {
    const auto row = static_cast<std::int32_t>(i);
    if (detail::node_colour(row, nx, ny) != colour) continue;
    T sum = 0;
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      sum = add_rn(sum, mul_rn(a.values[k], x[a.col_indices[k]]));
    }
    x[i] = add_rn(x[i], mul_rn(weight, mul_rn(inverse_diagonal[i], static_cast<T>(b[i] - sum))));
  }
}

// x_i += weight (D^-1 r)_i on the nodes of one colour (a Kronecker level's
// Gauss-Seidel sweep, after its residual).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    update_colour(std::int32_t n, std::int32_t nx, std::int32_t ny, std::int32_t colour, T weight,
                  const T* __restrict__ inverse_diagonal, const T* __restrict__ r, T* __restrict__ x) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const auto node = static_cast<std::int32_t>(i);
    if (detail::node_colour(node, nx, ny) == colour)
      x[i] = add_rn(x[i], mul_rn(weight, mul_rn(inverse_diagonal[i], r[i])));
  }
}

// x += (LU)^-1 r by one thread, in double, as BandedLu::solve rounds it:
// the coarsest levels it takes are so small that the walk costs less than
// the wait for the host it replaces.
template <typename T>
__global__ void __launch_bounds__(1)
    banded_lu_solve(std::int32_t n, std::int32_t lower, std::int32_t upper, const double* __restrict__ band,
                    const T* __restrict__ r, double* __restrict__ work, T* __restrict__ x) {
  const std::int64_t width = lower + upper + 1;
  const auto at = [&](std::int32_t i, std::int32_t j) { return band[i * width + (j - i + lower)]; };
  for (std::int32_t i = 0; i < n; ++i) {
    double sum = r[i];
    for (std::int32_t j = max(0, i - lower); j < i; ++j) sum = __dsub_rn(sum, __dmul_rn(at(i, j), work[j]));
    work[i] = sum;
  }
  for (std::int32_t i = n - 1; i >= 0; --i) {
    double sum = work[i];
    const std::int32_t last = min(n - 1, i + upper);
    for (std::int32_t j = i + 1; j <= last; ++j) sum = __dsub_rn(sum, __dmul_rn(at(i, j), work[j]));
    work[i] = __ddiv_rn(sum, at(i, i));
  }
  for (std::int32_t i = 0; i < n; ++i) x[i] = add_rn(x[i], static_cast<T>(work[i]));
}

template <typename T>
__global__ void __launch_bounds__(kThreads) add_correction(std::int32_t n, const T* __restrict__ e, T* __restrict__ x) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] = add_rn(x[i], e[i]);
}

template <typename T>
DeviceLinearOperator<T> csr_apply(const CsrView<T>& a, const T* diagonal) {
  DeviceLinearOperator<T> op;
  op.size = a.rows;
  op.apply = [a](const T* in, T* out, Stream stream) { spmv(T(1), a, in, T(0), out, stream); };
  op.diagonal = diagonal;
  return op;
}

template <typename T>
struct DeviceLevel {
  std::int32_t n = 0;
  DeviceCsr<T> a;
  std::optional<detail::DeviceKronecker<T>> kronecker;  // applied instead of a where set
  std::optional<detail::DeviceTransfer> transfer;       // to and from the next coarser level
  std::int32_t constrained_count = 0;
  DeviceArray<std::int32_t> constrained_nodes;
  DeviceArray<T> constrained_diagonal;  // the finest level's a_ii at its constrained nodes
  DeviceArray<T> inverse_diagonal;
  InverseDiagonalView<T> inverse_view;  // inverse_diagonal and what is known of it, for the finest level's override
  std::vector<detail::SmoothingStep> steps;
  std::vector<detail::DeviceLineFactors<T>> lines;       // Smoother::line
  std::int32_t colours = 0, extent_x = 1, extent_y = 1;  // Smoother::gauss_seidel
  // Right-hand side and iterate (levels below the finest), residual and
  // smoother direction (a sweep's first step does not read it), and
  // the vector steps in one pass write to and read from in turn with x.
  mutable DeviceArray<T> b, x, residual, direction, spare;
};

}  // namespace

template <typename T>
struct MultigridCycle<T>::Impl {
  std::vector<DeviceLevel<T>> levels;
  Cycle kind = Cycle::v;
  const detail::BandedLu* lu = nullptr;
  DeviceArray<double> lu_band;          // the factors where one device thread solves with them
  mutable DeviceArray<double> lu_work;  // that solve's intermediate vector
  bool coarse_symmetric = true;
  DeviceArray<T> coarse_diagonal;  // Jacobi of the coarsest level's Krylov solve
  DeviceLinearOperator<T> finest;
  DeviceLinearOperator<T> coarsest;
  mutable std::vector<T> host_residual, host_correction;  // the direct coarse solve's staging

  // The finest level's operator for this cycle, or null for its matrix.
  mutable const DeviceLinearOperator<T>* finest_override = nullptr;

  // Below the finest level the iterate is a correction, zero on the
  // constrained nodes (their right-hand side is zero, and set() keeps them).
  bool coarse(const DeviceLevel<T>& level) const { return &level != levels.data(); }

  // On the finest level the override's pass where it offers one; else the
  // bands where the level has them (on the finest level they were checked
  // to be its matrix's free rows), else the override or the matrix.
  void residual(const DeviceLevel<T>& level, const T* b, const T* x, T* r, Stream stream) const {
    const bool finest = finest_override != nullptr && &level == levels.data();
    if (finest && finest_override->residual && finest_override->residual(b, x, r, stream)) return;
    if (level.kronecker) {
      kronecker_residual<T>(*level.kronecker, b, x, coarse(level), r, stream);
      return;
    }
    if (finest) {
      finest_override->apply(x, r, stream);
      TRELLIS_LAUNCH(subtract_from<T>, blocks_for(level.n), kThreads, 0, stream, level.n, b, r);
      return;
    }
    device::copy_on_device(r, b, sizeof(T) * static_cast<std::size_t>(level.n), stream);
    spmv(T(-1), level.a.view(), x, T(1), r, stream);
  }

  void set(const DeviceLevel<T>& level, const T* b, T* x, Stream stream) const {
    if (level.constrained_count == 0) return;
    const T* diagonal = level.constrained_diagonal.empty() ? nullptr : level.constrained_diagonal.data();
    TRELLIS_LAUNCH(set_constrained<T>, blocks_for(level.constrained_count), kThreads, 0, stream,
                   level.constrained_count, level.constrained_nodes.data(), diagonal, b, x);
  }

  // Before the coarse correction (after = false) or after it (line
  // relaxation visits the axes in reverse order then). Steps in one pass
  // write x and other in turn; returns where the iterate ends, x or other.
  T* smooth(const DeviceLevel<T>& level, const T* b, T* x, T* other, bool after, Stream stream) const {
    if (!level.lines.empty()) {
      const std::size_t axes = level.lines.size();
      for (const detail::SmoothingStep& step : level.steps) {
        for (std::size_t i = 0; i < axes; ++i) {
          const detail::DeviceLineFactors<T>& f = level.lines[after ? axes - 1 - i : i];
          residual(level, b, x, level.residual.data(), stream);
          TRELLIS_LAUNCH(solve_lines<T>, blocks_for(f.lines), kThreads, 0, stream, f.stride, f.length, f.lines,
                         f.lower.data(), f.upper.data(), f.inverse_pivot.data(),
                         static_cast<const T*>(level.residual.data()), level.direction.data());
          TRELLIS_LAUNCH(add_weighted<T>, blocks_for(level.n), kThreads, 0, stream, level.n, static_cast<T>(step.beta),
                         static_cast<const T*>(level.direction.data()), x);
        }
      }
      return x;
    }
    if (level.colours > 0) {
      for (const detail::SmoothingStep& step : level.steps) {
        for (std::int32_t i = 0; i < level.colours; ++i) {
          const std::int32_t colour = after ? level.colours - 1 - i : i;
          const auto weight = static_cast<T>(step.beta);
          if (level.kronecker) {
            residual(level, b, x, level.residual.data(), stream);
            TRELLIS_LAUNCH(update_colour<T>, blocks_for(level.n), kThreads, 0, stream, level.n, level.extent_x,
                           level.extent_y, colour, weight, level.inverse_diagonal.data(),
                           static_cast<const T*>(level.residual.data()), x);
          } else {
            TRELLIS_LAUNCH(relax_colour<T>, blocks_for(level.n), kThreads, 0, stream, level.a.view(), b, level.extent_x,
                           level.extent_y, colour, weight, level.inverse_diagonal.data(), x);
          }
        }
      }
      return x;
    }
    if (T* done = fused_steps(level, b, x, other, stream)) return done;
    if (level.kronecker) {
      // A step in one pass from the bands (a thread a row on a coarse level
      // with one stencil for its free rows).
      T* current = x;
      for (const detail::SmoothingStep& step : level.steps) {
        kronecker_smoothing_step<T>(*level.kronecker, b, current, coarse(level), static_cast<T>(step.alpha),
                                    static_cast<T>(step.beta), level.inverse_diagonal.data(), level.direction.data(),
                                    other, stream);
        std::swap(current, other);
      }
      return current;
    }
    for (const detail::SmoothingStep& step : level.steps) {
      residual(level, b, x, level.residual.data(), stream);
      TRELLIS_LAUNCH(smoothing_step<T>, blocks_for(level.n), kThreads, 0, stream, level.n, static_cast<T>(step.alpha),
                     static_cast<T>(step.beta), level.inverse_diagonal.data(),
                     static_cast<const T*>(level.residual.data()), level.direction.data(), x);
    }
    return x;
  }

  // The finest level's steps each in the override's pass where it offers
  // one (DeviceLinearOperator::smoothing_step), as on the bands: where the
  // iterate ends, or null, with nothing done, where the override declines.
  T* fused_steps(const DeviceLevel<T>& level, const T* b, T* x, T* other, Stream stream) const {
    if (finest_override == nullptr || !finest_override->smoothing_step || &level != levels.data()) return nullptr;
    T* current = x;
    for (const detail::SmoothingStep& step : level.steps) {
      if (!finest_override->smoothing_step(b, current, static_cast<T>(step.alpha), static_cast<T>(step.beta),
                                           level.inverse_view, level.direction.data(), other, stream)) {
        // The operator declines for what it is, so at its first step.
        if (current != x) throw Error("a smoothing step in one pass declined midway");
        return nullptr;
      }
      std::swap(current, other);
    }
    return current;
  }

  void coarse_solve(const T* b, T* x, Stream stream) const {
    const DeviceLevel<T>& level = levels.back();
    T* r = level.residual.data();
    T* e = level.direction.data();
    residual(level, b, x, r, stream);
    if (!lu_band.empty()) {
      TRELLIS_LAUNCH(banded_lu_solve<T>, 1, 1, 0, stream, lu->size(), lu->lower(), lu->upper(), lu_band.data(),
                     static_cast<const T*>(r), lu_work.data(), x);
      return;
    }
    if (lu != nullptr) {
      device::copy_to_host(host_residual.data(), r, level.residual.bytes(), stream);
      device::synchronize(stream);
      lu->solve<T>(host_residual, host_correction);
      device::copy_to_device(e, host_correction.data(), level.direction.bytes(), stream);
    } else {
      level.direction.fill_zero(stream);
      const SolverOptions solve{.relative_tolerance = 1e-12, .max_iterations = 100000};
      if (coarse_symmetric)
        cg(coarsest, r, e, solve, stream);
      else
        bicgstab(coarsest, r, e, solve, stream);
    }
    TRELLIS_LAUNCH(add_correction<T>, blocks_for(level.n), kThreads, 0, stream, level.n, static_cast<const T*>(e), x);
  }

  void run(std::size_t l, Cycle cycle_kind, const T* b, T* x, Stream stream) const {
    const DeviceLevel<T>& level = levels[l];
    set(level, b, x, stream);
    if (l + 1 == levels.size()) {
      coarse_solve(b, x, stream);
      set(level, b, x, stream);
      return;
    }
    // Steps in one pass leave the iterate in x or the spare vector; with as
    // many steps after the coarse correction as before, it ends in x.
    T* const spare = level.spare.data();
    T* current = smooth(level, b, x, spare, false, stream);
    const DeviceLevel<T>& coarse = levels[l + 1];
    residual(level, b, current, level.residual.data(), stream);
    level.transfer->template restrict_to<T>(level.residual.data(), coarse.b.data(), stream);
    coarse.x.fill_zero(stream);
    if (cycle_kind == Cycle::f) run(l + 1, Cycle::f, coarse.b.data(), coarse.x.data(), stream);
    run(l + 1, Cycle::v, coarse.b.data(), coarse.x.data(), stream);
    level.transfer->template prolong_add<T>(static_cast<const T*>(coarse.x.data()), current, stream);
    current = smooth(level, b, current, current == x ? spare : x, true, stream);
    if (current != x) device::copy_on_device(x, current, sizeof(T) * static_cast<std::size_t>(level.n), stream);
    set(level, b, x, stream);
  }
};

template <typename T>
MultigridCycle<T>::MultigridCycle(std::vector<detail::DeviceLevelParts<T>> levels, Cycle kind)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.kind = kind;
  s.levels.resize(levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    detail::DeviceLevelParts<T>& parts = levels[l];
    DeviceLevel<T>& level = s.levels[l];
    level.n = parts.kronecker ? parts.kronecker->nodes() : parts.a.rows();
    const auto n = static_cast<std::size_t>(level.n);
    level.a = std::move(parts.a);
    level.kronecker = std::move(parts.kronecker);
    level.transfer = std::move(parts.transfer);
    level.constrained_count = static_cast<std::int32_t>(parts.constrained_nodes.size());
    level.constrained_nodes = std::move(parts.constrained_nodes);
    level.constrained_diagonal = std::move(parts.constrained_diagonal);
    level.inverse_diagonal = std::move(parts.inverse_diagonal);
    level.inverse_view = {.values = level.inverse_diagonal.data(),
                          .interior_known = parts.interior_inverse_diagonal.has_value(),
                          .interior = parts.interior_inverse_diagonal.value_or(T(0)),
                          .dim = parts.dim,
                          .extent = parts.extents};
    level.steps = std::move(parts.steps);
    level.lines = std::move(parts.lines);
    level.colours = parts.colours;
    level.extent_x = parts.extent_x;
    level.extent_y = parts.extent_y;
    if (l > 0) level.b = DeviceArray<T>(n), level.x = DeviceArray<T>(n);
    level.residual = DeviceArray<T>(n);
    level.direction = DeviceArray<T>(n);
    level.direction.fill_zero();
    if (l + 1 < levels.size()) level.spare = DeviceArray<T>(n);
  }
  s.finest = csr_apply<T>(s.levels.front().a.view(), nullptr);
  set_coarse_solve(nullptr, true);
}

template <typename T>
void MultigridCycle<T>::set_coarse_solve(const detail::BandedLu* lu, bool coarse_symmetric) {
  Impl& s = *impl_;
  const DeviceLevel<T>& coarsest = s.levels.back();
  s.lu = lu;
  s.lu_band = {};
  s.lu_work = {};
  s.coarse_symmetric = coarse_symmetric;
  if (lu == nullptr) {
    if (s.coarse_diagonal.size() != static_cast<std::size_t>(coarsest.n)) {
      s.coarse_diagonal = DeviceArray<T>(static_cast<std::size_t>(coarsest.n));
      csr_diagonal(coarsest.a.view(), s.coarse_diagonal.data(), nullptr);
    }
  } else if (static_cast<double>(lu->size()) * (lu->lower() + lu->upper()) <= kDeviceLuWork) {
    s.lu_band = DeviceArray<double>::from_host(lu->band());
    s.lu_work = DeviceArray<double>(static_cast<std::size_t>(lu->size()));
  } else {
    s.host_residual.resize(static_cast<std::size_t>(coarsest.n));
    s.host_correction.resize(static_cast<std::size_t>(coarsest.n));
  }
  s.coarsest = csr_apply<T>(coarsest.a.view(), lu == nullptr ? s.coarse_diagonal.data() : nullptr);
  device::synchronize(nullptr);
}

template <typename T>
MultigridCycle<T>::~MultigridCycle() = default;

template <typename T>
void MultigridCycle<T>::cycle(const T* b, T* x, Stream stream, const DeviceLinearOperator<T>* finest) const {
  impl_->finest_override = finest;
  impl_->run(0, impl_->kind, b, x, stream);
  impl_->finest_override = nullptr;
}

template <typename T>
const DeviceLinearOperator<T>& MultigridCycle<T>::finest_operator() const {
  return impl_->finest;
}

template <typename T>
const DeviceCsr<T>& MultigridCycle<T>::level_matrix(std::size_t l) const {
  return impl_->levels.at(l).a;
}

template class MultigridCycle<float>;
template class MultigridCycle<double>;

}  // namespace trellis::grid::cuda
