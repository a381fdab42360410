// Discrete inner products and norms: argument checks, the node weights of
// each product, and the one backend switch (host data on cuda is uploaded and
// handed to the device versions).
#include "trellis/grid/norms.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <optional>

#include "kernels.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

constexpr int kNoAxis = -1;

void check_size(const char* what, const char* name, std::int32_t nodes, std::size_t size) {
  if (size != static_cast<std::size_t>(nodes)) {
    throw UsageError(fmt::format("{}: {} has {} entries, the mesh {} nodes", what, name, size, nodes));
  }
}

void check_axis(const char* what, int axis, int dim) {
  if (axis < 0 || axis >= dim) {
    throw UsageError(fmt::format("{}: axis {} is outside 0..{} for a {}-D mesh", what, axis, dim - 1, dim));
  }
}

void check_marker(const char* what, const Marker& marker, std::int32_t nodes) {
  for (std::size_t k = 0; k < marker.nodes.size(); ++k) {
    const std::int32_t node = marker.nodes[k];
    if (node < 0 || node >= nodes) {
      throw UsageError(fmt::format("{}: marker '{}' holds node {}, outside 0..{}", what, marker.name, node, nodes - 1));
    }
    if (k > 0 && node <= marker.nodes[k - 1]) {
      throw UsageError(fmt::format("{}: marker '{}' nodes must be strictly ascending: {} follows {}", what, marker.name,
                                   node, marker.nodes[k - 1]));
    }
  }
}

void check_device_marker(const char* what, const DeviceMarker* marker, std::int32_t nodes) {
  if (marker != nullptr && marker->mesh_nodes() != nodes) {
    throw UsageError(fmt::format("{}: marker '{}' was made for a mesh of {} nodes, not {}", what, marker->name(),
                                 marker->mesh_nodes(), nodes));
  }
}

// Control-volume weights on every axis except plus_axis, which gets h_i and
// leaves out index 0 (spacings holds h_0..h_{N+1}; its first N+1 entries are
// indexed like the nodes).
template <typename T>
NodeWeights<T> node_weights(const Mesh& mesh, const std::array<const T*, 3>& spacings,
                            const std::array<const T*, 3>& half_spacings, int plus_axis) {
  NodeWeights<T> weights;
  for (int a = 0; a < mesh.dim(); ++a) {
    const auto s = static_cast<std::size_t>(a);
    weights.axis_weights[a] = a == plus_axis ? spacings[s] : half_spacings[s];
    weights.extents[a] = mesh.extent(a);
  }
  weights.nodes = mesh.nodes();
  weights.excluded_first_axis = plus_axis;
  return weights;
}

// The mesh's spacings converted to T on the host, as DeviceMesh holds them.
template <typename T>
class HostMeshWeights {
 public:
  explicit HostMeshWeights(const Mesh& mesh) : mesh_(mesh) {
    for (int a = 0; a < mesh.dim(); ++a) {
      const auto s = static_cast<std::size_t>(a);
      const std::vector<double> h = mesh.axis(a).spacings();
      const std::vector<double> hh = mesh.axis(a).half_spacings();
      spacings_[s].assign(h.begin(), h.end());
      half_spacings_[s].assign(hh.begin(), hh.end());
      spacing_pointers_[s] = spacings_[s].data();
      half_spacing_pointers_[s] = half_spacings_[s].data();
    }
  }
  NodeWeights<T> weights(int plus_axis) const {
    return node_weights<T>(mesh_, spacing_pointers_, half_spacing_pointers_, plus_axis);
  }

 private:
  const Mesh& mesh_;
  std::array<std::vector<T>, 3> spacings_;
  std::array<std::vector<T>, 3> half_spacings_;
  std::array<const T*, 3> spacing_pointers_{};
  std::array<const T*, 3> half_spacing_pointers_{};
};

