"""Sparse kernels and solvers on SciPy CSR matrices, finite-difference forms
on tensor meshes assembled to SciPy CSR (or on cuda to a CuPy or PyTorch
device CSR matrix), geometric multigrid, markers, inner products and
projections, and the convergence studies.

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
the cuda backend: a SciPy matrix is uploaded, a device CSR matrix (PyTorch
sparse_csr, cupyx.scipy.sparse) is read where it is, the vectors are read
and written where they are, and new vectors come back as arrays of the
same framework.
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
from ._arrays import (as_framework, check_device_backend, device_array, device_csr_like, device_csr_parts, device_of,
                      host_array, is_device_csr)


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


def marker_nodes(mesh, where, name: str = "marker") -> np.ndarray:
    """The node ids (ascending, int32) a marker selects: "boundary", a
    predicate called once with the node coordinates (``mesh_points``,
    nodes x dim) that returns one bool per node, a bool mask of one entry
    per node, node ids, or a list of these (their union)."""
    nodes = mesh.nodes
    if isinstance(where, str):
        if where != "boundary":
            raise ValueError(f"{name}: a marker must be 'boundary', a predicate, a mask or node ids, got {where!r}")
        return np.asarray(mesh.boundary_nodes(), dtype=np.int32)
    if callable(where):
        mask = np.asarray(where(mesh_points(mesh)))
        if mask.dtype != np.bool_ or mask.shape != (nodes,):
            raise ValueError(f"{name}: a marker's predicate must return {nodes} bools (one per node), got "
                             f"{mask.dtype} of shape {mask.shape}")
        return np.flatnonzero(mask).astype(np.int32)
    if isinstance(where, (list, tuple)) and any(isinstance(w, str) or callable(w) for w in where):
        parts = [marker_nodes(mesh, w, name) for w in where]
        return np.unique(np.concatenate(parts)).astype(np.int32) if parts else np.zeros(0, np.int32)
    array = np.asarray(where)
    if array.dtype == np.bool_:
        if array.shape != (nodes,):
            raise ValueError(f"{name}: a marker's mask needs one bool per node ({nodes}), got shape {array.shape}")
        return np.flatnonzero(array).astype(np.int32)
    ids = np.atleast_1d(array)
    if ids.size and not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name}: a marker's node ids must be integers, got {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= nodes):
        raise ValueError(f"{name}: a marker's node ids must be in [0, {nodes}), got {ids.min()} to {ids.max()}")
    return np.unique(ids).astype(np.int32)


def norm(mesh, u, kind: str = "h", *, marker=None, backend: str = "auto") -> float:
    """A discrete norm of node values u: "h" (control-volume weights), "h1",
    "h1_seminorm" (backward differences, staggered weights) or "max";
    summed (or maximised) over a marker's nodes (``marker_nodes``) when one
    is given."""
    return _native.grid.norm(mesh, host_array(u, np.float64, "u"), kind, _marker_list(mesh, marker), backend)


def inner(mesh, u, v, kind: str = "h", *, axis: int = 0, marker=None, backend: str = "auto") -> float:
    """A discrete inner product of node values: "h", the sum of the
    control-volume weights times u v, or "plus", <u, v>_+ along `axis`
    (staggered weights, nodes of index 1 and above along it); over a
    marker's nodes when one is given."""
    return _native.grid.inner(mesh, host_array(u, np.float64, "u"), host_array(v, np.float64, "v"), kind, int(axis),
                              _marker_list(mesh, marker), backend)


def restrict_to_nodes(mesh, f) -> np.ndarray:
    """R_h f: f(x[, y[, z]]) at every node (f a Python callable of the
    mesh's dim coordinates returning a number)."""
    return _native.grid.project(mesh, _callable(f), "nodes", 1)


