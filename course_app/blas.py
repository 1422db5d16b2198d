"""One BLAS thread per process.

NumPy's OpenBLAS starts one thread per core for every matrix product above a
small size. On a server shared by many learners (and by the other sessions'
reruns) those threads fight over the same cores: the capstone's widest
training took about ten times longer with them than on one thread
(tests/benchmarks/training.py --worst). The server gets its parallelism from
its sessions, so every product runs on one thread. threadpoolctl finds the
BLAS that NumPy loaded (OpenBLAS, or MKL or BLIS in other builds) and sets
it; with OPENBLAS_NUM_THREADS already set by whoever runs the app, nothing
is changed.
"""

from __future__ import annotations

import os

import numpy as np  # noqa: F401  (loads NumPy's BLAS, so that threadpoolctl can find it)
from threadpoolctl import threadpool_info, threadpool_limits


def one_blas_thread() -> bool:
    """Ask the BLAS that NumPy loaded to use one thread. Returns whether it did."""
    if os.environ.get("OPENBLAS_NUM_THREADS"):
        return False
    threadpool_limits(limits=1, user_api="blas")  # kept for the process: never restored
    pools = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    return bool(pools) and all(pool["num_threads"] == 1 for pool in pools)
