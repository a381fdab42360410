"""Sparse kernels and solvers on SciPy CSR matrices, finite-difference forms
on tensor meshes assembled to SciPy CSR, and the convergence studies.

Forms are written as in C++ (include/trellis/grid/form.hpp)::

    u, v = TrialFunction(), TestFunction()
    k, f = Coefficient(0), Coefficient(1)
    a = inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(2.0 * u, v)
    l = inner_h(f, v)
    A, b = assemble(Mesh.cube(Mesh1D.uniform(0, 1, 16), 2), a, l, coefficients=[k_nodes, f_nodes],
                    boundary_values=g_nodes)

Matrices go in as ``scipy.sparse`` (converted to CSR float64 and copied once
into the library's CSR); ``laplacian_7point`` comes out as a
``scipy.sparse.csr_matrix`` over the library's arrays. ``spmv`` writes into
``out`` and the solvers into ``x0`` in place when those are float64
C-contiguous arrays (no copy).

CUDA device vectors (CuPy arrays, PyTorch tensors: float64, one-dimensional,
C-contiguous) run ``spmv``, ``MatrixFree.apply``, ``cg`` and ``bicgstab`` on
the cuda backend: the matrix is uploaded, the vectors are read and written
where they are, and new vectors come back as arrays of the same framework.
A call first waits for the work already queued on the device and has
finished when it returns.

The solvers call ``progress(iteration, residual)`` every ``check_every``
iterations when given (returning False stops the solve: ``info["stop"]`` is
then "interrupted"); an exception raised there, or Ctrl-C, stops the solve
and arrives in Python.
"""

from __future__ import annotations


import numpy as np

from . import _native
from ._arrays import as_framework, check_device_backend, device_array, device_of, host_array


Mesh = _native.grid.Mesh
Mesh1D = _native.grid.Mesh1D
TrialFunction = _native.grid.TrialFunction
TestFunction = _native.grid.TestFunction
Coefficient = _native.grid.Coefficient
grad_minus = _native.grid.grad_minus
grad_plus = _native.grid.grad_plus
inner_h = _native.grid.inner_h
inner_plus = _native.grid.inner_plus
Operator = _native.grid.Operator
identity = _native.grid.identity
backward_difference = _native.grid.backward_difference
forward_difference = _native.grid.forward_difference
backward_jump = _native.grid.backward_jump
forward_jump = _native.grid.forward_jump
backward_average = _native.grid.backward_average
forward_average = _native.grid.forward_average
backward_shift = _native.grid.backward_shift
forward_shift = _native.grid.forward_shift
compose = _native.grid.compose


def norm(mesh, u, kind: str = "h", *, backend: str = "auto") -> float:
    """A discrete norm of node values u: "h" (control-volume weights), "h1",
    "h1_seminorm" (backward differences, staggered weights) or "max"."""
    return _native.grid.norm(mesh, host_array(u, np.float64, "u"), kind, backend)


def apply(op, mesh, u, *, backend: str = "auto") -> np.ndarray:
    """op(u) at every node of the mesh (a new array)."""
    return _native.grid.apply(op, mesh, host_array(u, np.float64, "u"), backend)


def mesh_points(mesh) -> np.ndarray:
    """Node coordinates, nodes x dim, in node order (x fastest)."""
    axes = [np.asarray(axis.points) for axis in mesh.axes]
    grids = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.ravel(order="F") for g in grids], axis=1)


def assemble(mesh, a, l=None, *, coefficients=(), dirichlet="boundary", boundary_values=0.0, symmetrize=True,
             backend: str = "auto"):
    """The matrix of form `a` (scipy.sparse.csr_matrix) and the right-hand
    side of linear form `l` on `mesh`, with the nodes of `dirichlet`
    ("boundary", node ids, or None) held at boundary_values (a number or one
    value per node): their rows become identity rows, and with symmetrize
    their columns move to the right-hand side, so a symmetric form gives a
    symmetric matrix. coefficients[s] holds slot s's value at every node."""
    import scipy.sparse

    if l is None:
        l = inner_h(0.0, TestFunction())
    nodes = mesh.nodes
    constrained = _constrained(mesh, dirichlet)
    values = [_node_values(c, nodes, f"coefficients[{s}]") for s, c in enumerate(coefficients)]
    g = _node_values(boundary_values, nodes, "boundary_values")
    out = _native.grid.assemble(mesh, a, l, values, constrained, g, bool(symmetrize), backend)
    matrix = scipy.sparse.csr_matrix((out["data"], out["indices"], out["indptr"]), shape=(out["rows"], nodes),
                                     copy=False)
    return matrix, out["rhs"]