def cell_average(mesh, f, points_per_axis: int = 3) -> np.ndarray:
    """avg_h f: the mean of f(x[, y[, z]]) over each node's control volume
    (clipped to the domain) by tensor Gauss-Legendre quadrature with
    points_per_axis points per axis (1 to 32), exact for polynomials of
    degree up to 2 * points_per_axis - 1 in each variable."""
    return _native.grid.project(mesh, _callable(f), "average", int(points_per_axis))


def apply(op, mesh, u, *, backend: str = "auto") -> np.ndarray:
    """op(u) at every node of the mesh (a new array)."""
    return _native.grid.apply(op, mesh, host_array(u, np.float64, "u"), backend)


def mesh_points(mesh) -> np.ndarray:
    """Node coordinates, nodes x dim, in node order (x fastest)."""
    axes = [np.asarray(axis.points) for axis in mesh.axes]
    grids = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.ravel(order="F") for g in grids], axis=1)


def assemble(mesh, a, l=None, *, coefficients=(), dirichlet="boundary", boundary_values=0.0, symmetrize=True,
             backend: str = "auto", like=None):
    """The matrix of form `a` (scipy.sparse.csr_matrix) and the right-hand
    side of linear form `l` on `mesh`, with the nodes of `dirichlet` (a
    marker: "boundary", a predicate, a mask, node ids, see
    ``marker_nodes``; or None) held at boundary_values (a number or one
    value per node): their rows become identity rows, and with symmetrize
    their columns move to the right-hand side, so a symmetric form gives a
    symmetric matrix. coefficients[s] holds slot s's value at every node.

    With `like` a CUDA device array (a CuPy array or a PyTorch tensor), the
    form is assembled on that device (cuda backend) and the matrix and the
    right-hand side come back as that framework's device CSR matrix and
    vector, made from the library's device memory without a copy."""
    import scipy.sparse

    if l is None:
        l = inner_h(0.0, TestFunction())
    nodes = mesh.nodes
    constrained = _constrained(mesh, dirichlet)
    values = [_node_values(c, nodes, f"coefficients[{s}]") for s, c in enumerate(coefficients)]
    g = _node_values(boundary_values, nodes, "boundary_values")
    if like is not None:
        device = device_of(like, "like")
        if device is None:
            raise ValueError("like: a host array; pass a CUDA device array (CuPy, PyTorch) for a device matrix, or "
                             "leave like out for a scipy.sparse matrix")
        check_device_backend("like", backend)
        out = _native.grid.assemble_device(mesh, a, l, values, constrained, g, bool(symmetrize), device)
        matrix = device_csr_like(out["rows"], nodes, out["indptr"], out["indices"], out["data"], like)
        return matrix, as_framework(out["rhs"], like)
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


