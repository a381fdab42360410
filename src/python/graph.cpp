// trellis._native.graph: CSR graphs, their files and generators, shortest
// paths. A Graph owns its CSR (built by one copy from the caller's arrays);
// its arrays are read back as views, and search results are handed out as
// arrays that own the library's vectors (no copy), or, on cuda, device
// arrays the library wrote (node costs then may be device arrays too).
// Searches release the GIL; batches run in chunks of queries, with progress
// reports and Ctrl-C between them.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "argument_errors.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "progress.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"
#include "trellis/graph/io.hpp"
#include "trellis/graph/sssp.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using graph::Graph;
using graph::NodeId;
using graph::Weight;

Graph graph_from_csr(const HostInput<std::int64_t>& indptr, const HostInput<std::int32_t>& indices,
                     const HostInput<float>& weights) {
  if (indptr.shape(0) < 2) throw UsageError("indptr needs at least two entries (a graph of one node or more)");
  if (indices.shape(0) != weights.shape(0)) {
    throw UsageError("indices and weights differ in length (" + std::to_string(indices.shape(0)) + " and " +
                     std::to_string(weights.shape(0)) + ")");
  }
  Graph g;
  const auto nodes = static_cast<std::int64_t>(indptr.shape(0)) - 1;
  if (nodes > INT32_MAX) throw UsageError("more than 2^31 - 1 nodes");
  g.csr.rows = g.csr.cols = static_cast<std::int32_t>(nodes);
  g.csr.row_offsets.assign(indptr.data(), indptr.data() + indptr.shape(0));
  g.csr.col_indices.assign(indices.data(), indices.data() + indices.shape(0));
  g.csr.values.assign(weights.data(), weights.data() + weights.shape(0));
  as_usage_error([&] { g.validate(); });
  return g;
}

graph::SsspOptions options_from(const std::string& backend, const std::string& algorithm, float delta, bool parents) {
  graph::SsspOptions options;
  options.backend = parse_backend(backend);
  options.algorithm = graph::parse_sssp_algorithm(algorithm);
  options.delta = delta;
  options.parents = parents;
  return options;
}

graph::SsspQuery query_from(const HostInput<std::int32_t>& sources, NodeId target,
                            const std::optional<HostInput<float>>& node_cost) {
  graph::SsspQuery query;
  query.sources.assign(sources.data(), sources.data() + sources.shape(0));
  query.target = target;
  if (node_cost) query.node_cost = span_of(*node_cost);  // read in place: no copy
  return query;
}

nb::dict summary_of(const graph::SsspResult& result) {
  nb::dict info;
  info["backend"] = std::string(to_string(result.backend));
  info["algorithm"] = std::string(graph::to_string(result.algorithm));
  info["edges_relaxed"] = result.edges_relaxed;
  info["reached"] = result.reached;
  info["solve_ms"] = result.solve_ms;
  return info;
}

// Queries a batch runs between progress reports (and Ctrl-C checks): on
// cuda one launch serves a chunk, a block or cluster a query, so a chunk
// fills the H200's 132 multiprocessors about twice over.
constexpr std::size_t kQueriesPerReport = 256;

std::vector<graph::SsspQuery> batch_queries(const std::vector<std::vector<NodeId>>& sources,
                                            const std::vector<NodeId>& targets) {
  if (!targets.empty() && targets.size() != sources.size()) {
    throw UsageError("targets must be empty or one per query (" + std::to_string(sources.size()) + "), got " +
                     std::to_string(targets.size()));
  }
  std::vector<graph::SsspQuery> queries(sources.size());
  for (std::size_t q = 0; q < sources.size(); ++q) {
    queries[q].sources = sources[q];
    if (!targets.empty()) queries[q].target = targets[q];
  }
  return queries;
}

