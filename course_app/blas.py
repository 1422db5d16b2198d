"""One BLAS thread per process.

NumPy's OpenBLAS starts one thread per core for every matrix product above a
small size. On a server shared by many learners (and by the other sessions'
reruns) those threads fight over the same cores: the capstone's widest
training took about ten times longer with them than on one thread
(tests/benchmarks/training.py --worst). The server gets its parallelism from
its sessions, so every product runs on one thread. Without OpenBLAS (another
BLAS, or OPENBLAS_NUM_THREADS already set by whoever runs the app) nothing is
changed.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads")


def one_blas_thread() -> bool:
    """Ask the OpenBLAS that NumPy loaded to use one thread. Returns whether it did."""
    if os.environ.get("OPENBLAS_NUM_THREADS"):
        return False
    here = Path(np.__file__).resolve().parent
    for path in [*here.parent.glob("numpy.libs/*openblas*"), *here.glob(".libs/*openblas*")]:
        try:
            lib = ctypes.CDLL(str(path))
        except OSError:
            continue
        for name in _SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)
                return True
    return False
