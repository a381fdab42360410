"""Shortest paths on CSR graphs with float32 weights.

Graphs come from CSR arrays (``from_csr``), a ``scipy.sparse`` matrix
(``from_scipy``), edge lists (``from_edges``), graph files (``read``: DIMACS
.gr, Matrix Market .mtx, gapbs .el/.wel) or the generators. A Graph owns its
arrays: they are copied once into it, and ``indptr``, ``indices`` and
``weights`` read them back as read-only views.

``shortest_paths`` returns float32 distances (``inf`` where unreachable) and
int32 parents (-1 for sources and unreached nodes) as NumPy arrays that own
the library's results (no copy). Every backend and algorithm gives the same
bits (the parity rule of include/trellis/graph/sssp.hpp).

On the cuda backend the results can stay on the device: a CUDA device array
as ``node_cost`` (a CuPy array or PyTorch tensor, float32), or any such
array as ``like``, makes the distances and parents device arrays of that
framework, written by the library and handed over through DLPack without
a copy; the node costs are read where they are. Batches run in chunks of
256 queries with ``progress(done, total)`` after each; an exception raised
there, or Ctrl-C, stops the batch and arrives in Python.
"""

from __future__ import annotations

import os
from typing import NamedTuple, Optional, Sequence

import numpy as np

from . import _native
from ._arrays import as_framework, check_device_backend, device_array, device_of, host_array

Graph = _native.graph.Graph

UNREACHABLE = np.float32(np.inf)
NO_PARENT = -1


class ShortestPathResult(NamedTuple):
    distances: np.ndarray  # float32, one per node (K x n for a batch)
    parents: np.ndarray    # int32, one per node; empty when parents=False
    backend: str
    algorithm: str
    edges_relaxed: int


def from_csr(indptr, indices, weights) -> Graph:
    """A graph from CSR arrays: row u lists the edges u -> indices[k] of
    weight weights[k] for k in indptr[u]:indptr[u+1]."""
    return _native.graph.from_csr(host_array(indptr, np.int64, "indptr"), host_array(indices, np.int32, "indices"),
                                  host_array(weights, np.float32, "weights"))


def from_scipy(matrix) -> Graph:
    """A graph from a square scipy.sparse matrix: entry (i, j) = w is the
    edge i -> j of weight w (explicit zeros are zero-weight edges)."""
    import scipy.sparse

    if not scipy.sparse.issparse(matrix):
        raise TypeError(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"a graph needs a square matrix, got shape {matrix.shape}")
    csr = matrix.tocsr()
    return from_csr(csr.indptr, csr.indices, csr.data)


def from_edges(nodes: int, tails, heads, weights) -> Graph:
    """A graph of `nodes` nodes from edge arrays (0-based ids); each node's
    edges keep their given order."""
    return _native.graph.from_edges(int(nodes), host_array(tails, np.int32, "tails"), host_array(heads, np.int32, "heads"),
                                    host_array(weights, np.float32, "weights"))


def to_scipy(graph: Graph):
    """The graph as a scipy.sparse.csr_matrix (float32)."""
    import scipy.sparse

    n = graph.node_count
    return scipy.sparse.csr_matrix((graph.weights, graph.indices, graph.indptr), shape=(n, n))


def read(path) -> Graph:
    """Reads .gr, .mtx, .el or .wel by extension; node ids become 0-based
    (the file's first id is in ``read_with_base``)."""
    return read_with_base(path)[0]


def read_with_base(path) -> tuple[Graph, int]:
    """(graph, the file's first node id: 1 for .gr and .mtx, 0 for .el/.wel)."""
    return _native.graph.read(os.fspath(path))


def write_dimacs(graph: Graph, path) -> None:
    """Writes a DIMACS .gr that reads back bitwise (whole or not at all)."""
    _native.graph.write_dimacs(graph, os.fspath(path))


def routing_lattice(width: int, height: int, layers: int = 1, *, track_cost: float = 1.0, via_cost: float = 3.0,
                    both_directions: bool = False, any_layer_vias: bool = False, obstacle_fraction: float = 0.0,
                    seed: int = 1) -> Graph:
    """An OrthoRoute-style routing lattice: node (x, y, layer) has id
    x + width * (y + height * layer); ``graph.coordinates`` holds them."""
    return _native.graph.routing_lattice(width, height, layers, track_cost, via_cost, both_directions,
                                         any_layer_vias, obstacle_fraction, seed)


def lattice_preset(name: str) -> Graph:
    """One of ``lattice_preset_names()`` (the benchmarks' sizes)."""
    return _native.graph.lattice_preset(name)


def lattice_preset_names() -> list[str]:
    return _native.graph.lattice_preset_names()


def random_geometric(nodes: int, radius: float, seed: int = 1) -> Graph:
    return _native.graph.random_geometric(nodes, radius, seed)


def rmat(scale: int, edge_factor: int = 16, seed: int = 1) -> Graph:
    return _native.graph.rmat(scale, edge_factor, seed)


