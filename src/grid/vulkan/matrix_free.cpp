// The matrix-free apply of a separable form on the Vulkan device
// (matrix_free.comp, one invocation per node).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "csr_on_device.hpp"
#include "kernels.hpp"
#include "separable_on_device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::vulkan {
namespace {

constexpr std::uint32_t kApplyFloat[] =
#include "grid/vulkan/matrix_free_f32.spv.inc"
    ;
constexpr std::uint32_t kApplyDouble[] =
#include "grid/vulkan/matrix_free_f64.spv.inc"
    ;

struct ApplyArguments {
  std::uint32_t nodes;
  std::uint32_t symmetrized;
};

// matrix_free.comp's program layout.
constexpr std::size_t kAxisBase = 8;
constexpr std::size_t kAxisWords = 16;

template <typename T>
const vk::Kernel& apply_kernel() {
  if constexpr (sizeof(T) == 8) {
    return vk::Context::get().kernel("grid/matrix_free_f64", kApplyDouble, 6, sizeof(ApplyArguments));
  } else {
    return vk::Context::get().kernel("grid/matrix_free_f32", kApplyFloat, 6, sizeof(ApplyArguments));
  }
}

}  // namespace

template <typename T>
SeparableOnDevice<T>::SeparableOnDevice(const detail::FormView<T>& form) : symmetrized(form.symmetrized) {
  if (!form.separable.usable) {
    throw BackendUnavailable(
        "the vulkan matrix-free apply takes separable forms (every term along one axis, "
        "MatrixFreeOperator::separable()); assemble this one and use the CSR kernels");
  }
  check_precision<T>("matrix-free apply");
  const detail::MeshView<T>& mesh = form.mesh;
  const std::int64_t node_count = std::int64_t{mesh.extent[0]} * mesh.extent[1] * mesh.extent[2];
  std::vector<std::int32_t> words(kAxisBase + 3 * kAxisWords, 0);
  words[0] = mesh.dim;
  std::int32_t reach = 1;
  std::int32_t slots = 0;
  for (int a = 0; a < 3; ++a) {
    words[1 + static_cast<std::size_t>(a)] = mesh.extent[a];
    words[4 + static_cast<std::size_t>(a)] = mesh.stride[a];
  }
  std::vector<T> values;  // every table; offsets checked against int's range below
  const auto append = [&](const T* table, std::int64_t count) {
    const auto offset = static_cast<std::int64_t>(values.size());
    values.insert(values.end(), table, table + count);
    return offset;
  };
  for (int a = 0; a < mesh.dim; ++a) {
    const detail::AxisProgram<T>& axis = form.separable.axis[a];
    const std::int64_t n = mesh.extent[a];
    const std::size_t base = kAxisBase + kAxisWords * static_cast<std::size_t>(a);
    reach = std::max(reach, axis.reach);
    words[base] = static_cast<std::int32_t>(append(mesh.hhalf[a], n));
    words[base + 1] = -1;
    if (axis.constant_table != nullptr) {
      words[base + 1] = static_cast<std::int32_t>(append(axis.constant_table, 5 * n));
    }
    words[base + 2] = axis.coefficient_terms;
    for (int v = 0; v < axis.coefficient_terms; ++v) {
      words[base + 3 + 3 * static_cast<std::size_t>(v)] =
          static_cast<std::int32_t>(append(axis.coefficient_table[v], 6 * n));
      words[base + 4 + 3 * static_cast<std::size_t>(v)] = axis.coefficient_slot[v];
      words[base + 5 + 3 * static_cast<std::size_t>(v)] = axis.shift[v];
      slots = std::max(slots, axis.coefficient_slot[v] + 1);
    }
  }
  words[7] = reach;
  const std::int64_t coefficient_count = 1 + std::int64_t{slots} * node_count;
  constexpr std::int64_t kLimit = std::numeric_limits<std::int32_t>::max();
  if (node_count > kLimit || coefficient_count > kLimit || static_cast<std::int64_t>(values.size()) > kLimit) {
    throw BackendUnavailable(
        fmt::format("the vulkan matrix-free apply takes meshes of up to 2^31 - 1 nodes and coefficients, not {} nodes "
                    "with {} coefficient slots",
                    node_count, slots));
  }
  nodes = static_cast<std::uint32_t>(node_count);
  std::vector<std::uint32_t> flags(form.separable.flags, form.separable.flags + node_count);
  program = vk::Buffer::from<std::int32_t>(words);
  tables = vk::Buffer::from<T>(values);
  coefficients = vk::Buffer::from<T>({form.coefficients, static_cast<std::size_t>(slots > 0 ? coefficient_count : 0)});
  node_flags = vk::Buffer::from<std::uint32_t>(flags);
}

template <typename T>
void record_matrix_free_apply(vk::Recorder& recorder, const SeparableOnDevice<T>& a, const vk::Buffer& x,
                              vk::Buffer& y) {
  const ApplyArguments arguments{a.nodes, a.symmetrized ? 1u : 0u};
  recorder.dispatch(apply_kernel<T>(),
                    {a.program.get(), a.tables.get(), a.coefficients.get(), a.node_flags.get(), &x, &y}, &arguments,
                    sizeof(arguments), a.nodes);
}

template <typename T>
void matrix_free_apply_of(const detail::FormView<T>& form, const T* x, T* y) {
  const SeparableOnDevice<T> a(form);
  const std::size_t n = a.nodes;
  const auto x_buffer = vk::Buffer::from<T>({x, n});
  vk::Buffer y_buffer(n * sizeof(T));
  vk::Context::get().run([&](vk::Recorder& recorder) { record_matrix_free_apply(recorder, a, *x_buffer, y_buffer); });
  y_buffer.download(std::span<T>{y, n});
}

template struct SeparableOnDevice<float>;
template struct SeparableOnDevice<double>;
template void record_matrix_free_apply(vk::Recorder&, const SeparableOnDevice<float>&, const vk::Buffer&, vk::Buffer&);
template void record_matrix_free_apply(vk::Recorder&, const SeparableOnDevice<double>&, const vk::Buffer&, vk::Buffer&);

TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE(float) { matrix_free_apply_of(form, x, y); }
TRELLIS_GRID_DECLARE_VULKAN_MATRIX_FREE(double) { matrix_free_apply_of(form, x, y); }

}  // namespace trellis::grid::vulkan
