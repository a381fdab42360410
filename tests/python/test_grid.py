"""trellis.grid against SciPy (the same matrices built independently) and
against `trellis grid` (the convergence studies)."""

import json

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import trellis
from dlpack_arrays import DLPackOnly, OnCuda
from trellis import grid


def scipy_laplacian(nx, ny, nz):
    def second_difference(n):
        return scipy.sparse.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])

    eye = scipy.sparse.identity
    lap = (scipy.sparse.kron(eye(nz), scipy.sparse.kron(eye(ny), second_difference(nx)))
           + scipy.sparse.kron(eye(nz), scipy.sparse.kron(second_difference(ny), eye(nx)))
           + scipy.sparse.kron(second_difference(nz), scipy.sparse.kron(eye(ny), eye(nx))))
    return lap.tocsr()


def test_laplacian_equals_scipy():
    a = grid.laplacian_7point(5, 4, 3)
    assert isinstance(a, scipy.sparse.csr_matrix) and a.shape == (60, 60)
    want = scipy_laplacian(5, 4, 3)
    # Boundary rows keep 6 on the diagonal (Dirichlet neighbours dropped).
    want.setdiag(6.0)
    assert abs(a - want).max() == 0


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_spmv_in_place(backend):
    a = grid.laplacian_7point(6, 5, 4)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(a.shape[1])
    y = rng.standard_normal(a.shape[0])
    start = y.copy()
    out = grid.spmv(a, x, y, alpha=2.0, beta=0.5, backend=backend)
    assert out is y  # written in place
    np.testing.assert_allclose(y, 2.0 * (a @ x) + 0.5 * start, rtol=1e-13, atol=1e-13)


def test_cg_against_scipy_solve():
    a = grid.laplacian_7point(8, 7, 3)
    b = np.random.default_rng(2).standard_normal(a.shape[0])
    x0 = np.zeros(a.shape[0])
    x, info = grid.cg(a, b, x0, tol=1e-12, backend="cpu")
    assert x is x0 and info["converged"] and info["stop"] == "converged"
    assert len(info["residual_history"]) == info["iterations"] + 1
    np.testing.assert_allclose(x, scipy.sparse.linalg.spsolve(a.tocsc(), b), rtol=1e-9, atol=1e-10)


def test_bicgstab_nonsymmetric():
    n = 50
    a = scipy.sparse.diags([-1.3 * np.ones(n - 1), 4 * np.ones(n), -0.7 * np.ones(n - 1)], [-1, 0, 1]).tocsr()
    b = np.linspace(1, 2, n)
    x, info = grid.bicgstab(a, b, tol=1e-12, backend="reference")
    assert info["converged"]
    np.testing.assert_allclose(a @ x, b, rtol=1e-9)


def test_poisson_study_equals_cli(cli):
    want = json.loads(cli("--backend", "reference", "grid", "poisson", "--dim", 2, "--n", 4, "--levels", 3,
                          "--json").stdout)
    got = grid.convergence_study("poisson", dim=2, cells=4, levels=3, backend="reference")
    rows = got.to_dict("records") if hasattr(got, "to_dict") else got
    assert [r["cells"] for r in rows] == [w["cells"] for w in want] == [4, 8, 16]
    for r, w in zip(rows, want):
        assert r["error_h"] == w["error normh"] and r["error_h1"] == w["error H1"]
        assert r["iterations"] == w["iterations"]
    assert rows[-1]["order_h1"] == pytest.approx(2, abs=0.2)


def test_study_reports_each_mesh_and_stops_when_asked():
    seen = []
    got = grid.convergence_study("heat", dim=1, cells=4, levels=3, backend="cpu", progress=seen.append)
    rows = got.to_dict("records") if hasattr(got, "to_dict") else got
    assert [r["cells"] for r in seen] == [r["cells"] for r in rows] == [4, 8, 16]
    assert [r["error_h"] for r in seen] == [r["error_h"] for r in rows]

    class Enough(Exception):
        pass

    def stop_after_two(row):
        seen.append(row)
        if row["cells"] == 8:
            raise Enough()

    seen.clear()
    with pytest.raises(Enough):
        grid.convergence_study("poisson", dim=2, cells=4, levels=4, backend="cpu", progress=stop_after_two)
    assert [r["cells"] for r in seen] == [4, 8]
    with pytest.raises(TypeError, match="progress"):
        grid.convergence_study("poisson", progress=3)


