"""Keep a server process's freed memory small (glibc's malloc).

Called once per process, by course_app.page at import, like
course_app.blas.one_blas_thread.
"""

from __future__ import annotations

import ctypes
import os

# glibc's malloc gives every thread that allocates its own arena (up to 8 per
# core) and, once a large block has been freed, serves blocks up to 32 MB from
# those arenas instead of returning them to the system. Streamlit runs every
# script run in a new thread, so a server's memory grew with every action of
# every learner: freed, but kept (docs/serving.md, "Memory"). Two arenas and a
# fixed threshold (blocks of 256 KB and more are mapped and unmapped on their
# own) keep it flat, at no measurable CPU cost. The MALLOC_ARENA_MAX and
# MALLOC_MMAP_THRESHOLD_ environment variables, when set, win.
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8  # glibc's <malloc.h>
MALLOC_ARENAS, MMAP_THRESHOLD = 2, 256 * 1024


def compact_malloc() -> bool:
    """Set glibc's malloc to keep a server's freed memory small. Returns whether
    it did (not on another C library, nor when the environment sets it)."""
    if os.environ.get("MALLOC_ARENA_MAX") or os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc only: musl's mallopt does nothing)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, MALLOC_ARENAS)) and bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
