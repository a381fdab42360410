"""trellis.grid against SciPy (the same matrices built independently) and
against `trellis grid` (the convergence studies)."""

import json

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import trellis
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