def test_bad_input():
    a = grid.laplacian_7point(3, 3, 1)
    with pytest.raises(trellis.UsageError):
        grid.spmv(a, np.ones(4))
    with pytest.raises(ValueError, match="out"):
        grid.spmv(a, np.ones(9), np.ones(9, dtype=np.float32))
    with pytest.raises(trellis.UsageError):
        grid.cg(scipy.sparse.csr_matrix(np.ones((2, 3))), np.ones(2))
    with pytest.raises(trellis.UsageError, match="problem"):
        grid.convergence_study("wave")
    with pytest.raises(trellis.UsageError):
        grid.convergence_study("poisson", dim=4)


def test_assembled_form_equals_hand_built_matrix():
    # 1-D, n cells on [0, 1]: <D-u, D-v>_+ is (1/h) tridiag(-1, 2, -1) inside,
    # <2u, v>_h is 2 * (control volume) on the diagonal, <f, v>_h the same
    # volumes times f; the two ends are held at g and their columns move to
    # the right-hand side.
    n = 6
    h = 1.0 / n
    u, v, f = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0)
    a = grid.inner_plus(grid.grad_minus(u), grad_v := grid.grad_minus(v)) + grid.inner_h(2.0 * u, v)
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, n), 1)
    fx = np.linspace(1.0, 2.0, n + 1)
    g = np.zeros(n + 1)
    g[0], g[-1] = 3.0, -1.0
    A, b = grid.assemble(mesh, a, grid.inner_h(f, v), coefficients=[fx], boundary_values=g, backend="reference")
    volume = np.full(n + 1, h)
    volume[[0, -1]] = h / 2
    want = np.zeros((n + 1, n + 1))
    for i in range(1, n):
        want[i, i] = 2 / h + 2 * volume[i]
        if i > 1:
            want[i, i - 1] = -1 / h
        if i < n - 1:
            want[i, i + 1] = -1 / h
    want[0, 0] = want[n, n] = 1.0
    np.testing.assert_allclose(A.toarray(), want, rtol=1e-14, atol=1e-12)
    want_b = volume * fx
    want_b[1] += g[0] / h
    want_b[n - 1] += g[n] / h
    want_b[[0, n]] = g[[0, n]]
    np.testing.assert_allclose(b, want_b, rtol=1e-14)
    assert grad_v is not None


def test_assembled_poisson_equals_the_study(cli):
    # -Lap u = f on [0, 1]^2, u = exp(x + y): assembled here, solved with cg,
    # the error in the discrete L2 norm equals `trellis grid poisson`'s.
    n = 16
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, n), 2)
    points = grid.mesh_points(mesh)
    exact = np.exp(points[:, 0] + points[:, 1])
    u, v, f = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0)
    A, b = grid.assemble(mesh, grid.inner_plus(grid.grad_minus(u), grid.grad_minus(v)), grid.inner_h(f, v),
                         coefficients=[-2.0 * exact], boundary_values=exact, backend="cpu")
    assert abs(A - A.T).max() < 1e-12  # symmetrized
    x, info = grid.cg(A, b, tol=1e-13, backend="reference")
    assert info["converged"]
    hx = np.full(n + 1, 1.0 / n)
    hx[[0, -1]] /= 2
    volume = np.outer(hx, hx).ravel(order="F")
    error_h = np.sqrt(np.sum(volume * (exact - x) ** 2))
    assert grid.norm(mesh, exact - x, "h") == pytest.approx(error_h, rel=1e-13)
    want = json.loads(cli("--backend", "reference", "grid", "poisson", "--dim", 2, "--n", n, "--levels", 1,
                          "--tolerance", 1e-13, "--json").stdout)[0]
    assert error_h == pytest.approx(want["error normh"], rel=1e-6)
    assert grid.norm(mesh, exact - x, "h1") == pytest.approx(want["error H1"], rel=1e-6)
    assert grid.norm(mesh, exact - x, "max") == pytest.approx(want["error max"], rel=1e-6)