template <typename T>
NodeWeights<T> device_weights(const DeviceMesh<T>& mesh, int plus_axis) {
  std::array<const T*, 3> spacings{};
  std::array<const T*, 3> half_spacings{};
  for (int a = 0; a < mesh.mesh().dim(); ++a) {
    spacings[static_cast<std::size_t>(a)] = mesh.spacings(a);
    half_spacings[static_cast<std::size_t>(a)] = mesh.half_spacings(a);
  }
  return node_weights<T>(mesh.mesh(), spacings, half_spacings, plus_axis);
}

// Sums on host data with a host backend (reference or cpu).
template <typename T>
double host_dot(Backend backend, const NodeWeights<T>& weights, const T* u, const T* v, const Marker* marker) {
  const std::int32_t* nodes = marker != nullptr ? marker->nodes.data() : nullptr;
  const std::int32_t count = marker != nullptr ? static_cast<std::int32_t>(marker->nodes.size()) : weights.nodes;
  if (backend == Backend::reference) return reference::weighted_dot(weights, u, v, nodes, count, nullptr);
  return cpu::weighted_dot(weights, u, v, nodes, count, nullptr);
}

template <typename T>
double host_h1_square(Backend backend, const Mesh& mesh, const HostMeshWeights<T>& weights, std::span<const T> u,
                      const Marker* marker) {
  std::vector<T> difference(u.size());
  double sum = 0;
  for (int a = 0; a < mesh.dim(); ++a) {
    apply<T>(backward_difference(a), mesh, u, difference, backend);
    sum += host_dot(backend, weights.weights(a), difference.data(), difference.data(), marker);
  }
  return sum;
}

template <typename T>
double device_dot(const DeviceMesh<T>& mesh, int plus_axis, const T* u, const T* v, const DeviceMarker* marker,
                  Stream stream) {
  const NodeWeights<T> weights = device_weights(mesh, plus_axis);
  const std::int32_t* nodes = marker != nullptr ? marker->nodes() : nullptr;
  const std::int32_t count = marker != nullptr ? marker->size() : weights.nodes;
  return cuda::weighted_dot(weights, u, v, nodes, count, stream);
}

template <typename T>
double device_h1_square(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker, Stream stream) {
  DeviceArray<T> difference(u.size());
  double sum = 0;
  for (int a = 0; a < mesh.mesh().dim(); ++a) {
    apply<T>(backward_difference(a), mesh, u, difference, stream);
    sum += device_dot(mesh, a, difference.data(), difference.data(), marker, stream);
  }
  return sum;
}

// Host data on cuda: the mesh, the marker and the arrays uploaded once.
template <typename T>
struct Uploaded {
  Uploaded(const Mesh& host_mesh, const Marker* host_marker) : mesh(host_mesh) {
    if (host_marker != nullptr) marker.emplace(host_mesh, *host_marker);
  }
  const DeviceMarker* marker_or_null() const { return marker ? &*marker : nullptr; }
  DeviceMesh<T> mesh;
  std::optional<DeviceMarker> marker;
};

template <typename T>
double inner_h_square(const Mesh& mesh, std::span<const T> u, std::span<const T> v, const Marker* marker,
                      Backend backend) {
  const Backend resolved = resolve(backend);
  if (resolved == Backend::cuda) {
    Uploaded<T> up(mesh, marker);
    const auto device_u = DeviceArray<T>::from_host(u);
    const auto device_v = DeviceArray<T>::from_host(v);
    return device_dot(up.mesh, kNoAxis, device_u.data(), device_v.data(), up.marker_or_null(), nullptr);
  }
  return host_dot(resolved, HostMeshWeights<T>(mesh).weights(kNoAxis), u.data(), v.data(), marker);
}

template <typename T>
double h1_square(const Mesh& mesh, std::span<const T> u, const Marker* marker, Backend backend) {
  const Backend resolved = resolve(backend);
  if (resolved == Backend::cuda) {
    Uploaded<T> up(mesh, marker);
    const auto device_u = DeviceArray<T>::from_host(u);
    return device_h1_square(up.mesh, device_u, up.marker_or_null(), nullptr);
  }
  return host_h1_square(resolved, mesh, HostMeshWeights<T>(mesh), u, marker);
}