class ShortestPaths:
    """A graph prepared once and searched many times (on cuda it stays
    resident on the device). algorithm: "auto", "dijkstra" (reference),
    "delta-stepping" (cpu, cuda), "bellman-ford" or "spfa" (cuda)."""

    def __init__(self, graph: Graph, *, backend: str = "auto", algorithm: str = "auto", delta: float = 0.0,
                 parents: bool = True):
        self.graph = graph
        self._requested_backend = backend
        self._engine = _native.graph.ShortestPaths(graph, backend, algorithm, float(delta), bool(parents))

    @property
    def backend(self) -> str:
        return self._engine.backend

    @property
    def algorithm(self) -> str:
        return self._engine.algorithm

    def run(self, sources, target: Optional[int] = None, node_cost=None, *, like=None) -> ShortestPathResult:
        """One query from one source or several (all at distance 0). With a
        target the search may stop once it is settled; nodes farther than the
        target then read inf. node_cost (float32, one per node) is read in
        place and added to every edge entering a node. A CUDA device array as
        node_cost or like (cuda engines) leaves the results on the device as
        arrays of its framework."""
        src = np.ascontiguousarray(np.atleast_1d(np.asarray(sources, dtype=np.int32)))
        target = -1 if target is None else int(target)
        like = self._device_like(like, node_cost)
        if like is not None:
            cost = None if node_cost is None else device_array(node_cost, np.float32, "node_cost")
            distances, parents, info = self._engine.run_device(src, target, cost)
            return ShortestPathResult(as_framework(distances, like), as_framework(parents, like), info["backend"],
                                      info["algorithm"], info["edges_relaxed"])
        cost = None if node_cost is None else host_array(node_cost, np.float32, "node_cost")
        distances, parents, info = self._engine.run(src, target, cost)
        return ShortestPathResult(distances, parents, info["backend"], info["algorithm"], info["edges_relaxed"])

    def run_batch(self, sources: Sequence, targets: Optional[Sequence[int]] = None, *, progress=None,
                  like=None) -> ShortestPathResult:
        """K independent queries in one call; distances and parents are K x n
        (device arrays of like's framework when like is a CUDA device array).
        progress(done, total) is called after every chunk of 256 queries."""
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable (done, total) or None, got {type(progress).__name__}")
        like = self._device_like(like, None)
        lists = [[int(s) for s in np.atleast_1d(q)] for q in sources]
        distances, parents, info = self._engine.run_batch(lists, [] if targets is None else [int(t) for t in targets],
                                                          progress, like is not None)
        if like is not None:
            distances, parents = as_framework(distances, like), as_framework(parents, like)
        return ShortestPathResult(distances, parents, info["backend"], info["algorithm"], info["edges_relaxed"])

    def _device_like(self, like, node_cost):
        """The device array whose framework the results take (like, else a
        device node_cost), or None for NumPy results."""
        for name, value in (("like", like), ("node_cost", node_cost)):
            if value is None:
                continue
            if device_of(value, name) is None:
                if name == "like":
                    raise ValueError("like: results follow a CUDA device array; for NumPy results leave like out")
                continue
            check_device_backend(name, self._requested_backend)
            if self.backend != "cuda":
                raise ValueError(f"{name}: a CUDA device array needs the cuda backend; this search runs on "
                                 f"{self.backend}")
            if name == "like" and node_cost is not None and device_of(node_cost, "node_cost") is None:
                raise ValueError("node_cost: a host array with device results (like); pass the costs on the device")
            return value
        return None


def shortest_paths(graph: Graph, sources, target: Optional[int] = None, *, backend: str = "auto",
                   algorithm: str = "auto", delta: float = 0.0, parents: bool = True, node_cost=None,
                   progress=None, like=None) -> ShortestPathResult:
    """Distances (float32) and parents (int32) from `sources`. A list of
    source lists (or a 2-D array) runs a batch and returns K x n arrays,
    calling progress(done, total) after every chunk of 256 queries. A CUDA
    device array as node_cost or like (backend "cuda" or "auto" on a
    machine with a device) returns device arrays of its framework."""
    if (_device_given(node_cost, "node_cost") or _device_given(like, "like")) and backend == "auto":
        backend = "cuda"  # device data: the search runs where it is
    engine = ShortestPaths(graph, backend=backend, algorithm=algorithm, delta=delta, parents=parents)
    if _is_batch(sources):
        if node_cost is not None:
            raise ValueError("node_cost applies to a single query, not a batch")
        targets = None if target is None else list(np.atleast_1d(target))
        return engine.run_batch(sources, targets, progress=progress, like=like)
    if progress is not None:
        raise ValueError("progress applies to a batch (a list of source lists), not a single query")
    return engine.run(sources, target, node_cost, like=like)


def _device_given(value, name) -> bool:
    if value is None or device_of(value, name) is None:
        return False
    check_device_backend(name, "cuda")
    return True


def path_to(result: ShortestPathResult, target: int) -> list[int]:
    """The path source .. target of a single query's result, following its
    parents; [] when the target is unreached."""
    if result.distances.ndim != 1:
        raise ValueError("path_to takes the result of a single query")
    if len(result.parents) == 0:
        raise ValueError("the search was run without parents")
    if not np.isfinite(result.distances[target]):
        return []
    path = [int(target)]
    while result.parents[path[-1]] != NO_PARENT:
        path.append(int(result.parents[path[-1]]))
        if len(path) > len(result.parents):
            raise ValueError("parents hold a cycle")
    path.reverse()
    return path


def _is_batch(sources) -> bool:
    if isinstance(sources, np.ndarray):
        return sources.ndim == 2
    if isinstance(sources, (list, tuple)) and sources:
        return all(isinstance(s, (list, tuple, np.ndarray)) for s in sources)
    return False