def test_form_errors():
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 4), 2)
    u, v = grid.TrialFunction(), grid.TestFunction()
    a = grid.inner_h(grid.Coefficient(1) * u, v)
    with pytest.raises(trellis.UsageError, match="coefficient"):
        grid.assemble(mesh, a, coefficients=[np.ones(mesh.nodes)])
    with pytest.raises(trellis.UsageError):
        grid.assemble(mesh, a, coefficients=[np.ones(mesh.nodes), np.full(mesh.nodes, np.nan)])
    with pytest.raises(ValueError):
        grid.assemble(mesh, a, coefficients=[np.ones(3), np.ones(3)])
    with pytest.raises(trellis.UsageError, match="norm"):
        grid.norm(mesh, np.ones(mesh.nodes), "l7")
    with pytest.raises(trellis.UsageError):
        grid.norm(mesh, np.ones(3))


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_matrix_free_equals_assembled(backend):
    mesh = grid.Mesh([grid.Mesh1D.random(0.0, 1.0, 9, seed=4), grid.Mesh1D.graded(0.0, 2.0, 7, ratio=1.2)])
    rng = np.random.default_rng(8)
    k = rng.uniform(1.0, 2.0, mesh.nodes)
    u, v, kc = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0)
    a = grid.inner_plus(kc * grid.grad_minus(u), grid.grad_minus(v)) + grid.inner_h(0.5 * u, v)
    A, _ = grid.assemble(mesh, a, coefficients=[k], backend="reference")
    free = grid.MatrixFree(mesh, a, coefficients=[k])
    x = rng.standard_normal(mesh.nodes)
    np.testing.assert_allclose(free.apply(x, backend=backend), A @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(free.diagonal(), A.diagonal(), rtol=1e-14)
    b = A @ np.ones(mesh.nodes)
    x_free, info = grid.cg(free, b, tol=1e-12, backend=backend)
    x_csr, _ = grid.cg(A, b, tol=1e-12, backend=backend)
    assert info["converged"]
    np.testing.assert_allclose(x_free, x_csr, rtol=1e-9)
    lin = free.as_linear_operator()
    np.testing.assert_allclose(lin @ x, A @ x, rtol=1e-12, atol=1e-12)


def test_operators_apply_and_forms():
    axis = grid.Mesh1D.random(0.0, 1.0, 12, seed=9)
    mesh = grid.Mesh([axis])
    x = np.asarray(axis.points)
    for backend in ("reference", "cpu"):
        slope = grid.apply(grid.backward_difference(0), mesh, 3.0 * x + 1.0, backend=backend)
        np.testing.assert_allclose(slope[1:], 3.0, rtol=1e-12)  # D- of a line is its slope
        mean = grid.apply(grid.compose(grid.forward_average(0), grid.backward_average(0)), mesh, x, backend=backend)
        np.testing.assert_allclose(mean[1:-1], (x[:-2] + 2 * x[1:-1] + x[2:]) / 4, rtol=1e-12)
    # In 1-D, <D- u, D- v>_+ along axis 0 is <grad- u, grad- v>_+.
    u, v = grid.TrialFunction(), grid.TestFunction()
    d = grid.backward_difference(0)
    by_operator, _ = grid.assemble(mesh, grid.inner_plus(d * u, d(v), 0), backend="reference")
    by_gradient, _ = grid.assemble(mesh, grid.inner_plus(grid.grad_minus(u), grid.grad_minus(v)), backend="reference")
    assert abs(by_operator - by_gradient).max() == 0
    with pytest.raises(trellis.UsageError):
        grid.apply(grid.backward_difference(1), mesh, x)  # no axis 1 in 1-D


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_solver_progress_is_called_and_changes_nothing(method, backend):
    a = grid.laplacian_7point(10, 9, 8)
    b = np.random.default_rng(3).standard_normal(a.shape[0])
    solve = getattr(grid, method)
    plain, plain_info = solve(a, b, tol=1e-10, backend=backend)
    calls = []
    x, info = solve(a, b, tol=1e-10, backend=backend, check_every=3, progress=lambda k, r: calls.append((k, r)))
    assert info["converged"] and info["iterations"] == plain_info["iterations"]
    assert x.tobytes() == plain.tobytes()  # the callback observes only
    # Every third iteration, not the one that ended the solve; the residual is the history's.
    assert [k for k, _ in calls] == list(range(3, info["iterations"], 3))
    assert all(r == info["residual_history"][k] for k, r in calls)


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_solver_progress_false_stops_the_solve(method):
    a = grid.laplacian_7point(12, 12, 12)
    b = np.ones(a.shape[0])
    x, info = getattr(grid, method)(a, b, tol=1e-14, backend="cpu", check_every=4, progress=lambda k, r: k < 8)
    assert info["stop"] == "interrupted" and not info["converged"] and info["iterations"] == 8
    assert "progress" in info["stopped_because"]
    assert len(info["residual_history"]) == 9
    # x is that iteration's iterate: its residual is the final residual reported.
    assert np.linalg.norm(b - a @ x) == pytest.approx(info["final_residual"], rel=1e-12)


def test_solver_progress_exceptions_reach_python():
    a = grid.laplacian_7point(12, 12, 12)
    b = np.ones(a.shape[0])
    seen = []

    def fail(k, r):
        seen.append(k)
        raise RuntimeError(f"stop at {k}")

    with pytest.raises(RuntimeError, match="stop at 10"):
        grid.cg(a, b, tol=1e-14, backend="cpu", progress=fail)
    assert seen == [10]

    def interrupt(k, r):
        raise KeyboardInterrupt

    free = grid.MatrixFree(grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 24), 2), grid.inner_plus(
        grid.grad_minus(grid.TrialFunction()), grid.grad_minus(grid.TestFunction())))
    with pytest.raises(KeyboardInterrupt):
        grid.bicgstab(free, np.ones(free.shape[0]), tol=1e-14, backend="reference", progress=interrupt)
    with pytest.raises(TypeError, match="progress"):
        grid.cg(a, b, progress=3)


