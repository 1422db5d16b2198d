"""Open every page of a freshly started app once, in each language.

    python deploy/warm_up.py http://127.0.0.1:8501 [http://127.0.0.1:8502 ...]

A new Streamlit process pays for its imports, the catalogs and the first
chart specs in its first page runs (about a second on a small machine), and
a class that arrives together queues behind them. deploy/serve_two.sh runs
this for each process before nginx lets learners in. It speaks Streamlit's
websocket protocol directly (tests/benchmarks/streamlit_protocol.py), so it
needs no browser; the pages are the ones the app's own menu lists.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "benchmarks"))
from streamlit_protocol import StreamlitSession


def warm(url: str) -> None:
    start = time.monotonic()
    first = StreamlitSession(url, timeout=120)
    first.open("", "lang=ja")  # the home page; its run lists every page
    pages = [name for name in first.pages if name]
    first.close()
    for page in pages:
        for lang in ("ja", "en"):
            session = StreamlitSession(url, timeout=120)
            session.open(page, f"lang={lang}")
            session.close()
    print(f"warmed {url}: {len(pages)} pages in {time.monotonic() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for address in sys.argv[1:]:
        warm(address)
