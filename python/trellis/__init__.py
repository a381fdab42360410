"""trellis: irregular lattice workloads from Python.

Submodules: ``trellis.graph`` (shortest paths), ``trellis.align``
(Smith-Waterman database search), ``trellis.grid`` (sparse kernels, Krylov
solvers, finite-difference studies) and ``trellis.route`` (PCB routing and
design-rule checks). Each call runs the C++ library on the backend asked for
("auto", "reference", "cpu" or "cuda"); asking for cuda where there is none
raises BackendUnavailable, never a silent fallback.

Errors: ``trellis.Error`` is the base; ``InputError`` (malformed input, with
``.file``, ``.line`` and ``.problem``) and ``UsageError`` are ValueErrors,
``BackendUnavailable`` and ``DeviceError`` RuntimeErrors.
"""

from . import _native
from ._native import (
    BackendUnavailable,
    DeviceError,
    Error,
    InputError,
    UsageError,
    available_backends,
    cuda_compiled,
)

__version__ = _native.__version__

from . import align, graph, grid, route  # noqa: E402  (after the native module)

__all__ = [
    "BackendUnavailable",
    "DeviceError",
    "Error",
    "InputError",
    "UsageError",
    "align",
    "available_backends",
    "cuda_compiled",
    "graph",
    "grid",
    "route",
]