def test_ctrl_c_stops_a_solve():
    import _thread
    import threading
    import time

    # Tolerance 0: the recurrence residual falls towards underflow, thousands
    # of iterations of 262,144 unknowns (seconds even on many cores).
    a = grid.laplacian_7point(64, 64, 64)
    b = np.ones(a.shape[0])
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            grid.cg(a, b, tol=0.0, maxiter=10**6, backend="cpu")  # no callback: Ctrl-C is still noticed
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30


def test_dlpack_host_vectors_are_read_in_place():
    a = grid.laplacian_7point(5, 4, 3)
    x = np.random.default_rng(4).standard_normal(a.shape[1])
    from trellis._arrays import host_array

    assert np.shares_memory(host_array(DLPackOnly(x), np.float64, "x"), x)  # viewed, not copied
    assert grid.spmv(a, DLPackOnly(x), backend="cpu").tobytes() == grid.spmv(a, x, backend="cpu").tobytes()
    want, _ = grid.cg(a, a @ x, backend="cpu")
    got, _ = grid.cg(a, DLPackOnly(a @ x), backend="cpu")
    assert got.tobytes() == want.tobytes()


def test_device_vectors_where_they_cannot_run():
    a = grid.laplacian_7point(3, 3, 1)
    x = OnCuda(np.ones(9))
    for backend in ("cpu", "reference"):
        # Named, and what to do about it; in a build without CUDA, that it has none.
        with pytest.raises(ValueError, match="^x: .*(backend 'cuda'|no CUDA)"):
            grid.spmv(a, x, backend=backend)
        with pytest.raises(ValueError, match="^b: .*(backend 'cuda'|no CUDA)"):
            grid.cg(a, OnCuda(np.ones(9)), backend=backend)
    with pytest.raises(ValueError, match="^out: a host array"):
        grid.spmv(a, x, np.zeros(9), backend="cuda")
    with pytest.raises(ValueError, match="^x0: a host array"):
        grid.bicgstab(a, OnCuda(np.ones(9)), np.zeros(9), backend="cuda")
    free = grid.MatrixFree(grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 2), 2), grid.inner_h(
        grid.TrialFunction(), grid.TestFunction()))
    with pytest.raises(ValueError, match="^x: "):
        free.apply(x, backend="cpu")
    with pytest.raises(ValueError, match="^u: a CUDA device array"):
        grid.norm(free_mesh := grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 2), 2), OnCuda(np.ones(free_mesh.nodes)))
    if not trellis.cuda_compiled():
        with pytest.raises(ValueError, match="no CUDA"):
            grid.spmv(a, x, backend="auto")


