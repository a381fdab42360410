"""CUDA device arrays (PyTorch tensors or CuPy arrays) through the grid and
graph kernels on the cuda backend, against the same calls on NumPy arrays:
results equal, vectors read and written where they are, results handed back
as device arrays of the caller's framework. Skipped where there is no CUDA
device, no cuda backend in this build, or neither torch nor cupy."""

import os

import numpy as np
import pytest
import scipy.sparse

import trellis
from trellis import graph, grid


def _framework():
    """torch, else cupy; TRELLIS_TEST_FRAMEWORK=torch|cupy picks one (so both
    can be run where both are installed)."""
    if "cuda" not in trellis.available_backends():
        return None
    wanted = os.environ.get("TRELLIS_TEST_FRAMEWORK")
    if wanted in (None, "", "torch"):
        try:
            import torch

            if torch.cuda.is_available():
                return "torch"
        except ImportError:
            pass
    if wanted in (None, "", "cupy"):
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                return "cupy"
        except ImportError:
            pass
    return None


FRAMEWORK = _framework()
# Marked rather than skipped at import, so that a run without a device
# reports the tests as skipped (pytest fails a file that collects nothing).
pytestmark = pytest.mark.skipif(FRAMEWORK is None, reason="needs a CUDA device, the cuda backend and torch or cupy")

if FRAMEWORK == "torch":
    import torch

    def to_device(array):
        return torch.from_numpy(np.ascontiguousarray(array)).cuda()

    def to_host(array):
        return array.cpu().numpy()

    def address(array):
        return array.data_ptr()

    def is_device_array(array):
        return isinstance(array, torch.Tensor) and array.is_cuda
    def device_csr(matrix):
        csr = matrix.tocsr()
        return torch.sparse_csr_tensor(torch.from_numpy(csr.indptr.astype(np.int64)),
                                       torch.from_numpy(csr.indices.astype(np.int64)),
                                       torch.from_numpy(csr.data), size=csr.shape).cuda()

    def csr_to_host(matrix):
        return scipy.sparse.csr_matrix((to_host(matrix.values()), to_host(matrix.col_indices()),
                                        to_host(matrix.crow_indices())), shape=tuple(matrix.shape))

    def is_device_csr_matrix(matrix):
        return isinstance(matrix, torch.Tensor) and matrix.layout == torch.sparse_csr and matrix.is_cuda
elif FRAMEWORK == "cupy":
    import cupy
    import cupyx.scipy.sparse

    def device_csr(matrix):
        return cupyx.scipy.sparse.csr_matrix(matrix.tocsr())

    def csr_to_host(matrix):
        return matrix.get()

    def is_device_csr_matrix(matrix):
        return isinstance(matrix, cupyx.scipy.sparse.csr_matrix)

    def to_device(array):
        return cupy.asarray(np.ascontiguousarray(array))

    def to_host(array):
        return cupy.asnumpy(array)

    def address(array):
        return array.data.ptr

    def is_device_array(array):
        return isinstance(array, cupy.ndarray)


def test_spmv_on_device_vectors_in_place():
    a = grid.laplacian_7point(20, 17, 9)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(a.shape[1])
    y = rng.standard_normal(a.shape[0])
    want = grid.spmv(a, x, y.copy(), alpha=2.0, beta=0.5, backend="cpu")
    dx, dy = to_device(x), to_device(y)
    before = address(dy)
    got = grid.spmv(a, dx, dy, alpha=2.0, beta=0.5)
    assert got is dy and address(dy) == before  # written where it is
    np.testing.assert_allclose(to_host(dy), want, rtol=1e-13, atol=1e-13)
    assert to_host(dx).tobytes() == x.tobytes()  # x only read
    fresh = grid.spmv(a, dx, backend="cuda")
    assert is_device_array(fresh) and fresh.shape == (a.shape[0],)
    np.testing.assert_allclose(to_host(fresh), a @ x, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_solvers_on_device_vectors(method):
    a = grid.laplacian_7point(24, 20, 10)
    b = np.random.default_rng(2).standard_normal(a.shape[0])
    solve = getattr(grid, method)
    want, want_info = solve(a, b, tol=1e-10, backend="cpu")
    db, dx = to_device(b), to_device(np.zeros(a.shape[0]))
    before = address(dx)
    x, info = solve(a, db, dx, tol=1e-10)
    assert x is dx and address(dx) == before
    assert info["converged"] and abs(info["iterations"] - want_info["iterations"]) <= 2
    got = to_host(dx)
    assert np.linalg.norm(b - a @ got) <= 2e-10 * np.linalg.norm(b)  # both solve to the tolerance asked
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)
    fresh, _ = solve(a, db, tol=1e-10, backend="cuda")
    assert is_device_array(fresh)
    np.testing.assert_allclose(to_host(fresh), to_host(dx), rtol=1e-12, atol=1e-14)


