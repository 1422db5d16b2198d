"""How many elements (delta messages) a first load of each lesson sends, in both
languages, counted from what a protocol client receives (one fresh session per
page, one app process):

    python tests/tools/first_load_elements.py

docs/serving.md ("Folds") quotes these counts before and after the folds."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent / "benchmarks")]

from classroom import ROOT, Servers
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit_protocol import StreamlitSession, lesson_pages


class CountingSession(StreamlitSession):
    """A protocol client that counts the deltas (and cached references to them) it receives."""

    deltas = 0

    def connect(self) -> None:
        super().connect()
        receive = self.ws.recv

        def counted(*args, **kwargs):
            data = receive(*args, **kwargs)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            if msg.WhichOneof("type") == "delta" or msg.HasField("ref_hash"):
                self.deltas += 1
            return data

        self.ws.recv = counted


def main() -> None:
    servers = Servers(1, script=ROOT / "streamlit_app.py")
    try:
        for page in lesson_pages():
            counts = []
            for lang in ("ja", "en"):
                session = CountingSession(servers.url)
                session.open(page, f"lang={lang}")
                counts.append(session.deltas)
                session.close()
            print(f"{page:14} ja {counts[0]:4d}  en {counts[1]:4d}", flush=True)
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
