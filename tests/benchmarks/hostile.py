"""A hostile client against the app, measured from another learner's side.

    python tests/benchmarks/hostile.py slider [--seconds 20]
        one app process; a learner moves a slider on the attention lesson
        every 0.5 s; its server time p50/p95 alone, then with an attacker that
        floods reruns (20 a second), sends clear_cache and 0.9 MB messages
    python tests/benchmarks/hostile.py connections [--held 500 --learners 20]
        deploy/serve_two.sh (nginx + two processes); one client address
        (127.0.0.2) opens ``held`` websockets and keeps them, then learners from
        other addresses (127.0.0.3, ...) open a lesson: how many websockets the
        attacker holds, how many learners get their page

Each client speaks Streamlit's websocket protocol (streamlit_protocol.py),
from its own loopback address (the whole of 127.0.0.0/8 is this machine), so
nginx sees different clients. Short runs: the machine's cores are shared.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import multiprocessing as mp
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
from helpers.apprun import free_port, running_app
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit_protocol import CONNECT_OPTIONS, ProtocolError, StreamlitSession
from websockets.sync.client import connect

LEGACY = {"legacy": True} if "legacy" in CONNECT_OPTIONS else {}  # a plain connection (newer websockets)
KINDS = os.environ.get("ATTACK", "flood,clear,big").split(",")  # what the attacker sends


class AddressedSession(StreamlitSession):
    """A learner whose every connection leaves from ``address`` (127.x.y.z)."""

    def __init__(self, base_url: str, address: str, **kwargs) -> None:
        super().__init__(base_url, **kwargs)
        self.address = address

    def http_get(self, path: str) -> int:
        host, port = self.base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(
            host, int(port), timeout=self.timeout, source_address=(self.address, 0)
        )
        try:
            conn.request("GET", path, headers={"Cookie": self.cookies} if self.cookies else {})
            response = conn.getresponse()
            body = response.read()
            if response.status >= 400:
                raise ProtocolError(f"HTTP {response.status} for {path}")
            cookies = [c.split(";", 1)[0].split("=", 1) for c in response.headers.get_all("Set-Cookie") or []]
        finally:
            conn.close()
        if cookies:
            old = dict(p.split("=", 1) for p in self.cookies.split("; ") if "=" in p)
            self.cookies = "; ".join(f"{k}={v}" for k, v in (old | dict(cookies)).items())
        return len(body)

    def connect(self) -> None:
        url = "ws" + self.base.removeprefix("http") + "/_stcore/stream"
        self.ws = connect(
            url,
            origin=self.base,
            subprotocols=["streamlit"],
            additional_headers={"Cookie": self.cookies} if self.cookies else None,
            open_timeout=self.timeout,
            max_size=None,
            compression=None,
            source_address=(self.address, 0),
            **LEGACY,
        )


def hold_websockets(base: str, address: str, count: int) -> list:
    """Open up to ``count`` websockets from ``address`` and keep them; returns
    the open ones (a refused one, 429 or a reset, is not retried)."""
    url = "ws" + base.removeprefix("http") + "/_stcore/stream"
    held = []
    for _ in range(count):
        try:
            held.append(
                connect(
                    url, origin=base, subprotocols=["streamlit"], open_timeout=10, source_address=(address, 0)
                )
            )
        except Exception:
            continue
    return held


def learners_get_their_page(base: str, count: int, first_address: int = 3) -> int:
    """``count`` learners, each from its own address, open the attention lesson; how many succeed."""
    ok = 0
    for i in range(count):
        session = AddressedSession(base, f"127.0.0.{first_address + i}", timeout=60)
        try:
            session.open("attention", "lang=en")
            ok += 1
        except Exception:
            pass
        finally:
            session.close()
    return ok


@contextlib.contextmanager
def serving_two(timeout: float = 300):
    """deploy/serve_two.sh on free ports; yields nginx's base URL."""
    port, backends = free_port(), (free_port(), free_port())
    env = os.environ | {
        "PORT": str(port),
        "BACKEND_PORTS": f"{backends[0]} {backends[1]}",
        "STREAMLIT": str(Path(sys.executable).parent / "streamlit"),
        "PYTHON": sys.executable,
    }
    proc = subprocess.Popen(
        ["bash", str(ROOT / "deploy" / "serve_two.sh")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"serve_two.sh did not start: {proc.stderr.read().decode()[-2000:]}"
                    ) from None
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# --- the slider scenario --------------------------------------------------------------


def attack(base: str, stop, active, ready, sent) -> None:
    """While ``active``: a rerun flood (20 a second), clear_cache once a second,
    a 0.9 MB message every 2 s (ATTACK=flood,clear,big picks some)."""
    session = StreamlitSession(base, timeout=120)
    session.open("capstone", "lang=en")
    ready.set()
    slider = next(w for w in session.widgets.values() if w.kind == "slider")
    tick = 0
    while not stop.is_set():
        if not active.wait(timeout=0.1):
            continue
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_script_hash = session.query, session.page_hash
        slider.change(session.rng)
        slider.state(state.widget_states.widgets.add())
        if tick % 40 == 20 and "big" in KINDS:
            big = state.widget_states.widgets.add()
            big.id, big.string_value = "x", "a" * 900_000
        with contextlib.suppress(Exception):
            if "flood" in KINDS or tick % 20 == 0:
                session.ws.send(msg.SerializeToString())
                sent.value += 1
            if tick % 20 == 0 and "clear" in KINDS:
                clear = BackMsg()
                clear.clear_cache = True
                session.ws.send(clear.SerializeToString())
            while True:  # drain what the server sent, never wait for it
                session.ws.recv(timeout=0)
        tick += 1
        time.sleep(0.05)
    session.close()


def learner_times(session: StreamlitSession, slider, seconds: float) -> list[float]:
    """A learner moves ``slider`` every 0.5 s for ``seconds``; the server time of each move."""
    times, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        times.append(session.act(slider))
        time.sleep(0.5)
    return times


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1] if len(times) >= 20 else max(times)