def test_device_solver_progress_and_stop():
    a = grid.laplacian_7point(24, 24, 24)
    db = to_device(np.ones(a.shape[0]))
    calls = []
    x, info = grid.cg(a, db, tol=1e-10, check_every=5, progress=lambda k, r: calls.append((k, r)))
    assert info["converged"]
    assert [k for k, _ in calls] == list(range(5, info["iterations"], 5))
    assert all(r == info["residual_history"][k] for k, r in calls)
    x, info = grid.bicgstab(a, db, tol=1e-14, check_every=4, progress=lambda k, r: k < 8)
    assert info["stop"] == "interrupted" and info["iterations"] == 8 and not info["converged"]

    def fail(k, r):
        raise RuntimeError("from the callback")

    def interrupt(k, r):
        raise KeyboardInterrupt

    with pytest.raises(RuntimeError, match="from the callback"):
        grid.cg(a, db, tol=1e-14, progress=fail)
    with pytest.raises(KeyboardInterrupt):
        grid.cg(a, db, tol=1e-14, progress=interrupt)


def test_matrix_free_on_device_vectors():
    mesh = grid.Mesh([grid.Mesh1D.random(0.0, 1.0, 30, seed=4), grid.Mesh1D.graded(0.0, 2.0, 25, ratio=1.1)])
    rng = np.random.default_rng(8)
    k = rng.uniform(1.0, 2.0, mesh.nodes)
    u, v, kc = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0)
    form = grid.inner_plus(kc * grid.grad_minus(u), grid.grad_minus(v)) + grid.inner_h(0.5 * u, v)
    free = grid.MatrixFree(mesh, form, coefficients=[k])
    x = rng.standard_normal(mesh.nodes)
    want = free.apply(x, backend="cpu")
    got = free.apply(to_device(x))
    assert is_device_array(got)
    np.testing.assert_allclose(to_host(got), want, rtol=1e-12, atol=1e-12)
    b = want
    host_x, _ = grid.cg(free, b, tol=1e-11, backend="cpu")
    dx = to_device(np.zeros(mesh.nodes))
    device_x, info = grid.cg(free, to_device(b), dx, tol=1e-11)
    assert device_x is dx and info["converged"]
    np.testing.assert_allclose(to_host(dx), host_x, rtol=1e-8, atol=1e-10)


def test_shortest_paths_on_the_device_equal_the_host_bits():
    g = graph.routing_lattice(40, 30, 3, via_cost=2.5, obstacle_fraction=0.15, seed=7)
    like = to_device(np.zeros(1, np.float32))
    host = graph.shortest_paths(g, [5, 700], backend="cpu")
    got = graph.shortest_paths(g, [5, 700], like=like)
    assert got.backend == "cuda" and is_device_array(got.distances) and is_device_array(got.parents)
    assert to_host(got.distances).tobytes() == host.distances.tobytes()  # the parity rule: the same bits
    assert np.array_equal(to_host(got.parents), host.parents)
    # A targeted query: the same masking as on the host.
    target = graph.shortest_paths(g, 5, 1200, backend="cpu")
    got = graph.shortest_paths(g, 5, 1200, backend="cuda", like=like)
    assert to_host(got.distances).tobytes() == target.distances.tobytes()
    assert np.array_equal(to_host(got.parents), target.parents)


