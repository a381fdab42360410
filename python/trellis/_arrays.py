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


def _c_contiguous(value):
    if hasattr(value, "is_contiguous"):  # PyTorch
        return bool(value.is_contiguous())
    # CuPy (flags.c_contiguous); others are left to the native check.
    return bool(getattr(getattr(value, "flags", None), "c_contiguous", True))
