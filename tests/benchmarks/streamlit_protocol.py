"""Streamlit's websocket protocol, spoken without a browser: one learner's session.

The frontend and the server talk protobuf over ``/_stcore/stream``: the
browser sends a ``BackMsg`` (``rerun_script`` with a ``ClientState``: the
page, the query string, every widget's state, the fragment to rerun), the
server answers with ``ForwardMsg`` messages (``new_session``,
``navigation``, ``page_info_changed``, ``delta`` per element,
``script_finished``). :class:`StreamlitSession` does the frontend's part:

- ``open(page, query)``: the deep link ``/<page>?<query>``: the page's HTML,
  ``/_stcore/health`` and ``/_stcore/host-config`` (as the browser before it
  connects; cookies kept, so nginx's sticky cookie works), the websocket,
  and a first ``rerun_script`` carrying the page name and the query string;
- ``act(widget)``: change one widget as a learner would and rerun: a widget
  inside an ``@st.fragment`` is sent with that fragment's id (the server
  reruns only the fragment), one outside any fragment reruns the page;
- ``follow_menu(page)``: another page through the menu, same session.

Nothing is written down per page: the widgets (ids, values, options, the
fragment each belongs to) are read from the deltas the server sends. Each
request carries what the frontend's would: the page's script hash (from
``navigation``), the query string the server last set (``page_info_changed``:
the progress and the URL-bound widgets), every known widget's state, and
the hashes of the big messages this client has cached (the server then
sends references to them, as to a browser). An exception element in the
page, a script error, a closed websocket or no ``script_finished`` within
``timeout`` raises :class:`ProtocolError`.

Used by the Locust learners (streamlit_user.py) and the browser smoke test.
Written against Streamlit 1.67's protocol (streamlit/proto/*.proto).
"""

from __future__ import annotations

import contextlib
import inspect
import random
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from course_app import progress
from course_app.course import BY_ID, LESSONS

CONNECT_OPTIONS = set(inspect.signature(connect).parameters)