def poisson_system(n, dim=2, backend="cpu", dirichlet="boundary"):
    """-Lap u = f with u = exp(x + y) on [0, 1]^dim, assembled on n cells an axis."""
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, n), dim)
    points = grid.mesh_points(mesh)
    exact = np.exp(points.sum(axis=1))
    u, v, f = grid.TrialFunction(), grid.TestFunction(), grid.Coefficient(0)
    A, b = grid.assemble(mesh, grid.inner_plus(grid.grad_minus(u), grid.grad_minus(v)), grid.inner_h(f, v),
                         coefficients=[-float(dim) * exact], boundary_values=exact, dirichlet=dirichlet,
                         backend=backend)
    return mesh, A, b, exact


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_multigrid_solves_to_the_direct_solution(backend):
    mesh, A, b, _ = poisson_system(32)
    mg = grid.Multigrid(mesh, A, backend=backend)
    assert mg.backend == backend and mg.shape == A.shape
    assert mg.levels >= 3 and mg.direct_coarse_solve
    finest, coarser = mg.level(0), mg.level(1)
    assert finest["nodes"] == mesh.nodes and finest["extents"][:2] == [33, 33] and coarser["extents"][:2] == [17, 17]
    assert finest["nonzeros"] == A.nnz and finest["lambda_max"] > 1
    with pytest.raises(IndexError):
        mg.level(mg.levels)
    direct = scipy.sparse.linalg.spsolve(A.tocsc(), b)
    x, info = grid.multigrid_solve(mg, b, tol=1e-10)
    assert info["converged"] and info["iterations"] <= 12
    assert np.linalg.norm(b - A @ x) <= 1e-10 * np.linalg.norm(b)
    np.testing.assert_allclose(x, direct, rtol=1e-8, atol=1e-9)
    # CG and BiCGStab preconditioned by a cycle: fewer iterations than Jacobi's.
    _, jacobi = grid.cg(A, b, tol=1e-10, backend="cpu")
    for method in (grid.cg, grid.bicgstab):
        y, info = method(A, b, tol=1e-10, preconditioner=mg)
        assert info["converged"] and info["iterations"] < jacobi["iterations"] / 4
        np.testing.assert_allclose(y, direct, rtol=1e-8, atol=1e-9)
    # One cycle in place reduces the residual; the preconditioner is a cycle
    # from zero, and SciPy's CG takes it as M.
    x = np.zeros(mesh.nodes)
    mg.cycle(b, x)
    assert np.linalg.norm(b - A @ x) < 0.2 * np.linalg.norm(b)
    z = mg.precondition(b)
    np.testing.assert_allclose(z, x, rtol=1e-14, atol=1e-14)
    y, status = scipy.sparse.linalg.cg(A, b, M=mg.as_linear_operator(), rtol=1e-10)
    assert status == 0
    np.testing.assert_allclose(y, direct, rtol=1e-7, atol=1e-8)


def test_multigrid_backends_agree_and_match_the_cli(cli):
    mesh, A, b, exact = poisson_system(16)
    results = {}
    for backend in ("reference", "cpu"):
        mg = grid.Multigrid(mesh, A, backend=backend, smoother="jacobi", cycle="f", smoothing_steps=2)
        results[backend] = grid.multigrid_solve(mg, b, tol=1e-12)
    (x_ref, info_ref), (x_cpu, info_cpu) = results["reference"], results["cpu"]
    assert abs(info_ref["iterations"] - info_cpu["iterations"]) <= 1
    np.testing.assert_allclose(x_cpu, x_ref, rtol=1e-10, atol=1e-12)
    # The CLI's study runs the same problem with the same solver: the same error.
    x, info = grid.multigrid_solve(grid.Multigrid(mesh, A, backend="reference"), b, tol=1e-13)
    want = json.loads(cli("--backend", "reference", "grid", "poisson", "--dim", 2, "--n", 16, "--levels", 1,
                          "--solver", "mg", "--tolerance", 1e-13, "--json").stdout)[0]
    assert grid.norm(mesh, exact - x, "h") == pytest.approx(want["error normh"], rel=1e-6)
    assert info["iterations"] == want["iterations"]


def test_multigrid_line_smoother_on_stretched_cells():
    # Cells 16 times wider than tall: line relaxation keeps mgcg at a few
    # iterations where Chebyshev's point smoothing needs several times more.
    n = 64
    mesh = grid.Mesh([grid.Mesh1D.uniform(0.0, 1.0, n), grid.Mesh1D.uniform(0.0, 1.0 / 16, n)])
    u, v = grid.TrialFunction(), grid.TestFunction()
    A, b = grid.assemble(mesh, grid.inner_plus(grid.grad_minus(u), grid.grad_minus(v)),
                         grid.inner_h(grid.Coefficient(0), v), coefficients=[np.ones(mesh.nodes)])
    iterations = {}
    for smoother in ("line", "chebyshev"):
        mg = grid.Multigrid(mesh, A, smoother=smoother, backend="cpu")
        x, info = grid.cg(A, b, preconditioner=mg, tol=1e-8, backend="cpu")
        assert info["converged"]
        assert np.linalg.norm(b - A @ x) <= 2e-8 * np.linalg.norm(b)
        iterations[smoother] = info["iterations"]
    assert iterations["line"] <= 5 and 2 * iterations["line"] <= iterations["chebyshev"]
    with pytest.raises(ValueError, match="line_weight"):
        grid.Multigrid(mesh, A, smoother="line", line_weight=2.5)