// The device the results of a device search go to: the engine's, current
// when it was made. The engine works on a stream of its own: the work
// already queued on the device (a device node_cost's writer, whatever its
// stream) is waited for first.
int device_for_results() {
  device::synchronize_device();
  return current_device().index;
}

// One prepared graph searched many times (on cuda it stays on the device).
class Engine {
 public:
  Engine(const Graph& g, const std::string& backend, const std::string& algorithm, float delta, bool parents)
      : paths_(g, options_from(backend, algorithm, delta, parents)), nodes_(g.node_count()), parents_(parents) {}

  nb::tuple run(const HostInput<std::int32_t>& sources, NodeId target,
                const std::optional<HostInput<float>>& node_cost) {
    const graph::SsspQuery query = query_from(sources, target, node_cost);
    graph::SsspResult result;
    {
      nb::gil_scoped_release release;
      result = paths_.run(query);
    }
    nb::dict info = summary_of(result);
    return nb::make_tuple(to_numpy(std::move(result.distance)), to_numpy(std::move(result.parent)), info);
  }

  // One query with its results left on the device (cuda): node_cost, when
  // given, a device array read in place.
  nb::tuple run_device(const HostInput<std::int32_t>& sources, NodeId target,
                       const std::optional<DeviceInput<float>>& node_cost) {
    require_cuda();
    graph::SsspQuery query = query_from(sources, target, std::nullopt);
    if (node_cost) {
      query.node_cost = {node_cost->data(), node_cost->shape(0)};
      query.node_cost_on_device = true;
    }
    const auto n = static_cast<std::size_t>(nodes_);
    DeviceArray<Weight> distances;
    DeviceArray<NodeId> parents;
    graph::SsspResult result;
    int device_id = 0;
    {
      nb::gil_scoped_release release;
      device_id = device_for_results();
      if (node_cost && node_cost->device_id() != device_id) {
        throw UsageError("node_cost is on CUDA device " + std::to_string(node_cost->device_id()) +
                         ", the graph on device " + std::to_string(device_id));
      }
      distances = DeviceArray<Weight>(n);
      if (parents_) parents = DeviceArray<NodeId>(n);
      result = std::move(paths_.run_batch_on_device({&query, 1}, distances.data(), parents.data()).front());
    }
    nb::dict info = summary_of(result);
    return nb::make_tuple(on_device(std::move(distances), device_id), on_device(std::move(parents), device_id), info);
  }

  // K queries: distances and parents as K x nodes arrays (on the device
  // with on_device, cuda only), searched kQueriesPerReport at a time with
  // progress(done, total) and Ctrl-C between chunks.
  nb::tuple run_batch(const std::vector<std::vector<NodeId>>& sources, const std::vector<NodeId>& targets,
                      const nb::object& progress, bool device_results) {
    if (device_results) require_cuda();
    const std::vector<graph::SsspQuery> queries = batch_queries(sources, targets);
    const std::span<const graph::SsspQuery> all(queries);
    const auto n = static_cast<std::size_t>(nodes_);
    const std::size_t k = queries.size();
    std::vector<Weight> distances;
    std::vector<NodeId> parents;
    DeviceArray<Weight> device_distances;
    DeviceArray<NodeId> device_parents;
    int device_id = 0;
    std::int64_t edges_relaxed = 0;
    {
      nb::gil_scoped_release release;
      if (device_results) {
        device_id = device_for_results();
        device_distances = DeviceArray<Weight>(k * n);
        if (parents_) device_parents = DeviceArray<NodeId>(k * n);
      } else {
        distances.resize(k * n);
        if (parents_) parents.resize(k * n);
      }
      for (std::size_t begin = 0; begin < k; begin += kQueriesPerReport) {
        const std::size_t end = std::min(k, begin + kQueriesPerReport);
        const std::span<const graph::SsspQuery> chunk = all.subspan(begin, end - begin);
        if (device_results) {
          for (const graph::SsspResult& r :
               paths_.run_batch_on_device(chunk, device_distances.data() + begin * n,
                                          parents_ ? device_parents.data() + begin * n : nullptr)) {
            edges_relaxed += r.edges_relaxed;
          }
        } else {
          const std::vector<graph::SsspResult> results = paths_.run_batch(chunk);
          for (std::size_t q = 0; q < results.size(); ++q) {
            const auto at = static_cast<std::ptrdiff_t>((begin + q) * n);
            std::copy(results[q].distance.begin(), results[q].distance.end(), distances.begin() + at);
            if (parents_) std::copy(results[q].parent.begin(), results[q].parent.end(), parents.begin() + at);
            edges_relaxed += results[q].edges_relaxed;
          }
        }
        report_progress(progress, end, k);  // Ctrl-C, or the callback's exception, unwinds here
      }
    }
    nb::dict info;
    info["backend"] = std::string(to_string(paths_.backend()));
    info["algorithm"] = std::string(graph::to_string(paths_.algorithm()));
    info["edges_relaxed"] = edges_relaxed;
    const std::size_t parent_rows = parents_ ? k : 0;
    if (device_results) {
      // K x n over the device storage (rows 0 when there are no queries or no parents).
      return nb::make_tuple(on_device_2d(std::move(device_distances), k, n, device_id),
                            on_device_2d(std::move(device_parents), parent_rows, n, device_id), info);
    }
    return nb::make_tuple(to_numpy_2d(std::move(distances), k, n), to_numpy_2d(std::move(parents), parent_rows, n),
                          info);
  }

