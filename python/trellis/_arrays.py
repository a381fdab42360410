"""Arrays in: NumPy arrays, anything NumPy converts (lists, buffers), and
DLPack producers on the host (PyTorch CPU tensors, JAX and CuPy host
arrays...), viewed without a copy where the dtype already matches. Device
arrays are refused with a clear message: the kernels take host memory."""

import numpy as np


def host_array(value, dtype, name):
    """A C-contiguous array of `dtype` over `value`, copied only when its
    dtype or layout differ."""
    if not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__"):
        try:
            value = np.from_dlpack(value)
        except (BufferError, RuntimeError, TypeError) as error:
            raise ValueError(f"{name}: only host (CPU) arrays are accepted; copy device arrays to the host first "
                             f"({error})") from error
    return np.ascontiguousarray(value, dtype=dtype)
