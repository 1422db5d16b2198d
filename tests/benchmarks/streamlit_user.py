"""A Locust user that speaks Streamlit's own websocket protocol: a learner.

    locust -f tests/benchmarks/streamlit_user.py --headless -H http://127.0.0.1:8501 \\
        -u 20 -r 20 -t 60s --think 2 --pages attention,capstone [--class-code CODE]

(``tests/benchmarks/classroom.py`` runs the standard scenarios with it.)

Each simulated learner is one Streamlit session, as one browser tab is:

1. opens a lesson by deep link: ``GET /<page>?lang=..`` (the page's HTML,
   ``/_stcore/health``, ``/_stcore/host-config``, as the browser does before
   it connects), then the websocket ``/_stcore/stream`` and a first
   ``rerun_script`` BackMsg carrying the page name and the query string;
2. then, every ``--think`` seconds (0.5-1.5 x, at random), does what a
   learner does on that page: moves a slider (or a select-slider), switches
   the query token (a selectbox), flips a switch, answers a quiz question;
   now and then it follows the menu to another lesson of ``--pages``.

Nothing is written down per page. The widgets, their ids, values, options
and the fragment each belongs to are read from the ``delta`` ForwardMsgs the
server sends; a control inside an ``@st.fragment`` is sent back with that
fragment's id (the server reruns only the fragment, as for a browser); a
quiz question (a radio that starts with no choice) is a fragment of its own.
Each rerun
request carries what the frontend's would: the page's script hash (from
``new_session``), the query string the server last set (``page_info_changed``,
where the widgets bound to the URL and the progress live), every known
widget's state and the hashes of the big messages this client has cached
(the server then sends references, as to a browser).

With ``--class-code CODE`` each learner first joins that class: the lesson is
opened with ``?join=CODE``, and the sidebar's join form is filled (the code,
a nickname of its own: ``--nickname-prefix`` and a random suffix) and
submitted over the protocol (the form's fields and its submit button's
trigger go in one rerun), timed as the action ``join``. Then it acts as
above. A joined learner also counts the class events its actions cause, as
the app's ``course_app/classroom/learner.py`` puts them: a lesson's visit
(on joining, on each change of page, on a new session), a task newly ticked
(read from the progress in the query string, ``?p=``), a quiz answer (the
first try in a session, then a right answer after a wrong one). Each is
reported as a Locust request of type ``expected`` (name = the kind), so
``tests/benchmarks/class_load.py`` compares them with the database.

Each action is timed from sending its BackMsg to receiving its
``script_finished`` and reported to Locust's statistics as request type =
the action (``open``, ``slider``, ``select``, ``switch``, ``quiz``, ``page``),
name = the page. An exception box in the page, a script error, a closed
websocket or no ``script_finished`` within ``--step-timeout`` seconds is a
failure.

Works under Locust's distributed mode unchanged (``--master`` /
``--worker``): the options above are passed from the master to the workers.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import gevent
from locust import User, between, events, task
from locust.exception import StopUser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from streamlit_protocol import (
    STEADY,
    VISIT,
    ClassTally,
    ProtocolError,
    StreamlitSession,
    Widget,
    lesson_pages,
)

EXPECTED = "expected"  # request type of the class events a learner's action caused

# --- Locust ------------------------------------------------------------------


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument(
        "--think", type=float, default=2.0, help="seconds a learner reads between actions (mean)"
    )
    parser.add_argument(
        "--pages", default="", help="pages to open, comma-separated URL paths (default: every lesson)"
    )
    parser.add_argument("--langs", default="ja,en", help="languages the learners use, comma-separated")
    parser.add_argument(
        "--burst", action="store_true", help="only open the lesson, then stay connected and idle"
    )
    parser.add_argument("--stay", action="store_true", help="never follow the menu to another page")
    parser.add_argument("--step-timeout", type=float, default=60.0, help="seconds one action may take")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0: a fresh one)")
    parser.add_argument("--class-code", default="", help="join this class first (?join=CODE and the form)")
    parser.add_argument("--nickname-prefix", default="locust", help="joined learners' nicknames start so")
    parser.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds after all learners have started when the statistics start afresh "
        "(the first page loads of the ramp-up are then left out)",
    )
    parser.add_argument(
        "--steady-after",
        type=float,
        default=0.0,
        help="seconds after all learners have started from when each action is also reported "
        f"as '<action>{STEADY}' (the steady state, beside the whole run's figures)",
    )


_environment: list = []
_steady_from: list[float] = []  # when the steady state begins (--steady-after), once spawning is complete


def steady() -> bool:
    """Whether the run is in its steady state: --steady-after seconds past the ramp-up."""
    return bool(_steady_from) and time.monotonic() >= _steady_from[-1]


@events.init.add_listener
def _keep_environment(environment, **_kwargs) -> None:
    _environment.append(environment)


@events.spawning_complete.add_listener
def _reset_after_settling(user_count: int, **_kwargs) -> None:
    """Like --reset-stats, but later, so the last learners' first page loads are
    left out too. Runs on the master and on every worker, each resetting its own."""
    env = _environment[-1] if _environment else None
    if env is not None and env.parsed_options is not None and env.parsed_options.settle > 0:
        gevent.spawn_later(env.parsed_options.settle, env.stats.reset_all)
    if env is not None and env.parsed_options is not None and env.parsed_options.steady_after > 0:
        _steady_from.append(time.monotonic() + env.parsed_options.steady_after)


class Learner(User):
    """A learner in one tab: opens a lesson, then acts on it every few seconds."""

    def wait_time(self) -> float:
        think = self.environment.parsed_options.think
        return between(0.5 * think, 1.5 * think)(self)

    def on_start(self) -> None:
        opts = self.environment.parsed_options
        seed = opts.seed and opts.seed * 100_003 + id(self) % 100_003
        self.rng = random.Random(seed or None)
        self.pages = [p for p in opts.pages.split(",") if p] or lesson_pages()
        self.page = self.pages[self.rng.randrange(len(self.pages))]
        self.session = StreamlitSession(self.host, timeout=opts.step_timeout, rng=self.rng)
        self.actions_here = 0
        self.seat = ""  # the seat token once joined (the query's ?seat=)
        self.tally = ClassTally(report=self._expect)
        self.nickname = f"{opts.nickname_prefix}-{self.rng.getrandbits(40):010x}"
        if opts.class_code:
            query = urlencode({"lang": self._lang(), "join": opts.class_code})
            self.opened = self._timed("open", self.page, lambda: self.session.open(self.page, query))
            if self.opened:
                self._timed("join", self.page, self._join)
        else:
            self.opened = self._timed(
                "open", self.page, lambda: self.session.open(self.page, f"lang={self._lang()}")
            )

    def _join(self) -> float:
        code = self.environment.parsed_options.class_code
        fields = {"classroom_code": code, "classroom_nickname": self.nickname}
        seconds = self.tally.around(self.session, lambda: self.session.submit_form(fields))
        seat = dict(parse_qsl(self.session.query)).get("seat", "")
        if not seat or self.session.keyed("classroom_leave") is None:
            raise ProtocolError("the join form was submitted, but the learner is not in the class")
        self.seat = seat
        self.tally.add(VISIT)  # the page's run after joining counts the lesson's visit
        return seconds

    # --- the class events this learner causes (course_app/classroom/learner.py) ---

    def _expect(self, kind: str, n: int = 1) -> None:
        for _ in range(n):
            events.request.fire(
                request_type=EXPECTED,
                name=kind,
                response_time=0,
                response_length=0,
                exception=None,
                context={},
            )

    def _counting(self, action, widget: Widget | None = None) -> float:
        """Run ``action`` (a rerun); once joined, count the class events it caused."""
        if not self.seat:
            return action()
        return self.tally.around(self.session, action, widget)

    def on_stop(self) -> None:
        self.session.close()

    def _lang(self) -> str:
        langs = [lang for lang in self.environment.parsed_options.langs.split(",") if lang]
        return self.rng.choice(langs)

    def _timed(self, kind: str, page: str, action) -> bool:
        start = time.perf_counter()
        before = self.session.bytes_in
        try:
            seconds = action()
        except Exception as exc:  # reported as a failure; the learner reconnects next time
            events.request.fire(
                request_type=kind,
                name=page,
                response_time=(time.perf_counter() - start) * 1000,
                response_length=self.session.bytes_in - before,
                exception=exc,
                context={},
            )
            self.session.close()
            return False
        types = [kind, kind + STEADY] if steady() else [kind]
        for request_type in types:
            events.request.fire(
                request_type=request_type,
                name=page,
                response_time=seconds * 1000,
                response_length=self.session.bytes_in - before,
                exception=None,
                context={},
            )
        return True

    @task
    def learn(self) -> None:
        opts = self.environment.parsed_options
        if self.session.ws is None:  # after a failure: open the lesson again, as a reload would
            params = {"lang": self._lang()}
            if self.seat:  # a reload keeps the seat: a new session, its first visit
                params["seat"] = self.seat
                self.tally.new_session()
            query = urlencode(params)
            reopen = lambda: self._counting(lambda: self.session.open(self.page, query))  # noqa: E731
            self.opened = self._timed("open", self.page, reopen)
            if self.opened and self.seat and self.session.keyed("classroom_leave") is not None:
                self.tally.add(VISIT)
            return
        if opts.burst:
            return
        if self.actions_here >= 8 and len(self.pages) > 1 and not opts.stay and self.rng.random() < 0.25:
            others = [p for p in self.pages if p != self.page]
            self.page = self.rng.choice(others)
            self.actions_here = 0
            move = lambda: self._counting(lambda: self.session.follow_menu(self.page))  # noqa: E731
            self._timed("page", self.page, move)
            if self.seat and self.session.ws is not None:
                self.tally.add(VISIT)
            return
        self.actions_here += 1
        moves = self.session.controls(("slider", "select_slider"), in_fragment=None)
        choices = self.session.controls(("selectbox", "radio"), in_fragment=True)
        choices = [w for w in choices if not w.question]
        switches = self.session.controls(("checkbox",), in_fragment=True)
        quiz = [w for w in self.session.controls(("radio",)) if w.question]  # each in its own fragment
        menu = [(moves, "slider", 6), (choices, "select", 2), (switches, "switch", 1), (quiz, "quiz", 1)]
        menu = [(group, kind, weight) for group, kind, weight in menu if group]
        if not menu:
            raise StopUser(f"nothing to do on {self.page}")
        group, kind, _ = self.rng.choices(menu, weights=[w for _, _, w in menu])[0]
        widget = self.rng.choice(group)
        self._timed(kind, self.page, lambda: self._counting(lambda: self.session.act(widget), widget))
