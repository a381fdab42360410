"""trellis.graph against the CLI (`trellis sssp`) on the same graphs, against
SciPy's Dijkstra, and the zero-copy contract of its arrays."""

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import trellis
from dlpack_arrays import DLPackOnly, OnCuda
from trellis import graph

HOST_RUNS = [("reference", "dijkstra"), ("cpu", "delta-stepping"), ("auto", "auto")]


def cli_distances(cli, path, source, tmp_path):
    """`trellis sssp --binary` distances (float32) from a 0-based source."""
    g, base = graph.read_with_base(path)
    out = tmp_path / "distances.bin"
    cli("--backend", "cpu", "sssp", path, "--source", source + base, "-o", out, "--binary")
    return np.fromfile(out, dtype="<f4")


def lattice():
    return graph.routing_lattice(12, 9, 3, via_cost=2.5, obstacle_fraction=0.15, seed=7)


def test_diamond_against_cli(cli, examples, tmp_path):
    path = examples / "diamond.gr"
    g = graph.read(path)
    assert (g.node_count, g.edge_count) == (6, 6)
    want = cli_distances(cli, path, 0, tmp_path)
    for backend, algorithm in HOST_RUNS:
        result = graph.shortest_paths(g, 0, backend=backend, algorithm=algorithm)
        assert result.distances.dtype == np.float32 and result.parents.dtype == np.int32
        assert result.distances.tobytes() == want.tobytes()
    assert np.isinf(want[5])
    assert graph.path_to(result, 4) == [0, 1, 3, 4]  # ties to the smallest id
    assert graph.path_to(result, 5) == []


def test_lattice_against_cli_bitwise(cli, tmp_path):
    g = lattice()
    path = tmp_path / "lattice.gr"
    graph.write_dimacs(g, path)
    want = cli_distances(cli, path, 5, tmp_path)
    assert np.isfinite(want).sum() > g.node_count // 2
    for backend, algorithm in HOST_RUNS:
        got = graph.shortest_paths(g, 5, backend=backend, algorithm=algorithm)
        assert got.distances.tobytes() == want.tobytes(), (backend, algorithm)
        assert got.edges_relaxed > 0


def test_target_path_against_cli(cli, tmp_path):
    g = lattice()
    path = tmp_path / "lattice.gr"
    graph.write_dimacs(g, path)
    target = g.node_count - 1
    out = cli("sssp", path, "--source", 1, "--target", target + 1, "--path").stdout.split("\n")
    cli_path = [int(v) - 1 for v in out[1].split()[1:]]
    result = graph.shortest_paths(g, 0, target, backend="cpu")
    assert graph.path_to(result, target) == cli_path
    assert float(out[0].split()[1]) == pytest.approx(float(result.distances[target]))


def test_from_scipy_against_csgraph():
    rng = np.random.default_rng(3)
    dense = rng.uniform(0.5, 4.0, (40, 40)) * (rng.random((40, 40)) < 0.12)
    matrix = scipy.sparse.csr_matrix(dense.astype(np.float32))
    g = graph.from_scipy(matrix)
    want = scipy.sparse.csgraph.dijkstra(matrix, directed=True, indices=0)
    got = graph.shortest_paths(g, 0, backend="reference")
    np.testing.assert_allclose(got.distances, want, rtol=1e-5)
    for v in np.flatnonzero(np.isfinite(want))[1:]:  # each parent edge is tight
        u = got.parents[v]
        assert np.float32(got.distances[u] + np.float32(dense[u, v])) == got.distances[v]


def test_views_round_trip_through_scipy():
    g = lattice()
    again = graph.from_scipy(graph.to_scipy(g))
    assert np.array_equal(again.indptr, g.indptr) and np.array_equal(again.indices, g.indices)
    assert again.weights.tobytes() == g.weights.tobytes()
    assert set(g.coordinates) == {"x", "y", "layer"} and g.coordinates["layer"].max() == 2


def test_zero_copy_out():
    g = lattice()
    result = graph.shortest_paths(g, 0, backend="cpu")
    for array in (result.distances, result.parents):
        assert not array.flags.owndata and array.base is not None  # wraps the library's vector
    a, b = g.indptr, g.indptr
    assert a.ctypes.data == b.ctypes.data  # a view of the graph's storage, not a copy
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1


def test_batch_equals_single_queries():
    g = lattice()
    sources = [[0], [17, 30], [g.node_count - 1]]
    engine = graph.ShortestPaths(g, backend="cpu")
    batch = engine.run_batch(sources)
    assert batch.distances.shape == (3, g.node_count) and batch.parents.shape == (3, g.node_count)
    for k, s in enumerate(sources):
        single = engine.run(s)
        assert batch.distances[k].tobytes() == single.distances.tobytes()
        assert np.array_equal(batch.parents[k], single.parents)
    also = graph.shortest_paths(g, np.array([[0], [5]]), backend="reference")
    assert also.distances.shape == (2, g.node_count)


