"""Arrays in: NumPy arrays, anything NumPy converts (lists, buffers), and
DLPack producers on the host (PyTorch CPU tensors, JAX and CuPy host
arrays...), viewed without a copy where the dtype already matches.

CUDA device arrays (CuPy, PyTorch, anything with ``__dlpack__`` on a CUDA
device) are taken in place by the kernels that run on the device (the grid
module's spmv, matrix-free apply and solvers, and shortest paths): their
results come back as device arrays of the same framework, made from the
library's device memory through DLPack without a copy. Elsewhere, and in a
build without CUDA, device arrays are refused with a ValueError naming the
argument."""

import sys

import numpy as np

from . import _native

# DLPack device types (dlpack.h): host memory, CUDA memory, CUDA page-locked
# host memory, CUDA managed memory.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def device_of(value, name):
    """The CUDA device index of a device array, None for host data; a
    ValueError for memory on devices other than CUDA's."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__dlpack_device__"):
        return None
    kind, index = value.__dlpack_device__()
    kind = int(kind)
    if kind in (_DL_CPU, _DL_CUDA_HOST):
        return None
    if kind in (_DL_CUDA, _DL_CUDA_MANAGED):
        return int(index)
    raise ValueError(f"{name}: arrays on DLPack device type {kind} are not supported (host or CUDA memory only)")


def host_array(value, dtype, name):
    """A C-contiguous array of `dtype` over `value`, copied only when its
    dtype or layout differ."""
    if not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__"):
        if device_of(value, name) is not None:
            raise ValueError(f"{name}: a CUDA device array is not accepted here (this call runs on host memory); "
                             f"copy it to the host first")
        try:
            value = np.from_dlpack(value)
        except (BufferError, RuntimeError, TypeError) as error:
            raise ValueError(f"{name}: only host (CPU) arrays are accepted; copy device arrays to the host first "
                             f"({error})") from error
    return np.ascontiguousarray(value, dtype=dtype)


def check_device_backend(name, backend):
    """A device array was given as `name`: the call must be able to run on
    cuda (ValueError otherwise)."""
    if not _native.cuda_compiled():
        raise ValueError(f"{name}: a CUDA device array, but this build of trellis has no CUDA (rebuild with "
                         f"-DTRELLIS_CUDA=ON, or pass a host array)")
    if backend not in ("cuda", "auto"):
        raise ValueError(f"{name}: a CUDA device array needs backend 'cuda' (or 'auto'), got {backend!r}; pass host "
                         f"arrays to the {backend} backend")


def device_array(value, dtype, name, length=None):
    """A CUDA device array taken as it is: one-dimensional, C-contiguous,
    of `dtype` (and `length`), else a ValueError (nothing is converted: a
    conversion would be a copy the caller did not ask for)."""
    shape = tuple(getattr(value, "shape", ()))
    got = str(getattr(value, "dtype", "?")).rsplit(".", 1)[-1]
    if got != np.dtype(dtype).name:
        raise ValueError(f"{name}: the device array must be {np.dtype(dtype).name}, got {got}")
    if len(shape) != 1:
        raise ValueError(f"{name}: the device array must be one-dimensional, got shape {shape}")
    if length is not None and shape[0] != length:
        raise ValueError(f"{name}: the device array needs {length} entries, got {shape[0]}")
    if not _c_contiguous(value):
        raise ValueError(f"{name}: the device array must be C-contiguous")
    return value


def framework_of(value):
    """The module whose from_dlpack turns the library's device arrays into
    arrays like `value` (torch for a PyTorch tensor, cupy for a CuPy array)."""
    module = sys.modules.get(type(value).__module__.split(".", 1)[0])
    if module is None or not hasattr(module, "from_dlpack"):
        raise ValueError(f"cannot return device arrays like a {type(value).__module__}.{type(value).__name__}: its "
                         f"module has no from_dlpack")
    return module


def as_framework(native, like):
    """The library's device array `native` as an array of `like`'s framework
    (zero-copy, through DLPack)."""
    return framework_of(like).from_dlpack(native)


def is_device_csr(matrix):
    """Whether `matrix` is a CSR matrix in CUDA memory: a PyTorch tensor of
    layout sparse_csr on a CUDA device, or a cupyx.scipy.sparse CSR
    matrix. Neither framework is imported here."""
    module = type(matrix).__module__
    if module.startswith("torch"):
        return str(getattr(matrix, "layout", "")) == "torch.sparse_csr" and bool(getattr(matrix, "is_cuda", False))
    return module.startswith("cupyx.scipy.sparse") and getattr(matrix, "format", None) == "csr"


def device_csr_parts(matrix, name):
    """(rows, cols, indptr, indices, data, device) of a device CSR matrix
    (is_device_csr), as the library reads them: data float64 and indices
    int32 taken where they are, indptr as int64 (converted when 32-bit:
    rows + 1 entries). A ValueError when they do not describe a valid matrix
    (checked on the device), since the kernels would read outside it."""
    rows, cols = (int(n) for n in matrix.shape)
    if type(matrix).__module__.startswith("torch"):
        import torch

        indptr, indices, data = matrix.crow_indices(), matrix.col_indices(), matrix.values()
        if matrix.dim() != 2:
            raise ValueError(f"{name}: a batched or hybrid sparse tensor is not a matrix (dim {matrix.dim()})")
        indptr = indptr.to(torch.int64)
        if indices.dtype == torch.int64 and indices.numel() > 0 and int(indices.max()) >= 2**31:
            raise ValueError(f"{name}: column indices beyond 32 bits")
        indices = indices.to(torch.int32)
    else:
        indptr, indices, data = matrix.indptr.astype("int64"), matrix.indices.astype("int32", copy=False), matrix.data
    data = device_array(data, np.float64, f"{name}.data")
    device = device_of(data, f"{name}.data")
    nnz = int(data.shape[0])
    if tuple(indices.shape) != (nnz,) or tuple(indptr.shape) != (rows + 1,):
        raise ValueError(f"{name}: a {rows}x{cols} CSR matrix needs {rows + 1} row offsets and one column per value "
                         f"({nnz}), got {tuple(indptr.shape)} and {tuple(indices.shape)}")
    if int(indptr[0]) != 0 or int(indptr[-1]) != nnz or (rows > 0 and not bool((indptr[1:] >= indptr[:-1]).all())):
        raise ValueError(f"{name}: row offsets must ascend from 0 to the number of values ({nnz})")
    if nnz > 0 and (int(indices.min()) < 0 or int(indices.max()) >= cols):
        raise ValueError(f"{name}: a column index outside [0, {cols})")
    return rows, cols, indptr, indices, data, device


def device_csr_like(rows, cols, indptr, indices, data, like):
    """A CSR matrix of like's framework over the library's device arrays
    (DLPack, no copy of the values and columns; the row offsets, rows + 1
    entries, become 32-bit where the framework wants them so)."""
    framework = framework_of(like)
    indptr, indices, data = (framework.from_dlpack(a) for a in (indptr, indices, data))
    if framework.__name__ == "torch":
        # PyTorch wants offsets and columns of one dtype: 32-bit where the
        # values fit, else the columns widened.
        if int(data.shape[0]) < 2**31:
            indptr = indptr.to(framework.int32)
        else:
            indices = indices.to(framework.int64)
        # The library built the arrays: PyTorch need not check them again.
        return framework.sparse_csr_tensor(indptr, indices, data, size=(rows, cols), check_invariants=False)
    import cupyx.scipy.sparse

    return cupyx.scipy.sparse.csr_matrix((data, indices, indptr.astype("int32")), shape=(rows, cols), copy=False)


def _c_contiguous(value):
    if hasattr(value, "is_contiguous"):  # PyTorch
        return bool(value.is_contiguous())
    # CuPy (flags.c_contiguous); others are left to the native check.
    return bool(getattr(getattr(value, "flags", None), "c_contiguous", True))
