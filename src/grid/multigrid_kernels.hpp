// The host kernels one multigrid backend runs (reference or cpu), chosen
// once by the cycle and by the mg and mgcg drivers.
#pragma once

#include "kernels.hpp"

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

template <typename T>
MultigridKernels<T> multigrid_kernels(Backend backend) {
  if (backend == Backend::reference) {
    return {&reference::spmv, &reference::residual, &reference::smoothing_step, &reference::xpay,
            &reference::dot,  &reference::axpy,     &reference::galerkin_product};
  }
  return {&cpu::spmv, &cpu::residual, &cpu::smoothing_step, &cpu::xpay, &cpu::dot, &cpu::axpy, &cpu::galerkin_product};
}

}  // namespace trellis::grid::detail