def test_device_node_costs_are_read_in_place():
    g = graph.routing_lattice(40, 30, 3, via_cost=2.5, obstacle_fraction=0.15, seed=7)
    cost = np.random.default_rng(5).uniform(0, 2, g.node_count).astype(np.float32)
    host = graph.shortest_paths(g, 3, backend="cpu", node_cost=cost)
    device_cost = to_device(cost)
    got = graph.shortest_paths(g, 3, node_cost=device_cost)
    assert is_device_array(got.distances)
    assert to_host(got.distances).tobytes() == host.distances.tobytes()
    assert np.array_equal(to_host(got.parents), host.parents)
    bad = cost.copy()
    bad[17] = -1.0
    with pytest.raises(trellis.UsageError, match="node 17"):
        graph.shortest_paths(g, 3, node_cost=to_device(bad))
    with pytest.raises(ValueError, match="float32"):
        graph.shortest_paths(g, 3, node_cost=to_device(cost.astype(np.float64)))


def test_device_batches_equal_host_batches_and_report_progress():
    g = graph.routing_lattice(30, 20, 2, obstacle_fraction=0.1, seed=3)
    sources = [[s % g.node_count] for s in range(0, 300 * 11, 11)]
    targets = [(s * 7 + 13) % g.node_count for s in range(300)]
    host = graph.shortest_paths(g, sources, targets, backend="cpu")
    calls = []
    got = graph.ShortestPaths(g, backend="cuda").run_batch(sources, targets, like=to_device(np.zeros(1)),
                                                          progress=lambda d, t: calls.append((d, t)))
    assert calls == [(256, 300), (300, 300)]
    assert got.distances.shape == (300, g.node_count) and is_device_array(got.distances)
    assert to_host(got.distances).tobytes() == host.distances.tobytes()
    assert np.array_equal(to_host(got.parents), host.parents)


def test_device_arrays_refused_by_host_backends():
    a = grid.laplacian_7point(4, 4, 4)
    with pytest.raises(ValueError, match="^x: .*backend 'cuda'"):
        grid.spmv(a, to_device(np.ones(64)), backend="cpu")
    with pytest.raises(ValueError, match="^b: .*float64"):
        grid.cg(a, to_device(np.ones(64, np.float32)))
    g = graph.routing_lattice(5, 5, 1)
    with pytest.raises(ValueError, match="^node_cost: .*cuda"):
        graph.shortest_paths(g, 0, backend="cpu", node_cost=to_device(np.ones(25, np.float32)))


def variable_coefficient_form(mesh):
    rng = np.random.default_rng(21)
    k = rng.uniform(1.0, 2.0, mesh.nodes)
    f = rng.standard_normal(mesh.nodes)
    g = rng.standard_normal(mesh.nodes)
    u, v, kc, fc = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0), grid.Coefficient(1)
    a = grid.inner_plus(kc * grid.grad_minus(u), grid.grad_minus(v)) + grid.inner_h(0.25 * u, v)
    return a, grid.inner_h(fc, v), [k, f], g