void check_host(const char* what, const Mesh& mesh, std::size_t u_size, const Marker* marker) {
  check_size(what, "u", mesh.nodes(), u_size);
  if (marker != nullptr) check_marker(what, *marker, mesh.nodes());
}

template <typename T>
void check_device(const char* what, const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker) {
  check_size(what, "u", mesh.mesh().nodes(), u.size());
  check_device_marker(what, marker, mesh.mesh().nodes());
}

}  // namespace

DeviceMarker::DeviceMarker(const Mesh& mesh, const Marker& marker, Stream stream)
    : name_(marker.name), mesh_nodes_(mesh.nodes()) {
  check_marker("device marker", marker, mesh.nodes());
  nodes_ = DeviceArray<std::int32_t>::from_host(marker.nodes, stream);
  if (!marker.nodes.empty()) device::synchronize(stream);  // the caller's list may die after return
}

// ---- host data ----

template <typename T>
T inner_h(const Mesh& mesh, std::span<const T> u, std::span<const T> v, const Marker* marker, Backend backend) {
  check_host("inner_h", mesh, u.size(), marker);
  check_size("inner_h", "v", mesh.nodes(), v.size());
  return static_cast<T>(inner_h_square(mesh, u, v, marker, backend));
}

template <typename T>
T inner_plus(const Mesh& mesh, std::span<const T> u, std::span<const T> v, int axis, const Marker* marker,
             Backend backend) {
  check_host("inner_plus", mesh, u.size(), marker);
  check_size("inner_plus", "v", mesh.nodes(), v.size());
  check_axis("inner_plus", axis, mesh.dim());
  const Backend resolved = resolve(backend);
  if (resolved == Backend::cuda) {
    Uploaded<T> up(mesh, marker);
    const auto device_u = DeviceArray<T>::from_host(u);
    const auto device_v = DeviceArray<T>::from_host(v);
    return static_cast<T>(device_dot(up.mesh, axis, device_u.data(), device_v.data(), up.marker_or_null(), nullptr));
  }
  return static_cast<T>(host_dot(resolved, HostMeshWeights<T>(mesh).weights(axis), u.data(), v.data(), marker));
}

template <typename T>
T norm_h(const Mesh& mesh, std::span<const T> u, const Marker* marker, Backend backend) {
  check_host("norm_h", mesh, u.size(), marker);
  return static_cast<T>(std::sqrt(inner_h_square(mesh, u, u, marker, backend)));
}

template <typename T>
T norm_plus(const Mesh& mesh, std::span<const std::span<const T>> components, const Marker* marker, Backend backend) {
  if (components.size() != static_cast<std::size_t>(mesh.dim())) {
    throw UsageError(
        fmt::format("norm_plus: a {}-D mesh needs {} components, got {}", mesh.dim(), mesh.dim(), components.size()));
  }
  for (const auto& component : components) check_host("norm_plus", mesh, component.size(), marker);
  const Backend resolved = resolve(backend);
  double sum = 0;
  if (resolved == Backend::cuda) {
    Uploaded<T> up(mesh, marker);
    for (int a = 0; a < mesh.dim(); ++a) {
      const auto device_c = DeviceArray<T>::from_host(components[static_cast<std::size_t>(a)]);
      sum += device_dot(up.mesh, a, device_c.data(), device_c.data(), up.marker_or_null(), nullptr);
    }
  } else {
    const HostMeshWeights<T> weights(mesh);
    for (int a = 0; a < mesh.dim(); ++a) {
      const T* c = components[static_cast<std::size_t>(a)].data();
      sum += host_dot(resolved, weights.weights(a), c, c, marker);
    }
  }
  return static_cast<T>(std::sqrt(sum));
}

template <typename T>
T h1_seminorm(const Mesh& mesh, std::span<const T> u, const Marker* marker, Backend backend) {
  check_host("h1_seminorm", mesh, u.size(), marker);
  return static_cast<T>(std::sqrt(h1_square(mesh, u, marker, backend)));
}