def test_node_cost_is_added_to_entering_edges():
    g = lattice()
    rng = np.random.default_rng(11)
    cost = rng.uniform(0, 2, g.node_count).astype(np.float32)
    with_cost = graph.shortest_paths(g, 3, backend="cpu", node_cost=cost)
    heads = g.indices
    folded = graph.from_csr(g.indptr, heads, (g.weights + cost[heads]).astype(np.float32))
    assert with_cost.distances.tobytes() == graph.shortest_paths(folded, 3, backend="reference").distances.tobytes()


def test_generators_are_seeded():
    a, b = graph.rmat(8, 4, seed=5), graph.rmat(8, 4, seed=5)
    assert a.weights.tobytes() == b.weights.tobytes() and a.node_count == 256
    assert graph.random_geometric(100, 0.2, seed=2).edge_count > 0
    assert "seed-2k" in graph.lattice_preset_names()


def test_bad_input():
    with pytest.raises(trellis.UsageError, match="negative"):
        graph.from_csr([0, 1, 1], [1], [-1.0])
    with pytest.raises(trellis.UsageError):
        graph.from_csr([0, 2, 1], [1, 0], [1.0, 1.0])  # decreasing offsets
    with pytest.raises(ValueError):
        graph.from_csr([0, 1], [5], [1.0])  # head out of range
    g = graph.from_csr([0, 1, 1], [1], [1.0])
    with pytest.raises(trellis.UsageError):
        graph.shortest_paths(g, 7)
    with pytest.raises(trellis.UsageError):
        graph.shortest_paths(g, 0, node_cost=np.ones(5, dtype=np.float32))
    with pytest.raises(trellis.UsageError, match="dijkstra|delta"):
        graph.shortest_paths(g, 0, backend="cpu", algorithm="dijkstra")


def test_dlpack_inputs():
    g = lattice()
    cost = np.random.default_rng(1).uniform(0, 1, g.node_count).astype(np.float32)
    from trellis._arrays import host_array

    assert np.shares_memory(host_array(DLPackOnly(cost), np.float32, "cost"), cost)  # viewed, not copied
    want = graph.shortest_paths(g, 0, backend="cpu", node_cost=cost)
    got = graph.shortest_paths(g, 0, backend="cpu", node_cost=DLPackOnly(cost))
    assert got.distances.tobytes() == want.distances.tobytes()
    again = graph.from_csr(DLPackOnly(np.asarray(g.indptr)), DLPackOnly(np.asarray(g.indices)),
                           DLPackOnly(np.asarray(g.weights)))
    assert again.weights.tobytes() == g.weights.tobytes()


def test_batch_progress_reports_chunks():
    g = lattice()
    sources = [[s % g.node_count] for s in range(0, 600 * 7, 7)]
    engine = graph.ShortestPaths(g, backend="cpu")
    plain = engine.run_batch(sources)
    calls = []
    got = engine.run_batch(sources, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(256, 600), (512, 600), (600, 600)]  # chunks of 256 queries
    assert got.distances.tobytes() == plain.distances.tobytes() and np.array_equal(got.parents, plain.parents)
    assert got.edges_relaxed == plain.edges_relaxed
    also = graph.shortest_paths(g, sources[:3], backend="reference", progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (3, 3) and also.distances.shape == (3, g.node_count)
    with pytest.raises(ValueError, match="batch"):
        graph.shortest_paths(g, 0, progress=print)


def test_batch_progress_exceptions_reach_python():
    g = lattice()
    sources = [[s] for s in range(300)]
    seen = []

    def fail(done, total):
        seen.append(done)
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        graph.shortest_paths(g, sources, backend="cpu", progress=fail)
    assert seen == [256]  # the first chunk's report, then nothing more

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        graph.ShortestPaths(g, backend="reference").run_batch(sources, progress=interrupt)
    with pytest.raises(TypeError, match="progress"):
        graph.shortest_paths(g, sources, progress="yes")


def test_device_arrays_where_they_cannot_run():
    g = lattice()
    cost = OnCuda(np.ones(g.node_count, np.float32))
    for backend in ("cpu", "reference"):
        with pytest.raises(ValueError, match="^node_cost: .*(cuda|no CUDA)"):
            graph.shortest_paths(g, 0, backend=backend, node_cost=cost)
        with pytest.raises(ValueError, match="^like: .*(cuda|no CUDA)"):
            graph.shortest_paths(g, [[0], [1]], backend=backend, like=cost)
    with pytest.raises(ValueError, match="^like: "):
        graph.shortest_paths(g, 0, backend="cpu", like=np.zeros(3))
    with pytest.raises(ValueError, match="^weights: a CUDA device array"):
        graph.from_csr(np.asarray(g.indptr), np.asarray(g.indices), OnCuda(np.asarray(g.weights)))
    if not trellis.cuda_compiled():
        with pytest.raises(ValueError, match="no CUDA"):
            graph.shortest_paths(g, 0, node_cost=cost)
