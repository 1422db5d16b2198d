"""``streamlit run`` with a stopwatch in the server, for the load benchmark.

    LOAD_STOPWATCH=/tmp/times.log python tests/benchmarks/stopwatch_server.py run streamlit_app.py ...

Takes the same arguments as the ``streamlit`` command. For every rerun
request that reaches the server, it writes one line to the file named by
``LOAD_STOPWATCH``:

    <monotonic seconds when the request arrived> <ms until its script_finished was sent> <kind>

where kind is ``fragment`` (a slider inside an ``st.fragment``) or ``full``
(a whole script run: a page switch, a widget outside any fragment). The
time runs from the request being handed to the session to the
script_finished message being queued for the websocket: the server's own
queue plus the script run, which is what more learners slow down. A
learner's browser (its debounce, drawing the page) runs on the learner's
machine and is not in it. Requests answered by one run (a second slider
press while the first run was still going) each get their own time, up to
that run's end.

It wraps two methods of Streamlit 1.67's bundled Starlette server
(``Runtime.handle_backmsg`` and ``StarletteSessionClient.write_forward_msg``);
both run on the server's event loop, so no locks are needed. If a later
Streamlit renames them, this script stops with a clear error.
"""

from __future__ import annotations

import os
import sys
import time

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.runtime import Runtime
from streamlit.web import cli
from streamlit.web.server.starlette import starlette_websocket

EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN


def install(log_path: str) -> None:
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 - open for the life of the server
    waiting: dict[int, list[tuple[float, str]]] = {}  # id(client): (arrived, kind) not yet answered
    handle_backmsg = Runtime.handle_backmsg
    write_forward_msg = starlette_websocket.StarletteSessionClient.write_forward_msg

    def timed_handle_backmsg(self, session_id, msg, *args, client=None, **kwargs):
        if client is not None and msg.WhichOneof("type") == "rerun_script":
            kind = "fragment" if msg.rerun_script.fragment_id else "full"
            waiting.setdefault(id(client), []).append((time.monotonic(), kind))
        return handle_backmsg(self, session_id, msg, *args, client=client, **kwargs)

    def timed_write_forward_msg(self, msg):
        if msg.WhichOneof("type") == "script_finished" and msg.script_finished != EARLY_FOR_RERUN:
            now = time.monotonic()
            for arrived, kind in waiting.pop(id(self), []):
                log.write(f"{arrived:.6f} {1000 * (now - arrived):.2f} {kind}\n")
        return write_forward_msg(self, msg)

    Runtime.handle_backmsg = timed_handle_backmsg
    starlette_websocket.StarletteSessionClient.write_forward_msg = timed_write_forward_msg


if __name__ == "__main__":
    path = os.environ.get("LOAD_STOPWATCH")
    if not path:
        sys.exit("set LOAD_STOPWATCH to the file the times go to")
    install(path)
    sys.argv[0] = "streamlit"
    sys.exit(cli.main())