template <typename T>
T h1_norm(const Mesh& mesh, std::span<const T> u, const Marker* marker, Backend backend) {
  check_host("h1_norm", mesh, u.size(), marker);
  const Backend resolved = resolve(backend);
  if (resolved == Backend::cuda) {
    Uploaded<T> up(mesh, marker);
    const auto device_u = DeviceArray<T>::from_host(u);
    return h1_norm(up.mesh, device_u, up.marker_or_null());
  }
  const HostMeshWeights<T> weights(mesh);
  const double square = host_dot(resolved, weights.weights(kNoAxis), u.data(), u.data(), marker) +
                        host_h1_square(resolved, mesh, weights, u, marker);
  return static_cast<T>(std::sqrt(square));
}

template <typename T>
T max_norm(std::span<const T> u, const Marker* marker, Backend backend) {
  const auto nodes = static_cast<std::int32_t>(u.size());
  if (marker != nullptr) check_marker("max_norm", *marker, nodes);
  const std::int32_t* list = marker != nullptr ? marker->nodes.data() : nullptr;
  const std::int32_t count = marker != nullptr ? static_cast<std::int32_t>(marker->nodes.size()) : nodes;
  switch (resolve(backend)) {
    case Backend::reference:
      return static_cast<T>(reference::max_abs(u.data(), list, count, nullptr));
    case Backend::cpu:
      return static_cast<T>(cpu::max_abs(u.data(), list, count, nullptr));
    case Backend::cuda: {
      const auto device_u = DeviceArray<T>::from_host(u);
      const auto device_list = DeviceArray<std::int32_t>::from_host(
          marker != nullptr ? std::span<const std::int32_t>(marker->nodes) : std::span<const std::int32_t>());
      return static_cast<T>(
          cuda::max_abs(device_u.data(), marker != nullptr ? device_list.data() : nullptr, count, nullptr));
    }
    case Backend::automatic:
    case Backend::vulkan:
      break;  // resolve() never returns them
  }
  throw Error("max_norm: unresolved backend");
}

// ---- device data ----

template <typename T>
T inner_h(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceArray<T>& v, const DeviceMarker* marker,
          Stream stream) {
  check_device("inner_h", mesh, u, marker);
  check_size("inner_h", "v", mesh.mesh().nodes(), v.size());
  return static_cast<T>(device_dot(mesh, kNoAxis, u.data(), v.data(), marker, stream));
}

template <typename T>
T inner_plus(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceArray<T>& v, int axis,
             const DeviceMarker* marker, Stream stream) {
  check_device("inner_plus", mesh, u, marker);
  check_size("inner_plus", "v", mesh.mesh().nodes(), v.size());
  check_axis("inner_plus", axis, mesh.mesh().dim());
  return static_cast<T>(device_dot(mesh, axis, u.data(), v.data(), marker, stream));
}

template <typename T>
T norm_h(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker, Stream stream) {
  check_device("norm_h", mesh, u, marker);
  return static_cast<T>(std::sqrt(device_dot(mesh, kNoAxis, u.data(), u.data(), marker, stream)));
}

template <typename T>
T norm_plus(const DeviceMesh<T>& mesh, std::span<const DeviceArray<T>> components, const DeviceMarker* marker,
            Stream stream) {
  const int dim = mesh.mesh().dim();
  if (components.size() != static_cast<std::size_t>(dim)) {
    throw UsageError(fmt::format("norm_plus: a {}-D mesh needs {} components, got {}", dim, dim, components.size()));
  }
  double sum = 0;
  for (int a = 0; a < dim; ++a) {
    const DeviceArray<T>& c = components[static_cast<std::size_t>(a)];
    check_device("norm_plus", mesh, c, marker);
    sum += device_dot(mesh, a, c.data(), c.data(), marker, stream);
  }
  return static_cast<T>(std::sqrt(sum));
}

template <typename T>
T h1_seminorm(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker, Stream stream) {
  check_device("h1_seminorm", mesh, u, marker);
  return static_cast<T>(std::sqrt(device_h1_square(mesh, u, marker, stream)));
}

