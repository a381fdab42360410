// The compiled shapes of the Smith-Waterman kernel and their launches.
#include <algorithm>
#include <array>
#include <type_traits>

#include "sw_kernel.cuh"
#include "trellis/core/cuda_check.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align::cuda {
namespace detail {
namespace {

using Launch = void (*)(const KernelParams&, unsigned blocks, Stream stream);

template <class Form>
constexpr KernelForm kForm = std::is_same_v<Form, WideForm> ? KernelForm::wide : KernelForm::compact;

template <int G, int R, class Lanes, class Form>
void launch(const KernelParams& params, unsigned blocks, Stream stream) {
  constexpr std::size_t kSharedBytes = profile_pass_bytes({G, R, kForm<Form>});
  // A kernel must ask for more than 48 KB of shared memory, once.
  static const bool configured = [] {
    TRELLIS_CUDA_CHECK(cudaFuncSetAttribute(sw_scores_kernel<G, R, Lanes, Form>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(kSharedBytes)));
    return true;
  }();
  (void)configured;
  TRELLIS_LAUNCH((sw_scores_kernel<G, R, Lanes, Form>), blocks, kBlockThreads, kSharedBytes, stream, params);
}

struct CompiledShape {
  KernelShape shape;
  Launch packed;
};

template <int G, int R, class Form = CompactForm>
constexpr CompiledShape compiled() {
  return {{G, R, kForm<Form>}, &launch<G, R, PackedPairs, Form>};
}

// Short queries want short groups (less padding, more pairs in flight); long
// ones want many rows per pass (fewer passes over the boundary row). The
// wide form pays off where the device is full, which takes 16 or more rows a
// lane to make the most of, up to 32 rows in groups of 8 lanes (162
// registers, three blocks a multiprocessor) for long subjects and long
// queries (bench/results/NOTES.md, "32 rows a lane, one loop for every
// pass"); compact 32-row shapes were never the fastest, so they are not
// compiled.
constexpr std::array kCompiled = {
    compiled<8, 4>(),
    compiled<8, 8>(),
    compiled<8, 16>(),
    compiled<8, 24>(),
    compiled<16, 4>(),
    compiled<16, 8>(),
    compiled<16, 12>(),
    compiled<16, 16>(),
    compiled<16, 24>(),
    compiled<32, 4>(),
    compiled<32, 8>(),
    compiled<32, 12>(),
    compiled<32, 16>(),
    compiled<32, 20>(),
    compiled<32, 24>(),

    compiled<8, 16, WideForm>(),
    compiled<8, 20, WideForm>(),
    compiled<8, 24, WideForm>(),
    compiled<16, 16, WideForm>(),
    compiled<16, 20, WideForm>(),
    compiled<16, 24, WideForm>(),
    compiled<32, 16, WideForm>(),
    compiled<32, 20, WideForm>(),
    compiled<8, 32, WideForm>(),
    compiled<16, 32, WideForm>(),
};

const std::array<KernelShape, kCompiled.size()> kShapes = [] {
  std::array<KernelShape, kCompiled.size()> shapes{};
  for (std::size_t i = 0; i < shapes.size(); ++i) shapes[i] = kCompiled[i].shape;
  return shapes;
}();

}  // namespace

void launch_packed(KernelShape shape, const KernelParams& params, unsigned blocks, Stream stream) {
  const auto found =
      std::find_if(kCompiled.begin(), kCompiled.end(), [&](const CompiledShape& c) { return c.shape == shape; });
  if (found == kCompiled.end()) throw UsageError("the cuda Smith-Waterman kernel is not compiled for that shape");
  found->packed(params, blocks, stream);
}

void launch_exact(const KernelParams& params, unsigned blocks, Stream stream) {
  launch<kExactShape.lanes, kExactShape.rows_per_lane, Exact32, CompactForm>(params, blocks, stream);
}

}  // namespace detail

std::span<const KernelShape> kernel_shapes() { return detail::kShapes; }

}  // namespace trellis::align::cuda
