// The cuda grid kernels in a build without CUDA: each says how to get them.
#include "../kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::cuda {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

}  // namespace

void spmv(float, const CsrView<float>&, const float*, float, float*, Stream) { unavailable(); }
void spmv(double, const CsrView<double>&, const double*, double, double*, Stream) { unavailable(); }

}  // namespace trellis::grid::cuda
