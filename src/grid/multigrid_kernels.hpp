// The host kernels one multigrid backend runs (reference or cpu), chosen
// once by the cycle and by the mg and mgcg drivers.
#pragma once

#include "kernels.hpp"
#include "multigrid_rows.hpp"

namespace trellis::grid::detail {

template <typename T>
struct MultigridKernels {
  void (*spmv)(T, const CsrView<T>&, const T*, T, T*, Stream);
  void (*residual)(const CsrView<T>&, const T*, const T*, T*);
  void (*smoothing_step)(std::int32_t, double, double, const T*, const T*, T*, T*);
  void (*xpay)(std::int32_t, const T*, double, T*);
  double (*dot)(std::int32_t, const T*, const T*);
  void (*axpy)(std::int32_t, double, const T*, T*);
  CsrMatrix<T> (*galerkin_product)(const CsrView<T>&, const CsrView<T>&, const CsrView<T>&);
};

// cpu SpMV, serial (the reference's loop: the same bits) on small matrices.
template <typename T>
void cpu_level_spmv(T alpha, const CsrView<T>& a, const T* x, T beta, T* y, Stream stream) {
  if (a.rows < kSerialRows)
    reference::spmv(alpha, a, x, beta, y, stream);
  else
    cpu::spmv(alpha, a, x, beta, y, stream);
}

template <typename T>
MultigridKernels<T> multigrid_kernels(Backend backend) {
  if (backend == Backend::reference) {
    return {&reference::spmv, &reference::residual, &reference::smoothing_step,  &reference::xpay,
            &reference::dot,  &reference::axpy,     &reference::galerkin_product};
  }
  return {&cpu_level_spmv<T>, &cpu::residual, &cpu::smoothing_step,  &cpu::xpay,
          &cpu::dot,          &cpu::axpy,     &cpu::galerkin_product};
}

}  // namespace trellis::grid::detail