template <typename T>
T h1_norm(const DeviceMesh<T>& mesh, const DeviceArray<T>& u, const DeviceMarker* marker, Stream stream) {
  check_device("h1_norm", mesh, u, marker);
  const double square =
      device_dot(mesh, kNoAxis, u.data(), u.data(), marker, stream) + device_h1_square(mesh, u, marker, stream);
  return static_cast<T>(std::sqrt(square));
}

template <typename T>
T max_norm(const DeviceArray<T>& u, const DeviceMarker* marker, Stream stream) {
  const auto nodes = static_cast<std::int32_t>(u.size());
  check_device_marker("max_norm", marker, nodes);
  if (marker != nullptr) return static_cast<T>(cuda::max_abs(u.data(), marker->nodes(), marker->size(), stream));
  return static_cast<T>(cuda::max_abs(u.data(), nullptr, nodes, stream));
}

// ---- grid functions ----

template <typename T>
T inner_h(const GridFunction<T>& u, const GridFunction<T>& v, const Marker* marker, Backend backend) {
  require_same_mesh(u.mesh(), v.mesh(), "inner_h");
  return inner_h<T>(u.mesh(), u.values(), v.values(), marker, backend);
}

template <typename T>
T inner_plus(const GridFunction<T>& u, const GridFunction<T>& v, int axis, const Marker* marker, Backend backend) {
  require_same_mesh(u.mesh(), v.mesh(), "inner_plus");
  return inner_plus<T>(u.mesh(), u.values(), v.values(), axis, marker, backend);
}

template <typename T>
T norm_h(const GridFunction<T>& u, const Marker* marker, Backend backend) {
  return norm_h<T>(u.mesh(), u.values(), marker, backend);
}

template <typename T>
T norm_plus(const std::vector<GridFunction<T>>& components, const Marker* marker, Backend backend) {
  if (components.empty()) throw UsageError("norm_plus: no components");
  std::vector<std::span<const T>> spans;
  for (const GridFunction<T>& c : components) {
    require_same_mesh(components.front().mesh(), c.mesh(), "norm_plus");
    spans.push_back(c.values());
  }
  return norm_plus<T>(components.front().mesh(), std::span<const std::span<const T>>(spans), marker, backend);
}

template <typename T>
T h1_seminorm(const GridFunction<T>& u, const Marker* marker, Backend backend) {
  return h1_seminorm<T>(u.mesh(), u.values(), marker, backend);
}

template <typename T>
T h1_norm(const GridFunction<T>& u, const Marker* marker, Backend backend) {
  return h1_norm<T>(u.mesh(), u.values(), marker, backend);
}

template <typename T>
T max_norm(const GridFunction<T>& u, const Marker* marker, Backend backend) {
  return max_norm<T>(u.values(), marker, backend);
}

template <typename T>
T inner_h(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceGridFunction<T>& v,
          const DeviceMarker* marker, Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "inner_h");
  require_same_mesh(u.mesh(), v.mesh(), "inner_h");
  return inner_h<T>(mesh, u.values(), v.values(), marker, stream);
}

template <typename T>
T inner_plus(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceGridFunction<T>& v, int axis,
             const DeviceMarker* marker, Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "inner_plus");
  require_same_mesh(u.mesh(), v.mesh(), "inner_plus");
  return inner_plus<T>(mesh, u.values(), v.values(), axis, marker, stream);
}

template <typename T>
T norm_h(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker, Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "norm_h");
  return norm_h<T>(mesh, u.values(), marker, stream);
}

template <typename T>
T h1_seminorm(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker, Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "h1_seminorm");
  return h1_seminorm<T>(mesh, u.values(), marker, stream);
}

template <typename T>
T h1_norm(const DeviceMesh<T>& mesh, const DeviceGridFunction<T>& u, const DeviceMarker* marker, Stream stream) {
  require_same_mesh(mesh.mesh(), u.mesh(), "h1_norm");
  return h1_norm<T>(mesh, u.values(), marker, stream);
}