FINISHED = ForwardMsg.ScriptFinishedStatus
DONE = {FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
CONTROL_KINDS = ("slider", "select_slider", "selectbox", "radio", "checkbox")
VISIT, TASK, QUIZ = "visit", "task", "quiz"  # the class events a learner causes (quiz: any answer kind)
STEADY = ":steady"  # an action's request type ends so once the ramp-up is over (--steady-after)


class ProtocolError(Exception):
    """The server answered, but not as a healthy page does."""


@dataclass
class Widget:
    """One widget as the frontend knows it: what it is and its current value."""

    id: str
    kind: str  # slider, select_slider, selectbox, radio, checkbox; text_input, submit, button
    fragment_id: str  # "" outside any fragment
    label: str
    options: list[str] = field(default_factory=list)
    low: float = 0.0
    high: float = 0.0
    step: float = 1.0
    is_int: bool = False
    value: object = None  # list[float] (slider), int index / list of indices, bool; None: no value yet
    question: bool = False  # a radio that starts with no choice: a quiz question waiting for an answer
    form_id: str = ""  # the st.form a text input or a submit button belongs to

    def state(self, msg) -> bool:
        """Fill a WidgetState proto with the current value; False if there is none."""
        if self.value is None:
            return False
        msg.id = self.id
        if self.kind == "slider":
            msg.double_array_value.data[:] = [float(v) for v in self.value]
        elif self.kind == "select_slider":
            msg.string_array_value.data[:] = [self.options[i] for i in self.value]
        elif self.kind in ("selectbox", "radio"):
            msg.string_value = self.options[self.value]
        elif self.kind == "checkbox":
            msg.bool_value = bool(self.value)
        elif self.kind == "text_input":
            msg.string_value = str(self.value)
        elif self.kind == "submit":  # a press: sent once, with the form's values
            msg.trigger_value = True
        else:  # a button outside a form: known (its id), never pressed
            return False
        return True

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is still a possible value (a widget's options or range
        can change with another widget: the heads a width allows)."""
        if value is None:
            return True
        if self.kind == "slider":
            return all(self.low - 1e-9 <= v <= self.high + 1e-9 for v in value)
        if self.kind == "select_slider":
            return all(0 <= i < len(self.options) for i in value)
        if self.kind in ("selectbox", "radio"):
            return 0 <= value < len(self.options)
        return True

    def change(self, rng: random.Random) -> None:
        """A learner's change: a slider moves a few steps; a choice picks another option."""
        if self.kind == "slider":
            steps = max(1, round((self.high - self.low) / self.step))
            now = round((self.value[0] - self.low) / self.step)
            new = min(steps, max(0, now + rng.choice((-3, -2, -1, 1, 2, 3))))
            if new == now:
                new = now - 1 if now > 0 else now + 1
            value = self.low + new * self.step
            self.value = [round(value) if self.is_int else round(value, 10), *self.value[1:]]
        elif self.kind == "select_slider":
            last = len(self.options) - 1
            now = self.value[0]
            new = min(last, max(0, now + rng.choice((-1, 1))))
            self.value = [new if new != now else (now - 1 if now > 0 else now + 1), *self.value[1:]]
        elif self.kind in ("selectbox", "radio"):
            others = [i for i in range(len(self.options)) if i != self.value]
            self.value = rng.choice(others) if others else self.value
        elif self.kind == "checkbox":
            self.value = not self.value


def widget_from_delta(msg: ForwardMsg) -> Widget | None:
    """The control a ``new_element`` delta draws, with the value the page shows."""
    element = msg.delta.new_element
    kind = element.WhichOneof("type")
    fragment = msg.delta.fragment_id
    if kind == "slider":
        proto = element.slider
        current = list(proto.value) if proto.set_value and proto.value else list(proto.default)
        if proto.type == Slider.Type.SELECT_SLIDER:
            if proto.set_value and proto.raw_value:  # a value set by the app: the chosen labels
                labels = list(proto.options)
                current = [labels.index(v) for v in proto.raw_value if v in labels] or current
            return Widget(
                proto.id,
                "select_slider",
                fragment,
                proto.label,
                list(proto.options),
                value=[int(v) for v in current],
            )
        if proto.data_type not in (Slider.DataType.INT, Slider.DataType.FLOAT) or proto.step <= 0:
            return None  # date / time sliders: no lesson has one
        return Widget(
            proto.id,
            "slider",
            fragment,
            proto.label,
            low=proto.min,
            high=proto.max,
            step=proto.step,
            is_int=proto.data_type == Slider.DataType.INT,
            value=current,
        )
    if kind in ("selectbox", "radio"):
        proto = getattr(element, kind)
        options = list(proto.options)
        value = None
        if proto.HasField("raw_value") and proto.raw_value in options:
            value = options.index(proto.raw_value)
        elif proto.HasField("default") and 0 <= proto.default < len(options):
            value = proto.default
        if not options:
            return None
        question = kind == "radio" and not proto.HasField("default")
        return Widget(proto.id, kind, fragment, proto.label, options, value=value, question=question)
    if kind == "text_input":
        proto = element.text_input
        if not proto.form_id:  # only a form's fields (the class's join form): a lesson's own are left alone
            return None
        value = proto.value if proto.set_value else (proto.default if proto.HasField("default") else "")
        return Widget(proto.id, "text_input", fragment, proto.label, value=value, form_id=proto.form_id)
    if kind == "button":
        proto = element.button
        submit = "submit" if proto.is_form_submitter else "button"
        return Widget(proto.id, submit, fragment, proto.label, form_id=proto.form_id)
    if kind == "checkbox":
        proto = element.checkbox
        return Widget(
            proto.id,
            "checkbox",
            fragment,
            proto.label,
            value=proto.value if proto.set_value else proto.default,
        )
    return None


class StreamlitSession:
    """One browser tab's Streamlit session, without the browser."""

    def __init__(self, base_url: str, timeout: float = 60.0, rng: random.Random | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.rng = rng or random.Random()
        self.ws = None  # a websockets.sync ClientConnection
        self.page_hash = ""
        self.page_name = ""
        self.pages: dict[str, str] = {}  # url path -> script hash, from new_session
        self.query = ""
        self.widgets: dict[str, Widget] = {}
        self.cache: dict[str, tuple[ForwardMsg, int]] = {}  # hash -> (message, run it was last seen in)
        self.max_cache_age = 2
        self.runs = 0
        self.cookies = ""
        self.bytes_in = 0

    # --- connection -------------------------------------------------------

    def http_get(self, path: str) -> int:
        """A GET as the browser makes it before connecting; keeps the cookies
        (nginx's st_backend, Streamlit's xsrf) for the websocket. Returns bytes read."""
        request = urllib.request.Request(
            self.base + path, headers={"Cookie": self.cookies} if self.cookies else {}
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            body = response.read()
            jar = dict(c.split(";", 1)[0].split("=", 1) for c in response.headers.get_all("Set-Cookie") or [])
        if jar:
            old = dict(p.split("=", 1) for p in self.cookies.split("; ") if "=" in p)
            self.cookies = "; ".join(f"{k}={v}" for k, v in (old | jar).items())
        return len(body)

    def connect(self) -> None:
        url = "ws" + self.base.removeprefix("http") + "/_stcore/stream"
        options = {"legacy": True, "proxy": None}  # a plain connection, never through a proxy
        self.ws = connect(
            url,
            origin=self.base,
            subprotocols=["streamlit"],
            additional_headers={"Cookie": self.cookies} if self.cookies else None,
            open_timeout=self.timeout,
            max_size=None,
            compression=None,  # as the browser's frontend: no permessage-deflate
            **{k: v for k, v in options.items() if k in CONNECT_OPTIONS},  # newer websockets only
        )

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
            self.ws = None

    # --- the protocol -----------------------------------------------------

    def open(self, page: str, query: str) -> float:
        """A deep link: the page's HTTP requests, the websocket, the first run.
        Returns the seconds from the first GET to script_finished."""
        start = time.perf_counter()
        self.http_get(f"/{page}?{query}" if query else f"/{page}")
        self.http_get("/_stcore/health")
        self.http_get("/_stcore/host-config")
        self.connect()
        self.page_name, self.query = page, query
        self.rerun(first=True)
        return time.perf_counter() - start

    def rerun(self, fragment_id: str = "", first: bool = False, page: str | None = None) -> float:
        """Send one rerun_script and read until its script_finished; returns seconds."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        if page is not None:  # a menu link: the other page, no widget states
            state.page_script_hash = self.pages.get(page, "")
            state.page_name = page
        else:
            state.page_script_hash = "" if first else self.page_hash
            state.page_name = self.page_name if first else ""
            for widget in self.widgets.values():
                if widget.value is not None:
                    widget.state(state.widget_states.widgets.add())
        state.fragment_id = fragment_id
        state.cached_message_hashes[:] = list(self.cache)
        path = page if page is not None else self.page_name
        state.context_info.url = f"{self.base}/{path}" + (f"?{self.query}" if self.query else "")
        state.context_info.timezone = "Asia/Tokyo"
        state.context_info.locale = "ja-JP"
        start = time.perf_counter()
        self.ws.send(msg.SerializeToString())
        self._read_run(fragment_id)
        return time.perf_counter() - start

    def _read_run(self, fragment_id: str) -> None:
        errors: list[str] = []
        seen: set[str] = set()
        full_run = not fragment_id
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                data = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                raise ProtocolError(f"no script_finished within {self.timeout:.0f} s") from None
            except ConnectionClosed as exc:
                raise ProtocolError(f"websocket closed by the server: {exc}") from None
            self.bytes_in += len(data)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            if fwd.HasField("ref_hash"):  # a big message this client has cached
                cached = self.cache.get(fwd.ref_hash)
                if cached is None:
                    raise ProtocolError("reference to a message this client never had")
                fwd = cached[0]
                self.cache[fwd.hash] = (fwd, self.runs)
            elif fwd.metadata.cacheable and fwd.hash:
                self.cache[fwd.hash] = (fwd, self.runs)
            kind = fwd.WhichOneof("type")
            if kind in ("new_session", "navigation"):
                # new_session names the entry script; with st.navigation, the
                # navigation message that follows names the page that ran
                info = getattr(fwd, kind)
                self.page_hash = info.page_script_hash
                self.pages = {p.url_pathname: p.page_script_hash for p in info.app_pages}
                if kind == "new_session":
                    self.max_cache_age = info.config.max_cached_message_age or self.max_cache_age
                for name, script_hash in self.pages.items():
                    if script_hash == self.page_hash:
                        self.page_name = name
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "delta":
                delta = fwd.delta
                element_kind = delta.new_element.WhichOneof("type") if delta.HasField("new_element") else None
                if element_kind == "exception":
                    errors.append(
                        f"{delta.new_element.exception.type}: {delta.new_element.exception.message}"
                    )
                widget = widget_from_delta(fwd)
                if widget is not None:
                    old = self.widgets.get(widget.id)
                    if old is not None and not _server_set(fwd) and widget.accepts(old.value):
                        widget.value = old.value  # the frontend keeps what the learner set
                    self.widgets[widget.id] = widget
                    seen.add(widget.id)
            elif kind == "script_finished":
                status = fwd.script_finished
                if status == FINISHED.FINISHED_EARLY_FOR_RERUN:
                    continue
                self.runs += 1
                self._forget_unseen(seen, full_run, fragment_id)
                self.cache = {h: v for h, v in self.cache.items() if self.runs - v[1] <= self.max_cache_age}
                if status not in DONE:
                    errors.append(f"script finished with status {FINISHED.Name(status)}")
                if errors:
                    raise ProtocolError("; ".join(errors)[:300])
                return

    def _forget_unseen(self, seen: set[str], full_run: bool, fragment_id: str) -> None:
        """Widgets that the run did not draw are gone (a fragment run redraws its own only)."""
        for wid in list(self.widgets):
            widget = self.widgets[wid]
            if wid not in seen and (full_run or widget.fragment_id == fragment_id):
                del self.widgets[wid]

    # --- what a learner does ----------------------------------------------

    def controls(self, kinds: tuple[str, ...], in_fragment: bool | None = None) -> list[Widget]:
        return [
            w
            for w in self.widgets.values()
            if w.kind in kinds
            and (in_fragment is None or bool(w.fragment_id) == in_fragment)
            and (w.value not in (None, []) or w.kind == "radio")
        ]

    def act(self, widget: Widget) -> float:
        """Change one widget as a learner would and time the rerun it causes."""
        if widget.value is None:  # an unanswered question: pick an answer
            widget.value = self.rng.randrange(len(widget.options))
        else:
            widget.change(self.rng)
        return self.rerun(fragment_id=widget.fragment_id)

    def keyed(self, key: str) -> Widget | None:
        """The widget made with ``key=key`` (Streamlit ends a keyed widget's id with its key)."""
        return next((w for w in self.widgets.values() if w.id.endswith(f"-{key}")), None)

    def submit_form(self, fields: dict[str, str]) -> float:
        """Fill a form's text inputs (by their keys) and press its submit button,
        as the frontend does: the fields' values and the button's trigger go
        together in one rerun. Returns the seconds of that rerun."""
        inputs = [self.keyed(key) for key in fields]
        if any(w is None or w.kind != "text_input" for w in inputs):
            raise ProtocolError(f"no form with the text inputs {sorted(fields)}")
        form = inputs[0].form_id
        button = next((w for w in self.widgets.values() if w.kind == "submit" and w.form_id == form), None)
        if button is None:
            raise ProtocolError(f"form {form!r} has no submit button")
        for widget, text in zip(inputs, fields.values(), strict=True):
            widget.value = text
        button.value = True
        try:
            return self.rerun(fragment_id=button.fragment_id)
        finally:
            button.value = None  # a trigger is never sent twice

    def follow_menu(self, page: str) -> float:
        """Open another page through the menu (same session, same query's lang,
        progress and seat in a class, as the menu's links carry them)."""
        keep = {k: v for k, v in parse_qsl(self.query) if k in ("lang", "p", "seat")}
        self.query = urlencode(keep)
        self.widgets.clear()
        seconds = self.rerun(page=page)
        self.page_name = page
        return seconds


class ClassTally:
    """The class events a joined learner's session causes, counted from the
    outside as ``course_app/classroom/learner.py`` puts them: a lesson's visit
    (the caller adds it: on joining, on a change of page, on a new session), a
    task newly ticked (the progress in the query string, ``?p=``, before and
    after each rerun) and a quiz answer (the first try in a session unless the
    question was already right before, then a right answer after a wrong one;
    the same choice again is no answer). ``report(kind, n)`` is told of each."""

    def __init__(self, report: Callable[[str, int], None] | None = None) -> None:
        self.counts: Counter[str] = Counter()
        self.answers: dict[str, int] = {}  # "<lesson>.<question>" -> choice, this session's
        self.report = report

    def add(self, kind: str, n: int = 1) -> None:
        if n > 0:
            self.counts[kind] += n
            if self.report is not None:
                self.report(kind, n)

    def new_session(self) -> None:
        self.answers = {}

    def around(
        self, session: StreamlitSession, action: Callable[[], float], widget: Widget | None = None
    ) -> float:
        """Run ``action`` (one rerun of ``session``: ``session.act(widget)``...); count what it caused."""
        before = progress_of(session.query)
        seconds = action()
        self.add(TASK, len(progress_of(session.query).tasks - before.tasks))
        quiz = quiz_of(widget)
        if quiz is not None:
            key, choice = quiz
            if self.answers.get(key) != choice:
                first = key not in self.answers
                self.answers[key] = choice
                lesson, question = key.split(".", 1)
                right = choice == BY_ID[lesson].quiz(question).answer
                if (key not in before.quizzes) if first else right:
                    self.add(QUIZ)
        return seconds


def progress_of(query: str) -> progress.Progress:
    """The learner's progress as the query string carries it (``?p=``)."""
    return progress.decode(dict(parse_qsl(query)).get("p", ""))[0]


def quiz_of(widget: Widget | None) -> tuple[str, int] | None:
    """("<lesson>.<question>", choice) when ``widget`` is a quiz question (its
    key is ``<lesson>_<question>``) with an answer picked, else None."""
    if widget is None or not widget.question or widget.value is None:
        return None
    for lesson in LESSONS:
        for question in lesson.quizzes:
            if widget.id.endswith(f"-{lesson.id}_{question.id}"):
                return f"{lesson.id}.{question.id}", widget.value
    return None


def _server_set(msg: ForwardMsg) -> bool:
    element = msg.delta.new_element
    proto = getattr(element, element.WhichOneof("type"))
    return bool(getattr(proto, "set_value", False))


def lesson_pages() -> list[str]:
    """The URL paths of the lesson pages (pages/2_attention.py -> attention)."""
    from course_app import course

    root = Path(__file__).resolve().parent.parent.parent
    return [
        Path(lesson.page).stem.split("_", 1)[1] for lesson in course.LESSONS if (root / lesson.page).exists()
    ]
