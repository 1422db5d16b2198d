"""The class's database for the app: one engine and one event writer per
server process, through ``st.connection(..., type="sql")``.

Without configuration the database is a SQLite file, ``classroom.sqlite3``
in the data folder (``$CLASSROOM_DATA`` or ``data/`` beside the app), which
the two processes of ``deploy/`` share. With a ``[connections.classroom]``
table in ``.streamlit/secrets.toml`` (``url = "postgresql+psycopg://..."``),
or else a URL in ``$CLASSROOM_DATABASE_URL``, that database is used instead.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import sqlalchemy as sa
import streamlit as st

from course_app.classroom import events, store

CONNECTION = "classroom"  # the secrets table is [connections.classroom]
DATA_DIR = Path(__file__).resolve().parents[2] / "data"


def _configured_url() -> str | None:
    """The URL in secrets, if there is one (the file is optional)."""
    if not st.secrets.load_if_toml_exists():
        return None
    table = st.secrets.get("connections", {}).get(CONNECTION, {})
    return table.get("url") if hasattr(table, "get") else None


def database_url() -> str:
    """The secrets' URL, else $CLASSROOM_DATABASE_URL, else the SQLite file in
    the data folder (created if missing)."""
    url = _configured_url() or os.environ.get("CLASSROOM_DATABASE_URL")
    if url:
        return str(url)
    folder = Path(os.environ.get("CLASSROOM_DATA") or DATA_DIR)
    with contextlib.suppress(OSError):  # then opening the file fails, and the page says so
        folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'classroom.sqlite3'}"


@st.cache_resource(show_spinner=False)
def engine() -> sa.Engine:
    """The process's engine (no connection is made yet: a database that is
    away costs nothing here; see ready)."""
    url = database_url()
    conn = st.connection(CONNECTION, type="sql", url=url, **store.engine_options(url))
    return store.prepare(conn.engine)


_upgraded = threading.Event()
_upgrade_lock = threading.Lock()


def ready() -> sa.Engine:
    """The engine, with the schema brought up to date once per process (raises
    sqlalchemy's errors when the database cannot be reached)."""
    eng = engine()
    _upgrade_once(eng)
    return eng


def _upgrade_once(eng: sa.Engine) -> None:
    if not _upgraded.is_set():
        with _upgrade_lock:
            if not _upgraded.is_set():
                store.upgrade(eng)
                _upgraded.set()


@st.cache_resource(show_spinner=False)
def writer() -> events.Writer:
    """The process's event writer (its thread starts with it). Its writes
    bring the schema up to date first if nothing else has yet."""
    eng = engine()

    def write(batch, dropped):
        _upgrade_once(eng)
        store.write_events(eng, batch, dropped)

    return events.Writer(write)