def test_multigrid_gauss_seidel_smoother():
    # Multicolour Gauss-Seidel: fewer mgcg iterations than weighted Jacobi,
    # the same on the reference and cpu backends, and its weight checked.
    mesh, A, b, _ = poisson_system(32)
    iterations = {}
    for smoother, backend in (("gauss-seidel", "cpu"), ("gauss-seidel", "reference"), ("jacobi", "cpu")):
        mg = grid.Multigrid(mesh, A, smoother=smoother, backend=backend)
        x, info = grid.cg(A, b, preconditioner=mg, tol=1e-8, backend="cpu")
        assert info["converged"]
        assert np.linalg.norm(b - A @ x) <= 2e-8 * np.linalg.norm(b)
        iterations[smoother, backend] = info["iterations"]
    assert iterations["gauss-seidel", "cpu"] == iterations["gauss-seidel", "reference"]
    assert iterations["gauss-seidel", "cpu"] < iterations["jacobi", "cpu"]
    with pytest.raises(ValueError, match="gauss_seidel_weight"):
        grid.Multigrid(mesh, A, smoother="gauss-seidel", gauss_seidel_weight=0.0)


def test_multigrid_bad_input():
    mesh, A, b, _ = poisson_system(8)
    with pytest.raises(ValueError, match="cycle"):
        grid.Multigrid(mesh, A, cycle="w")
    with pytest.raises(ValueError, match="smoother"):
        grid.Multigrid(mesh, A, smoother="sor")
    with pytest.raises(ValueError):
        grid.Multigrid(mesh, A[:-1, :-1])  # not the mesh's size
    with pytest.raises(ValueError, match=r"^dirichlet: .*\[0, 81\)"):
        grid.Multigrid(mesh, A, dirichlet=[mesh.nodes + 3])
    mg = grid.Multigrid(mesh, A, backend="cpu")
    with pytest.raises(ValueError, match="b"):
        grid.multigrid_solve(mg, b[:-1])
    with pytest.raises(ValueError, match="preconditioner"):
        grid.cg(grid.laplacian_7point(3, 3, 3), np.ones(27), preconditioner=mg)
    with pytest.raises(ValueError, match="preconditioner"):
        grid.cg(A, b, preconditioner="ilu")


def test_markers_select_nodes():
    mesh = grid.Mesh.cube(grid.Mesh1D.uniform(0.0, 1.0, 4), 2)
    left = grid.marker_nodes(mesh, lambda p: p[:, 0] == 0.0)
    assert left.tolist() == [0, 5, 10, 15, 20]
    mask = np.zeros(mesh.nodes, bool)
    mask[[3, 1]] = True
    assert grid.marker_nodes(mesh, mask).tolist() == [1, 3]
    assert grid.marker_nodes(mesh, [7, 2, 7]).tolist() == [2, 7]
    assert grid.marker_nodes(mesh, ["boundary"]).tolist() == sorted(mesh.boundary_nodes())
    union = grid.marker_nodes(mesh, [lambda p: p[:, 0] == 0.0, lambda p: p[:, 1] == 1.0])
    assert union.tolist() == [0, 5, 10, 15, 20, 21, 22, 23, 24]
    # A predicate marker constrains assembly like the same node ids.
    u, v = grid.TrialFunction(), grid.TestFunction()
    form = grid.inner_plus(grid.grad_minus(u), grid.grad_minus(v)) + grid.inner_h(1.0 * u, v)
    by_predicate, _ = grid.assemble(mesh, form, dirichlet=lambda p: p[:, 0] == 0.0)
    by_ids, _ = grid.assemble(mesh, form, dirichlet=left)
    assert (by_predicate != by_ids).nnz == 0
    for bad, message in [(lambda p: p[:, 0], "bools"), (np.ones(3, bool), "one bool per node"),
                         ([0, mesh.nodes], r"\[0, 25\)"), ([0.5], "integers"), ("left", "marker")]:
        with pytest.raises(ValueError, match=message):
            grid.marker_nodes(mesh, bad)