class MatrixFree:
    """y = A x for the matrix ``assemble`` would build from the same form,
    mesh, coefficients and constraints, computed without storing A.
    ``cg``/``bicgstab`` take it in place of a matrix; ``as_linear_operator``
    gives a scipy.sparse.linalg.LinearOperator."""

    def __init__(self, mesh, a, *, coefficients=(), dirichlet="boundary", symmetrize=True):
        nodes = mesh.nodes
        values = [_node_values(c, nodes, f"coefficients[{s}]") for s, c in enumerate(coefficients)]
        self._native = _native.grid.MatrixFree(mesh, a, values, _constrained(mesh, dirichlet), bool(symmetrize))
        self.shape = (nodes, nodes)

    def apply(self, x, out=None, *, backend: str = "auto"):
        """A x into out (a new array when None); device arrays run on cuda."""
        device = _device_call("x", x, out, backend)
        if device is not None:
            n = self.shape[0]
            x = device_array(x, np.float64, "x", n)
            result = _device_zeros(n, device, x) if out is None else device_array(out, np.float64, "out", n)
            self._native.apply_device(x, result)
            return result
        x = host_array(x, np.float64, "x")
        if out is None:
            out = np.zeros(self.shape[0], dtype=np.float64)
        _check_writable(out, "out")
        self._native.apply(x, out, backend)
        return out

    def diagonal(self) -> np.ndarray:
        return self._native.diagonal()

    def as_linear_operator(self):
        import scipy.sparse.linalg

        return scipy.sparse.linalg.LinearOperator(self.shape, matvec=lambda x: self.apply(np.ravel(x)),
                                                  dtype=np.float64)


def laplacian_7point(nx: int, ny: int = 1, nz: int = 1):
    """The 7-point negative Laplacian on an nx x ny x nz grid (homogeneous
    Dirichlet, unit spacing) as a scipy.sparse.csr_matrix."""
    import scipy.sparse

    rows, cols, indptr, indices, data = _native.grid.laplacian_7point(nx, ny, nz)
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(rows, cols), copy=False)


def spmv(matrix, x, out=None, *, alpha: float = 1.0, beta: float = 0.0, backend: str = "auto"):
    """out = alpha * A x + beta * out (beta 0: out is not read). With CUDA
    device arrays for x (and out) it runs on cuda and returns a device array
    of x's framework."""
    a = _csr_parts(matrix)
    device = _device_call("x", x, out, backend)
    if device is not None:
        x = device_array(x, np.float64, "x", a[1])
        result = _device_zeros(a[0], device, x) if out is None else device_array(out, np.float64, "out", a[0])
        _native.grid.spmv_device(*a, float(alpha), x, float(beta), result)
        return result
    x = host_array(x, np.float64, "x")
    if out is None:
        out = np.zeros(a[0], dtype=np.float64)
    _check_writable(out, "out")
    _native.grid.spmv(*a, float(alpha), x, float(beta), out, backend)
    return out


def cg(matrix, b, x0=None, *, tol: float = 1e-8, maxiter: int = 10000, preconditioner: str = "jacobi",
       backend: str = "auto", progress=None, check_every: int = 10):
    """Conjugate gradients for A x = b (A symmetric positive definite; a
    scipy.sparse matrix or a MatrixFree).
    Returns (x, info): info holds converged, iterations, the residual norms
    and history, and why the solve stopped. progress(iteration, residual) is
    called every check_every iterations; False from it stops the solve
    (info["stop"] == "interrupted"). CUDA device arrays for b (and x0) solve
    on cuda and return x as a device array of b's framework."""
    return _solve("cg", matrix, b, x0, tol, maxiter, preconditioner, backend, progress, check_every)


def bicgstab(matrix, b, x0=None, *, tol: float = 1e-8, maxiter: int = 10000, preconditioner: str = "jacobi",
             backend: str = "auto", progress=None, check_every: int = 10):
    """BiCGStab for A x = b (A general); returns (x, info) as cg does."""
    return _solve("bicgstab", matrix, b, x0, tol, maxiter, preconditioner, backend, progress, check_every)