template <typename T>
T max_norm(const DeviceGridFunction<T>& u, const DeviceMarker* marker, Stream stream) {
  return max_norm<T>(u.values(), marker, stream);
}

#define TRELLIS_GRID_INSTANTIATE_NORMS(T)                                                                         \
  template T inner_h<T>(const Mesh&, std::span<const T>, std::span<const T>, const Marker*, Backend);             \
  template T inner_plus<T>(const Mesh&, std::span<const T>, std::span<const T>, int, const Marker*, Backend);     \
  template T norm_h<T>(const Mesh&, std::span<const T>, const Marker*, Backend);                                  \
  template T norm_plus<T>(const Mesh&, std::span<const std::span<const T>>, const Marker*, Backend);              \
  template T h1_seminorm<T>(const Mesh&, std::span<const T>, const Marker*, Backend);                             \
  template T h1_norm<T>(const Mesh&, std::span<const T>, const Marker*, Backend);                                 \
  template T max_norm<T>(std::span<const T>, const Marker*, Backend);                                             \
  template T inner_h<T>(const DeviceMesh<T>&, const DeviceArray<T>&, const DeviceArray<T>&, const DeviceMarker*,  \
                        Stream);                                                                                  \
  template T inner_plus<T>(const DeviceMesh<T>&, const DeviceArray<T>&, const DeviceArray<T>&, int,               \
                           const DeviceMarker*, Stream);                                                          \
  template T norm_h<T>(const DeviceMesh<T>&, const DeviceArray<T>&, const DeviceMarker*, Stream);                 \
  template T norm_plus<T>(const DeviceMesh<T>&, std::span<const DeviceArray<T>>, const DeviceMarker*, Stream);    \
  template T h1_seminorm<T>(const DeviceMesh<T>&, const DeviceArray<T>&, const DeviceMarker*, Stream);            \
  template T h1_norm<T>(const DeviceMesh<T>&, const DeviceArray<T>&, const DeviceMarker*, Stream);                \
  template T max_norm<T>(const DeviceArray<T>&, const DeviceMarker*, Stream);                                     \
  template T inner_h<T>(const GridFunction<T>&, const GridFunction<T>&, const Marker*, Backend);                  \
  template T inner_plus<T>(const GridFunction<T>&, const GridFunction<T>&, int, const Marker*, Backend);          \
  template T norm_h<T>(const GridFunction<T>&, const Marker*, Backend);                                           \
  template T norm_plus<T>(const std::vector<GridFunction<T>>&, const Marker*, Backend);                           \
  template T h1_seminorm<T>(const GridFunction<T>&, const Marker*, Backend);                                      \
  template T h1_norm<T>(const GridFunction<T>&, const Marker*, Backend);                                          \
  template T max_norm<T>(const GridFunction<T>&, const Marker*, Backend);                                         \
  template T inner_h<T>(const DeviceMesh<T>&, const DeviceGridFunction<T>&, const DeviceGridFunction<T>&,         \
                        const DeviceMarker*, Stream);                                                             \
  template T inner_plus<T>(const DeviceMesh<T>&, const DeviceGridFunction<T>&, const DeviceGridFunction<T>&, int, \
                           const DeviceMarker*, Stream);                                                          \
  template T norm_h<T>(const DeviceMesh<T>&, const DeviceGridFunction<T>&, const DeviceMarker*, Stream);          \
  template T h1_seminorm<T>(const DeviceMesh<T>&, const DeviceGridFunction<T>&, const DeviceMarker*, Stream);     \
  template T h1_norm<T>(const DeviceMesh<T>&, const DeviceGridFunction<T>&, const DeviceMarker*, Stream);         \
  template T max_norm<T>(const DeviceGridFunction<T>&, const DeviceMarker*, Stream)

TRELLIS_GRID_INSTANTIATE_NORMS(float);
TRELLIS_GRID_INSTANTIATE_NORMS(double);

}  // namespace trellis::grid