def slider_scenario(seconds: float, rounds: int = 4) -> None:
    """Alternating blocks, the attacker paused then active, so that the
    machine's other load falls on both alike."""
    alone, attacked = [], []
    with running_app() as base:
        # the attacker in a process of its own: its client work must not slow the learner's client
        stop, active, ready, sent = mp.Event(), mp.Event(), mp.Event(), mp.Value("i", 0)
        attacker = mp.Process(target=attack, args=(base, stop, active, ready, sent), daemon=True)
        attacker.start()
        learner = StreamlitSession(base, timeout=120)
        learner.open("attention", "lang=en")
        slider = next(w for w in learner.widgets.values() if w.kind == "slider" and w.id.endswith("at_temp"))
        learner_times(learner, slider, 3)  # warm up
        ready.wait(timeout=120)
        for _ in range(rounds):
            alone += learner_times(learner, slider, seconds / rounds)
            active.set()
            time.sleep(1)
            attacked += learner_times(learner, slider, seconds / rounds)
            active.clear()
            time.sleep(1)
        stop.set()
        attacker.join(timeout=30)
        learner.close()
    for name, times in (("alone", alone), ("with the attacker", attacked)):
        print(
            f"{name:18s} moves {len(times):3d}  p50 {statistics.median(times) * 1000:6.0f} ms"
            f"  p95 {p95(times) * 1000:6.0f} ms"
        )
    print(f"attacker messages sent: {sent.value}; p95 ratio {p95(attacked) / p95(alone):.2f}")


def connections_scenario(held: int, learners: int) -> None:
    with serving_two() as base:
        start = time.perf_counter()
        sockets = hold_websockets(base, "127.0.0.2", held)
        print(
            f"attacker (127.0.0.2): {len(sockets)} of {held} websockets held "
            f"({time.perf_counter() - start:.1f} s)"
        )
        ok = learners_get_their_page(base, learners)
        print(f"learners from other addresses: {ok} of {learners} got their page")
        for ws in sockets:
            with contextlib.suppress(Exception):
                ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("scenario", choices=["slider", "connections"])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--held", type=int, default=500)
    parser.add_argument("--learners", type=int, default=20)
    args = parser.parse_args()
    if args.scenario == "slider":
        slider_scenario(args.seconds)
    else:
        connections_scenario(args.held, args.learners)


if __name__ == "__main__":
    main()