class Multigrid:
    """A geometric multigrid hierarchy (include/trellis/grid/multigrid.hpp)
    for the matrix ``assemble`` built from a form on `mesh`, with the same
    Dirichlet nodes: levels by halving the mesh's axes, linear
    interpolation and its transpose, Galerkin coarse operators, Jacobi,
    Chebyshev, line or Gauss-Seidel smoothing ("line": the tridiagonal part
    along each axis in turn solved on every line, for stretched cells;
    "gauss-seidel": multicolour, the nodes coloured by the parity of each
    index), and a direct or Krylov solve on the coarsest level.

    ``matrix`` is a scipy.sparse matrix (the hierarchy on `backend`:
    reference, cpu or cuda; "auto" is cuda where a device is usable) or a
    device CSR matrix (CuPy, PyTorch; the hierarchy is built on its device
    from a copy, nothing through the host). Use it with ``multigrid_solve``,
    or as the preconditioner of ``cg`` (mgcg: CG with the flexible beta) and
    ``bicgstab`` (host vectors), or ``as_linear_operator`` as SciPy's M."""

    def __init__(self, mesh, matrix, *, dirichlet="boundary", cycle: str = "v", smoother: str = "chebyshev",
                 smoothing_steps: int = 3, jacobi_weight: float = 2.0 / 3.0, line_weight: float = 0.8,
                 gauss_seidel_weight: float = 1.0, chebyshev_lower: float = 0.1, chebyshev_upper: float = 1.1, eigenvalue_steps: int = 12,
                 max_levels: int = 30, direct_solve_flops: float = 2e8, backend: str = "auto"):
        options = _native.grid.multigrid_options(str(cycle), str(smoother), int(smoothing_steps),
                                                 float(jacobi_weight), float(line_weight),
                                                 float(gauss_seidel_weight), float(chebyshev_lower),
                                                 float(chebyshev_upper), int(eigenvalue_steps), int(max_levels),
                                                 float(direct_solve_flops))
        constrained = _constrained(mesh, dirichlet)
        if is_device_csr(matrix):
            rows, cols, indptr, indices, data, device = device_csr_parts(matrix, "matrix")
            check_device_backend("matrix", backend)
            self._native = _native.grid.Multigrid(mesh, rows, cols, indptr, indices, data, constrained, options)
            self.device = device
        else:
            self._native = _native.grid.Multigrid(mesh, *_csr_parts(matrix), constrained, options, backend)
            self.device = None
        n = self._native.size
        self.shape = (n, n)

    @property
    def levels(self) -> int:
        """Number of levels, the finest included."""
        return self._native.levels

    @property
    def backend(self) -> str:
        return self._native.backend

    @property
    def direct_coarse_solve(self) -> bool:
        """True when the coarsest level is solved by banded LU, False for a Krylov solve."""
        return self._native.direct_coarse_solve

    def level(self, level: int) -> dict:
        """What level `level` holds (0 the finest): extents, nodes, nonzeros,
        lambda_max (the estimated largest eigenvalue of D^-1 A)."""
        return self._native.level(int(level))

    def cycle(self, b, x):
        """One cycle from the guess x, in place: x <- x + B (b - A x).
        Device arrays (a cuda hierarchy) are read and written where they are."""
        if device_of(x, "x") is not None or device_of(b, "b") is not None:
            self._native.cycle_device(*self._device_vectors(b, "b", x, "x"))
            return x
        _check_writable(x, "x")
        self._native.cycle(host_array(b, np.float64, "b"), x)
        return x

    def precondition(self, r, out=None):
        """z = B r, one cycle from zero (into out, a new array when None)."""
        if device_of(r, "r") is not None:
            z = _device_zeros(self.shape[0], device_of(r, "r"), r) if out is None else out
            self._native.precondition_device(*self._device_vectors(r, "r", z, "out"))
            return z
        z = np.zeros(self.shape[0]) if out is None else out
        _check_writable(z, "out")
        self._native.precondition(host_array(r, np.float64, "r"), z)
        return z

    def as_linear_operator(self):
        """The preconditioner z = B r as a scipy.sparse.linalg.LinearOperator
        (M of scipy.sparse.linalg.cg and friends)."""
        import scipy.sparse.linalg

        return scipy.sparse.linalg.LinearOperator(self.shape, matvec=lambda r: self.precondition(np.ravel(r)),
                                                  dtype=np.float64)

    def _device_vectors(self, a, a_name, b, b_name):
        if self.backend != "cuda":
            raise ValueError(f"{a_name}: device arrays need a hierarchy on cuda, this one is on {self.backend}")
        n = self.shape[0]
        return device_array(a, np.float64, a_name, n), device_array(b, np.float64, b_name, n)


def multigrid_solve(mg: Multigrid, b, x0=None, *, tol: float = 1e-8, maxiter: int = 100, progress=None,
                    check_every: int = 1):
    """Multigrid cycles as the iteration for A x = b (A the hierarchy's
    matrix) until ||b - A x|| <= tol ||b||; returns (x, info) as cg does.
    CUDA device arrays (a cuda hierarchy) stay on the device."""
    return _multigrid_solve("mg", mg, b, x0, tol, maxiter, progress, check_every)


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
    if is_device_csr(matrix):
        a = device_csr_parts(matrix, "matrix")
        device = _device_call("x", x, out, backend, matrix_device=a[5])
        x = device_array(x, np.float64, "x", a[1])
        result = _device_zeros(a[0], device, x) if out is None else device_array(out, np.float64, "out", a[0])
        _native.grid.spmv_device_csr(*a[:5], float(alpha), x, float(beta), result)
        return result
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