  std::string backend() const { return std::string(to_string(paths_.backend())); }
  std::string algorithm() const { return std::string(graph::to_string(paths_.algorithm())); }

 private:
  void require_cuda() const {
    if (paths_.backend() != Backend::cuda) {
      throw UsageError("device arrays need the cuda backend; this search runs on " + backend());
    }
  }

  graph::ShortestPaths paths_;
  NodeId nodes_;
  bool parents_;
};

nb::object coordinates_of(const Graph& g, nb::handle self) {
  if (!g.coordinates) return nb::none();
  nb::dict coordinates;
  const auto view = [&](const std::vector<std::int32_t>& values) {
    return nb::cast(view_of(values), nb::rv_policy::reference_internal, self);
  };
  coordinates["x"] = view(g.coordinates->x);
  coordinates["y"] = view(g.coordinates->y);
  coordinates["layer"] = view(g.coordinates->layer);
  return coordinates;
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<Graph>(m, "Graph", "A directed graph in CSR form with float32 weights (owns its arrays).")
      .def_prop_ro("node_count", &Graph::node_count)
      .def_prop_ro("edge_count", &Graph::edge_count)
      .def_prop_ro(
          "indptr", [](const Graph& g) { return view_of(g.csr.row_offsets); }, nb::rv_policy::reference_internal,
          "Row offsets (int64, node_count + 1), a read-only view of the graph's storage")
      .def_prop_ro(
          "indices", [](const Graph& g) { return view_of(g.csr.col_indices); }, nb::rv_policy::reference_internal,
          "Edge heads (int32), a read-only view")
      .def_prop_ro(
          "weights", [](const Graph& g) { return view_of(g.csr.values); }, nb::rv_policy::reference_internal,
          "Edge weights (float32), a read-only view")
      .def_prop_ro(
          "coordinates", [](nb::handle self) { return coordinates_of(nb::cast<const Graph&>(self), self); },
          "Lattice coordinates {'x', 'y', 'layer'} (int32 views) or None");

  m.def("from_csr", &graph_from_csr, nb::arg("indptr"), nb::arg("indices"), nb::arg("weights"),
        "A graph from CSR arrays (int64 indptr, int32 indices, float32 weights), copied once into the graph. "
        "Raises UsageError for inconsistent arrays or weights that are negative, NaN or infinite.");
  m.def(
      "from_edges",
      [](NodeId nodes, const HostInput<std::int32_t>& tails, const HostInput<std::int32_t>& heads,
         const HostInput<float>& weights) {
        Graph g;
        as_usage_error([&] { g = graph::graph_from_edges(nodes, span_of(tails), span_of(heads), span_of(weights)); });
        return g;
      },
      nb::arg("nodes"), nb::arg("tails"), nb::arg("heads"), nb::arg("weights"));
  m.def(
      "read",
      [](const std::string& path) {
        graph::GraphFile file = graph::read_graph_file(path);
        return nb::make_tuple(std::move(file.graph), graph::id_base(file.format));
      },
      nb::arg("path"), "Reads .gr, .mtx, .el or .wel; returns (graph, the file's first node id).");
  m.def(
      "write_dimacs", [](const Graph& g, const std::string& path) { graph::write_dimacs_file(g, path); },
      nb::arg("graph"), nb::arg("path"));

  m.def(
      "routing_lattice",
      [](std::int32_t width, std::int32_t height, std::int32_t layers, float track_cost, float via_cost,
         bool both_directions, bool any_layer_vias, double obstacle_fraction, std::uint64_t seed) {
        graph::LatticeSpec spec{
            width, height, layers, track_cost, via_cost, both_directions, any_layer_vias, obstacle_fraction, seed};
        nb::gil_scoped_release release;
        return graph::routing_lattice(spec);
      },
      nb::arg("width"), nb::arg("height"), nb::arg("layers"), nb::arg("track_cost"), nb::arg("via_cost"),
      nb::arg("both_directions"), nb::arg("any_layer_vias"), nb::arg("obstacle_fraction"), nb::arg("seed"));
  m.def(
      "lattice_preset",
      [](const std::string& name) {
        const graph::LatticeSpec spec = graph::lattice_preset(name).spec;
        nb::gil_scoped_release release;
        return graph::routing_lattice(spec);
      },
      nb::arg("name"));
  m.def("lattice_preset_names", [] {
    std::vector<std::string> names;
    for (const graph::LatticePreset& preset : graph::lattice_presets()) names.push_back(preset.name);
    return names;
  });
  m.def(
      "random_geometric",
      [](NodeId nodes, double radius, std::uint64_t seed) {
        nb::gil_scoped_release release;
        return graph::random_geometric_graph(nodes, radius, seed);
      },
      nb::arg("nodes"), nb::arg("radius"), nb::arg("seed"));
  m.def(
      "rmat",
      [](int scale, int edge_factor, std::uint64_t seed) {
        nb::gil_scoped_release release;
        return graph::rmat_graph(scale, edge_factor, seed);
      },
      nb::arg("scale"), nb::arg("edge_factor"), nb::arg("seed"));

  nb::class_<Engine>(m, "ShortestPaths", "A graph prepared once and searched many times")
      .def(nb::init<const Graph&, const std::string&, const std::string&, float, bool>(), nb::arg("graph"),
           nb::arg("backend"), nb::arg("algorithm"), nb::arg("delta"), nb::arg("parents"), nb::keep_alive<1, 2>())
      .def("run", &Engine::run, nb::arg("sources"), nb::arg("target"), nb::arg("node_cost").none(),
           "(distances float32, parents int32, info dict) of one query")
      .def("run_device", &Engine::run_device, nb::arg("sources"), nb::arg("target"), nb::arg("node_cost").none(),
           "(distances, parents, info) of one query, the arrays on the CUDA device (cuda engines)")
      .def("run_batch", &Engine::run_batch, nb::arg("sources"), nb::arg("targets"), nb::arg("progress").none(),
           nb::arg("device_results"),
           "(distances K x n, parents K x n, info) of K queries, on the CUDA device with device_results; "
           "progress(done, total) after every chunk of queries")
      .def_prop_ro("backend", &Engine::backend)
      .def_prop_ro("algorithm", &Engine::algorithm);
}

}  // namespace trellis::python
