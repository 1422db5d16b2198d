"""course_app/blas.py: the maths library runs on one thread in every server
process (any page imports course_app.page, which asks for it), and a thread
count set by whoever runs the app is left alone. Each case runs in a fresh
Python, since the setting lasts for the process. The thread count is read
straight from NumPy's OpenBLAS, not through threadpoolctl that sets it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

READ_THREADS = """
import ctypes, json, pathlib, sys
import numpy

def threads():
    libs = pathlib.Path(numpy.__file__).resolve().parent.parent / "numpy.libs"
    for path in libs.glob("*openblas*"):
        lib = ctypes.CDLL(str(path))
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):
            if hasattr(lib, name):
                return getattr(lib, name)()
    sys.exit("no OpenBLAS found beside NumPy")

before = threads()
"""


def run(code: str, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | env
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", READ_THREADS + code], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_one_thread_after_the_call():
    seen = run(
        "from course_app.blas import one_blas_thread\n"
        "did = one_blas_thread()\n"
        "print(json.dumps({'before': before, 'did': did, 'after': threads()}))"
    )
    assert 1 <= seen["before"] <= (os.cpu_count() or 1)
    assert seen["did"] is True and seen["after"] == 1, seen


def test_every_page_gets_one_thread_by_importing_the_page_module():
    seen = run("import course_app.page\nprint(json.dumps({'after': threads()}))")
    assert seen["after"] == 1, seen


def test_a_thread_count_set_by_the_operator_is_kept():
    seen = run(
        "from course_app.blas import one_blas_thread\n"
        "did = one_blas_thread()\n"
        "print(json.dumps({'did': did, 'after': threads()}))",
        OPENBLAS_NUM_THREADS="2",
    )
    assert seen == {"did": False, "after": 2}