def convergence_study(problem: str = "poisson", *, dim: int = 2, cells: int = 8, levels: int = 4,
                      mesh: str = "uniform", solver: str = "cg", backend: str = "auto", tolerance: float = 1e-10,
                      matrix_free: bool = False, seed: int = 1, progress=None):
    """The worked examples of the grid module (``trellis grid``): problem
    "poisson", "convection" or "heat" on meshes of cells * 2^level cells
    per axis; one row per mesh (errors in the discrete L2, H1 and max
    norms, observed orders, iterations, times). A pandas DataFrame when
    pandas is installed, else a list of dicts. ``progress`` is called with
    each mesh's row (a dict, orders not yet filled in) before the next
    mesh; an exception it raises, or Ctrl-C, stops the study there."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable (row) or None, got {type(progress).__name__}")
    rows = _native.grid.study(problem, dim, cells, levels, mesh, solver, backend, tolerance, matrix_free, seed,
                              progress)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def _solve(method, matrix, b, x0, tol, maxiter, preconditioner, backend, progress, check_every):
    if preconditioner not in ("jacobi", "none", None):
        raise ValueError(f"preconditioner must be 'jacobi' or 'none', got {preconditioner!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable (iteration, residual) or None, got {type(progress).__name__}")
    jacobi = preconditioner == "jacobi"
    settings = (float(tol), int(maxiter), jacobi)
    n = matrix.shape[0]
    device = _device_call("b", b, x0, backend, out_name="x0")
    if device is not None:
        b = device_array(b, np.float64, "b", n)
        x = _device_zeros(n, device, b) if x0 is None else device_array(x0, np.float64, "x0", n)
        if isinstance(matrix, MatrixFree):
            info = matrix._native.solve_device(method, b, x, *settings, int(check_every), progress)
        else:
            info = _native.grid.solve_device(method, *_csr_parts(matrix), b, x, *settings, int(check_every), progress)
        return x, info
    b = host_array(b, np.float64, "b")
    x = np.zeros(n, dtype=np.float64) if x0 is None else x0
    _check_writable(x, "x0")
    if isinstance(matrix, MatrixFree):
        info = matrix._native.solve(method, b, x, *settings, backend, int(check_every), progress)
    else:
        info = _native.grid.solve(method, *_csr_parts(matrix), b, x, *settings, backend, int(check_every), progress)
    return x, info


def _device_zeros(n, device, like):
    """n float64 zeros on CUDA device `device` as an array of like's
    framework (the library's memory, through DLPack: the DLPack form can be
    taken once, so it becomes the framework's array before any other use)."""
    return as_framework(_native.grid.device_zeros(n, device), like)


def _device_call(name, value, out, backend, out_name="out"):
    """The CUDA device of a call's vectors (value and out), None when they
    are host arrays; a ValueError when they are mixed or the call cannot run
    on cuda."""
    device = device_of(value, name)
    out_device = None if out is None else device_of(out, out_name)
    if device is None and out_device is None:
        return None
    if device is None or (out is not None and out_device is None):
        host = name if device is None else out_name
        raise ValueError(f"{host}: a host array in a call on CUDA device arrays; pass device arrays for both "
                         f"{name} and {out_name}")
    check_device_backend(name, backend)
    if out_device is not None and out_device != device:
        raise ValueError(f"{out_name}: on CUDA device {out_device}, {name} on device {device}")
    return device


def _node_values(value, nodes, name):
    """One float64 value per node: a number is repeated, an array taken as is."""
    if np.isscalar(value):
        return np.full(nodes, float(value))
    return host_array(value, np.float64, name)


def _constrained(mesh, dirichlet):
    if isinstance(dirichlet, str):
        if dirichlet != "boundary":
            raise ValueError(f"dirichlet must be 'boundary', node ids or None, got {dirichlet!r}")
        return mesh.boundary_nodes()
    return [] if dirichlet is None else [int(i) for i in np.atleast_1d(dirichlet)]


def _csr_parts(matrix):
    import scipy.sparse

    if not scipy.sparse.issparse(matrix):
        raise TypeError(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
    csr = matrix.tocsr()
    return (int(csr.shape[0]), int(csr.shape[1]), np.ascontiguousarray(csr.indptr, dtype=np.int64),
            np.ascontiguousarray(csr.indices, dtype=np.int32), np.ascontiguousarray(csr.data, dtype=np.float64))


def _check_writable(array, name):
    if not (isinstance(array, np.ndarray) and array.dtype == np.float64 and array.flags.c_contiguous
            and array.flags.writeable and array.ndim == 1):
        raise ValueError(f"{name} must be a writable one-dimensional C-contiguous float64 array")