def _multigrid_solve(method, mg, b, x0, tol, maxiter, progress, check_every):
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable (iteration, residual) or None, got {type(progress).__name__}")
    n = mg.shape[0]
    settings = (float(tol), int(maxiter), int(check_every), progress)
    if mg.backend != "cuda" and device_of(b, "b") is not None:
        raise ValueError(f"b: device arrays need a hierarchy on cuda, this one is on {mg.backend}")
    device = _device_call("b", b, x0, mg.backend, out_name="x0")
    if device is not None:
        b = device_array(b, np.float64, "b", n)
        x = _device_zeros(n, device, b) if x0 is None else device_array(x0, np.float64, "x0", n)
        return x, mg._native.solve_device(method, b, x, *settings)
    b = host_array(b, np.float64, "b")
    x = np.zeros(n, dtype=np.float64) if x0 is None else x0
    _check_writable(x, "x0")
    return x, mg._native.solve(method, b, x, *settings)


def _solve(method, matrix, b, x0, tol, maxiter, preconditioner, backend, progress, check_every):
    if isinstance(preconditioner, Multigrid):
        # The hierarchy iterates on its own finest matrix, the one it was
        # built from: the matrix given must be that one.
        if tuple(matrix.shape) != preconditioner.shape:
            raise ValueError(f"preconditioner: a hierarchy of size {preconditioner.shape[0]} for a matrix of shape "
                             f"{tuple(matrix.shape)}")
        return _multigrid_solve(method, preconditioner, b, x0, tol, maxiter, progress, check_every)
    if preconditioner not in ("jacobi", "none", None):
        raise ValueError(f"preconditioner must be 'jacobi', 'none' or a Multigrid, got {preconditioner!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable (iteration, residual) or None, got {type(progress).__name__}")
    jacobi = preconditioner == "jacobi"
    settings = (float(tol), int(maxiter), jacobi)
    n = int(matrix.shape[0])
    device_csr = device_csr_parts(matrix, "matrix") if is_device_csr(matrix) else None
    device = _device_call("b", b, x0, backend, out_name="x0",
                          matrix_device=None if device_csr is None else device_csr[5])
    if device is not None:
        b = device_array(b, np.float64, "b", n)
        x = _device_zeros(n, device, b) if x0 is None else device_array(x0, np.float64, "x0", n)
        if isinstance(matrix, MatrixFree):
            info = matrix._native.solve_device(method, b, x, *settings, int(check_every), progress)
        elif device_csr is not None:
            info = _native.grid.solve_device_csr(method, *device_csr[:5], b, x, *settings, int(check_every),
                                                 progress)
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


def _device_call(name, value, out, backend, out_name="out", matrix_device=None):
    """The CUDA device of a call's vectors (value and out), None when they
    are host arrays; a ValueError when they are mixed, are not on the
    device CSR matrix's device (matrix_device), or the call cannot run on
    cuda."""
    device = device_of(value, name)
    out_device = None if out is None else device_of(out, out_name)
    if matrix_device is not None:
        if device is None or (out is not None and out_device is None):
            raise ValueError(f"matrix: a device CSR matrix with host vectors; pass CUDA device arrays for {name} "
                             f"(and {out_name}), or a scipy.sparse matrix")
        if matrix_device != device:
            raise ValueError(f"matrix: on CUDA device {matrix_device}, {name} on device {device}")
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
    return [] if dirichlet is None else marker_nodes(mesh, dirichlet, "dirichlet").tolist()


def _marker_list(mesh, marker):
    return None if marker is None else marker_nodes(mesh, marker).tolist()


def _callable(f):
    if not callable(f):
        raise TypeError(f"f must be callable (x[, y[, z]]) -> float, got {type(f).__name__}")
    return f


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