def test_assembly_on_the_device_equals_the_host():
    mesh = grid.Mesh([grid.Mesh1D.random(0.0, 1.0, 40, seed=2), grid.Mesh1D.graded(0.0, 2.0, 33, ratio=1.05)])
    a, l, coefficients, g = variable_coefficient_form(mesh)
    host, host_b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, backend="cpu")
    like = to_device(np.zeros(1))
    matrix, b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, like=like)
    assert is_device_csr_matrix(matrix) and is_device_array(b) and tuple(matrix.shape) == host.shape
    got = csr_to_host(matrix)
    assert np.array_equal(got.indptr, host.indptr) and np.array_equal(got.indices, host.indices)
    np.testing.assert_allclose(got.data, host.data, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(to_host(b), host_b, rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="^like: .*host array"):
        grid.assemble(mesh, a, l, coefficients=coefficients, like=np.zeros(1))
    with pytest.raises(ValueError, match="^like: .*cuda"):
        grid.assemble(mesh, a, l, coefficients=coefficients, like=like, backend="cpu")


def test_device_csr_matrices_in_spmv_and_the_solvers():
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 24), 3)
    a, l, coefficients, g = variable_coefficient_form(mesh)
    host, host_b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, backend="cpu")
    matrix, b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, like=to_device(np.zeros(1)))
    x = np.random.default_rng(4).standard_normal(mesh.nodes)
    want = grid.spmv(host, x, backend="cpu")
    for device_matrix in (matrix, device_csr(host)):  # assembled there, or the framework's own from SciPy's
        got = grid.spmv(device_matrix, to_device(x))
        assert is_device_array(got)
        np.testing.assert_allclose(to_host(got), want, rtol=1e-13, atol=1e-13)
    # The values are read where they are: doubled in place, the product doubles.
    values = matrix.values() if FRAMEWORK == "torch" else matrix.data
    values *= 2.0
    np.testing.assert_allclose(to_host(grid.spmv(matrix, to_device(x))), 2.0 * want, rtol=1e-13, atol=1e-13)
    values *= 0.5
    host_x, host_info = grid.cg(host, host_b, tol=1e-10, backend="cpu")
    dx = to_device(np.zeros(mesh.nodes))
    x, info = grid.cg(matrix, b, dx, tol=1e-10)
    assert x is dx and info["converged"] and abs(info["iterations"] - host_info["iterations"]) <= 2
    np.testing.assert_allclose(to_host(x), host_x, rtol=1e-6, atol=1e-8)
    y, info = grid.bicgstab(matrix, b, tol=1e-10)
    assert is_device_array(y) and info["converged"]
    # Another method to the same tolerance: compared by its true residual.
    assert np.linalg.norm(host_b - host @ to_host(y)) <= 1e-9 * np.linalg.norm(host_b)


def test_bad_device_csr_matrices_are_refused():
    host = grid.laplacian_7point(4, 4, 4)
    x = to_device(np.ones(64))
    broken = host.copy()
    broken.indices[5] = 64  # a column outside the matrix
    with pytest.raises(ValueError, match="^matrix: a column index outside"):
        grid.spmv(device_csr(broken), x)
    with pytest.raises(ValueError, match="^matrix.data: .*float64"):
        grid.spmv(device_csr(host.astype(np.float32)), x)
    with pytest.raises(ValueError, match="^matrix: a device CSR matrix with host vectors"):
        grid.spmv(device_csr(host), np.ones(64))
    with pytest.raises(ValueError, match="^x: .*64 entries"):
        grid.spmv(device_csr(host), to_device(np.ones(63)))


def test_multigrid_on_the_device_follows_the_host():
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 32), 3)
    a, l, coefficients, g = variable_coefficient_form(mesh)
    host, host_b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, backend="cpu")
    want, want_info = grid.multigrid_solve(grid.Multigrid(mesh, host, backend="reference"), host_b, tol=1e-10)
    matrix, b = grid.assemble(mesh, a, l, coefficients=coefficients, boundary_values=g, like=to_device(np.zeros(1)))
    for source in (matrix, host):  # built from the device matrix, or uploaded from SciPy's
        mg = grid.Multigrid(mesh, source, backend="cuda" if source is host else "auto")
        assert mg.backend == "cuda" and mg.levels >= 4
        x, info = grid.multigrid_solve(mg, b, tol=1e-10)
        assert is_device_array(x) and info["converged"]
        assert abs(info["iterations"] - want_info["iterations"]) <= 1
        np.testing.assert_allclose(to_host(x), want, rtol=1e-8, atol=1e-9)
        y, info = grid.cg(matrix, b, tol=1e-10, preconditioner=mg)
        assert is_device_array(y) and info["converged"] and info["iterations"] <= want_info["iterations"]
        np.testing.assert_allclose(to_host(y), want, rtol=1e-8, atol=1e-9)
        z = to_device(np.zeros(mesh.nodes))
        mg.cycle(b, z)
        np.testing.assert_allclose(to_host(mg.precondition(b)), to_host(z), rtol=1e-14, atol=1e-14)
    with pytest.raises(ValueError, match="host vectors only"):
        grid.bicgstab(matrix, b, tol=1e-10, preconditioner=mg)
    cpu_mg = grid.Multigrid(mesh, host, backend="cpu")
    with pytest.raises(ValueError, match="hierarchy on cuda"):
        grid.multigrid_solve(cpu_mg, b)