def test_inner_products_and_marked_norms():
    x_axis, y_axis = grid.Mesh1D.graded(0.0, 1.0, 6, ratio=1.3), grid.Mesh1D.uniform(0.0, 2.0, 5)
    mesh = grid.Mesh([x_axis, y_axis])
    rng = np.random.default_rng(3)
    u, w = rng.standard_normal(mesh.nodes), rng.standard_normal(mesh.nodes)

    def half_widths(points):  # control-volume widths: (x_{i+1} - x_{i-1}) / 2, halved at the ends
        points = np.asarray(points)
        h = np.diff(points)
        return np.concatenate([[h[0] / 2], (h[:-1] + h[1:]) / 2, [h[-1] / 2]])

    volume = np.outer(half_widths(y_axis.points), half_widths(x_axis.points)).ravel()
    assert grid.inner(mesh, u, w) == pytest.approx(np.sum(volume * u * w), rel=1e-13)
    left = grid.marker_nodes(mesh, lambda p: p[:, 0] < 0.5)
    on = np.zeros(mesh.nodes, bool)
    on[left] = True
    assert grid.inner(mesh, u, w, marker=left) == pytest.approx(np.sum((volume * u * w)[on]), rel=1e-13)
    assert grid.norm(mesh, u, "h", marker=left) == pytest.approx(np.sqrt(np.sum((volume * u * u)[on])), rel=1e-13)
    assert grid.norm(mesh, u, "max", marker=left) == np.abs(u[on]).max()
    # <u, w>_+ along x: nodes of index 1 and up, weights h_i times the y widths.
    hx = np.diff(np.asarray(x_axis.points))
    plus = np.outer(half_widths(y_axis.points), np.concatenate([[0.0], hx])).ravel()
    assert grid.inner(mesh, u, w, "plus", axis=0) == pytest.approx(np.sum(plus * u * w), rel=1e-13)
    for backend in ("reference", "cpu"):
        assert grid.inner(mesh, u, w, "plus", axis=1, backend=backend) == pytest.approx(
            grid.inner(mesh, u, w, "plus", axis=1, backend="reference"), rel=1e-14)
    with pytest.raises(ValueError, match="axis"):
        grid.inner(mesh, u, w, "plus", axis=2)
    with pytest.raises(ValueError, match="inner must be"):
        grid.inner(mesh, u, w, "l2")
    with pytest.raises(ValueError):
        grid.inner(mesh, u[:-1], w)


def test_projections_of_python_functions():
    mesh = grid.Mesh([grid.Mesh1D.graded(0.0, 1.0, 5, ratio=1.2), grid.Mesh1D.uniform(-1.0, 1.0, 4)])
    points = grid.mesh_points(mesh)
    at_nodes = grid.restrict_to_nodes(mesh, lambda x, y: np.sin(x) * y)
    np.testing.assert_allclose(at_nodes, np.sin(points[:, 0]) * points[:, 1], rtol=1e-15)
    # The mean of x^2 + y^3 over each control volume, exact for degree 5 with 3 points.
    xs, ys = np.asarray(mesh.axes[0].points), np.asarray(mesh.axes[1].points)

    def volumes(p):
        mid = (p[:-1] + p[1:]) / 2
        return np.concatenate([[p[0]], mid]), np.concatenate([mid, [p[-1]]])

    (x0, x1), (y0, y1) = volumes(xs), volumes(ys)
    mean_x2 = (x1**3 - x0**3) / (3 * (x1 - x0))
    mean_y3 = (y1**4 - y0**4) / (4 * (y1 - y0))
    want = (mean_x2[None, :] + mean_y3[:, None]).ravel()
    np.testing.assert_allclose(grid.cell_average(mesh, lambda x, y: x * x + y**3), want, rtol=1e-13, atol=1e-14)

    def fail(x, y):
        raise ArithmeticError("from f")

    with pytest.raises(ArithmeticError, match="from f"):
        grid.cell_average(mesh, fail)
    with pytest.raises(TypeError):
        grid.restrict_to_nodes(mesh, 3.0)
    with pytest.raises(ValueError):
        grid.cell_average(mesh, lambda x, y: x, points_per_axis=0)
